"""`--fail-on-regression [PCT]`, the same flag with the same meaning in `cpulab run` and
`cpulab compare`: a case regressed when the comparison calls it slower than its
baseline (`cpulab compare`'s rule, comparison.py) and, with PCT, slower by more than
PCT percent. `compare`'s baseline is its first run; `run`'s is the previous run of the
experiment on this machine, on the run's leading metric, and for `run` a claim that is
now refuted fails the job too. A previous run that does not compare (another profile,
other parameters) is said on stderr and fails nothing: there is no baseline to regress
from."""

from __future__ import annotations

from cpulab.commands.common import err, percentage
from cpulab.comparison import Comparison, ComparisonError, Row, compare
from cpulab.results import RunRecord
from cpulab.results.primary_metric import primary_metric
from cpulab.store import Store

# Exit status when --fail-on-regression finds one: not 1 (an error) nor 2 (usage), so that
# CI can tell a slower build from a broken comparison.
REGRESSION_STATUS = 3


def add_fail_on_regression(parser, baseline: str, also: str = "") -> None:
    """The flag, one text for both commands but for what the baseline is. Not given:
    False; given alone: None (any case called slower); with PCT: the percentage."""
    parser.add_argument(
        "--fail-on-regression", nargs="?", type=percentage, const=None, default=False,
        metavar="PCT",
        help=f"exit with status {REGRESSION_STATUS} when a case is called slower than "
             f"{baseline}, or with PCT slower by more than PCT percent{also} (for CI)")


def slower(c: Comparison, pct: float | None) -> list[Row]:
    """The cases that regressed: every one called slower, or with `pct` those called
    slower by more than `pct` percent."""
    if pct is None:
        return [r for r in c.rows if r.change == "slower"]
    return c.regressions(pct)


def beyond(pct: float | None) -> str:
    """How the lines of a regression say the threshold."""
    return "called slower" if pct is None else f"more than {pct:g}% slower"


def regressions(store: Store, rec: RunRecord, table_metrics, pct: float | None) -> list[str]:
    """One line per reason the run regressed; empty when it did not."""
    found = [f"{rec.experiment}: claim refuted: {v.claim}" for v in rec.verdicts
             if v.verdict == "refuted"]
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
    for r in slower(c, pct):
        found.append(f"{rec.experiment}: {r.variant} {r.build} {r.params} {metric} "
                     f"{r.ratio} of run #{previous.id} ({beyond(pct)})")
    return found


def _previous(store: Store, rec: RunRecord) -> RunRecord | None:
    """The newest complete run of the experiment on this machine before `rec`."""
    for row in store.runs(rec.experiment):
        if (row["id"] != rec.id and row["machine_key"] == rec.machine_key
                and row["origin"] is None and row["status"] == "complete"
                and (rec.id is None or row["id"] < rec.id)):
            return store.get(row["id"])
    return None
