"""`cpulab compare`: matching cases of two runs, ratios, and the listed differences."""

from __future__ import annotations

import copy

import pytest

from cpulab.comparison import ComparisonError, compare, differences
from cpulab.measure.metrics import Metric
from cpulab.results import Case, RunRecord

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}


def _run(rid, ticks: dict[str, float], **kw) -> RunRecord:
    cases = [Case(v, B, {}, {"tsc": Metric.of([t, t * 1.01, t * 0.99], "ticks/x", "tsc")})
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
                   _run(2, {"direct": 1.0, "switch": 4.0, "call": 3.0}), "tsc")
    by = {r.variant: r for r in rows}
    assert set(by) == {"direct", "switch"}  # `call` has nothing to compare with
    assert by["direct"].value == pytest.approx(0.5)
    assert by["switch"].value == pytest.approx(1.0)
    assert by["direct"].ratio.startswith("0.500x [")


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
