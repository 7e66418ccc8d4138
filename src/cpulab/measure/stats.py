"""Pure statistics over processes: robust centres, ratios with intervals, tests of change.

The process is the unit of measurement. Repetitions inside one process share its code
and heap layout, its page placement, the frequency and the neighbours of its time slot,
so they are not independent: pooled as if they were, twenty-five repetitions of five
processes gave intervals a fifth as wide as the processes' own spread, and two runs of
one unchanged binary were called different in 15-60% of cases. Following Kalibera and
Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), the level that varies most
is the one replicated and the one the interval is drawn from: each process is collapsed
to the median of its repetitions, and only those process medians enter an interval.

On a log scale, because every figure here is a ratio:
- in one run, two cases that ran in the same round (the same process, or neighbouring
  processes of an interleaved schedule) are paired: the interval is Student's t over
  the per-round log ratios, so a slow phase of the machine that hit both cancels;
- between runs (`cpulab compare`, `history`) nothing pairs: Welch's t over the two
  runs' process medians, with its p-value for a correction over many cases;
- a geometric mean over cases first averages the cases of each round, so rounds that
  were slow for every case count once, not once per case.

An interval needs the spread of at least MIN_PROCESSES processes: with fewer, a ratio
has no interval ([0, inf), which decides nothing) and says why. A figure measured once
(an instruction count, a static code property) is exact: a constant, no spread.
t rather than a bootstrap: with 3-20 processes a percentile bootstrap's interval is too
narrow (it cannot see spread that its few values do not show), while t's heavier tails
for few degrees of freedom state the uncertainty honestly; the A/A simulation in
tests/test_stats_aa.py measures both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# MAD -> standard deviation for normal data: 1 / Phi^-1(3/4), as scipy's scale="normal".
_MAD_NORMAL = 1.482602218505602
# Processes an interval needs: two give a spread of one degree of freedom, whose 95%
# t-interval is 12.7 standard errors wide; three is the least that says something.
MIN_PROCESSES = 3
CONFIDENCE = 0.95


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
class Sample:
    """One metric's figures, each tagged with the process (round) that measured it.
    Without tags every figure is a process of its own (a whole command's run); a single
    untagged figure is exact (a count)."""

    values: tuple[float, ...]
    processes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError("a sample needs figures")
        if self.processes and len(self.processes) != len(self.values):
            raise ValueError("a process tag per figure, or none")

    @property
    def exact(self) -> bool:
        return len(self.values) == 1 and not self.processes

    def by_process(self) -> dict[int, float]:
        """process -> the median of its figures, in process order."""
        tags = self.processes or tuple(range(len(self.values)))
        groups: dict[int, list[float]] = {}
        for p, v in zip(tags, self.values, strict=True):
            groups.setdefault(p, []).append(v)
        return {p: float(np.median(groups[p])) for p in sorted(groups)}


def sample(x: Sample | Sequence[float]) -> Sample:
    """A Sample as it is; a plain sequence as figures of one process each."""
    return x if isinstance(x, Sample) else Sample(tuple(float(v) for v in x))


@dataclass(frozen=True)
class Ratio:
    """a/b with its 95% interval; > 1 means a is larger. n_a, n_b count processes.
    Without an interval (too few processes) low is 0 and high infinite, an interval
    that decides nothing, and `why` says what was missing."""

    value: float
    low: float
    high: float
    n_a: int
    n_b: int
    why: str | None = None

    @property
    def exact(self) -> bool:
        return self.low == self.high

    @property
    def has_interval(self) -> bool:
        return math.isfinite(self.high) and self.low > 0 or self.exact

    def above(self, threshold: float) -> bool:
        """The whole interval lies at or above `threshold`: the ratio reaches it."""
        return self.low >= threshold

    def below(self, threshold: float) -> bool:
        """The whole interval lies below `threshold`: the ratio falls short of it."""
        return self.high < threshold

    def __str__(self) -> str:
        if not self.has_interval:
            return f"{self.value:.3f}x [no interval: {self.why}]"
        return f"{self.value:.3f}x [{self.low:.3f}, {self.high:.3f}]"


@dataclass(frozen=True)
class _LogEstimate:
    """A mean on the log scale with its standard error and degrees of freedom."""

    mean: float
    se: float
    df: float

    def ratio(self, n_a: int, n_b: int) -> Ratio:
        if self.se == 0:  # every process gave the same figure: a point
            v = math.exp(self.mean)
            return Ratio(v, v, v, n_a, n_b)
        from scipy import stats as sps  # imported on first use: it takes a second to load

        h = float(sps.t.ppf(0.5 + CONFIDENCE / 2, self.df)) * self.se
        return Ratio(math.exp(self.mean), math.exp(self.mean - h), math.exp(self.mean + h),
                     n_a, n_b)

    def p_value(self) -> float:
        """Two-sided p-value that the true log ratio is 0."""
        if self.se == 0:
            return 1.0 if self.mean == 0 else 0.0
        from scipy import stats as sps

        return float(2 * sps.t.sf(abs(self.mean) / self.se, self.df))


def _one_sample(logs: np.ndarray) -> _LogEstimate | None:
    if logs.size < MIN_PROCESSES:
        return None
    return _LogEstimate(float(logs.mean()), float(logs.std(ddof=1) / math.sqrt(logs.size)),
                        logs.size - 1)


def _welch(x: np.ndarray, y: np.ndarray) -> _LogEstimate:
    """mean(x) - mean(y) by Welch and Satterthwaite; a side of one value is a constant
    (an exact figure: callers pass only those, or MIN_PROCESSES process medians)."""
    vx = x.var(ddof=1) / x.size if x.size > 1 else 0.0
    vy = y.var(ddof=1) / y.size if y.size > 1 else 0.0
    se2 = vx + vy
    terms = [v * v / (n - 1) for v, n in ((vx, x.size), (vy, y.size)) if n > 1 and v > 0]
    df = se2 * se2 / sum(terms) if terms else 1.0
    return _LogEstimate(float(x.mean() - y.mean()), math.sqrt(se2), df)


def _side(s: Sample) -> np.ndarray | None:
    """The log process medians of a sample, or None where they are too few to give a
    spread (an exact figure is one constant)."""
    lg = np.array(list(_logs(s).values()))
    return lg if s.exact or lg.size >= MIN_PROCESSES else None


def _independent(pairs: list[tuple[Sample, Sample]]) -> _LogEstimate | None:
    """The mean over pairs of each pair's Welch estimate, the pairs independent; None
    when a side has too few processes."""
    ests = []
    for a, b in pairs:
        x, y = _side(a), _side(b)
        if x is None or y is None:
            return None
        ests.append(_welch(x, y))
    return _combine(ests, len(pairs))


def _logs(s: Sample) -> dict[int, float]:
    pm = s.by_process()
    if any(v <= 0 for v in pm.values()):
        raise ValueError("ratios need positive figures")
    return {p: math.log(v) for p, v in pm.items()}


def _too_few(n_a: int, n_b: int) -> str:
    return f"{min(n_a, n_b)} process{'es' if min(n_a, n_b) != 1 else ''}, " \
           f"{MIN_PROCESSES} needed"


def _no_interval(value: float, n_a: int, n_b: int) -> Ratio:
    return Ratio(value, 0.0, math.inf, n_a, n_b, _too_few(n_a, n_b))


def ratio(a: Sample | Sequence[float], b: Sample | Sequence[float]) -> Ratio:
    """a/b of two cases of one run. Paired by round when both are tagged with at least
    MIN_PROCESSES common rounds, else compared as independent processes."""
    return geomean_ratio([(a, b)])


def geomean_ratio(pairs: Sequence[tuple[Sample | Sequence[float],
                                        Sample | Sequence[float]]]) -> Ratio:
    """Geometric mean over the pairs of a/b (cases of one run), with its interval. Where
    every measured sample shares MIN_PROCESSES rounds, the mean of each round's log
    ratios is the unit; otherwise each pair's processes are compared independently and
    the variances added. An exact sample is a constant factor."""
    if not pairs:
        raise ValueError("geomean_ratio: no pairs")
    samples = [(sample(a), sample(b)) for a, b in pairs]
    logs = [(_logs(a), _logs(b)) for a, b in samples]
    n = len(samples)
    value = math.exp(sum(np.mean(list(la.values())) - np.mean(list(lb.values()))
                         for la, lb in logs) / n)
    n_a = min(len(la) for la, _ in logs)
    n_b = min(len(lb) for _, lb in logs)
    measured = [s for pair in samples for s in pair if not s.exact]
    if not measured:
        if n == 1:  # a plain quotient, free of the logs' rounding
            value = samples[0][0].values[0] / samples[0][1].values[0]
        return Ratio(value, value, value, 1, 1)
    common = set.intersection(*(set(s.by_process()) for s in measured))
    if all(s.processes for s in measured) and len(common) >= MIN_PROCESSES:
        rounds = sorted(common)

        def at(lg: dict[int, float], s: Sample, r: int) -> float:
            return lg[next(iter(lg))] if s.exact else lg[r]

        per_round = np.array([
            sum(at(la, a, r) - at(lb, b, r)
                for (la, lb), (a, b) in zip(logs, samples, strict=True)) / n
            for r in rounds])
        est = _one_sample(per_round)
        assert est is not None
        return est.ratio(len(rounds), len(rounds))
    est = _independent(samples)
    return est.ratio(n_a, n_b) if est else _no_interval(value, n_a, n_b)


def _combine(ests: list[_LogEstimate], n: int) -> _LogEstimate:
    """The mean of n independent log estimates (Satterthwaite's degrees of freedom)."""
    mean = sum(e.mean for e in ests) / n
    var = sum(e.se ** 2 for e in ests) / (n * n)
    terms = sum((e.se ** 2 / (n * n)) ** 2 / e.df for e in ests if e.se > 0)
    return _LogEstimate(mean, math.sqrt(var), var * var / terms if terms else 1.0)


def ratio_to(a: Sample | Sequence[float], target: float) -> Ratio:
    """a measured figure against a fixed target (2 GB/s): the geometric mean of its
    process medians over the target, with the 95% interval of that mean."""
    s = sample(a)
    if target <= 0:
        raise ValueError("ratio_to: needs a positive target")
    if s.exact:
        v = s.values[0] / target
        return Ratio(v, v, v, 1, 1)
    lg = np.array(list(_logs(s).values())) - math.log(target)
    value = math.exp(float(lg.mean()))
    est = _one_sample(lg)
    return est.ratio(lg.size, 1) if est else _no_interval(value, lg.size, MIN_PROCESSES)


@dataclass(frozen=True)
class Difference:
    """new/old of one metric between two runs, its interval and the test's p-value
    (None where too few processes allow no test)."""

    ratio: Ratio
    p: float | None


def difference(new: Sample | Sequence[float], old: Sample | Sequence[float]) -> Difference:
    """new/old of one case in two runs: Welch's t over the runs' process medians."""
    return geomean_difference([(new, old)])


def geomean_difference(pairs: Sequence[tuple[Sample | Sequence[float],
                                         Sample | Sequence[float]]]) -> Difference:
    """Geometric mean of new/old over cases of two runs. Each run's cases are first
    averaged round by round (rounds common to all its measured cases, when they share
    MIN_PROCESSES), so that a slow round of one run counts once; then Welch's t
    between the two runs' round means. Where the rounds do not line up, each case is
    compared on its own and the variances added."""
    if not pairs:
        raise ValueError("geomean_difference: no pairs")
    news = [sample(a) for a, _ in pairs]
    olds = [sample(b) for _, b in pairs]
    n = len(pairs)
    if all(s.exact for s in news + olds):
        lr = sum(_mean_log(a) - _mean_log(b) for a, b in zip(news, olds, strict=True)) / n
        v = math.exp(lr)
        return Difference(Ratio(v, v, v, 1, 1), 1.0 if lr == 0 else 0.0)
    side_new, side_old = _round_means(news), _round_means(olds)
    n_a = min(len(a.by_process()) for a in news)
    n_b = min(len(b.by_process()) for b in olds)
    if side_new is not None and side_old is not None:
        est: _LogEstimate | None = _welch(side_new, side_old)
        n_a, n_b = side_new.size, side_old.size
    else:
        est = _independent(list(zip(news, olds, strict=True)))
    if est is None:
        lr = sum(_mean_log(a) - _mean_log(b) for a, b in zip(news, olds, strict=True)) / n
        return Difference(_no_interval(math.exp(lr), n_a, n_b), None)
    return Difference(est.ratio(n_a, n_b), est.p_value())


def _mean_log(s: Sample) -> float:
    return float(np.mean(list(_logs(s).values())))


def _round_means(side: list[Sample]) -> np.ndarray | None:
    """Per round, the mean log figure over the cases of one run; None when the cases'
    rounds do not line up (untagged, or fewer than MIN_PROCESSES in common)."""
    measured = [s for s in side if not s.exact]
    if not all(s.processes for s in measured):
        return None
    logs = [_logs(s) for s in side]
    common = set.intersection(*(set(lg) for s, lg in zip(side, logs, strict=True)
                                if not s.exact))
    if len(common) < MIN_PROCESSES:
        return None
    return np.array([
        sum(lg[next(iter(lg))] if s.exact else lg[r] for s, lg in zip(side, logs, strict=True))
        / len(side) for r in sorted(common)])


def relative_halfwidth(s: Sample | Sequence[float]) -> float | None:
    """Half the width of the 95% interval of the sample's level, as a fraction of it
    (0.01: within 1%); None with fewer than MIN_PROCESSES processes."""
    smp = sample(s)
    if smp.exact:
        return 0.0
    est = _one_sample(np.array(list(_logs(smp).values())))
    if est is None:
        return None
    r = est.ratio(1, 1)
    return max(r.high / r.value - 1, 1 - r.low / r.value)


def adjusted_p(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values (false discovery rate) over the tested
    cases; None stays None (not tested)."""
    tested = [p for p in pvalues if p is not None]
    if not tested:
        return list(pvalues)
    from scipy import stats as sps

    q = iter(sps.false_discovery_control(np.asarray(tested, float), method="bh"))
    return [None if p is None else float(next(q)) for p in pvalues]


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
