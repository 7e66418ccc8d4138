"""The figure a run is read by first: the experiment's leading table metric that its
cases have, else TSC ticks, else time. The report leads with it, and `history`, `run
--fail-on-regression` and `check aa` compare by it, none of them needing the other."""

from __future__ import annotations

from cpulab.results.record import RunRecord


def primary_metric(records: list[RunRecord], wanted: tuple[str, ...] | None) -> str | None:
    present = {k for r in records for c in r.cases for k in c.metrics}
    for m in (*(wanted or ()), "tsc", "time"):
        if m in present:
            return m
    return next(iter(sorted(present)), None)
