"""What an export of whole commands shows: per command and parameter set, the wall
time's mean and standard deviation (hyperfine's figures), median, min and max over the
timed runs, and the ratio of its median to the fastest median it was compared with,
with the ratio's 95% interval (the lab's figure, as in the terminal's evidence).

"The fastest it was compared with" is the fastest command with the same parameters;
with a single command swept over parameters, the fastest parameter set, since the
parameters are then what is compared (hyperfine's --parameter-scan). Failed commands
have no time and no row; the run's report and exit status say why.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass

from cpulab.measure.stats import Ratio
from cpulab.results import Case, RunRecord
from cpulab.results.ratios import median_ratio


@dataclass(frozen=True)
class CommandSummary:
    command: str  # as given, with its {KEY}s
    params: dict
    mean_ns: float
    stddev_ns: float
    median_ns: float
    min_ns: float
    max_ns: float
    relative: Ratio  # median against the fastest's; exactly 1 for the fastest


def command_summaries(rec: RunRecord) -> list[CommandSummary]:
    cases = [c for c in rec.cases if not c.error and "time" in c.metrics]
    by_params = len({c.variant for c in rec.cases}) > 1  # several commands compared
    groups: dict[str, list[Case]] = {}
    for c in cases:
        groups.setdefault(_key(c, by_params), []).append(c)
    fastest = {k: min(g, key=lambda x: x.metrics["time"].median) for k, g in groups.items()}
    return [_summary(c, fastest[_key(c, by_params)]) for c in cases]


def _key(c: Case, by_params: bool) -> str:
    return json.dumps(c.params, sort_keys=True) if by_params else ""


def _summary(c: Case, best: Case) -> CommandSummary:
    m = c.metrics["time"]
    values = m.values or (m.median,)
    relative = None if c is best else median_ratio(c, best, "time")
    return CommandSummary(
        c.variant, dict(c.params), statistics.fmean(values),
        statistics.stdev(values) if len(values) > 1 else 0.0, m.median,
        m.min if m.min is not None else min(values),
        m.max if m.max is not None else max(values),
        relative or Ratio(1.0, 1.0, 1.0, m.n, m.n))
