"""One run printed in the terminal, as `run` prints a fresh one and `show` a stored one:
its tables led by the experiment's own metrics when this cpulab still has the
experiment, by what the cases measured otherwise."""

from __future__ import annotations

from cpulab.commands.common import out


def render_record(rec, exp, where: str | None) -> None:
    """`where`: the database the run was just stored in, said under it; None for a run
    shown again."""
    from cpulab.report import render_record as render

    render(rec, out, table_metrics=exp.table_metrics if exp else None, where=where)
