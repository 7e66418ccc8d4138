"""Experiment `threading` (S1): verdicts from fake cases, reliability under failing
kernels (a scripted runner), and its quick run end to end, replayed from recorded kernel
output (for real with CPULAB_FULL=1)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from cpulab import cli
from cpulab.experiments import get
from cpulab.lab import Selection, run_experiment
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import RunResult
from cpulab.results import Case, Evidence
from cpulab.store import Store
from replay import replay

EXP = get("threading")
TECHNIQUES = ["direct", "indirect", "switch", "repl-switch", "call", "subroutine"]


def _build(cc="gcc-12", opt="O2", pgo=False) -> dict:
    return {"compiler": cc, "compiler_version": "x", "flags": f"-{opt}", "pgo": pgo}


def _case(variant, build, ticks, sites, misses=None, model_rate=None) -> Case:
    m = {"tsc": Metric.of([ticks * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)],
                          "ticks/dispatch", "tsc"),
         "indirect-sites": Metric.exact(sites, "sites", "asm")}
    unavailable = {}
    if misses is None:
        unavailable["branch-misses"] = {"source": "pmu", "reason": "no PMU here"}
    else:
        m["branch-misses"] = Metric.of([misses] * 3, "misses/dispatch", "pmu")
    if model_rate is not None:
        m["indirect-miss-rate (model)"] = Metric.exact(model_rate, "%", "model")
    return Case(variant, build, {}, m, unavailable)


def _verdicts(cases):
    return {v.claim[:3]: v for v in EXP.verdicts(cases, Evidence())}


def test_replicated_faster_is_confirmed():
    b = _build()
    v = _verdicts([_case("switch", b, 2.3, 1), _case("repl-switch", b, 1.1, 7)])["(a)"]
    assert v.verdict == "confirmed"
    assert "2.09" in v.evidence and v.seed


def test_replicated_slower_is_refuted():
    b = _build()
    v = _verdicts([_case("switch", b, 1.0, 1), _case("repl-switch", b, 1.5, 7)])["(a)"]
    assert v.verdict == "refuted"


def test_builds_that_did_not_replicate_are_not_compared():
    b = _build()
    v = _verdicts([_case("switch", b, 2.0, 1), _case("repl-switch", b, 1.0, 1)])["(a)"]
    assert v.verdict == "unmeasurable"
    assert "precondition fails: gcc-12 -O2 (repl-switch's indirect-sites >= 2 (1))" in v.evidence


def test_replicated_faster_in_one_build_of_two_decides_nothing():
    faster = [_case("switch", _build(), 2.3, 1), _case("repl-switch", _build(), 1.1, 7)]
    slower = [_case("switch", _build("clang-19"), 1.0, 1),
              _case("repl-switch", _build("clang-19"), 1.5, 7)]
    v = _verdicts(faster + slower)["(a)"]
    assert v.verdict == "inconclusive" and "reached in 1 of 2, short in 1" in v.evidence


def test_pgo_little_change_confirmed_and_large_refuted():
    plain, pgo = _build(opt="O1"), _build(opt="O1", pgo=True)
    near = [_case("direct", plain, 1.20, 7), _case("direct", pgo, 1.18, 7)]
    v = _verdicts(near)["(b)"]
    assert v.verdict == "confirmed"
    assert "geometric mean over technique" in v.evidence and "gcc-12 -O1:" in v.evidence
    far = [_case("direct", plain, 1.2, 7), _case("direct", pgo, 2.4, 7)]
    assert _verdicts(far)["(b)"].verdict == "refuted"
    assert _verdicts([_case("direct", plain, 1.2, 7)])["(b)"].verdict == "unmeasurable"


def test_pgo_is_judged_per_build_over_the_techniques():
    plain, pgo = _build(opt="O1"), _build(opt="O1", pgo=True)
    # one technique 2x slower, one 2x faster: the geometric mean changes nothing
    mixed = [_case("direct", plain, 1.0, 7), _case("direct", pgo, 2.0, 7),
             _case("switch", plain, 2.0, 1), _case("switch", pgo, 1.0, 1)]
    assert _verdicts(mixed)["(b)"].verdict == "confirmed"
    # a second compiler whose profile-guided build is 2x slower: refuted ("every")
    cplain, cpgo = _build("clang-19", "O1"), _build("clang-19", "O1", pgo=True)
    v = _verdicts(mixed + [_case("direct", cplain, 1.0, 7), _case("direct", cpgo, 2.0, 7)])
    assert v["(b)"].verdict == "refuted" and "inside in 1 of 2" in v["(b)"].evidence
    # a level without a profile-guided build is not compared
    assert "-O2" not in _verdicts(mixed + [_case("direct", _build(opt="O2"), 1.0, 7)])[
        "(b)"].evidence


def test_prediction_claim_needs_the_pmu():
    b = _build(opt="O1")
    v = _verdicts([_case("switch", b, 1.2, 1, model_rate=100.0)])["(c)"]
    assert v.verdict == "unmeasurable"
    assert "branch-misses unavailable (pmu): no PMU here" in v.evidence
    good = _verdicts([_case("switch", b, 1.2, 1, misses=0.0001)])["(c)"]
    assert good.verdict == "confirmed" and good.seed
    bad = _verdicts([_case("switch", b, 1.2, 1, misses=0.06)])["(c)"]
    assert bad.verdict == "refuted"


def test_prediction_is_judged_only_where_the_switch_shares_one_jump():
    shared = _case("switch", _build(opt="O1"), 1.2, 1, misses=0.0001)
    replicated = _case("switch", _build(opt="O3"), 1.2, 4, misses=0.06)
    v = _verdicts([shared, replicated])["(c)"]
    assert v.verdict == "confirmed" and "in 1 of 1" in v.evidence
    assert "precondition fails: gcc-12 -O3 (switch's indirect-sites == 1 (4))" in v.evidence
    assert _verdicts([replicated])["(c)"].verdict == "unmeasurable"


# ---- reliability: a scripted runner stands in for the kernels -------------------------

META = {"type": "meta", "schema": 1, "counters": {
    "cycles": {"available": False, "source": "pmu", "reason": "no PMU (scripted)"},
    "task-clock": {"available": True, "source": "sw", "unit": "ns"}}}


def _harness_output(technique: str, ns: float) -> str:
    lines = [json.dumps(META)]
    for rep in range(3):
        lines.append(json.dumps({"type": "rep", "case": technique, "rep": rep, "iters": 100,
                                 "units": 1000, "unit": "dispatch", "ns": ns * 1000,
                                 "tsc": 2.6 * ns * 1000, "counters": {"task-clock": 1}}))
    return "\n".join(lines) + "\n"


class ScriptedRunner:
    """switch crashes, call hangs, indirect prints garbage; valgrind is 'missing' output."""

    def run(self, argv: Sequence[str], timeout: float, env=None, cwd=None) -> RunResult:
        if argv[0] == "valgrind":
            return RunResult(tuple(argv), 1, "", "valgrind: scripted failure")
        technique = argv[0].rsplit("threading-", 1)[1]
        if technique == "switch":
            return RunResult(tuple(argv), -11, "", "")
        if technique == "call":
            return RunResult(tuple(argv), -9, "", "", timed_out=True)
        if technique == "indirect":
            return RunResult(tuple(argv), 0, "{not json\n", "")
        return RunResult(tuple(argv), 0, _harness_output(technique, 1.0), "")


def test_failing_kernels_become_failed_cases_and_the_rest_is_kept(tmp_path):
    rec = run_experiment(EXP, "quick", Selection(["gcc"], ["O1"], pgo=False),
                         runner=ScriptedRunner())
    assert rec.status == "complete"
    by = {c.variant: c for c in rec.cases}
    assert set(by) == set(TECHNIQUES)
    assert by["switch"].error == "killed by SIGSEGV"
    assert by["call"].error == "timed out"
    assert by["indirect"].error.startswith("malformed output")
    ok = by["direct"]
    assert ok.error is None and ok.value("time") == pytest.approx(1.0)
    assert ok.unavailable["cycles"]["reason"] == "no PMU (scripted)"
    assert "cycles" not in ok.metrics  # absent, never 0
    assert "scripted failure" in ok.unavailable["callgrind"]["reason"]
    assert ok.value("indirect-sites") is not None  # the asm is real
    assert len(rec.verdicts) == 3
    with Store(tmp_path / "r.db") as s:
        rid = s.add(rec)
        assert s.get(rid).cases[1].error == rec.cases[1].error


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output threading` recorded
# (tests/data/replay/threading.json): the 48 builds (PGO included) and their asm are this
# machine's, the timings and callgrind counts the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert (run["experiment"], run["seed_row"], run["status"]) == ("threading", "S1", "complete")
    builds = {(b["compiler"].split("-")[0], b["flags"], b["pgo"]) for b in run["builds"]}
    assert builds == {(cc, f"-O{o}", False) for cc in ("gcc", "clang") for o in (1, 2, 3)} | {
        (cc, "-O1", True) for cc in ("gcc", "clang")}
    assert len(run["cases"]) == len(TECHNIQUES) * len(builds)
    for c in run["cases"]:
        assert "error" not in c, c
        assert c["variant"] in TECHNIQUES
        for name in ("time", "tsc", "instructions (callgrind)", "indirect-sites"):
            m = c["metrics"][name]
            assert m["median"] >= 0 and m["unit"] and m["source"] and m["n"] >= 1
        for counter in ("cycles", "branch-misses"):  # PMU or a reason, never both
            assert (counter in c["metrics"]) != (counter in c["unavailable"])
    verdicts = [v["verdict"] for v in run["verdicts"]]
    assert len(verdicts) == 3
    assert all(v in ("confirmed", "refuted", "inconclusive", "unmeasurable") for v in verdicts)
    assert all(v["evidence"] for v in run["verdicts"])
    (model,) = run["evidence"]["tables"]
    assert [r[:2] for r in model["rows"]][::2] == [["one shared jump", "last-target 4096x4"],
                                                  ["one jump per handler",
                                                   "last-target 4096x4"]]


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_run_threading_quick_json(results_db, capsys):
    rc = cli.main(["run", "threading", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
    with Store(results_db) as s:
        assert [r["id"] for r in s.runs()] == [run["id"]]
