"""The cases of `fileread`, from a kernel's output: its repetitions, plus the figures its
extra lines carry (refusals, huge-page probes, the page cache before each pass) and the
rates derived from them (GB/s, page faults per GiB). Shared by one file and many.

Every process (round) prints its own extra lines; they are combined over the rounds the
way each figure reads: a refusal once per strategy, the huge-mapped share per process,
the worst eviction, and the rewarmed calls summed with the worst shortfall.
"""

from __future__ import annotations

from cpulab.context import cases_of
from cpulab.experiments.fileread.strategies import CEILINGS, VARIANTS, GiB
from cpulab.measure.kernel_output import ExtraLine
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome, Program
from cpulab.results import Case


def program_cases(program: Program, outcome: Outcome,
                  variants: tuple[str, ...] = VARIANTS) -> list[Case]:
    """Every variant's case of one program (its build, size and cache state): measured,
    refused by the kernel (with its reason) or failed."""
    cases = cases_of(program, outcome, case_names=variants)
    if outcome.output is None:
        return cases
    build, params = program.build, program.params
    extra = outcome.output.extra
    refusals: dict[str, str] = {}  # every process refuses alike: one case, the first reason
    for x in _of(extra, "refused"):
        refusals.setdefault(x["case"], x["reason"])
    cases += [Case(v, build, dict(params), error=f"refused by the kernel: {why}")
              for v, why in refusals.items()]
    evictions, rewarms = _of(extra, "eviction"), _of(extra, "rewarm")
    for c in cases:
        if c.error:
            continue
        add_rates(c)
        _add_huge_mapped(c, [x for x in _of(extra, "pmd-mapped") if x["case"] == c.variant])
        if evictions and c.variant not in CEILINGS:
            c.metrics["resident-after-eviction"] = Metric.exact(
                100 * max(x["resident"] / x["pages"] for x in evictions), "% of pages", "sw")
        if rewarms and c.variant not in CEILINGS:
            c.metrics["rewarmed-calls"] = Metric.exact(sum(x["calls"] for x in rewarms),
                                                       "calls", "sw")
            c.metrics["missing-before-pass"] = Metric.exact(
                100 * max(x["most_missing"] / x["pages"] for x in rewarms), "% of pages", "sw")
    return cases


def _of(extra: list[ExtraLine], kind: str) -> list[ExtraLine]:
    return [x for x in extra if x.get("type") == kind]


def _add_huge_mapped(c: Case, probes: list[ExtraLine]) -> None:
    """The share of the file each process's untimed pass found mapped with huge pages."""
    if not probes:
        return
    if any(x["file_pmd_mapped"] < 0 for x in probes):
        c.unavailable["huge-mapped"] = {"source": "sw",
                                        "reason": "no FilePmdMapped in /proc/self/smaps"}
        return
    c.metrics["huge-mapped"] = Metric.of([100 * x["file_pmd_mapped"] / x["bytes"]
                                          for x in probes], "% of bytes", "sw")


def add_rates(c: Case) -> None:
    """GB/s from ns per byte (one file: unit "byte") or per file (many small files: unit
    "file", of params["size"] bytes each), and page faults per GiB from faults per unit."""
    t = c.metrics["time"]
    per_unit = int(c.params["size"]) if t.unit == "ns/file" else 1  # bytes
    c.metrics["throughput"] = t.derive(lambda v: per_unit / v, "GB/s", "clock")
    pf = c.metrics.get("page-faults")
    if pf is None:
        reason = c.unavailable.get("page-faults", {}).get("reason", "not counted")
        c.unavailable["faults-per-gib"] = {"source": "sw", "reason": reason}
    else:
        c.metrics["faults-per-gib"] = pf.derive(lambda v: v * GiB / per_unit, "faults/GiB")


def cell(c: Case, metric: str, digits: int = 2) -> str:
    """A table cell: the figure, `unavailable` when the case lacks it for a reason, `-`."""
    v = c.value(metric)
    if v is None:
        return "unavailable" if metric in c.unavailable else "-"
    return f"{v:,.{digits}f}"
