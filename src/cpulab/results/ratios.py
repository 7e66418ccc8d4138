"""Ratios between cases, the figures that verdicts and `cpulab compare` are made of:
median(a)/median(b) of one metric with its 95% bootstrap interval over the stored
per-repetition figures, stated the same way everywhere: `1.234x [1.201, 1.260]`.
The statistics themselves are `measure.stats`; this adds what a case knows (which
metrics it has, whether a figure is exact)."""

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
    """median(a)/median(b) of `metric` with its interval, or None if either lacks it."""
    ma, mb = a.metrics.get(metric), b.metrics.get(metric)
    if ma is None or mb is None:
        return None
    return stats.ratio(_sample(ma), _sample(mb))


def geomean_ratio(pairs: list[tuple[Metric, Metric]]) -> Ratio:
    """Geometric mean of median(a)/median(b) over the pairs (independent programs), with
    its interval; exact figures count as constants."""
    return stats.geomean_ratio([(_sample(a), _sample(b)) for a, b in pairs])


def format_ratio(r: Ratio) -> str:
    """`1.234x [1.201, 1.260]`, or `1.234x` for a ratio of exact figures."""
    return str(r) if r.low != r.high else f"{r.value:.3f}x"


def _sample(m: Metric) -> tuple[float, ...]:
    """The per-repetition figures; an exact figure (a count, n = 1) stands alone."""
    return m.values or (m.median,)
