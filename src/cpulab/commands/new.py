"""`cpulab new NAME [DIR]`: an experiment of the user's own, ready to run."""

from __future__ import annotations

from pathlib import Path

from cpulab.commands.common import out


def cmd_new(args) -> int:
    from cpulab.described.scaffold import scaffold

    folder = args.dir if args.dir is not None else Path(args.name)
    written = scaffold(args.name, folder)
    for path in written:
        out.print(str(path))
    out.print(f"run it: cpulab run {folder} --quick; then edit {written[0].name} and "
              f"{written[1].name} (their comments say how)")
    return 0


def add_parser(sub) -> None:
    n = sub.add_parser(
        "new", help="write an experiment of your own: a description, a kernel, a README",
        description="Write a self-contained experiment folder outside the lab: "
                    "experiment.toml (title, variants with their sources and defines, "
                    "swept parameters, build matrix, table metrics, claims), NAME.c (a "
                    "kernel on the lab's harness) and README.md. It runs as written "
                    "(`cpulab run DIR`): a branchy and a branch-free select, to be changed "
                    "into the question of your own.")
    n.add_argument("name", metavar="NAME", help="the experiment's name (runs are stored "
                   "under it, so not a built-in experiment's; letters, digits, '-', '_')")
    n.add_argument("dir", nargs="?", type=Path, metavar="DIR",
                   help="the folder to write (default ./NAME); existing files are never "
                        "overwritten")
    n.set_defaults(func=cmd_new)
