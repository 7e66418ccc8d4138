"""What a figure of a run shows; an experiment declares its figures, the report draws them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlotSpec:
    """One figure of a run: `metric` against the numeric parameter `x`, a line per
    variant and build, cases with other parameters equal to `where` only."""

    name: str  # file name stem: "sweep" -> run-12-bigdec-sweep.png
    title: str
    x: str  # a key of Case.params
    metric: str
    x_label: str | None = None
    log_x: bool = True
    log_y: bool = True
    where: tuple[tuple[str, object], ...] = ()
