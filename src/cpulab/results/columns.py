"""How a column of figures is written, the same in the terminal and the HTML report and
in the tables an experiment adds to its evidence (so it lives here, below them all).

A column is one metric, so it gets one format, chosen from all its figures: fixed point
with the thousands grouped (`1,234,567`, never `1.2e+06` in one row and `1234567` in
the next), and as many decimals as give its smallest figure four significant digits,
the precision the reports have always had (none for a column of whole numbers). The
spread beside a figure (± MAD) is written in the figure's own format, so that
`491,962 ±1,300` reads as two numbers of one kind, where `491,962 ±1.3e+03` did not.

A column of times in nanoseconds (`ns`, `ns/run`) is shown in the largest unit of ns,
µs, ms and s in which its smallest figure is still 1 or more: a whole command's
`149,809,800` ns/run reads `149.8` ms/run, and a kernel's 1.234 ns/op stays as it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from cpulab.measure.metrics import Metric
from cpulab.results import Case

SIGNIFICANT = 4  # digits of the column's smallest figure
MAX_DECIMALS = 6  # a column with a figure below 1e-3 keeps its larger ones readable


# Time units by size, largest first: (name, nanoseconds in one).
TIME_UNITS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0))


@dataclass(frozen=True)
class ColumnFormat:
    decimals: int
    unit: str = ""  # the column's unit as shown (figures divided by `scale`)
    scale: float = 1.0

    def figure(self, v: float) -> str:
        return f"{v / self.scale:,.{self.decimals}f}"

    def with_unit(self, v: float) -> str:
        """The figure followed by its unit, for a cell that carries it (`149.8 ms`)."""
        return f"{self.figure(v)} {self.unit}".rstrip()

    def metric(self, m: Metric) -> str:
        """The median, and its MAD where there are repetitions to have one."""
        if m.n > 1 and m.mad:
            return f"{self.figure(m.median)} ±{self.figure(m.mad)}"
        return self.figure(m.median)


def column_format(values: Iterable[float], unit: str = "") -> ColumnFormat:
    """The format of a column holding `values` (its figures, not their spreads) in
    `unit`, which a time in nanoseconds may be scaled from."""
    vs = [v for v in values if math.isfinite(v)]
    unit, scale = time_unit(vs, unit)
    vs = [v / scale for v in vs]
    if all(v == int(v) for v in vs):
        return ColumnFormat(0, unit, scale)
    smallest = min(abs(v) for v in vs if v)
    return ColumnFormat(min(MAX_DECIMALS, max(0, SIGNIFICANT - 1 -
                                              math.floor(math.log10(smallest)))), unit, scale)


def time_unit(values: list[float], unit: str) -> tuple[str, float]:
    """(unit, scale): `ns...` scaled up as far as the smallest non-zero figure stays at
    1 or more; any other unit as it is."""
    head, per, rest = unit.partition("/")
    if head != "ns":
        return unit, 1.0
    smallest = min((abs(v) for v in values if v), default=0.0)
    name, scale = next(((n, s) for n, s in TIME_UNITS if smallest >= s), ("ns", 1.0))
    return name + per + rest, scale


def case_columns(cases: list[Case], metrics: list[str]) -> dict[str, tuple[str, ColumnFormat]]:
    """Per metric of a table of cases: what its header says under the name (`ms/run
    [clock]`; `[pmu]` for a metric no case could have) and the format of its figures."""
    out = {}
    for m in metrics:
        have = [c.metrics[m] for c in cases if m in c.metrics]
        if have:
            fmt = column_format((x.median for x in have), have[0].unit)
            out[m] = (f"{fmt.unit} [{have[0].source}]", fmt)
        else:
            why = next((c.unavailable[m] for c in cases if m in c.unavailable), {})
            out[m] = (f"[{why.get('source', '?')}]", column_format(()))
    return out
