"""A Markdown table of whole commands, in hyperfine's layout (`| Command | Mean [ms] |
... | Relative |`), with the median and the parameters beside it. The time columns
share one unit, chosen from all their figures (results/columns.py)."""

from __future__ import annotations

import re

from cpulab.report.export.summary import CommandSummary
from cpulab.results.columns import column_format
from cpulab.results.ratios import format_ratio


def serialize(rows: list[CommandSummary]) -> str:
    keys = list(dict.fromkeys(k for r in rows for k in r.params))
    fmt = column_format((v for r in rows for v in (r.mean_ns, r.median_ns, r.min_ns,
                                                   r.max_ns)), "ns")
    head = ["Command", *keys, f"Mean [{fmt.unit}]",
            f"Median [{fmt.unit}]", f"Min [{fmt.unit}]", f"Max [{fmt.unit}]", "Relative"]
    lines = [_row(head), _row([":---", *["---:"] * (len(head) - 1)])]
    for r in rows:
        lines.append(_row([_code(r.command), *(_cell(str(r.params.get(k, ""))) for k in keys),
                           f"{fmt.figure(r.mean_ns)} ± {fmt.figure(r.stddev_ns)}",
                           fmt.figure(r.median_ns), fmt.figure(r.min_ns),
                           fmt.figure(r.max_ns), format_ratio(r.relative)]))
    return "\n".join(lines) + "\n"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _cell(text: str) -> str:
    """A pipe would end the cell, even inside a code span (GitHub's tables)."""
    return text.replace("|", "\\|")


def _code(text: str) -> str:
    """A code span its own backticks cannot close: one backtick more than its longest run."""
    fence = "`" * (max((len(m) for m in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return _cell(f"{fence}{pad}{text}{pad}{fence}")
