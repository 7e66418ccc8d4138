"""How a running experiment shows its progress: a rich bar on a terminal, plain phase
lines in a log."""

from __future__ import annotations

from cpulab.commands.common import err
from cpulab.context import Reporter


class ProgressBar(Reporter):
    """A rich progress bar on stderr (plain phase lines when stderr is not a terminal)."""

    def __init__(self, name: str):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.name = name
        self.live = err.is_terminal
        self.bar = Progress("[bold]{task.description}", BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=err, transient=True)
        self.task = self.bar.add_task(name, total=None)

    def __enter__(self):
        if self.live:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.live:
            self.bar.stop()

    def phase(self, text: str) -> None:
        self.bar.update(self.task, description=f"{self.name}: {text}")
        if not self.live:
            err.print(f"[dim]{self.name}: {text}[/]")

    def total(self, n: int) -> None:
        self.bar.update(self.task, total=n, completed=0)

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)
