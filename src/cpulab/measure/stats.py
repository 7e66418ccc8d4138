"""Pure statistics over repetitions: robust centre and spread, and ratios with intervals.

Medians and MADs rather than means: a shared VM throws occasional slow repetitions
(another tenant, a timer interrupt) that would drag a mean. Ratio intervals come from
scipy's percentile bootstrap with a fixed seed, so the same data always yields the same
figures; a ratio is judged against a target by where its whole interval lies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

_RNG_SEED = 20140501
# MAD -> standard deviation for normal data: 1 / Phi^-1(3/4), as scipy's scale="normal".
_MAD_NORMAL = 1.482602218505602
_BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Summary:
    median: float
    mad: float  # scaled MAD (consistent with the std. deviation for normal data)
    min: float
    max: float
    n: int


def summarize(values: Sequence[float]) -> Summary:
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        raise ValueError("summarize: no values")
    med = float(np.median(a))
    mad = float(_MAD_NORMAL * np.median(np.abs(a - med))) if a.size > 1 else 0.0
    return Summary(med, mad, float(a.min()), float(a.max()), int(a.size))


@dataclass(frozen=True)
class Ratio:
    """a/b of medians with a 95% bootstrap interval; > 1 means a is larger."""

    value: float
    low: float
    high: float
    n_a: int
    n_b: int

    def above(self, threshold: float) -> bool:
        """The whole interval lies at or above `threshold`: the ratio reaches it."""
        return self.low >= threshold

    def below(self, threshold: float) -> bool:
        """The whole interval lies below `threshold`: the ratio falls short of it."""
        return self.high < threshold

    def __str__(self) -> str:
        return f"{self.value:.3f}x [{self.low:.3f}, {self.high:.3f}]"


def ratio(a: Sequence[float], b: Sequence[float]) -> Ratio:
    """Ratio of medians median(a)/median(b) with a 95% percentile-bootstrap interval."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.size == 0 or xb.size == 0:
        raise ValueError("ratio: empty sample")
    value = float(np.median(xa) / np.median(xb))
    if xa.size < 2 or xb.size < 2:
        return Ratio(value, value, value, int(xa.size), int(xb.size))
    low, high = _interval(
        (xa, xb), lambda x, y, axis=-1: np.median(x, axis=axis) / np.median(y, axis=axis))
    return Ratio(value, low, high, int(xa.size), int(xb.size))


def ratio_to(a: Sequence[float], target: float) -> Ratio:
    """median(a)/target, a measured figure against a fixed target (2 GB/s), with the
    95% percentile-bootstrap interval of the median scaled alike."""
    x = np.asarray(a, dtype=float)
    if x.size == 0 or target <= 0:
        raise ValueError("ratio_to: needs values and a positive target")
    value = float(np.median(x) / target)
    if x.size < 2:
        return Ratio(value, value, value, int(x.size), 1)
    low, high = _interval((x,), lambda x, axis=-1: np.median(x, axis=axis) / target)
    return Ratio(value, low, high, int(x.size), 1)


def geomean(values: Sequence[float]) -> float:
    a = np.asarray(values, dtype=float)
    if a.size == 0 or np.any(a <= 0):
        raise ValueError("geomean: needs positive values")
    return float(np.exp(np.mean(np.log(a))))


def geomean_ratio(pairs: Sequence[tuple[Sequence[float], Sequence[float]]]) -> Ratio:
    """Geometric mean over the pairs of median(a)/median(b), with a 95% percentile-
    bootstrap interval: each resample draws every sample anew (the pairs are
    independent programs). A sample of one value (an exact count) is a constant."""
    if not pairs:
        raise ValueError("geomean_ratio: no pairs")
    samples = [np.asarray(x, dtype=float) for pair in pairs for x in pair]
    if any(x.size == 0 for x in samples):
        raise ValueError("geomean_ratio: empty sample")
    medians = np.array([np.median(x) for x in samples])
    if np.any(medians <= 0):
        raise ValueError("geomean_ratio: needs positive medians")
    # log ratio = sum of +log(median) of the a sides and -log(median) of the b sides
    signs = np.tile([1.0, -1.0], len(pairs))
    logs = np.log(medians)
    value = float(np.exp(np.dot(signs, logs) / len(pairs)))
    n_a, n_b = min(x.size for x in samples[::2]), min(x.size for x in samples[1::2])
    varying = [i for i, x in enumerate(samples) if x.size >= 2]
    if not varying:
        return Ratio(value, value, value, n_a, n_b)
    fixed = sum(signs[i] * logs[i] for i, x in enumerate(samples) if x.size < 2)

    def statistic(*xs: np.ndarray, axis: int = -1) -> np.ndarray:
        total = fixed + sum(signs[i] * np.log(np.median(x, axis=axis))
                            for i, x in zip(varying, xs, strict=True))
        return np.exp(total / len(pairs))

    low, high = _interval([samples[i] for i in varying], statistic)
    # The percentile interval of a statistic of medians need not hold the point estimate
    # when samples are tiny; widened to hold it, the figure is always inside its interval.
    return Ratio(value, min(low, value), max(high, value), n_a, n_b)


def _interval(samples: Sequence[np.ndarray], statistic: Callable[..., np.ndarray]
              ) -> tuple[float, float]:
    """The 95% percentile-bootstrap interval of `statistic` (vectorized over `axis`),
    every sample resampled on its own; seeded, so the same data give the same interval."""
    from scipy import stats as sps  # imported on first use: it takes a second to load

    res = sps.bootstrap(
        samples, statistic, n_resamples=_BOOTSTRAP_RESAMPLES, method="percentile",
        vectorized=True, random_state=np.random.default_rng(_RNG_SEED),
        confidence_level=0.95,
    )
    ci = res.confidence_interval
    return float(ci.low), float(ci.high)


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Fitted exponent k of y ~ c * x^k (least squares in log-log) and its standard error."""
    from scipy import stats as sps

    res = sps.linregress(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)))
    return float(res.slope), float(res.stderr)
