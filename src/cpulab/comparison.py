"""Runs of one experiment compared case by case: the S16 feature (the same experiment
on another machine, compiler or commit), `cpulab compare A B [C...]`.

Cases are matched by (variant, build, params); when the two sides share no compiler
(gcc's builds of a run against clang's), by (variant, flags, params), the compiler
being what is compared. Each pair gets the ratio new/old of a metric's medians with a
95% bootstrap interval and a Mann-Whitney U test over the stored per-repetition
figures, and is called faster, slower or the same by the metric's direction (higher
throughput is faster, a higher time slower). Per variant, the geometric mean of its
ratios. Whether the runs compare at all is `comparability.py`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from cpulab.comparability import differences, refusals
from cpulab.measure.stats import Ratio, u_test, u_test_can_reject
from cpulab.results import Case, RunRecord
from cpulab.results.ratios import geomean_ratio, median_ratio


class ComparisonError(ValueError):
    """The runs cannot be compared (different experiments, no common case, or a
    comparison that means little and was not forced)."""


# Within this band a ratio is not called a change even when its interval excludes 1: the
# interval is over repetitions of one run, and whole runs on a shared VM drift by a few
# percent (README, "Benchmarks of the lab itself": medians moved 1.5-6.7%).
DRIFT = 0.03
# A change must also pass the U test at this level (two-sided).
ALPHA = 0.05

Change = Literal["faster", "slower", "same"]


@dataclass(frozen=True)
class Row:
    variant: str
    build: str
    params: str
    old: float
    new: float
    ratio: Ratio  # new/old of the medians, with its 95% interval
    change: Change
    p: float | None = None  # Mann-Whitney U, two-sided; None: too few figures to test

    def as_dict(self) -> dict:
        return {"variant": self.variant, "build": self.build, "params": self.params,
                "old": self.old, "new": self.new, "ratio": self.ratio.value,
                "low": self.ratio.low, "high": self.ratio.high, "p": self.p,
                "change": self.change}


def change(r: Ratio, higher_is_better: bool, p: float | None = None) -> Change:
    """faster or slower when the whole interval lies on one side of 1, the ratio is
    beyond the drift band and the U test agrees (p < ALPHA); which side is faster is the
    metric's direction. Exact figures (counts, n = 1) differ or they do not; without a
    p-value (too few figures for the test) the interval and the band decide."""
    exact = r.low == r.high
    if exact:
        up, down = r.value > 1, r.value < 1
    else:
        significant = p is None or p < ALPHA
        up = r.low > 1 and r.value > 1 + DRIFT and significant
        down = r.high < 1 and r.value < 1 - DRIFT and significant
    if up:
        return "faster" if higher_is_better else "slower"
    if down:
        return "slower" if higher_is_better else "faster"
    return "same"


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

    def counts(self) -> dict[str, int]:
        out = {"faster": 0, "slower": 0, "same": 0}
        for r in self.rows:
            out[r.change] += 1
        return out

    def regressions(self, pct: float) -> list[Row]:
        """Cases significantly slower by more than `pct` percent."""
        return [r for r in self.rows if r.change == "slower"
                and slowdown(r, self.higher_is_better) > pct / 100]

    def as_dict(self) -> dict:
        return {"metric": self.metric, "better": "higher" if self.higher_is_better else "lower",
                "differences": self.differences, "forced": self.forced,
                "summary": self.counts(),
                "geomean": {v: {"ratio": r.value, "low": r.low, "high": r.high, "change": c}
                            for v, (r, c) in self.geomeans.items()},
                "cases": [r.as_dict() for r in self.rows]}


def compare(old: RunRecord, new: RunRecord, metric: str, force: bool = False,
            old_build: str | None = None, new_build: str | None = None) -> Comparison:
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
    rows, pairs = [], defaultdict(list)
    for c in new_cases:
        prev = before.get(_key(c, by_compiler))
        if prev is None:
            continue
        r = median_ratio(c, prev, metric)
        if r is None:
            continue
        m_old, m_new = prev.metrics[metric], c.metrics[metric]
        # Too few figures for the U test ever to reject (3 against 3): judged by the
        # interval and the drift band alone, and p is not reported.
        p = (u_test(m_old.values, m_new.values)
             if u_test_can_reject(len(m_old.values), len(m_new.values), ALPHA) else None)
        variant, build, _ = _key(c, by_compiler)
        params = " ".join(f"{k}={v}" for k, v in c.params.items())
        rows.append(Row(variant, build, params, m_old.median,
                        m_new.median, r, change(r, higher, p), p))
        if m_old.median > 0 and m_new.median > 0:
            pairs[c.variant].append((m_new, m_old))
    if not rows:
        raise ComparisonError(f"no case of run #{new.id} has `{metric}` in a case of run "
                              f"#{old.id} with the same variant, build and parameters")
    geomeans = {}
    for variant, ps in pairs.items():
        g = geomean_ratio(ps)
        geomeans[variant] = (g, change(g, higher))
    return Comparison(metric, higher, rows, geomeans,
                      differences(old, new, old_cases if old_build else None,
                                  new_cases if new_build else None), why)
