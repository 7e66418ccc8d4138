"""`cpulab compare`: matching cases of two runs, ratios, their direction, the listed
differences, and the JSON a script reads."""

from __future__ import annotations

import copy
import json

import pytest

from cpulab import cli
from cpulab.comparison import ComparisonError, change, compare, differences
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.results import Case, RunRecord
from cpulab.store import Store

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}


def _run(rid, ticks: dict[str, float], unit: str = "ticks/x", metric: str = "tsc",
         **kw) -> RunRecord:
    cases = [Case(v, B, {}, {metric: Metric.of([t, t * 1.01, t * 0.99], unit, "tsc")})
             for v, t in ticks.items()]
    base = dict(experiment="threading", seed_row="S1", title="t", profile="quick",
                started="s", duration_s=1.0,
                machine={"cpu": {"model_name": "A", "microcode": "1"}, "kernel": {}},
                machine_key="m1", lab_revision="r1", builds=[B], cases=cases, verdicts=[],
                id=rid)
    base.update(kw)
    return RunRecord(**base)


def test_ratios_of_matching_cases():
    rows = compare(_run(1, {"direct": 2.0, "switch": 4.0}),
                   _run(2, {"direct": 1.0, "switch": 4.0, "call": 3.0}), "tsc").rows
    by = {r.variant: r for r in rows}
    assert set(by) == {"direct", "switch"}  # `call` has nothing to compare with
    assert by["direct"].ratio.value == pytest.approx(0.5)
    assert by["direct"].ratio.low < 0.5 < by["direct"].ratio.high
    assert by["switch"].ratio.value == pytest.approx(1.0)


def test_a_change_is_read_by_the_metric_direction():
    # Half the ticks is better; half the throughput is worse; the same figure is the same.
    ticks = compare(_run(1, {"a": 2.0, "b": 4.0}), _run(2, {"a": 1.0, "b": 4.0}), "tsc")
    assert not ticks.higher_is_better
    assert [r.change for r in ticks.rows] == ["better", "same"]
    gbs = compare(_run(1, {"a": 2.0, "b": 4.0}, "GB/s (10^9 B/s)", "throughput"),
                  _run(2, {"a": 1.0, "b": 8.0}, "GB/s (10^9 B/s)", "throughput"),
                  "throughput")
    assert gbs.higher_is_better
    assert [r.change for r in gbs.rows] == ["worse", "better"]


@pytest.mark.parametrize("unit, higher", [
    ("GB/s", True), ("GB/s (10^9 B/s)", True), ("instructions/cycle", True),
    ("ns/dispatch", False), ("ticks/byte", False), ("misses/dispatch", False), ("%", False),
])
def test_direction_comes_from_the_unit(unit, higher):
    assert Metric.exact(1.0, unit, "clock").higher_is_better is higher


@pytest.mark.parametrize("r, higher, expected", [
    (Ratio(1.10, 1.05, 1.15, 5, 5), False, "worse"),
    (Ratio(1.10, 1.05, 1.15, 5, 5), True, "better"),
    (Ratio(0.90, 0.85, 0.95, 5, 5), False, "better"),
    (Ratio(1.10, 0.95, 1.25, 5, 5), False, "same"),  # the interval holds 1
    (Ratio(1.02, 1.01, 1.03, 5, 5), True, "same"),  # within run-to-run drift
    (Ratio(1.0, 1.0, 1.0, 1, 1), False, "same"),  # exact and equal
])
def test_change(r, higher, expected):
    assert change(r, higher) == expected


def test_compare_json_gives_numbers_and_the_direction(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        a = s.add(_run(None, {"direct": 2.0}, "GB/s", "throughput"))
        b = s.add(_run(None, {"direct": 3.0}, "GB/s", "throughput"))
    assert cli.main(["compare", str(a), str(b), "--metric", "throughput", "--db", str(db),
                     "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["old"], out["new"], out["metric"], out["better"]) == (a, b, "throughput",
                                                                      "higher")
    (row,) = out["cases"]
    assert row["ratio"] == pytest.approx(1.5)
    assert isinstance(row["low"], float) and isinstance(row["high"], float)
    assert row["low"] < 1.5 < row["high"]
    assert (row["old"], row["new"], row["change"]) == (2.0, 3.0, "better")


def test_other_experiment_or_no_common_case_is_refused():
    with pytest.raises(ComparisonError, match="only runs of one experiment"):
        compare(_run(1, {"direct": 1}), _run(2, {"direct": 1}, experiment="mulpre"), "tsc")
    with pytest.raises(ComparisonError, match="no case"):
        compare(_run(1, {"direct": 1}), _run(2, {"switch": 1}), "tsc")
    with pytest.raises(ComparisonError, match="no case"):
        compare(_run(1, {"direct": 1}), _run(2, {"direct": 1}), "cycles")


def test_differences_are_listed():
    old = _run(1, {"direct": 1})
    assert differences(old, copy.deepcopy(old)) == []
    other_builds = [{**B, "compiler_version": "12.3.0"}]
    new = _run(2, {"direct": 1}, machine_key="m2", profile="default", lab_revision="r2",
               machine={"cpu": {"model_name": "B", "microcode": "2"}, "kernel": {}},
               builds=other_builds)
    d = differences(old, new)
    assert len(d) == 4
    assert d[0].startswith("machine: A (microcode 1") and "vs B (microcode 2" in d[0]
    assert "compiler gcc-12: 12.2.0 vs 12.3.0" in d
    assert "profile: quick vs default" in d and "lab revision: r1 vs r2" in d
