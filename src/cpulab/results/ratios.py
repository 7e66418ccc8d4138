"""Ratios between cases, the figures that verdicts and `cpulab compare` are made of:
a/b of one metric with its 95% interval drawn from the processes that measured the
figures (`measure.stats`), stated the same way everywhere: `1.234x [1.201, 1.260]`.
This adds what a case knows (which metrics it has, whether a figure is exact, which
process measured each figure)."""

from __future__ import annotations

from cpulab.measure import stats
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.results.case import Case


def cycle_metric(*cases: Case) -> str:
    """The best 'cycles' figure all cases have: PMU cycles, else TSC ticks, else time."""
    for m in ("cycles", "tsc", "time"):
        if all(m in c.metrics for c in cases):
            return m
    return "time"


def median_ratio(a: Case, b: Case, metric: str) -> Ratio | None:
    """a/b of `metric`, two cases of one run paired by round, with its interval; None if
    either lacks the metric."""
    ma, mb = a.metrics.get(metric), b.metrics.get(metric)
    if ma is None or mb is None:
        return None
    return stats.ratio(ma.sample, mb.sample)


def geomean_ratio(pairs: list[tuple[Metric, Metric]]) -> Ratio:
    """Geometric mean of a/b over the pairs (cases of one run), with its interval; exact
    figures count as constants."""
    return stats.geomean_ratio([(a.sample, b.sample) for a, b in pairs])


def format_ratio(r: Ratio) -> str:
    """`1.234x [1.201, 1.260]`, `1.234x` for a ratio of exact figures, or
    `1.234x [no interval: 2 processes, 3 needed]`."""
    return f"{r.value:.3f}x" if r.exact else str(r)
