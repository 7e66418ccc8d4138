"""`cpulab run --fail-on-regression [PCT]`: what makes a fresh run fail a CI job. A claim
that is now refuted always does; with PCT, so does a case significantly slower than in
the previous run of the experiment on this machine (`cpulab compare`'s rule, on the
run's leading metric). A previous run that does not compare (another profile, other
parameters) is said on stderr and fails nothing: there is no baseline to regress from."""

from __future__ import annotations

from cpulab.commands.common import err
from cpulab.comparison import ComparisonError, compare
from cpulab.results import RunRecord
from cpulab.results.primary_metric import primary_metric
from cpulab.store import Store


def regressions(store: Store, rec: RunRecord, table_metrics, pct: float | None) -> list[str]:
    """One line per reason the run regressed; empty when it did not."""
    found = [f"{rec.experiment}: claim refuted: {v.claim}" for v in rec.verdicts
             if v.verdict == "refuted"]
    if pct is None:
        return found
    previous = _previous(store, rec)
    if previous is None:
        err.print(f"[dim]{rec.experiment}: no earlier run on this machine to compare with[/]")
        return found
    metric = primary_metric([rec], table_metrics)
    if metric is None:
        return found
    try:
        c = compare(previous, rec, metric)
    except ComparisonError as e:
        err.print(f"[yellow]{rec.experiment}: not compared with run #{previous.id}: {e}[/]")
        return found
    for r in c.regressions(pct):
        found.append(f"{rec.experiment}: {r.variant} {r.build} {r.params} {metric} "
                     f"{r.ratio} of run #{previous.id} (more than {pct:g}% slower)")
    return found


def _previous(store: Store, rec: RunRecord) -> RunRecord | None:
    """The newest complete run of the experiment on this machine before `rec`."""
    for row in store.runs(rec.experiment):
        if (row["id"] != rec.id and row["machine_key"] == rec.machine_key
                and row["origin"] is None and row["status"] == "complete"
                and (rec.id is None or row["id"] < rec.id)):
            return store.get(row["id"])
    return None
