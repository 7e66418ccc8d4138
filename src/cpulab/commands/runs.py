"""`cpulab runs`: the runs stored in the results database, newest first."""

from __future__ import annotations

from cpulab.commands.common import add_db_argument, dump, open_store, out
from cpulab.commands.experiment_names import name_of


def cmd_runs(args) -> int:
    from cpulab.report import render_runs

    with open_store(args.db) as store:
        rows = list(store.runs(args.experiment and name_of(args.experiment), args.limit))
        if args.json:
            dump({"db": str(store.path), "runs": rows})
        elif not rows:
            out.print(f"no runs stored in {store.path} yet: `cpulab run --all` makes some")
        else:
            render_runs(rows, out)
            out.print(f"[dim]{store.path}; `cpulab show ID` prints one run[/]")
    return 0


def add_parser(sub) -> None:
    rs = sub.add_parser("runs", help="the runs stored in the results database")
    rs.add_argument("--experiment", metavar="NAME",
                    help="only this experiment's runs (a described one's folder or .toml "
                         "file stands for its name)")
    rs.add_argument("--limit", type=int, default=50, help="newest N runs (default 50)")
    add_db_argument(rs)
    rs.add_argument("--json", action="store_true", help="print JSON")
    rs.set_defaults(func=cmd_runs)
