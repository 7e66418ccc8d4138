"""Pure statistics over processes: medians, scaled MADs, ratios paired by round or
compared by Welch's t, geometric means, the correction for many cases, slopes."""

from __future__ import annotations

import math

import pytest

from cpulab.measure.stats import (
    MIN_PROCESSES,
    Ratio,
    Sample,
    adjusted_p,
    difference,
    geomean,
    geomean_difference,
    geomean_ratio,
    loglog_slope,
    ratio,
    ratio_to,
    relative_halfwidth,
    summarize,
)


def test_summarize_median_and_scaled_mad():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.median == 3.0
    # MAD = median(|x - 3|) = median(2, 1, 0, 1, 97) = 1, scaled by 1.4826 for normal data
    assert s.mad == pytest.approx(1.4826, rel=1e-4)
    assert (s.min, s.max, s.n) == (1.0, 100.0, 5)


def test_summarize_one_value_has_no_spread():
    s = summarize([7.5])
    assert (s.median, s.mad, s.n) == (7.5, 0.0, 1)
    with pytest.raises(ValueError):
        summarize([])


def _tagged(levels: list[float], within: tuple[float, ...] = (0.99, 1.0, 1.01)) -> Sample:
    """A sample of one process per level, each with repetitions spread by `within`."""
    values = tuple(lv * f for lv in levels for f in within)
    return Sample(values, tuple(p for p in range(len(levels)) for _ in within))


def test_a_process_is_the_median_of_its_repetitions():
    s = Sample((1.0, 9.0, 2.0, 4.0, 4.0, 5.0), (0, 0, 0, 1, 1, 1))
    assert s.by_process() == {0: 2.0, 1: 4.0}
    assert Sample((3.0,)).exact and not Sample((3.0,), (0,)).exact
    # Untagged figures are a process each (a whole command's runs).
    assert Sample((1.0, 2.0, 3.0)).by_process() == {0: 1.0, 1: 2.0, 2: 3.0}
    with pytest.raises(ValueError):
        Sample((1.0, 2.0), (0,))


def test_cases_of_one_round_are_paired_so_a_slow_round_cancels():
    # Rounds 30% apart (a noisy neighbour), but b is always half of a in its round.
    levels = [1.0, 1.3, 0.9, 1.1, 1.2]
    a = _tagged([2 * x for x in levels])
    b = _tagged(levels)
    r = ratio(a, b)
    assert r.value == pytest.approx(2.0)
    assert r.low == pytest.approx(2.0) and r.high == pytest.approx(2.0)
    assert (r.n_a, r.n_b) == (5, 5)
    # Compared as independent processes instead, the rounds' spread is in the interval.
    unpaired = ratio(Sample(a.values), Sample(b.values))
    assert unpaired.low < 1.9 and unpaired.high > 2.1


def test_repetitions_inside_a_process_do_not_narrow_the_interval():
    few = ratio(_tagged([1.0, 1.1, 0.95, 1.05]), _tagged([1.0, 0.97, 1.02, 1.0]))
    many = ratio(_tagged([1.0, 1.1, 0.95, 1.05], tuple(1 + i / 1000 for i in range(25))),
                 _tagged([1.0, 0.97, 1.02, 1.0], tuple(1 + i / 1000 for i in range(25))))
    assert many.high - many.low == pytest.approx(few.high - few.low, rel=1e-6)


def test_too_few_processes_give_no_interval_and_say_why():
    r = ratio(_tagged([2.0, 2.1]), _tagged([1.0, 1.0]))
    assert not r.has_interval and not r.exact
    assert (r.low, r.high) == (0.0, math.inf)
    assert not r.above(1.0) and not r.below(1e9)  # decides nothing either way
    assert r.why == f"2 processes, {MIN_PROCESSES} needed"
    assert str(r).endswith(f"[no interval: 2 processes, {MIN_PROCESSES} needed]")


def test_ratio_of_exact_figures_is_a_point():
    r = ratio([4.0], [2.0])
    assert (r.value, r.low, r.high) == (2.0, 2.0, 2.0) and r.exact and r.has_interval
    # A measured side against an exact one: the measured side's spread alone.
    m = ratio(_tagged([2.0, 2.2, 1.8, 2.0]), [1.0])
    assert m.low < 2.0 < m.high and m.has_interval


def test_an_interval_is_above_or_below_a_threshold_only_whole():
    r = Ratio(1.3, 1.2, 1.4, 5, 5)
    assert r.above(1.2) and not r.above(1.25)
    assert r.below(1.41) and not r.below(1.4)
    assert str(r) == "1.300x [1.200, 1.400]"


def test_ratio_to_a_fixed_target():
    x = _tagged([2.4, 2.5, 2.6, 2.5, 2.45, 2.55])
    r = ratio_to(x, 2.0)
    assert r.value == pytest.approx(1.25, rel=1e-3)
    assert 1.2 < r.low < 1.25 < r.high < 1.3
    assert (ratio_to([3.0], 2.0).low, ratio_to([3.0], 2.0).high) == (1.5, 1.5)
    assert not ratio_to(_tagged([2.4, 2.5]), 2.0).has_interval
    with pytest.raises(ValueError):
        ratio_to(x, 0)


def test_geomean_ratio_of_one_pair_is_that_ratio():
    a, b = _tagged([2.0, 2.1, 1.9, 2.05]), _tagged([1.0, 1.0, 1.01, 0.99])
    one, plain = geomean_ratio([(a, b)]), ratio(a, b)
    assert one == plain


def test_geomean_ratio_over_pairs_with_exact_counts():
    exact = geomean_ratio([((4.0,), (2.0,)), ((1.0,), (2.0,)), ((9.0,), (1.0,))])
    assert exact.value == pytest.approx((2 * 0.5 * 9) ** (1 / 3))
    assert exact.exact
    # An exact pair is a constant factor: the interval is the measured pair's, scaled.
    a, b = _tagged([2.0, 2.1, 1.9, 2.05]), _tagged([1.0, 1.0, 1.01, 0.99])
    mixed, plain = geomean_ratio([(a, b), ((8.0,), (1.0,))]), ratio(a, b)
    assert mixed.value == pytest.approx((plain.value * 8) ** 0.5)
    assert mixed.low == pytest.approx((plain.low * 8) ** 0.5)
    assert mixed.high == pytest.approx((plain.high * 8) ** 0.5)
    with pytest.raises(ValueError):
        geomean_ratio([])
    with pytest.raises(ValueError):
        geomean_ratio([((1.0,), (0.0,))])


def test_geomean_ratio_averages_independent_noise_of_its_pairs():
    noisy = [(_tagged([1.5 * f for f in fs]), _tagged([1.0] * 4)) for fs in
             ((1.02, 0.98, 1.01, 0.99), (0.98, 1.01, 0.99, 1.02), (1.01, 0.99, 1.02, 0.98))]
    three, one = geomean_ratio(noisy), geomean_ratio(noisy[:1])
    assert three.value == pytest.approx(1.5, rel=1e-3)
    assert three.high - three.low < one.high - one.low


def test_difference_between_runs_is_welch_over_their_processes():
    old = _tagged([1.00, 1.02, 0.98, 1.01, 0.99, 1.00])
    same = difference(_tagged([1.01, 0.99, 1.00, 1.02, 0.98, 1.00]), old)
    assert same.ratio.low < 1 < same.ratio.high and same.p > 0.5
    slower = difference(_tagged([1.10, 1.12, 1.08, 1.11, 1.09, 1.10]), old)
    assert slower.ratio.value == pytest.approx(1.10, rel=1e-3)
    assert slower.ratio.low > 1.05 and slower.p < 1e-6
    # Rounds of two runs are not neighbours: never paired, even when tagged alike.
    assert difference(old, old).ratio.low < 1 < difference(old, old).ratio.high
    few = difference(_tagged([1.1, 1.2]), old)
    assert few.p is None and not few.ratio.has_interval
    exact = difference([5.0], [4.0])
    assert exact.ratio.exact and exact.ratio.value == 1.25 and exact.p == 0.0


def test_geomean_difference_counts_a_slow_round_once():
    # Both cases of the new run were slow in the same round: one round, not two cases.
    shared = [1.0, 1.0, 1.0, 1.3]
    new = [(_tagged([1.0 * x for x in shared]), _tagged([1.0, 1.0, 1.0, 1.0])),
           (_tagged([2.0 * x for x in shared]), _tagged([2.0, 2.0, 2.0, 2.0]))]
    g = geomean_difference(new)
    assert g.ratio.value == pytest.approx(math.exp(math.log(1.3) / 4))
    assert g.p > 0.05  # one slow round among four is no change


def test_relative_halfwidth():
    assert relative_halfwidth(_tagged([1.0, 1.0, 1.0])) == pytest.approx(0.0)
    w = relative_halfwidth(_tagged([1.0, 1.1, 0.9, 1.05, 0.95]))
    assert 0.03 < w < 0.2
    assert relative_halfwidth(_tagged([1.0, 1.1])) is None
    assert relative_halfwidth([3.0]) == 0.0


def test_benjamini_hochberg():
    # R's p.adjust(c(0.01, 0.04, 0.03, 0.2), "BH") = 0.04 0.0533 0.0533 0.2
    q = adjusted_p([0.01, 0.04, None, 0.03, 0.2])
    assert q[2] is None
    assert [round(x, 4) for x in q if x is not None] == [0.04, 0.0533, 0.0533, 0.2]
    assert adjusted_p([None]) == [None]


def test_geomean():
    assert geomean([1, 4, 16]) == pytest.approx(4.0)
    with pytest.raises(ValueError):
        geomean([1, 0])


def test_loglog_slope_recovers_the_exponent():
    x = [10, 100, 1000, 10000]
    k, err = loglog_slope(x, [3 * v ** 1.58 for v in x])
    assert k == pytest.approx(1.58, abs=1e-9)
    assert err == pytest.approx(0, abs=1e-9)
