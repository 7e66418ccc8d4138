"""`cpulab history EXPERIMENT`: one machine's runs of an experiment, revision after
revision, with the runs (and cases) that changed beyond noise."""

from __future__ import annotations

from cpulab.commands.common import (
    UsageError,
    add_db_argument,
    add_noise_argument,
    dump,
    open_store,
    out,
)
from cpulab.commands.experiment_names import name_of
from cpulab.comparison import NOISE
from cpulab.history import History, history
from cpulab.results import RunRecord
from cpulab.store import Store


def machine_label(rec: RunRecord) -> str:
    cpu = rec.machine.get("cpu", {}).get("model_name") or "?"
    return f"{rec.origin or 'this database'}: {cpu} ({rec.machine_key})"


def runs_on_one_machine(store: Store, experiment: str, machine: str | None
                        ) -> list[RunRecord]:
    """The runs of `experiment` on one machine: the one `machine` names (key prefix or
    origin), else the newest run's; a machine is its fingerprint key and origin, since
    two fleet hosts can share a fingerprint."""
    records = [store.get(i) for i in store.ids(experiment, machine)]
    if not records:
        where = f" on machine {machine!r}" if machine else ""
        raise UsageError(f"no run of {experiment}{where} in {store.path}; see `cpulab runs`")
    newest = records[-1]
    return [r for r in records
            if (r.machine_key, r.origin) == (newest.machine_key, newest.origin)]


def metrics_of(records: list[RunRecord]) -> list[str]:
    """The metrics that the runs' cases measured, sorted: what --metric can follow."""
    return sorted({m for r in records for c in r.cases if not c.error for m in c.metrics})


def load(store: Store, experiment: str, metric: str | None, machine: str | None,
         noise: float = NOISE) -> History:
    """The history of `metric` (default: the experiment's leading figure, as the report
    shows it) on one machine."""
    from cpulab import experiments
    from cpulab.results.primary_metric import primary_metric

    records = runs_on_one_machine(store, experiment, machine)
    if metric is None:
        wanted = (experiments.get(experiment).table_metrics
                  if experiment in experiments.names() else None)
        metric = primary_metric(records, wanted) or "tsc"
    return history(records, metric, machine_label(records[-1]), noise)


def cmd_history(args) -> int:
    from cpulab.report.terminal import render_history

    name = name_of(args.experiment)  # a described one's path: its runs' name
    with open_store(args.db) as store:
        h = load(store, name, args.metric, args.machine, args.noise_threshold / 100)
        if not any(s.points for s in h.series):
            have = metrics_of([r for r in runs_on_one_machine(store, name, args.machine)
                               if r.profile == h.profile and r.status == "complete"])
            raise UsageError(f"no run of {name} has the metric `{h.metric}`; "
                             f"give --metric with one they have: {', '.join(have) or 'none'}")
    if args.case:
        h.series = [s for s in h.series if args.case in s.label]
        if not h.series:
            raise UsageError(f"--case {args.case!r} matches no case (variant, build or "
                             "parameters) of these runs")
    if args.json:
        dump(h.as_dict())
    else:
        render_history(h, out, cases=bool(args.case))
    return 0


def add_parser(sub) -> None:
    h = sub.add_parser(
        "history", help="an experiment's runs on one machine across lab revisions, with "
                        "the changes beyond noise",
        description="The stored runs of one experiment on one machine, oldest first: per "
                    "run its lab revision and the geometric mean of its cases against the "
                    "run before, and every case that changed from one run to the next: "
                    "significant after the Benjamini-Hochberg correction over the run's "
                    "cases (Welch's t over processes) and beyond the noise threshold. "
                    "--case shows the figure of the matching cases in every run.")
    h.add_argument("experiment", metavar="EXPERIMENT",
                   help="an experiment's name, or a described one's folder or .toml file")
    h.add_argument("--metric", help="metric to follow (default: the experiment's leading "
                                    "figure, e.g. time or throughput)")
    h.add_argument("--machine", metavar="KEY|ORIGIN",
                   help="the machine (fingerprint key prefix or fleet host name); default: "
                        "the newest run's")
    h.add_argument("--case", metavar="TEXT",
                   help="show the cases whose variant, build or parameters contain TEXT")
    add_noise_argument(h)
    add_db_argument(h)
    h.add_argument("--json", action="store_true", help="print JSON")
    h.set_defaults(func=cmd_history)
