"""How a column of figures is written, the same in the terminal and the HTML report.

A column is one metric, so it gets one format, chosen from all its figures: fixed point
with the thousands grouped (`1,234,567`, never `1.2e+06` in one row and `1234567` in
the next), and as many decimals as give its smallest figure four significant digits,
the precision the reports have always had (none for a column of whole numbers). The
spread beside a figure (± MAD) is written in the figure's own format, so that
`491,962 ±1,300` reads as two numbers of one kind, where `491,962 ±1.3e+03` did not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from cpulab.measure.metrics import Metric

SIGNIFICANT = 4  # digits of the column's smallest figure
MAX_DECIMALS = 6  # a column with a figure below 1e-3 keeps its larger ones readable


@dataclass(frozen=True)
class ColumnFormat:
    decimals: int

    def figure(self, v: float) -> str:
        return f"{v:,.{self.decimals}f}"

    def metric(self, m: Metric) -> str:
        """The median, and its MAD where there are repetitions to have one."""
        if m.n > 1 and m.mad:
            return f"{self.figure(m.median)} ±{self.figure(m.mad)}"
        return self.figure(m.median)


def column_format(values: Iterable[float]) -> ColumnFormat:
    """The format of a column holding `values` (its figures, not their spreads)."""
    vs = [v for v in values if math.isfinite(v)]
    if all(v == int(v) for v in vs):
        return ColumnFormat(0)
    smallest = min(abs(v) for v in vs if v)
    return ColumnFormat(min(MAX_DECIMALS, max(0, SIGNIFICANT - 1 -
                                              math.floor(math.log10(smallest)))))
