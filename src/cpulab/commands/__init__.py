"""Subcommands that live in their own modules, each with `add_parser(sub)`: results that
travel (compare, export, import, report, history, fleet), and `new`. `cli.py` registers them and
turns their errors (TRAVEL_ERRORS) into one line and exit status 1."""

from __future__ import annotations

from cpulab.store import BundleError

TRAVEL_ERRORS: tuple[type[Exception], ...] = (BundleError,)


def add_travel_parsers(sub) -> None:
    from cpulab.commands import bundle, check, compare, fleet, history, new, report

    new.add_parser(sub)
    report.add_parser(sub)
    compare.add_parser(sub)
    bundle.add_parsers(sub)
    history.add_parser(sub)
    fleet.add_parser(sub)
    check.add_parser(sub)
