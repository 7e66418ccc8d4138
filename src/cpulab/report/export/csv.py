"""A CSV table of whole commands, in hyperfine's columns (command, mean, stddev,
median, min, max, in seconds at full precision, parameters as `parameter_KEY`), with
the ratio to the fastest and its 95% interval at the end."""

from __future__ import annotations

import csv
import io

from cpulab.report.export.summary import CommandSummary


def serialize(rows: list[CommandSummary]) -> str:
    keys = list(dict.fromkeys(k for r in rows for k in r.params))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["command", "mean", "stddev", "median", "min", "max",
                *(f"parameter_{k}" for k in keys), "relative", "relative_low",
                "relative_high"])
    for r in rows:
        w.writerow([r.command, *(_s(v) for v in (r.mean_ns, r.stddev_ns, r.median_ns,
                                                  r.min_ns, r.max_ns)),
                    *(r.params.get(k, "") for k in keys),
                    *(repr(v) for v in (r.relative.value, r.relative.low, r.relative.high))])
    return buf.getvalue()


def _s(ns: float) -> str:
    return repr(ns / 1e9)
