"""Runs of one experiment compared case by case: the S16 feature (the same experiment
on another machine, compiler or commit), `cpulab compare A B [C...]`.

Cases are matched by (variant, build, params); when the two sides share no compiler
(gcc's builds of a run against clang's), by (variant, flags, params), the compiler
being what is compared. Each pair gets the ratio new/old of a metric with its 95%
interval and Welch's t-test, both over the two runs' processes (`measure.stats`), and
is called faster, slower or the same by the metric's direction (higher throughput is
faster, a higher time slower). Per variant, the geometric mean of its ratios.
Whether the runs compare at all is `comparability.py`.

A comparison tests many cases at once: at 5% each, 40 unchanged cases would raise two
alarms on average. So, as criterion does, a case is called a change only when it is
both significant after the Benjamini-Hochberg correction over the comparison's cases
(false discovery rate ALPHA) and larger than a noise threshold (NOISE, settable): two
runs of one binary on a VM differ by a few percent as wholes, which no statistic over
one run's processes can see.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from cpulab.comparability import differences, refusals
from cpulab.measure.stats import Difference, Ratio, adjusted_p, difference, geomean_difference
from cpulab.results import Case, RunRecord


class ComparisonError(ValueError):
    """The runs cannot be compared (different experiments, no common case, or a
    comparison that means little and was not forced)."""


# A change smaller than this is not called one, however significant: whole runs on a
# shared VM drift by a few percent (docs/lab-benchmarks.md).
NOISE = 0.03
# The false discovery rate over a comparison's cases (Benjamini-Hochberg).
ALPHA = 0.05

Change = Literal["faster", "slower", "same"]


@dataclass(frozen=True)
class Row:
    variant: str
    build: str
    params: str
    old: float
    new: float
    ratio: Ratio  # new/old, with its 95% interval
    change: Change
    p: float | None = None  # Welch's t-test, two-sided; None: too few processes to test
    q: float | None = None  # p adjusted over the comparison's cases (Benjamini-Hochberg)

    def as_dict(self) -> dict:
        return {"variant": self.variant, "build": self.build, "params": self.params,
                "old": self.old, "new": self.new, **ratio_dict(self.ratio), "p": self.p,
                "q": self.q, "change": self.change}


def ratio_dict(r: Ratio) -> dict:
    """A ratio as JSON: no interval is null bounds and the reason, never Infinity."""
    if not r.has_interval:
        return {"ratio": r.value, "low": None, "high": None, "no_interval": r.why}
    return {"ratio": r.value, "low": r.low, "high": r.high}


def change(r: Ratio, higher_is_better: bool, q: float | None = None,
           noise: float = NOISE) -> Change:
    """faster or slower when the difference is significant after the correction
    (q < ALPHA) and beyond the noise threshold (|log ratio| > log(1 + noise)); which side
    is faster is the metric's direction. Exact figures (counts, n = 1) differ or they do
    not; untested ones (too few processes, q None) are the same."""
    if r.exact:
        up, down = r.value > 1, r.value < 1
    else:
        real = q is not None and q < ALPHA
        up = real and r.value > 1 + noise
        down = real and r.value < 1 / (1 + noise)
    if up:
        return "faster" if higher_is_better else "slower"
    if down:
        return "slower" if higher_is_better else "faster"
    return "same"


def judge(diffs: list[Difference], higher_is_better: bool, noise: float
          ) -> list[tuple[Change, float | None]]:
    """Each difference's call and corrected p-value, the correction over all of them."""
    qs = adjusted_p([d.p for d in diffs])
    return [(change(d.ratio, higher_is_better, q, noise), q)
            for d, q in zip(diffs, qs, strict=True)]


def slowdown(row: Row, higher_is_better: bool) -> float:
    """How much slower the new figure is, as a fraction (0.1 = 10% slower; negative when
    faster): time/old for a cost, old/new for a rate."""
    r = row.ratio.value
    return (1 / r if higher_is_better else r) - 1


def with_build(rec: RunRecord, compiler: str | None) -> list[Case]:
    """The run's measured cases, only those built by `compiler` (a prefix: gcc matches
    gcc-12) when it is given; peers built elsewhere have no compiler and are left out."""
    cases = [c for c in rec.cases if not c.error]
    if compiler is None:
        return cases
    return [c for c in cases if c.build and c.build["compiler"].startswith(compiler)]


def _key(c: Case, with_compiler: bool) -> tuple[str, str, str]:
    if c.build is None:
        build = "-"
    elif with_compiler:
        build = c.build_label
    else:
        build = c.build["flags"] + (" +pgo" if c.build.get("pgo") else "")
    return c.variant, build, json.dumps(c.params, sort_keys=True)


@dataclass(frozen=True)
class Comparison:
    metric: str
    higher_is_better: bool  # the metric's direction, which `Row.change` is read by
    rows: list[Row]
    geomeans: dict[str, tuple[Ratio, Change]] = field(default_factory=dict)  # per variant
    differences: list[str] = field(default_factory=list)  # what is being compared
    forced: list[str] = field(default_factory=list)  # refusals overridden by --force
    noise: float = NOISE  # the threshold a change had to pass

    def counts(self) -> dict[str, int]:
        out = {"faster": 0, "slower": 0, "same": 0}
        for r in self.rows:
            out[r.change] += 1
        return out

    def regressions(self, pct: float) -> list[Row]:
        """Cases called slower (significant after the correction, beyond the noise
        threshold) by more than `pct` percent."""
        return [r for r in self.rows if r.change == "slower"
                and slowdown(r, self.higher_is_better) > pct / 100]

    def as_dict(self) -> dict:
        return {"metric": self.metric, "better": "higher" if self.higher_is_better else "lower",
                "differences": self.differences, "forced": self.forced,
                "noise_threshold": self.noise, "false_discovery_rate": ALPHA,
                "summary": self.counts(),
                "geomean": {v: {**ratio_dict(r), "change": c}
                            for v, (r, c) in self.geomeans.items()},
                "cases": [r.as_dict() for r in self.rows]}


def compare(old: RunRecord, new: RunRecord, metric: str, force: bool = False,
            old_build: str | None = None, new_build: str | None = None,
            noise: float = NOISE) -> Comparison:
    """new against old, case by case. Raises ComparisonError for runs of different
    experiments, without a common case, or (unless `force`) that compare badly."""
    if old.experiment != new.experiment:
        raise ComparisonError(f"run #{old.id} is {old.experiment}, run #{new.id} is "
                              f"{new.experiment}: only runs of one experiment compare")
    old_cases, new_cases = with_build(old, old_build), with_build(new, new_build)
    why = refusals(old, new, old_cases, new_cases, metric)
    if why and not force:
        raise ComparisonError(f"run #{new.id} against run #{old.id} means little: "
                              + "; ".join(why) + " (give --force to compare anyway)")
    compilers = [{c.build["compiler"] for c in cs if c.build} for cs in (old_cases, new_cases)]
    by_compiler = bool(compilers[0] & compilers[1]) or not (compilers[0] and compilers[1])
    before = {_key(c, by_compiler): c for c in old_cases}
    higher = next((c.metrics[metric].higher_is_better for c in new_cases
                   if metric in c.metrics), False)
    matched, diffs = [], []
    pairs: dict[str, list] = defaultdict(list)
    for c in new_cases:
        prev = before.get(_key(c, by_compiler))
        if prev is None or metric not in c.metrics or metric not in prev.metrics:
            continue
        m_old, m_new = prev.metrics[metric], c.metrics[metric]
        if m_old.median <= 0 or m_new.median <= 0:
            continue
        matched.append((c, m_old, m_new))
        diffs.append(difference(m_new.sample, m_old.sample))
        pairs[c.variant].append((m_new.sample, m_old.sample))
    if not matched:
        raise ComparisonError(f"no case of run #{new.id} has `{metric}` in a case of run "
                              f"#{old.id} with the same variant, build and parameters")
    rows = []
    for (c, m_old, m_new), d, (ch, q) in zip(matched, diffs, judge(diffs, higher, noise),
                                             strict=True):
        variant, build, _ = _key(c, by_compiler)
        params = " ".join(f"{k}={v}" for k, v in c.params.items())
        rows.append(Row(variant, build, params, m_old.median, m_new.median, d.ratio, ch,
                        d.p, q))
    variants = list(pairs)
    g_diffs = [geomean_difference(pairs[v]) for v in variants]
    geomeans = {v: (d.ratio, ch) for v, d, (ch, _) in
                zip(variants, g_diffs, judge(g_diffs, higher, noise), strict=True)}
    return Comparison(metric, higher, rows, geomeans,
                      differences(old, new, old_cases if old_build else None,
                                  new_cases if new_build else None), why, noise)
