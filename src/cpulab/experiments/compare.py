"""Comparisons that verdicts are made of: ratios of two cases' medians, with intervals.

Pure functions over `Case`s (no running, no printing), shared by the experiments so that
every verdict states its ratios the same way: `1.234x [1.201, 1.260]`, the 95% percentile
bootstrap interval of the ratio of medians over the per-repetition figures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio, geomean, ratio
from cpulab.results import Case, VerdictKind

_GEOMEAN_RESAMPLES = 4000
_GEOMEAN_SEED = 20240615


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


def geomean_ratio(pairs: list[tuple[Metric, Metric]]) -> Ratio:
    """Geometric mean of median(a)/median(b) over the pairs; each resample draws every
    pair's repetitions anew (pairs are independent programs), seeded: deterministic."""
    rng = np.random.default_rng(_GEOMEAN_SEED)
    logs = np.zeros(_GEOMEAN_RESAMPLES)
    for a, b in pairs:
        logs += np.log(_resampled_medians(rng, a) / _resampled_medians(rng, b))
    low, high = np.exp(np.percentile(logs / len(pairs), [2.5, 97.5]))
    value = geomean([a.median / b.median for a, b in pairs])
    return Ratio(value, float(min(low, value)), float(max(high, value)),
                 min(a.n for a, _ in pairs), min(b.n for _, b in pairs))


def _resampled_medians(rng: np.random.Generator, m: Metric) -> np.ndarray:
    if len(m.values) < 2:  # an exact figure, or a single repetition
        return np.full(_GEOMEAN_RESAMPLES, m.median)
    x = np.asarray(m.values, dtype=float)
    return np.median(x[rng.integers(0, x.size, (_GEOMEAN_RESAMPLES, x.size))], axis=1)
