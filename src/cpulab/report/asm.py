"""The terminal view of `cpulab asm`: instruction mixes per hot function, and listings."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from cpulab.asm import CATEGORIES


# Columns of the mix table, as the seeds argue (S1: indirect jumps; S11: mulx/add/mov/
# spills; S5: div). "instructions" first; categories that are zero everywhere are hidden.
def render_mix(title: str, mixes: dict[str, dict[str, int]], console: Console) -> None:
    shown = [c for c in CATEGORIES if c == "instructions" or
             any(m.get(c) for m in mixes.values())]
    t = Table(title=title, title_justify="left", header_style="bold")
    t.add_column("function")
    for c in shown:
        t.add_column(c, justify="right")
    total = {c: sum(m[c] for m in mixes.values()) for c in CATEGORIES}
    for name, m in mixes.items():
        t.add_row(name, *(str(m[c]) for c in shown))
    if len(mixes) > 1:
        t.add_row("[bold]total[/]", *(f"[bold]{total[c]}[/]" for c in shown))
    console.print(t)
    hidden = [c for c in CATEGORIES if c not in shown]
    if hidden:
        console.print(f"[dim]zero in every function: {', '.join(hidden)}[/]")


def render_listing(name: str, lines: list[str], console: Console) -> None:
    console.print(f"[bold]{name}[/]")
    for line in lines:
        console.print(f"  {line}", highlight=False, markup=False)
