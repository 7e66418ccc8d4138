"""The A/A test of the statistics (`cpulab check aa`), judged on made-up runs: which
pairs it compares, what it counts as a false alarm, and when a known change is found."""

from __future__ import annotations

from cpulab.aa_check import judge, pairs_of
from cpulab.measure.metrics import Metric
from cpulab.results import Case, RunRecord, Verdict

B = {"compiler": "gcc-12", "compiler_version": "12", "flags": "-O2", "pgo": False}


def _run(levels: dict[str, float], verdict: str = "confirmed") -> RunRecord:
    """One run whose case `v` has six processes at `levels[v]`, spread 1%."""
    spread = (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)
    cases = [Case(v, B, {}, {"tsc": Metric.of([x * f for f in spread], "ticks/op", "tsc",
                                              range(6))}) for v, x in levels.items()]
    return RunRecord(experiment="e", seed_row="S0", title="t", profile="quick", started="s",
                     duration_s=1.0, machine={}, machine_key="m", lab_revision="r",
                     builds=[B], cases=cases, verdicts=[Verdict("(a) x", verdict, "e")])


def test_pairs_are_every_plain_pair_and_each_plain_against_each_slowed():
    assert pairs_of(3, set()) == [(0, 1), (0, 2), (1, 2)]
    assert pairs_of(4, {2, 3}) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]


def test_unchanged_runs_pass_and_a_changed_case_is_a_false_alarm():
    same = [_run({"a": 100, "b": 50}), _run({"a": 100, "b": 50}), _run({"a": 100, "b": 50})]
    assert all(p.passed and p.changed == 0 for p in judge(same, "tsc"))
    moved = [_run({"a": 100, "b": 50}), _run({"a": 120, "b": 50})]
    (p,) = judge(moved, "tsc")
    assert (p.cases, p.slower, p.faster) == (2, 1, 0) and not p.passed


def test_a_verdict_turning_between_confirmed_and_refuted_fails_the_pair():
    (p,) = judge([_run({"a": 1}), _run({"a": 1}, "refuted")], "tsc")
    assert p.flips == ["(a) x: confirmed -> refuted"] and not p.passed
    (q,) = judge([_run({"a": 1}), _run({"a": 1}, "inconclusive")], "tsc")
    assert q.moved and not q.flips and q.passed  # moved, not flipped: reported, passes


def test_a_known_change_must_be_found_in_most_cases():
    runs = [_run({"a": 100, "b": 50}), _run({"a": 105, "b": 52.5})]
    (p,) = judge(runs, "tsc", slowed={1})
    assert p.slowed and p.slower == 2 and p.passed
    missed = [_run({"a": 100, "b": 50}), _run({"a": 100, "b": 52.5})]
    (m,) = judge(missed, "tsc", slowed={1})
    assert m.slower == 1 and not m.passed  # 1 of 2 found: under 90%


def test_runs_that_do_not_compare_fail_with_the_reason():
    other = _run({"a": 1})
    other.experiment = "f"
    (p,) = judge([_run({"a": 1}), other], "tsc")
    assert p.error and "only runs of one experiment compare" in p.error and not p.passed


def test_the_command_refuses_an_unknown_experiment_and_too_few_runs(capsys):
    from cpulab import cli

    assert cli.main(["check", "aa", "nosuch"]) == 2
    assert "unknown experiment nosuch" in capsys.readouterr().err
    assert cli.main(["check", "aa", "alloc", "--runs", "1"]) == 2


def test_the_command_runs_and_compares_real_runs(capsys):
    """Two quick runs of one build: the report's shape, whatever the timings said."""
    import json

    from cpulab import cli

    rc = cli.main(["check", "aa", "alloc", "--quick", "--runs", "2", "--cc", "gcc",
                   "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc in (0, 3)  # 3: the machine raised a false alarm; a timing, not a test
    assert (out["experiment"], out["profile"], len(out["runs"])) == ("alloc", "quick", 2)
    (pair,) = out["pairs"]
    assert (pair["old"], pair["new"], pair["slowed"]) == (1, 2, False)
    assert pair["cases"] > 0 and pair["passed"] == (rc == 0)
