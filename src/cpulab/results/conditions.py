"""The conditions a run was measured in: how busy the rest of the machine kept the CPUs
while its processes ran, per case and for the run, and the plain reasons, if any, to
call it a disturbed machine. A verdict taken on one says so; nothing is hidden or dropped.

Thresholds, and why:
- others using more than 0.25 cores on average while the run measured. A quiet 2-core
  VM shows ~0.03 (its daemons, this Python waiting on a pipe); a quarter of a core is a
  neighbour busy a quarter of the time, enough to take the core a kernel runs on, its
  caches and its share of memory bandwidth for much of a 5-40 ms timed call.
- steal above 5% of the machine's CPU time: the hypervisor ran another guest on our
  vCPUs; a clock figure then includes time our code never ran.
- a case whose processes spent more than 25% of their wall time off-CPU (1 - cpu/wall,
  the median over its processes) beyond the machine's iowait: a kernel that reads a
  cold file waits for the disk by design, one that is descheduled does not. A process
  on several cores at once (threads, parallel children) has cpu > wall, a share below
  0, and is never flagged.
Others and steal are judged over the whole run, never per case: /proc/stat counts in
10 ms ticks, so one 60 ms process (a quick profile's) reads others +-0.3 cores from
rounding alone, while a sum over all the run's processes averages that out (the raw
sums are kept for it, negative remainders included, so that the average has no bias).
The CPU time behind the off-CPU share is the kernel's rusage, exact enough per case.
The load average is kept (at the start and end of the run) but flags nothing: it counts
the lab's own compile jobs of a moment before.

Figures that could not be read are None, and a None never flags anything.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from cpulab.measure.process_stats import ProcessStats

if TYPE_CHECKING:
    from cpulab.results.case import Case

OTHERS_CORES = 0.25
STEAL_SHARE = 0.05
OFF_CPU_SHARE = 0.25


@dataclass(frozen=True)
class CaseConditions:
    """The processes that measured one case, summarised (medians resist one slow one)."""

    processes: int
    wall_s: float  # their wall time in all
    off_cpu_share: float | None  # median of 1 - cpu/wall; < 0: more than one core
    io_wait_share: float | None  # median of the machine's iowait / wall
    others_cores: float | None  # median of the cores others kept busy (0 at least)
    others_cores_max: float | None
    others_cpu_s: float | None  # the CPU time others used in all, rounding remainders kept
    steal_share: float | None  # steal / all CPU time, over all its processes

    @classmethod
    def of(cls, processes: Sequence[ProcessStats]) -> CaseConditions | None:
        """None when no process was measured (a runner that measures none)."""
        if not processes:
            return None
        others = _known([p.others_cores for p in processes])
        others_ns = _known([p.others_ns for p in processes])
        stolen = [(p.steal_ns, p.machine_ns) for p in processes
                  if p.steal_ns is not None and p.machine_ns]
        median_others = _median(others)
        return cls(
            processes=len(processes),
            wall_s=_round(sum(p.wall_ns for p in processes) / 1e9),
            off_cpu_share=_round(_median([p.off_cpu_share for p in processes])),
            io_wait_share=_round(_median([p.io_wait_share for p in processes])),
            others_cores=_round(None if median_others is None else max(median_others, 0.0)),
            others_cores_max=_round(max(others) if others else None),
            others_cpu_s=_round(sum(others_ns) / 1e9 if others_ns else None),
            steal_share=_round(sum(s for s, _ in stolen) / sum(m for _, m in stolen)
                               if stolen else None),
        )

    @property
    def waiting_share(self) -> float | None:
        """The off-CPU share that the machine's iowait does not account for."""
        if self.off_cpu_share is None:
            return None
        return self.off_cpu_share - min(self.io_wait_share or 0.0, max(self.off_cpu_share, 0))

    def reasons(self) -> list[str]:
        """Why this case's figures may be off, in plain words; empty when they need not be."""
        if not _over(self.waiting_share, OFF_CPU_SHARE):
            return []
        iowait = f" ({self.io_wait_share:.0%} in iowait)" if self.io_wait_share else ""
        return [f"off-CPU {self.off_cpu_share:.0%} of its wall time{iowait}"]

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> CaseConditions:
        return cls(**{k: d.get(k) for k in cls.__dataclass_fields__})


@dataclass
class RunConditions:
    """The whole run: the load around it, its cases' figures combined, and why (if at
    all) it was measured on a disturbed machine."""

    load_1m_start: float | None
    load_1m_end: float | None
    cases: int = 0  # cases whose processes were measured
    others_cores: float | None = None  # the others' CPU time over the wall time, all cases
    others_cores_max: float | None = None  # the most during one process (one coarse reading)
    steal_share: float | None = None  # the cases' steal shares, weighted by wall time
    disturbed: list[str] = field(default_factory=list)  # empty: a quiet machine

    @classmethod
    def of(cls, cases: Sequence[Case], load_1m_start: float | None,
           load_1m_end: float | None) -> RunConditions:
        conds = [c.conditions for c in cases if c.conditions is not None and not c.error]
        others = _weighted(conds, lambda k: None if k.others_cpu_s is None or not k.wall_s
                           else k.others_cpu_s / k.wall_s)
        run = cls(load_1m_start, load_1m_end, len(conds),
                  _round(None if others is None else max(others, 0.0)),
                  max(_known([k.others_cores_max for k in conds]), default=None),
                  _round(_weighted(conds, lambda k: k.steal_share)))
        if _over(run.others_cores, OTHERS_CORES):
            run.disturbed.append(f"others used {run.others_cores:.2f} cores on average "
                                 "while measuring")
        if _over(run.steal_share, STEAL_SHARE):
            run.disturbed.append(f"the hypervisor stole {run.steal_share:.1%} of the CPU time")
        hit = [k for k in conds if k.reasons()]
        if hit:
            worst = max(k.off_cpu_share for k in hit)
            run.disturbed.append(f"{len(hit)} of {len(conds)} cases off-CPU more than "
                                 f"{OFF_CPU_SHARE:.0%} of their wall time (at most {worst:.0%})")
        return run

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> RunConditions:
        return cls(**{**{k: d.get(k) for k in cls.__dataclass_fields__},
                      "cases": d.get("cases", 0), "disturbed": list(d.get("disturbed", []))})


def _round(value: float | None) -> float | None:
    """Four decimals: a hundredth of a percent, finer than the ticks behind the figures."""
    return None if value is None else round(value, 4)


def _over(value: float | None, limit: float) -> bool:
    return value is not None and value > limit


def _known(values: Sequence[float | None]) -> list[float]:
    return [v for v in values if v is not None]


def _median(values: Sequence[float | None]) -> float | None:
    known = _known(values)
    return statistics.median(known) if known else None


def _weighted(conds: Sequence[CaseConditions],
              figure: Callable[[CaseConditions], float | None]) -> float | None:
    pairs = [(figure(k), k.wall_s) for k in conds if figure(k) is not None]
    total = sum(w for _, w in pairs)
    if not pairs or total <= 0:
        return None
    return sum(v * w for v, w in pairs) / total
