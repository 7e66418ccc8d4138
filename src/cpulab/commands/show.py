"""`cpulab show ID`: one stored run printed again, as `run` printed it."""

from __future__ import annotations

from cpulab.commands.common import add_db_argument, dump, open_store
from cpulab.commands.experiment_names import experiment_of
from cpulab.commands.record import render_record


def cmd_show(args) -> int:
    with open_store(args.db) as store:
        rec = store.get(args.id)
    if args.json:
        dump(rec.as_dict())
    else:
        render_record(rec, experiment_of(rec), None)
    return 0


def add_parser(sub) -> None:
    s = sub.add_parser("show", help="print one stored run again")
    s.add_argument("id", type=int, metavar="ID", help="run id (see `cpulab runs`)")
    add_db_argument(s)
    s.add_argument("--json", action="store_true", help="print the run's record as JSON")
    s.set_defaults(func=cmd_show)
