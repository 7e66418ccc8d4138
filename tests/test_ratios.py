"""What verdicts are made of: ratios between cases and the tally of their intervals."""

from __future__ import annotations

import pytest

from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.results import Case
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio
from cpulab.results.tally import Tally


def _r(low, high):
    return Ratio((low + high) / 2, low, high, 5, 5)


def test_majority_and_every():
    t = Tally()
    for r in (_r(1.1, 1.3), _r(1.05, 1.2), _r(0.9, 1.1)):
        t.add(r)
    assert (t.above, t.below, t.n) == (2, 0, 3)
    assert t.majority() == "confirmed"
    assert t.every() == "inconclusive"
    t.add(_r(0.7, 0.8))
    assert t.every() == "refuted"
    assert t.majority() == "inconclusive"  # 2 of 4 above is not most; 1 below is not half


def test_tally_of_many():
    t = Tally.of([_r(1.3, 1.5), _r(1.1, 1.2), _r(1.26, 1.4)], 1.25)
    assert (t.above, t.below, t.n) == (2, 1, 3)


def test_threshold_other_than_one():
    t = Tally()
    t.add(_r(1.3, 1.5), 1.25)
    t.add(_r(1.1, 1.2), 1.25)
    assert (t.above, t.below) == (1, 1)
    assert t.majority() == "inconclusive"  # a split decides nothing
    assert t.every() == "refuted"
    t.add(_r(1.0, 1.1), 1.25)
    assert t.majority() == "refuted"


def test_a_ratio_without_an_interval_decides_nothing_and_is_counted():
    t = Tally.of([Ratio(2.0, 0.0, float("inf"), 2, 2, "2 processes, 3 needed")] * 3)
    assert (t.above, t.below, t.no_interval) == (0, 0, 3)
    assert t.majority() == "inconclusive" and t.every() == "inconclusive"
    assert Tally().every() == "inconclusive"


def test_cycle_metric_prefers_the_pmu_then_the_tsc():
    def case(*names):
        return Case("v", None, {}, {n: Metric.exact(1.0, "u", "s") for n in names})

    assert cycle_metric(case("cycles", "tsc", "time"), case("cycles", "tsc")) == "cycles"
    assert cycle_metric(case("cycles", "tsc"), case("tsc")) == "tsc"
    assert cycle_metric(case("time"), case("time")) == "time"


def test_median_ratio_pairs_the_processes_of_one_run():
    rounds = (0, 0, 1, 1, 2, 2, 3, 3)
    a = Case("a", None, {}, {"tsc": Metric.of([2.0, 2.0, 2.6, 2.6, 1.8, 1.8, 2.2, 2.2], "t",
                                              "tsc", rounds)})
    b = Case("b", None, {}, {"tsc": Metric.of([1.0, 1.0, 1.3, 1.3, 0.9, 0.9, 1.1, 1.1], "t",
                                              "tsc", rounds)})
    r = median_ratio(a, b, "tsc")
    assert r.value == pytest.approx(2.0)
    assert (r.low, r.high) == pytest.approx((2.0, 2.0))  # every round's ratio is 2
    assert median_ratio(a, b, "cycles") is None
    # The same figures untagged are independent processes: their spread is in the interval.
    untagged = Case("u", None, {}, {"tsc": Metric.of(list(a.metrics["tsc"].values), "t",
                                                     "tsc")})
    wide = median_ratio(untagged, b, "tsc")
    assert wide.low < 1.9 and wide.high > 2.1


def test_median_ratio_of_exact_figures_is_a_point():
    a = Case("a", None, {}, {"n": Metric.exact(12.0, "instructions", "callgrind")})
    b = Case("b", None, {}, {"n": Metric.exact(4.0, "instructions", "callgrind")})
    r = median_ratio(a, b, "n")
    assert (r.value, r.low, r.high) == (3.0, 3.0, 3.0)
    assert format_ratio(r) == "3.000x"
    assert format_ratio(Ratio(3.0, 2.9, 3.1, 5, 5)) == "3.000x [2.900, 3.100]"
