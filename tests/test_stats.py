"""Pure statistics: medians, scaled MADs, bootstrap ratios, geometric means, slopes."""

from __future__ import annotations

import math

import pytest

from cpulab.measure.stats import geomean, loglog_slope, ratio, summarize


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
