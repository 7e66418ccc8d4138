"""Experiment `overflow` (S3): verdicts from fake cases, and its quick run end to end
(builds, every check x loop measured, the `div` counts), replayed from recorded kernel
output (for real with CPULAB_FULL=1)."""

from __future__ import annotations

import json

import pytest

from cpulab import cli
from cpulab.asm import find_functions
from cpulab.build import BuildConfig, build_one
from cpulab.experiments import get
from cpulab.measure.metrics import Metric
from cpulab.results import Case, Evidence
from replay import replay

EXP = get("overflow")
CHECKS = ["div_forced", "div", "mul_first_forced", "mul_first", "builtin", "u128"]
LOOPS = ["lat", "tput", "alloc"]


def _build(cc="gcc-12") -> dict:
    return {"compiler": cc, "compiler_version": "x", "flags": "-O2", "pgo": False}


def _case(check, loop, ticks, divs, cc="gcc-12") -> Case:
    m = {"tsc": Metric.of([ticks * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)],
                          "ticks/check", "tsc"),
         "div-instructions": Metric.exact(divs, "instructions", "asm")}
    return Case(check, _build(cc), {"loop": loop}, m)


def _all(ticks: dict[tuple[str, str], float], divs: dict[str, int], cc="gcc-12"):
    return [_case(c, lp, ticks.get((c, lp), 10.0), divs.get(c, 0), cc)
            for lp in LOOPS for c in CHECKS]


def _verdicts(cases, evidence=None):
    return {v.claim[:3]: v for v in EXP.verdicts(cases, evidence or Evidence())}


def test_division_rewritten_by_the_compiler_is_refuted():
    v = _verdicts(_all({}, {"div_forced": 1, "mul_first_forced": 1}))["(a)"]
    assert v.verdict == "refuted"
    assert "div-instructions of div at least 1 in 0 of 3" in v.evidence and v.seed


def test_division_kept_is_confirmed_and_one_compiler_rewriting_it_refutes():
    kept = _all({}, {"div": 1, "div_forced": 1})
    assert _verdicts(kept)["(a)"].verdict == "confirmed"
    # "with these compilers": one that leaves no `div` refutes (the hand rule called a
    # mixed run inconclusive).
    mixed = kept + _all({}, {"div_forced": 1}, cc="clang-19")
    v = _verdicts(mixed)["(a)"]
    assert v.verdict == "refuted" and "in 3 of 6" in v.evidence
    assert "clang-19 -O2, loop=lat: 0 instructions" in v.evidence
    assert _verdicts([])["(a)"].verdict == "unmeasurable"


def test_unreadable_machine_code_is_unmeasurable_with_its_reason():
    cases = _all({}, {"div": 1})
    for c in cases:
        del c.metrics["div-instructions"]
        c.unavailable["div-instructions"] = {"source": "asm", "reason": "objdump missing"}
    v = _verdicts(cases)["(a)"]
    assert v.verdict == "unmeasurable" and "objdump missing" in v.evidence


def test_mul_first_faster_in_allocation_confirmed():
    cases = _all({("div_forced", "alloc"): 120.0, ("mul_first_forced", "alloc"): 100.0}, {})
    v = _verdicts(cases)["(b)"]
    assert v.verdict == "confirmed"
    assert "1.200x" in v.evidence and "0.4709" in v.seed
    assert "loop=alloc" in v.evidence and "loop=tput" not in v.evidence


def test_mul_first_without_gain_refuted():
    # a gain under 2% is no gain (NO_GAIN): an interval wholly below 1.02 refutes
    cases = _all({("div_forced", "alloc"): 100.0, ("mul_first_forced", "alloc"): 100.0}, {})
    assert _verdicts(cases)["(b)"].verdict == "refuted"
    slower = _all({("div_forced", "alloc"): 90.0, ("mul_first_forced", "alloc"): 100.0}, {})
    assert _verdicts(slower)["(b)"].verdict == "refuted"


def test_a_split_between_builds_decides_nothing():
    gcc = _all({("div_forced", "alloc"): 120.0, ("mul_first_forced", "alloc"): 100.0}, {})
    clang = _all({}, {}, cc="clang-19")
    assert _verdicts(gcc + clang)["(b)"].verdict == "inconclusive"


def test_too_few_processes_decide_nothing():
    cases = _all({("div_forced", "alloc"): 120.0, ("mul_first_forced", "alloc"): 100.0}, {})
    for c in cases:  # every figure of one process: no interval
        c.metrics["tsc"] = Metric.of(list(c.metrics["tsc"].values[:2]), "ticks/check", "tsc",
                                     (0, 1))
    v = _verdicts(cases)["(b)"]
    assert v.verdict == "inconclusive" and "no interval" in v.evidence


def test_division_cost_on_this_cpu():
    costly = _all({("div_forced", "tput"): 13.0, ("builtin", "tput"): 6.0}, {})
    v = _verdicts(costly)["(c)"]
    assert v.verdict == "confirmed" and "2.167x" in v.evidence and "loop=tput" in v.evidence
    free = _all({("div_forced", "tput"): 5.0, ("builtin", "tput"): 6.0}, {})
    assert _verdicts(free)["(c)"].verdict == "refuted"
    no_builtin = [c for c in costly if c.variant != "builtin"]
    assert _verdicts(no_builtin)["(c)"].verdict == "unmeasurable"


def test_failed_cases_are_left_out():
    cases = _all({("div_forced", "tput"): 13.0, ("builtin", "tput"): 6.0}, {})
    for c in cases:
        if c.variant == "builtin":
            c.error = "exit status 1"
    assert _verdicts(cases)["(c)"].verdict == "unmeasurable"


def test_hot_symbols_name_functions_the_build_has(gcc):
    """`cpulab asm overflow V` reads the functions hot_symbols names: each check's must
    be in the binary its target builds, and be that check's alone."""
    targets = EXP.targets()
    assert set(targets) == set(CHECKS)
    for check in CHECKS:
        binary = build_one(targets[check], BuildConfig(gcc, "O2"))
        names = {f.name for f in find_functions(binary, EXP.hot_symbols(check))}
        assert f"size_check_{check}" in names
        assert all(n.startswith(f"size_check_{check}") for n in names)


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output overflow` recorded
# (tests/data/replay/overflow.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert run["status"] == "complete"
    builds = {(b["compiler"], b["flags"]) for b in run["builds"]}
    assert len(builds) == len({b for b, _ in builds}) >= 1
    seen = {(c["variant"], c["params"]["loop"], c["build"]["compiler"]) for c in run["cases"]
            if not c.get("error")}
    for cc, _ in builds:
        assert {(v, lp, cc) for v in CHECKS for lp in LOOPS} <= seen
    for c in run["cases"]:
        assert c["metrics"]["time"]["source"] == "clock"
        divs = c["metrics"]["div-instructions"]
        assert divs["source"] == "asm"
        # the forced forms keep a real division; the builtin and 128-bit forms have none
        if c["variant"] in ("div_forced", "mul_first_forced"):
            assert divs["median"] >= 1
        if c["variant"] in ("builtin", "u128"):
            assert divs["median"] == 0
        assert "cycles" not in c["metrics"] or c["metrics"]["cycles"]["source"] == "pmu"
    assert [v["claim"][:3] for v in run["verdicts"]] == ["(a)", "(b)", "(c)"]
    assert all(v["verdict"] != "unmeasurable" for v in run["verdicts"])
    listing = run["evidence"]["tables"][0]["rows"]
    assert {r[1] for r in listing} == {"size_check_div", "size_check_div_forced",
                                       "size_check_mul_first"}


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_end_to_end_quick(results_db, capsys):
    rc = cli.main(["run", "overflow", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
