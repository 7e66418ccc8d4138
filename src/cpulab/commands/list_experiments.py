"""`cpulab list`: the built-in experiments, their seed rows, variants and default builds.
(Named for what it lists: a module `list` would shadow the builtin where imported.)"""

from __future__ import annotations

from cpulab import experiments
from cpulab.commands.common import dump, out


def cmd_list(args) -> int:
    rows = [{"name": e.name, "seed_row": e.seed_row, "title": e.title, "summary": e.summary,
             "compilers": list(e.compilers), "opts": list(e.opts), "pgo": list(e.pgo_opts),
             "variants": e.variants()} for e in experiments.all_experiments()]
    if args.json:
        dump(rows)
        return 0
    from rich.table import Table

    t = Table(header_style="bold")
    for c in ("experiment", "seed", "what it measures", "variants", "default builds"):
        t.add_column(c)
    for r in rows:
        builds = f"{'/'.join(r['compilers'])} x {'/'.join('-' + o for o in r['opts'])}"
        if r["pgo"]:
            builds += f", +pgo at {'/'.join('-' + o for o in r['pgo'])}"
        t.add_row(r["name"], r["seed_row"], r["title"], ", ".join(r["variants"]), builds)
    out.print(t)
    return 0


def add_parser(sub) -> None:
    li = sub.add_parser("list", help="the experiments, their seed rows and variants")
    li.add_argument("--json", action="store_true", help="print JSON")
    li.set_defaults(func=cmd_list)
