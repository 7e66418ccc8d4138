"""Experiment `dispatch` (S15, S1, S14): verdicts from fake cases, the geometric-mean
ratio, the handlers' machine code (deterministic: no frame in the preserve_none tail-call
handlers), and its quick run end to end, replayed from recorded kernel output (for real
with CPULAB_FULL=1)."""

from __future__ import annotations

import json

import pytest

from cpulab import cli
from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.experiments import get
from cpulab.experiments.dispatch.experiment import handler_code, summary_table
from cpulab.experiments.dispatch.names import PROGRAMS, TECHNIQUES
from cpulab.measure.metrics import Metric
from cpulab.results import VERDICTS, Case, Evidence
from cpulab.results.ratios import geomean_ratio
from cpulab.store import Store
from replay import replay

EXP = get("dispatch")
CLANG = {"compiler": "clang-19", "compiler_version": "19.1", "flags": "-O2", "pgo": False}
GCC = {"compiler": "gcc-12", "compiler_version": "12.2", "flags": "-O2", "pgo": False}
SPREAD = (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)


def _case(variant, build, ticks, sites=1, framed=0, stack=0, handlers=1, program="fib"):
    """A case with TSC ticks per VM instruction spread +-1% and its asm facts."""
    m = {"tsc": Metric.of([ticks * f for f in SPREAD], "ticks/vminsn", "tsc"),
         "indirect-sites": Metric.exact(sites, "sites", "asm"),
         "handlers": Metric.exact(handlers, "functions", "asm"),
         "handlers-with-frame": Metric.exact(framed, "functions", "asm"),
         "stack-insns": Metric.exact(stack, "instructions", "asm")}
    return Case(variant, build, {"program": program}, m,
                {"branch-misses": {"source": "pmu", "reason": "no PMU here"}})


def _all_programs(variant, build, ticks, **kw):
    return [_case(variant, build, ticks, program=p, **kw) for p in PROGRAMS]


def _matrix(times: dict[str, float], build=CLANG) -> list[Case]:
    sites = {"goto-replicated": 53, "tail": 36, "tail-pn": 36}
    return [c for tech, t in times.items()
            for c in _all_programs(tech, build, t, sites=sites.get(tech, 1))]


def _verdicts(cases, evidence=None):
    return {v.claim.split(")")[0] + ")": v for v in EXP.verdicts(cases, evidence or Evidence())}


def _targets(cases):
    """The two benchmark-target verdicts: against switch, against goto-replicated."""
    return [v for v in EXP.verdicts(cases, Evidence()) if v.claim.startswith("(target)")]


FAST_TAIL = {"switch": 3.0, "goto-shared": 2.8, "goto-replicated": 2.5, "call": 4.0,
             "tail": 2.6, "tail-pn": 2.0, "trampoline": 4.2}


def test_tail_calls_fastest_confirmed_with_ratios():
    v = _verdicts(_matrix(FAST_TAIL))
    s15 = v["(S15)"]
    assert s15.verdict == "confirmed", s15.evidence
    # the closest contender named with its ratio; `tail` is not a contender
    assert "clang-19 -O2: tsc 1.250x" in s15.evidence
    assert "against goto-replicated" in s15.evidence
    assert "or tail " not in s15.evidence and "geometric mean over program" in s15.evidence
    assert s15.seed
    vs_switch, vs_replicated = _targets(_matrix(FAST_TAIL))
    assert vs_switch.verdict == "confirmed" and "tsc 1.500x" in vs_switch.evidence
    assert vs_replicated.verdict == "confirmed" and "target 1.05x" in vs_replicated.evidence


def test_tail_calls_beaten_is_refuted():
    times = {**FAST_TAIL, "goto-replicated": 1.8}
    cases = _matrix(times)
    assert _verdicts(cases)["(S15)"].verdict == "refuted"
    targets = _targets(cases)
    assert [t.verdict for t in targets] == ["confirmed", "refuted"]
    assert "tsc 0.900x" in targets[1].evidence


def test_each_build_is_judged_on_its_own():
    """A technique is compared with tail calls of its own build: gcc, which has no
    musttail, adds nothing to judge, however fast its goto-replicated; any clang build
    with tail calls is judged against the targets, -O3 as well as -O2."""
    cases = _matrix(FAST_TAIL) + _matrix({"switch": 2.8, "goto-replicated": 1.9}, GCC)
    v = _verdicts(cases)
    assert v["(S15)"].verdict == "confirmed", v["(S15)"].evidence
    assert "gcc" not in v["(S15)"].evidence
    o3 = {**CLANG, "flags": "-O3"}
    only = _matrix(FAST_TAIL, o3) + _matrix({"switch": 3.0}, GCC)
    assert [t.verdict for t in _targets(only)] == ["confirmed", "confirmed"]
    assert "clang-19 -O3" in _targets(only)[0].evidence
    # a build where tail calls trail one technique refutes, whatever the others show
    slow = _matrix({**FAST_TAIL, "call": 1.9}, o3)
    assert _verdicts(_matrix(FAST_TAIL) + slow)["(S15)"].verdict == "refuted"


def test_target_within_noise_is_inconclusive():
    noisy = [Case(c.variant, c.build, c.params,
                  {**c.metrics, "tsc": Metric.of([v * f for v in (2.4, 2.6)
                                                  for f in (0.8, 1.0, 1.2)],
                                                 "ticks/vminsn", "tsc")}, c.unavailable)
             if c.variant == "switch" else c for c in _matrix(FAST_TAIL)]
    vs_switch, _ = _targets(noisy)
    assert vs_switch.verdict == "inconclusive", vs_switch.evidence


def test_too_few_processes_decide_nothing():
    few = [Case(c.variant, c.build, c.params,
                {**c.metrics, "tsc": Metric.of([c.value("tsc")] * 2, "ticks/vminsn", "tsc",
                                               (0, 1))}) for c in _matrix(FAST_TAIL)]
    s15 = _verdicts(few)["(S15)"]
    assert s15.verdict == "inconclusive" and "too few processes" in s15.evidence


def test_no_tail_calls_is_unmeasurable():
    v = _verdicts(_matrix({"switch": 3.0, "goto-replicated": 2.5}, GCC))
    assert v["(S15)"].verdict == "unmeasurable"
    assert v["(S14/S15)"].verdict == "unmeasurable"
    assert "no case of tail-pn has stack-insns" in v["(S14/S15)"].evidence
    assert [t.verdict for t in _targets([])] == ["unmeasurable"] * 2


def test_failed_tail_build_is_unmeasurable_with_its_reason():
    failed = [Case("tail-pn", CLANG, {"program": p}, error="build failed: no preserve_none")
              for p in PROGRAMS]
    v = _verdicts(_matrix({"switch": 3.0}) + failed)
    assert v["(S15)"].verdict == "unmeasurable"
    assert "no preserve_none" in v["(S15)"].evidence
    assert "no preserve_none" in v["(S14/S15)"].evidence


def test_handlers_without_frame_confirmed_and_framed_refuted():
    cases = (_all_programs("tail-pn", CLANG, 2.0, handlers=33)
             + _all_programs("tail", CLANG, 2.2, framed=23, stack=67, handlers=33))
    s14 = _verdicts(cases)["(S14/S15)"]
    assert s14.verdict == "confirmed", s14.evidence
    assert "stack-insns of tail-pn at most 0 in 5 of 5" in s14.evidence
    framed = _all_programs("tail-pn", CLANG, 2.0, framed=2, stack=4, handlers=33)
    s14 = _verdicts(framed)["(S14/S15)"]
    assert s14.verdict == "refuted" and "4 instructions" in s14.evidence


def test_replicated_beats_shared():
    cases = _matrix({"goto-shared": 2.8, "goto-replicated": 2.5})
    s1 = _verdicts(cases)["(S1)"]
    assert s1.verdict == "confirmed" and "tsc 1.120x" in s1.evidence
    slower = _matrix({"goto-shared": 2.0, "goto-replicated": 2.5})
    assert _verdicts(slower)["(S1)"].verdict == "refuted"
    # most builds: one build each way decides nothing
    split = _matrix({"goto-shared": 2.8, "goto-replicated": 2.5}) + _matrix(
        {"goto-shared": 2.0, "goto-replicated": 2.5}, GCC)
    assert _verdicts(split)["(S1)"].verdict == "inconclusive"


def test_folded_replicated_build_is_not_compared():
    """clang without tail-duplication flags folds the copies into one jump: not S1's pair."""
    cases = (_all_programs("goto-shared", CLANG, 2.8, sites=1)
             + _all_programs("goto-replicated", CLANG, 2.5, sites=1))
    s1 = _verdicts(cases)["(S1)"]
    assert s1.verdict == "unmeasurable", s1.evidence
    assert "goto-replicated's indirect-sites >= 2 (1)" in s1.evidence
    # the folded build is listed beside a build that is compared
    both = cases + _all_programs("goto-shared", GCC, 2.8) + _all_programs(
        "goto-replicated", GCC, 2.5, sites=40)
    s1 = _verdicts(both)["(S1)"]
    assert s1.verdict == "confirmed" and "not compared, a precondition fails" in s1.evidence


def test_geomean_ratio_exact_and_deterministic():
    pairs = [(Metric.exact(a, "t", "tsc"), Metric.exact(b, "t", "tsc"))
             for a, b in ((4.0, 2.0), (1.0, 2.0), (9.0, 1.0))]
    r = geomean_ratio(pairs)
    assert r.value == pytest.approx((2 * 0.5 * 9) ** (1 / 3))
    assert r.low == r.high == pytest.approx(r.value)
    spread = [(Metric.of([3 * f for f in SPREAD], "t", "tsc"),
               Metric.of([2 * f for f in SPREAD], "t", "tsc"))] * 3
    a, b = geomean_ratio(spread), geomean_ratio(spread)
    assert a == b and a.low < 1.5 < a.high and a.value == pytest.approx(1.5)


def test_summary_table_rows():
    cases = _matrix({"switch": 3.0, "tail-pn": 2.0})
    for c in cases:
        c.metrics["time"] = Metric.exact(c.value("tsc") / 2, "ns/vminsn", "clock")
    t = summary_table(cases)
    assert [r[:2] for r in t.rows] == [["switch", "clang-19 -O2"], ["tail-pn", "clang-19 -O2"]]
    assert t.rows[1][3] == "0.667" and t.rows[1][2] == "1"
    assert t.rows[1][5] == "n/a"  # no model figure: n/a, never 0


# ---- machine code --------------------------------------------------------------------------


def _binary(tech: str, cc: str):
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    return build_one(EXP.target(tech), BuildConfig(tc, "O2"))


def test_tail_pn_handlers_have_no_frame():
    """S14/S15's claim, deterministic: every preserve_none handler is frameless and ends in
    a dispatch; with the C convention some handlers save registers."""
    pn = handler_code(_binary("tail-pn", "clang"), EXP.hot_symbols("tail-pn"))
    assert isinstance(pn, dict), pn
    assert pn["handlers"].median >= 30 and pn["handlers"].source == "asm"
    assert pn["handlers-with-frame"].median == 0 and pn["stack-insns"].median == 0
    assert pn["indirect-sites"].median >= pn["handlers"].median - 1
    c = handler_code(_binary("tail", "clang"), EXP.hot_symbols("tail"))
    assert isinstance(c, dict) and c["handlers-with-frame"].median > 0


def test_dispatch_sites_per_compiler():
    """One shared jump in goto-shared; goto-replicated keeps its copies with both compilers
    (clang through the target's clang-only tail-duplication flags)."""
    for cc in ("gcc", "clang"):
        shared = handler_code(_binary("goto-shared", cc), EXP.hot_symbols("goto-shared"))
        repl = handler_code(_binary("goto-replicated", cc), EXP.hot_symbols("goto-replicated"))
        assert isinstance(shared, dict) and isinstance(repl, dict)
        assert shared["indirect-sites"].median == 1, cc
        assert repl["indirect-sites"].median >= 30, cc
    assert "no function matching" in handler_code(_binary("switch", "gcc"), ["vm_op_*"])


def test_unknown_technique_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown technique 'jit'"):
        EXP.target("jit")


# ---- end to end ---------------------------------------------------------------------------
# The quick run replays kernel output that `scripts/record-kernel-output dispatch` recorded
# (tests/data/replay/dispatch.json): builds, asm facts and dispatch traces are this
# machine's, the timings and callgrind counts the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert (run["experiment"], run["status"]) == ("dispatch", "complete")
    builds = {b["compiler"].split("-")[0] for b in run["builds"]}
    assert builds == {"gcc", "clang"}
    want = {(t, cc, p) for cc in builds for t in TECHNIQUES for p in PROGRAMS
            if cc == "clang" or t not in ("tail", "tail-pn")}
    got = {(c["variant"], c["build"]["compiler"].split("-")[0], c["params"]["program"])
           for c in run["cases"]}
    assert got == want and len(run["cases"]) == len(want)
    sources = {"time": "clock", "tsc": "tsc", "instructions (callgrind)": "callgrind",
               "indirect-miss-rate (model)": "model", "miss-rate last-target (model)": "model",
               "miss-rate ittage (model)": "model", "indirect-sites": "asm",
               "handlers-with-frame": "asm", "stack-insns": "asm"}
    for c in run["cases"]:
        assert "error" not in c, c
        for name, source in sources.items():
            m = c["metrics"][name]
            assert m["source"] == source and m["unit"] and m["median"] >= 0, (name, m)
        assert 3 < c["metrics"]["instructions (callgrind)"]["median"] < 80
        for counter in ("cycles", "branch-misses"):  # PMU or a reason, never both
            assert (counter in c["metrics"]) != (counter in c["unavailable"])
        if c["variant"] == "tail-pn":
            assert c["metrics"]["handlers-with-frame"]["median"] == 0
    verdicts = run["verdicts"]
    assert [v["claim"].split(")")[0] for v in verdicts] == [
        "(S15", "(target", "(target", "(S14/S15", "(S1"]
    assert all(v["verdict"] in VERDICTS and v["evidence"] for v in verdicts)
    # deterministic from the machine code, so computed and confirmed on every machine
    assert verdicts[3]["verdict"] == "confirmed"
    assert all(v["verdict"] != "unmeasurable" for v in verdicts)
    (table,) = run["evidence"]["tables"]
    assert len(table["rows"]) == len(TECHNIQUES) * 2 - 2


def test_quick_run_replayed():
    rec, runner = replay(EXP)
    check_quick_run(rec.as_dict())
    # the timed runs, callgrind's and the traces': every binary, every program
    assert sum(c[0] == "valgrind" for c in runner.calls) == 2 * len(rec.cases)
    assert sum("--trace" in c for c in runner.calls) == len(TECHNIQUES) * len(PROGRAMS)


@pytest.mark.full
def test_run_dispatch_quick_json(results_db, capsys):
    rc = cli.main(["run", "dispatch", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
    with Store(results_db) as s:
        assert [r["id"] for r in s.runs()] == [run["id"]]
