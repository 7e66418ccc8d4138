"""`--fail-on-regression [PCT]` means the same in `cpulab run` and `cpulab compare`:
without PCT, any case called slower than its baseline fails (status 3); with PCT, only
a case called slower by more than PCT percent. `compare` used to require the PCT."""

from __future__ import annotations

import pytest

from cpulab import cli
from cpulab.commands.regression import REGRESSION_STATUS, regressions
from cpulab.measure.metrics import Metric
from cpulab.results import Case, RunRecord, Verdict
from cpulab.store import Store


def _record(time: float, started: str, refuted: bool = False) -> RunRecord:
    # Six runs each side apart by 10%: the U test and the interval both call it.
    figures = [time * (1 + d) for d in (-0.01, -0.005, 0.0, 0.002, 0.005, 0.01)]
    return RunRecord(
        experiment="cmd", seed_row="own", title="t", profile="quick", started=started,
        duration_s=1.0, machine={"cpu": {"model_name": "A"}}, machine_key="m1",
        lab_revision="r1", builds=[], verdicts=[Verdict("c", "refuted", "e")] if refuted
        else [], cases=[Case("make", None, {}, {"time": Metric.of(figures, "ns/run",
                                                                   "clock")})])


@pytest.mark.parametrize("argv", [["run", "--cmd", "true"], ["compare", "1", "2"]])
def test_both_commands_take_the_flag_with_or_without_a_percentage(argv):
    p = cli.parser()
    assert p.parse_args(argv).fail_on_regression is False
    assert p.parse_args([*argv, "--fail-on-regression"]).fail_on_regression is None
    assert p.parse_args([*argv, "--fail-on-regression", "5"]).fail_on_regression == 5.0
    assert p.parse_args([*argv, "--fail-on-regression", "7.5%"]).fail_on_regression == 7.5


def test_both_helps_say_the_same(capsys):
    helps = []
    for command in ("run", "compare"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        helps.append(text[text.index("--fail-on-regression [PCT] "):].split(" (for CI)")[0])
    for h in helps:
        assert "exit with status 3 when a case is called slower than" in h
        assert "or with PCT slower by more than PCT percent" in h


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as s:
        s.add(_record(100.0, "2026-11-23T10:00:00+00:00"))
        s.add(_record(110.0, "2026-11-23T11:00:00+00:00"))  # 10% slower
    return str(path)


def test_compare_fails_on_any_slower_case_or_beyond_pct(db, capsys):
    def compare(old, new, *flag):
        return cli.main(["compare", old, new, "--metric", "time", "--db", db, *flag])

    assert compare("1", "2", "--fail-on-regression") == REGRESSION_STATUS
    assert "1 case(s) called slower than the baseline" in capsys.readouterr().err
    assert compare("1", "2", "--fail-on-regression", "5") == REGRESSION_STATUS
    assert "1 case(s) more than 5% slower than the baseline" in capsys.readouterr().err
    assert compare("1", "2", "--fail-on-regression", "20") == 0
    assert compare("2", "1", "--fail-on-regression") == 0  # faster
    assert compare("1", "2") == 0  # no flag, no failure


def test_run_fails_on_any_slower_case_or_beyond_pct(db):
    with Store(db) as store:
        new = store.get(2)
        (line,) = regressions(store, new, ("time",), None)
        assert line.startswith("cmd: make") and line.endswith("of run #1 (called slower)")
        assert len(regressions(store, new, ("time",), 5.0)) == 1
        assert regressions(store, new, ("time",), 20.0) == []
        refuted = _record(100.0, "2026-11-23T12:00:00+00:00", refuted=True)
        store.add(refuted)
        # as fast as the run before it, but a claim is refuted
        assert regressions(store, refuted, ("time",), None) == ["cmd: claim refuted: c"]

