"""Pure statistics over repetitions: robust centre and spread, and ratios with intervals.

Medians and MADs rather than means: a shared VM throws occasional slow repetitions
(another tenant, a timer interrupt) that would drag a mean. Ratio intervals come from a
percentile bootstrap with a fixed seed, so the same data always yields the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

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

    def as_dict(self) -> dict:
        return asdict(self)


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

    def as_dict(self) -> dict:
        return asdict(self)

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
    from scipy import stats as sps  # imported on first use: it takes a second to load

    res = sps.bootstrap(
        (xa, xb),
        lambda x, y, axis=-1: np.median(x, axis=axis) / np.median(y, axis=axis),
        n_resamples=_BOOTSTRAP_RESAMPLES, method="percentile", vectorized=True,
        random_state=np.random.default_rng(_RNG_SEED), confidence_level=0.95,
    )
    ci = res.confidence_interval
    return Ratio(value, float(ci.low), float(ci.high), int(xa.size), int(xb.size))


def geomean(values: Sequence[float]) -> float:
    a = np.asarray(values, dtype=float)
    if a.size == 0 or np.any(a <= 0):
        raise ValueError("geomean: needs positive values")
    return float(np.exp(np.mean(np.log(a))))


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Fitted exponent k of y ~ c * x^k (least squares in log-log) and its standard error."""
    from scipy import stats as sps

    res = sps.linregress(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)))
    return float(res.slope), float(res.stderr)
