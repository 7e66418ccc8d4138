"""Comparisons that verdicts are made of: ratios of two cases' medians, with intervals.

Pure functions over `Case`s (no running, no printing), shared by the experiments so that
every verdict states its ratios the same way: `1.234x [1.201, 1.260]`, the 95% percentile
bootstrap interval of the ratio of medians over the per-repetition figures.
"""

from __future__ import annotations

from dataclasses import dataclass

from cpulab.experiments.base import Case, VerdictKind
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


@dataclass
class Tally:
    """How many ratio intervals lie wholly above or wholly below a threshold: the raw
    material of a verdict over several builds, sizes or programs."""

    above: int = 0
    below: int = 0
    n: int = 0

    def add(self, r: Ratio, threshold: float = 1.0) -> None:
        self.n += 1
        self.above += r.low >= threshold
        self.below += r.high < threshold

    def majority(self) -> VerdictKind:
        """confirmed when most intervals are above, refuted when half or more are below."""
        if self.above > self.n / 2:
            return "confirmed"
        return "refuted" if self.below >= self.n / 2 else "inconclusive"

    def every(self) -> VerdictKind:
        """confirmed when all intervals are above, refuted when any is below."""
        if self.n and self.above == self.n:
            return "confirmed"
        return "refuted" if self.below else "inconclusive"
