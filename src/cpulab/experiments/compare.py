"""Comparisons that verdicts are made of: ratios of two cases' medians, with intervals.

Pure functions over `Case`s (no running, no printing), shared by the experiments so that
every verdict states its ratios the same way: `1.234x [1.201, 1.260]`, the 95% percentile
bootstrap interval of the ratio of medians over the per-repetition figures.
"""

from __future__ import annotations

from cpulab.experiments.base import Case
from cpulab.measure.stats import Ratio, ratio


def case_key(c: Case) -> tuple[str, str]:
    """(variant, build label): what identifies a case within one run."""
    return c.variant, c.build_label


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
    if ma.values and mb.values:
        return ratio(ma.values, mb.values)
    v = ma.median / mb.median
    return Ratio(v, v, v, ma.n, mb.n)


def format_ratio(r: Ratio) -> str:
    return str(r) if r.low != r.high else f"{r.value:.3f}x"
