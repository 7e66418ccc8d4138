"""Pure statistics: medians, scaled MADs, bootstrap ratios, geometric means, slopes."""

from __future__ import annotations

import math

import pytest

from cpulab.measure.stats import (
    Ratio,
    geomean,
    geomean_ratio,
    loglog_slope,
    ratio,
    ratio_to,
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


def test_summarize_refuses_nothing():
    with pytest.raises(ValueError):
        summarize([])


def test_ratio_of_medians_with_an_interval_around_it():
    a = [2.0, 2.1, 1.9, 2.05, 1.95, 2.0]
    b = [1.0, 1.05, 0.95, 1.0, 1.02, 0.98]
    r = ratio(a, b)
    assert r.value == pytest.approx(2.0 / 1.0)
    assert r.low <= r.value <= r.high
    assert 1.8 < r.low and r.high < 2.2
    assert (r.n_a, r.n_b) == (6, 6)


def test_ratio_is_deterministic():
    a, b = [3, 3.3, 2.9, 3.1], [1, 1.2, 0.9, 1.1]
    assert ratio(a, b) == ratio(a, b)


def test_ratio_of_single_values_is_a_point():
    r = ratio([4.0], [2.0])
    assert (r.value, r.low, r.high) == (2.0, 2.0, 2.0)


def test_an_interval_is_above_or_below_a_threshold_only_whole():
    r = Ratio(1.3, 1.2, 1.4, 5, 5)
    assert r.above(1.2) and not r.above(1.25)
    assert r.below(1.41) and not r.below(1.4)


def test_ratio_to_a_fixed_target():
    x = [2.4, 2.5, 2.6, 2.5, 2.45, 2.55]
    r = ratio_to(x, 2.0)
    assert r.value == pytest.approx(1.25)
    assert 1.2 < r.low < 1.25 < r.high < 1.3
    assert ratio_to(x, 2.0) == r  # seeded
    assert (ratio_to([3.0], 2.0).low, ratio_to([3.0], 2.0).high) == (1.5, 1.5)
    with pytest.raises(ValueError):
        ratio_to(x, 0)


A = [2.0, 2.1, 1.9, 2.05, 1.95, 2.0]
B = [1.0, 1.05, 0.95, 1.0, 1.02, 0.98]


def test_geomean_ratio_of_one_pair_is_that_ratio():
    one, plain = geomean_ratio([(A, B)]), ratio(A, B)
    assert one.value == pytest.approx(plain.value)
    assert (one.low, one.high) == pytest.approx((plain.low, plain.high))


def test_geomean_ratio_over_pairs_with_exact_counts():
    exact = geomean_ratio([((4.0,), (2.0,)), ((1.0,), (2.0,)), ((9.0,), (1.0,))])
    assert exact.value == pytest.approx((2 * 0.5 * 9) ** (1 / 3))
    assert exact.low == exact.high == exact.value
    # An exact pair is a constant factor: the interval is the measured pair's, scaled.
    mixed, plain = geomean_ratio([(A, B), ((8.0,), (1.0,))]), ratio(A, B)
    assert mixed.value == pytest.approx((plain.value * 8) ** 0.5)
    assert mixed.low == pytest.approx((plain.low * 8) ** 0.5, rel=1e-3)
    assert mixed.high == pytest.approx((plain.high * 8) ** 0.5, rel=1e-3)
    assert (mixed.n_a, mixed.n_b) == (1, 1)


def test_geomean_ratio_resamples_every_pair():
    spread = [([3 * f for f in (0.99, 1.0, 1.01, 1.0)], [2 * f for f in (1.01, 1.0, 0.99)])] * 3
    r = geomean_ratio(spread)
    assert r == geomean_ratio(spread)  # seeded
    assert r.value == pytest.approx(1.5) and r.low < 1.5 < r.high
    # Three independent pairs average their noise: a narrower interval than one pair's.
    one = geomean_ratio(spread[:1])
    assert r.high - r.low < one.high - one.low
    with pytest.raises(ValueError):
        geomean_ratio([])
    with pytest.raises(ValueError):
        geomean_ratio([((1.0,), (0.0,))])


def test_geomean():
    assert geomean([1, 4, 16]) == pytest.approx(4.0)
    with pytest.raises(ValueError):
        geomean([1, 0])


def test_loglog_slope_recovers_the_exponent():
    x = [10, 100, 1000, 10000]
    k, err = loglog_slope(x, [3 * v ** 1.58 for v in x])
    assert k == pytest.approx(1.58, abs=1e-9)
    assert err == pytest.approx(0, abs=1e-9)
    assert not math.isnan(k)
