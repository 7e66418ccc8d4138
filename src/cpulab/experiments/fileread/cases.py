"""The cases of `fileread`, from a kernel's output: its repetitions, plus the figures its
extra lines carry (refusals, huge-page probes, the page cache before each pass) and the
rates derived from them (GB/s, page faults per GiB). Shared by one file and many.
"""

from __future__ import annotations

from cpulab.context import cases_from_outcome
from cpulab.experiments.fileread.strategies import CEILING, VARIANTS, GiB
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome
from cpulab.results import Case


def cases_of(outcome: Outcome, build: dict, params: dict,
             variants: tuple[str, ...] = VARIANTS) -> list[Case]:
    """Every variant's case: measured, refused by the kernel (with its reason) or failed."""
    cases = cases_from_outcome(outcome, lambda n: n, build, params, variants)
    if outcome.output is None:
        return cases
    extra = outcome.output.extra
    for line in extra:
        if line.get("type") == "refused":
            cases.append(Case(line["case"], build, dict(params),
                              error=f"refused by the kernel: {line['reason']}"))
    huge = {x["case"]: x for x in extra if x.get("type") == "pmd-mapped"}
    eviction = next((x for x in extra if x.get("type") == "eviction"), None)
    rewarm = next((x for x in extra if x.get("type") == "rewarm"), None)
    for c in cases:
        if c.error:
            continue
        add_rates(c)
        if c.variant in huge:
            x = huge[c.variant]
            if x["file_pmd_mapped"] < 0:
                c.unavailable["huge-mapped"] = {"source": "sw", "reason":
                                                "no FilePmdMapped in /proc/self/smaps"}
            else:
                c.metrics["huge-mapped"] = Metric.exact(
                    100 * x["file_pmd_mapped"] / x["bytes"], "% of bytes", "sw")
        if eviction and c.variant != CEILING:
            c.metrics["resident-after-eviction"] = Metric.exact(
                100 * eviction["resident"] / eviction["pages"], "% of pages", "sw")
        if rewarm and c.variant != CEILING:
            c.metrics["rewarmed-calls"] = Metric.exact(rewarm["calls"], "calls", "sw")
            c.metrics["missing-before-pass"] = Metric.exact(
                100 * rewarm["most_missing"] / rewarm["pages"], "% of pages", "sw")
    return cases


def add_rates(c: Case) -> None:
    """GB/s from ns per byte (one file: unit "byte") or per file (many small files: unit
    "file", of params["size"] bytes each), and page faults per GiB from faults per unit."""
    t = c.metrics["time"]
    per_unit = int(c.params["size"]) if t.unit == "ns/file" else 1  # bytes
    c.metrics["throughput"] = Metric.of([per_unit / v for v in t.values], "GB/s", "clock")
    pf = c.metrics.get("page-faults")
    if pf is None:
        reason = c.unavailable.get("page-faults", {}).get("reason", "not counted")
        c.unavailable["faults-per-gib"] = {"source": "sw", "reason": reason}
    else:
        c.metrics["faults-per-gib"] = Metric.of([v * GiB / per_unit for v in pf.values],
                                                "faults/GiB", pf.source)


def cell(c: Case, metric: str, digits: int = 2) -> str:
    """A table cell: the figure, `unavailable` when the case lacks it for a reason, `-`."""
    v = c.value(metric)
    if v is None:
        return "unavailable" if metric in c.unavailable else "-"
    return f"{v:,.{digits}f}"
