"""Two stored runs of one experiment, case by case: the S16 feature (the same experiment
on another machine, compiler or commit).

Cases are matched by (variant, build, params); each pair gets the ratio new/old of a
metric's medians with a bootstrap interval over the stored per-repetition figures, and
is called better or worse by the metric's direction (a higher throughput is better, a
higher time is worse). What makes two runs hard to compare (other CPU, microcode,
kernel, compiler version, profile) is listed, not hidden: comparing machines is the
point, but the reader must know.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from cpulab.measure.stats import Ratio
from cpulab.results import Case, RunRecord
from cpulab.results.ratios import median_ratio


class ComparisonError(ValueError):
    """The two runs cannot be compared (different experiments, or no common case)."""


# Within this band a ratio is not called a change even when its interval excludes 1: the
# interval is over repetitions of one run, and whole runs on a shared VM drift by a few
# percent (README, "Benchmarks of the lab itself": medians moved 1.5-6.7%).
DRIFT = 0.03

Change = Literal["better", "worse", "same"]


@dataclass(frozen=True)
class Row:
    variant: str
    build: str
    params: str
    old: float
    new: float
    ratio: Ratio  # new/old of the medians, with its 95% interval
    change: Change

    def as_dict(self) -> dict:
        return {"variant": self.variant, "build": self.build, "params": self.params,
                "old": self.old, "new": self.new, "ratio": self.ratio.value,
                "low": self.ratio.low, "high": self.ratio.high, "change": self.change}


def change(r: Ratio, higher_is_better: bool) -> Change:
    """better or worse when the whole interval lies on one side of 1 and the ratio is
    beyond the drift band; which side is better is the metric's direction."""
    if r.low > 1 and r.value > 1 + DRIFT:
        return "better" if higher_is_better else "worse"
    if r.high < 1 and r.value < 1 - DRIFT:
        return "worse" if higher_is_better else "better"
    return "same"


def _key(c: Case) -> tuple[str, str, str]:
    return c.variant, c.build_label, json.dumps(c.params, sort_keys=True)


def differences(old: RunRecord, new: RunRecord) -> list[str]:
    """What differs between the two runs' contexts, one line each."""
    out = []
    if old.machine_key != new.machine_key:
        a, b = old.machine.get("cpu", {}), new.machine.get("cpu", {})
        out.append(f"machine: {a.get('model_name')} (microcode {a.get('microcode')}, kernel "
                   f"{old.machine.get('kernel', {}).get('release')}) vs {b.get('model_name')} "
                   f"(microcode {b.get('microcode')}, kernel "
                   f"{new.machine.get('kernel', {}).get('release')})")
    va = {b["compiler"]: b["compiler_version"] for b in old.builds}
    vb = {b["compiler"]: b["compiler_version"] for b in new.builds}
    for cc in sorted(set(va) & set(vb)):
        if va[cc] != vb[cc]:
            out.append(f"compiler {cc}: {va[cc]} vs {vb[cc]}")
    if old.profile != new.profile:
        out.append(f"profile: {old.profile} vs {new.profile}")
    if old.lab_revision != new.lab_revision:
        out.append(f"lab revision: {old.lab_revision} vs {new.lab_revision}")
    return out


@dataclass(frozen=True)
class Comparison:
    metric: str
    higher_is_better: bool  # the metric's direction, which `Row.change` is read by
    rows: list[Row]

    def as_dict(self) -> dict:
        return {"metric": self.metric, "better": "higher" if self.higher_is_better else "lower",
                "cases": [r.as_dict() for r in self.rows]}


def compare(old: RunRecord, new: RunRecord, metric: str) -> Comparison:
    if old.experiment != new.experiment:
        raise ComparisonError(f"run #{old.id} is {old.experiment}, run #{new.id} is "
                              f"{new.experiment}: only runs of one experiment compare")
    before = {_key(c): c for c in old.cases if not c.error}
    higher = next((c.metrics[metric].higher_is_better for c in new.cases
                   if metric in c.metrics), False)
    rows = []
    for c in new.cases:
        prev = before.get(_key(c))
        if c.error or prev is None:
            continue
        r = median_ratio(c, prev, metric)
        if r is None:
            continue
        rows.append(Row(c.variant, c.build_label, _key(c)[2] if c.params else "",
                        prev.metrics[metric].median, c.metrics[metric].median, r,
                        change(r, higher)))
    if not rows:
        raise ComparisonError(f"no case of run #{new.id} has `{metric}` in a case of run "
                              f"#{old.id} with the same variant, build and parameters")
    return Comparison(metric, higher, rows)
