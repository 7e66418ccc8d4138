"""`cpulab history`: runs of one machine in order, change points where a run differs
from the previous one beyond noise, other machines and profiles kept apart."""

from __future__ import annotations

import json

import pytest

from cpulab import cli
from cpulab.history import history
from cpulab.measure.metrics import Metric
from cpulab.results import Case, RunRecord
from cpulab.store import Store

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}


def _six(t: float) -> Metric:
    return Metric.of([t * f for f in (1.0, 1.01, 0.99, 1.02, 0.98, 1.005)], "ns/x", "clock")


def _run(n: int, a: float, b: float, **kw) -> RunRecord:
    base = dict(experiment="divide", seed_row="S4", title="t", profile="quick",
                started=f"2026-11-2{n}T10:00:00+00:00", duration_s=1.0,
                machine={"cpu": {"model_name": "CPU X"}}, machine_key="k1",
                lab_revision=f"rev{n}", builds=[B],
                cases=[Case("a", B, {}, {"time": _six(a)}), Case("b", B, {}, {"time": _six(b)})],
                verdicts=[])
    base.update(kw)
    return RunRecord(**base)


def test_change_points_are_runs_that_differ_beyond_noise():
    runs = [_run(1, 10, 5), _run(2, 10.1, 5), _run(3, 15, 5), _run(4, 15, 4)]
    for i, r in enumerate(runs):
        r.id = i + 1
    h = history(runs, "time")
    assert [s.lab_revision for s in h.steps] == ["rev1", "rev2", "rev3", "rev4"]
    assert [(s.faster, s.slower) for s in h.steps] == [(0, 0), (0, 0), (0, 1), (1, 0)]
    assert h.steps[0].geomean is None
    assert h.steps[2].geomean.value == pytest.approx((15 / 10.1) ** 0.5)
    assert [(s.variant, p.run, p.change) for s, p in h.change_points()] == [
        ("a", 3, "slower"), ("b", 4, "faster")]


def test_other_profiles_are_left_out_and_named():
    runs = [_run(1, 10, 5), _run(2, 20, 5, profile="default"), _run(3, 10, 5)]
    runs[1].id = 2
    h = history(runs, "time")
    assert len(h.steps) == 2 and h.left_out == ["run #2 (default profile)"]


def test_cli_history_of_one_machine(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        for r in (_run(1, 10, 5), _run(2, 15, 5), _run(3, 15, 5)):
            s.add(r)
        s.add(_run(4, 99, 99, origin="host-b"))  # same fingerprint, another host
    assert cli.main(["history", "divide", "--metric", "time", "--machine", "k1",
                     "--db", str(db), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["lab_revision"] for r in out["runs"]] == ["rev4"]  # the newest's machine
    assert cli.main(["history", "divide", "--metric", "time", "--db", str(db)]) == 0
    assert "host-b" in capsys.readouterr().out
    with Store(db) as s:
        s.add(_run(5, 15, 5))
    assert cli.main(["history", "divide", "--metric", "time", "--db", str(db), "--case",
                     "a"]) == 0
    text = capsys.readouterr().out
    assert "run #2 (rev2): a gcc-12 -O2 slower" in text
    assert "rev3" in text and "rev4" not in text
    assert cli.main(["history", "nothing", "--db", str(db)]) == 2
    assert cli.main(["history", "divide", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["metric"] == "time"  # divide's leading figure
    assert cli.main(["history", "divide", "--metric", "cycles", "--db", str(db)]) == 2
    assert "give --metric with one they have: time" in capsys.readouterr().err


def test_an_unknown_metric_is_refused_with_the_metrics_the_runs_have(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        for n in (1, 2):
            s.add(_run(n, 10, 5, cases=[Case("a", B, {}, {"time": _six(10), "tsc": _six(30)})]))
    assert cli.main(["history", "divide", "--metric", "nosuch", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no run of divide has the metric `nosuch`" in err
    assert "give --metric with one they have: time, tsc" in err
