"""`cpulab plot ID`: a stored run's figures drawn again as PNG files, by the plots its
experiment declares; a run of an experiment this cpulab lacks has none to draw."""

from __future__ import annotations

from pathlib import Path

from cpulab.commands.common import UsageError, add_db_argument, open_store, out
from cpulab.commands.experiment_names import experiment_of


def cmd_plot(args) -> int:
    from cpulab.report.plot import plot_run
    from cpulab.results.primary_metric import primary_metric

    with open_store(args.db) as store:
        rec = store.get(args.id)
        out_dir = args.out or store.path.parent / "plots"
    exp = experiment_of(rec)
    if exp is None:
        raise UsageError(f"run #{rec.id} is of {rec.experiment}, which this cpulab lacks")
    for path in plot_run(rec, exp.plots, Path(out_dir),
                         bars_metric=primary_metric([rec], exp.table_metrics)):
        out.print(str(path))
    return 0


def add_parser(sub) -> None:
    pl = sub.add_parser("plot", help="draw a stored run's figures (PNG): its leading metric "
                        "per case with 95%% intervals, a metric against a swept size (log "
                        "axes, fitted growth)")
    pl.add_argument("id", type=int, metavar="ID", help="run id (see `cpulab runs`)")
    pl.add_argument("--out", type=Path, metavar="DIR",
                    help="folder for the PNG files (default: plots/ beside the database)")
    add_db_argument(pl)
    pl.set_defaults(func=cmd_plot)
