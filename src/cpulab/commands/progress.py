"""The progress bar of `cpulab run`, on stderr: the experiment and its phase, a bar, the
phase's counter, the time spent in it and, once a few steps are done, rich's estimate
of the time left. Each phase starts a fresh count with its own total, so the counter
always counts what the label names; a phase that counts nothing (preparing data, a
peer's build) shows a pulsing bar and no counter, never `0/?`. When stderr is not a
terminal, one plain line per phase instead.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from cpulab.context import Reporter


class _Counter(ProgressColumn):
    """`3/12`, or nothing while the phase has no total."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed)}/{int(task.total)}", style="progress.download")


class _TimeLeft(TimeRemainingColumn):
    """rich's estimate from the pace so far, said as one (`0:00:12 left`)."""

    def render(self, task: Task) -> Text:
        text = super().render(task)
        if text.plain:
            text.append(" left")
        return text


class ProgressBar(Reporter):
    def __init__(self, name: str, console: Console, clock: Callable[[], float] | None = None):
        """`clock`: seconds, for rich's pace and estimate (a fake one in tests)."""
        self.name, self.console = name, console
        self.live = console.is_terminal
        self.bar = Progress("[bold]{task.description}", BarColumn(), _Counter(),
                            TimeElapsedColumn(), _TimeLeft(), console=console, transient=True,
                            get_time=clock)
        self.task = self.bar.add_task(name, total=None)

    def __enter__(self):
        if self.live:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.live:
            self.bar.stop()

    def phase(self, text: str, total: int | None = None) -> None:
        # A task per phase: rich's update cannot take a total back to "unknown", and
        # the time left is estimated from this phase's pace alone.
        self.bar.remove_task(self.task)
        self.task = self.bar.add_task(f"{self.name}: {text}", total=total)
        if not self.live:
            self.console.print(f"[dim]{self.name}: {text}[/]")

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)
