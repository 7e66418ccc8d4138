"""What every subcommand shares: the consoles, the usage error, argument types and JSON
output."""

from __future__ import annotations

import json
import sys

from rich.console import Console

# Piped or redirected output is read later, in an editor or a wider window: don't wrap
# the tables at 80 columns then, nor break the paths the messages name into lines.
out = Console(highlight=False, width=None if sys.stdout.isatty() else 180)
err = Console(stderr=True, highlight=False, width=None if sys.stderr.isatty() else 180)


class UsageError(Exception):
    """The command line is at fault (exit status 2)."""


class CommandError(Exception):
    """A command could not do what was asked; the message says why (exit status 1)."""


def add_db_argument(parser) -> None:
    """--db PATH: the results database a command reads or writes."""
    from cpulab.store import default_path

    parser.add_argument("--db", metavar="PATH",
                        help=f"results database (default {default_path()})")


def list_arg(text: str) -> list[str]:
    """An argparse type: `gcc,clang` -> ["gcc", "clang"], blanks dropped."""
    return [w.strip() for w in text.split(",") if w.strip()]


def opt_arg(text: str) -> list[str]:
    """An argparse type: optimisation levels, comma-separated, with or without the dash."""
    import argparse

    opts = [w.removeprefix("-") for w in list_arg(text)]
    bad = [o for o in opts if o not in ("O0", "O1", "O2", "O3", "Os", "Oz", "Og", "Ofast")]
    if bad:
        raise argparse.ArgumentTypeError(f"not an optimisation level: {', '.join(bad)} "
                                         "(use O1,O2,O3,...)")
    return opts


def percentage(text: str) -> float:
    """An argparse type: `5`, `5%` or `0.5` percent, 0 or more."""
    import argparse

    try:
        v = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError("a percentage of 0 or more")
    return v


def add_noise_argument(parser) -> None:
    """--noise-threshold PCT: the smallest difference between two runs called a change."""
    from cpulab.comparison import ALPHA, NOISE

    parser.add_argument(
        "--noise-threshold", type=percentage, metavar="PCT", default=100 * NOISE,
        help=f"call a case faster or slower only when it differs by more than PCT percent "
             f"(default {100 * NOISE:g}) and significantly after the Benjamini-Hochberg "
             f"correction over the cases (false discovery rate {100 * ALPHA:g}%%)")


def dump(obj) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def open_store(path, *, create: bool = False):
    """The results database, saying on stderr when opening it migrated an older layout
    (every command opens it here: the migration rewrites the file in place, and the
    user hears of it from whichever command came first). Only the commands that store
    runs (run, import, check aa --store) create it: a command that reads refuses a
    missing one, leaving no empty database (or folder) behind."""
    from cpulab.store import NoDatabase, Store

    try:
        store = Store(path, create=create)
    except NoDatabase as e:
        raise CommandError(f"{e} (run `cpulab run ...` first)") from e
    for m in store.migrations:
        err.print(f"[dim]{store.path}: migrated, {m}[/]", soft_wrap=True)
    return store
