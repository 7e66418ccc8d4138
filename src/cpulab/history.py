"""One experiment's cases across the stored runs of successive lab revisions on one
machine (`cpulab history`, and a section of the HTML report), with change points: a run
whose figure differs from the previous run's beyond noise, judged like `cpulab compare`
(Welch's t over the runs' processes, corrected over the cases of the step, and a noise
threshold).

Only runs of one profile are put in one history: a quick run beside a default one would
mark a change at every switch of profile, not of code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cpulab.comparison import NOISE, Change, judge, ratio_dict
from cpulab.measure.stats import Ratio, difference, geomean_difference
from cpulab.results import Case, RunRecord


@dataclass(frozen=True)
class Point:
    run: int | None
    started: str
    lab_revision: str
    median: float
    ratio: Ratio | None  # against the previous run that has this case; None for the first
    change: Change = "same"


@dataclass
class Series:
    variant: str
    build: str
    params: str
    points: list[Point] = field(default_factory=list)

    @property
    def label(self) -> str:
        return " ".join(x for x in (self.variant, self.build, self.params) if x)


@dataclass(frozen=True)
class Step:
    """One run against the one before it, over the cases both have."""

    run: int | None
    started: str
    lab_revision: str
    cases: int
    faster: int
    slower: int
    geomean: Ratio | None  # this run / the previous, geometric mean; None for the first


@dataclass
class History:
    experiment: str
    metric: str
    profile: str
    machine: str  # the label of the machine the runs are from
    steps: list[Step]
    series: list[Series]
    left_out: list[str]  # runs of other profiles, and why

    def change_points(self) -> list[tuple[Series, Point]]:
        return [(s, p) for s in self.series for p in s.points if p.change != "same"]

    def as_dict(self) -> dict:
        def ratio(r: Ratio | None) -> dict | None:
            return None if r is None else ratio_dict(r)

        return {"experiment": self.experiment, "metric": self.metric, "profile": self.profile,
                "machine": self.machine, "left_out": self.left_out,
                "runs": [{"id": s.run, "started": s.started, "lab_revision": s.lab_revision,
                          "cases": s.cases, "faster": s.faster, "slower": s.slower,
                          "geomean": ratio(s.geomean)} for s in self.steps],
                "cases": [{"variant": s.variant, "build": s.build, "params": s.params,
                           "points": [{"id": p.run, "lab_revision": p.lab_revision,
                                       "median": p.median, "change": p.change,
                                       "vs_previous": ratio(p.ratio)} for p in s.points]}
                          for s in self.series]}


def _key(c: Case) -> tuple[str, str, str]:
    return c.variant, c.build_label, " ".join(f"{k}={v}" for k, v in
                                              sorted(c.params.items()))


def history(records: list[RunRecord], metric: str, machine: str = "",
            noise: float = NOISE) -> History:
    """The history of `metric` over `records` (runs of one experiment on one machine),
    oldest first. Runs of another profile than the newest's are left out, with a note."""
    if not records:
        raise ValueError("history: no runs")
    experiment = records[0].experiment
    records = sorted(records, key=lambda r: (r.started, r.id or 0))
    profile = records[-1].profile
    left_out = [f"run #{r.id} ({r.profile} profile)" for r in records if r.profile != profile]
    records = [r for r in records if r.profile == profile and r.status == "complete"]
    series: dict[tuple[str, str, str], Series] = {}
    last: dict[tuple[str, str, str], Case] = {}
    steps = []
    higher = None
    for rec in records:
        measured, diffs, pairs = [], [], []
        for c in rec.cases:
            m = c.metrics.get(metric)
            if c.error or m is None:
                continue
            if higher is None:
                higher = m.higher_is_better
            key = _key(c)
            series.setdefault(key, Series(*key))
            prev = last.get(key)
            last[key] = c
            pm = prev.metrics[metric] if prev is not None else None
            if pm is None or pm.median <= 0 or m.median <= 0:
                series[key].points.append(Point(rec.id, rec.started, rec.lab_revision,
                                                m.median, None))
                continue
            measured.append((key, m))
            diffs.append(difference(m.sample, pm.sample))
            pairs.append((m.sample, pm.sample))
        faster = slower = 0
        for (key, m), d, (ch, _) in zip(measured, diffs, judge(diffs, bool(higher), noise),
                                        strict=True):
            faster += ch == "faster"
            slower += ch == "slower"
            series[key].points.append(Point(rec.id, rec.started, rec.lab_revision, m.median,
                                             d.ratio, ch))
        steps.append(Step(rec.id, rec.started, rec.lab_revision, len(pairs), faster, slower,
                          geomean_difference(pairs).ratio if pairs else None))
    return History(experiment, metric, profile, machine,
                   steps, list(series.values()), left_out)
