"""The conditions a run was measured in: how busy the rest of the machine kept the CPUs
while its processes ran, per case and for the run, and the plain reasons, if any, to
call it a disturbed machine. A verdict taken on one says so; nothing is hidden or dropped.

Thresholds, and why:
- others using more than 0.25 cores on average while measuring. A quiet 2-core VM shows
  ~0.03 (its daemons, this Python waiting on a pipe); a quarter of a core is a neighbour
  busy a quarter of the time, enough to take the core a kernel runs on, its caches and
  its share of memory bandwidth for much of a 5-40 ms timed call.
- steal above 5% of the machine's CPU time: the hypervisor ran another guest on our
  vCPUs; a clock figure then includes time our code never ran.
- a case whose processes spent more than 25% of their wall time off-CPU (1 - cpu/wall,
  the median over its processes) beyond the machine's iowait: a kernel that reads a
  cold file waits for the disk by design, one that is descheduled does not. A process
  on several cores at once (threads, parallel children) has cpu > wall, a share below
  0, and is never flagged.
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
    wall_s: float  # their wall time in all, the weight of this case in the run's figures
    off_cpu_share: float | None  # median of 1 - cpu/wall; < 0: more than one core
    io_wait_share: float | None  # median of the machine's iowait / wall
    others_cores: float | None  # median of the cores others kept busy
    others_cores_max: float | None
    steal_share: float | None  # steal / all CPU time, over all its processes

    @classmethod
    def of(cls, processes: Sequence[ProcessStats]) -> CaseConditions | None:
        """None when no process was measured (a runner that measures none)."""
        if not processes:
            return None
        others = _known([p.others_cores for p in processes])
        stolen = [(p.steal_ns, p.machine_ns) for p in processes
                  if p.steal_ns is not None and p.machine_ns]
        return cls(
            processes=len(processes),
            wall_s=_round(sum(p.wall_ns for p in processes) / 1e9),
            off_cpu_share=_round(_median([p.off_cpu_share for p in processes])),
            io_wait_share=_round(_median([p.io_wait_share for p in processes])),
            others_cores=_round(_median(others)),
            others_cores_max=_round(max(others) if others else None),
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
        """Why this case's figures may be off, in plain words; empty when quiet."""
        out = []
        if _over(self.waiting_share, OFF_CPU_SHARE):
            out.append(f"off-CPU {self.off_cpu_share:.0%} of its wall time" +
                       (f" ({self.io_wait_share:.0%} iowait)" if self.io_wait_share else ""))
        if _over(self.others_cores, OTHERS_CORES):
            out.append(f"others used {self.others_cores:.2f} cores")
        if _over(self.steal_share, STEAL_SHARE):
            out.append(f"steal {self.steal_share:.1%}")
        return out

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> CaseConditions:
        return cls(**{k: d.get(k) for k in cls.__dataclass_fields__})


@dataclass
class RunConditions:
    """The whole run: the load around it, the cases' figures combined, and why (if at
    all) it was measured on a disturbed machine."""

    load_1m_start: float | None
    load_1m_end: float | None
    cases: int = 0  # cases whose processes were measured
    others_cores: float | None = None  # mean of the cases' medians, weighted by wall time
    others_cores_max: float | None = None  # the most during any one process
    steal_share: float | None = None  # likewise weighted
    disturbed: list[str] = field(default_factory=list)  # empty: a quiet machine

    @classmethod
    def of(cls, cases: Sequence[Case], load_1m_start: float | None,
           load_1m_end: float | None) -> RunConditions:
        measured = [c for c in cases if c.conditions is not None and not c.error]
        conds = [c.conditions for c in measured]
        run = cls(load_1m_start, load_1m_end, len(conds),
                  _round(_weighted(conds, lambda k: k.others_cores)),
                  max(_known([k.others_cores_max for k in conds]), default=None),
                  _round(_weighted(conds, lambda k: k.steal_share)))
        if _over(run.others_cores, OTHERS_CORES):
            run.disturbed.append(f"others used {run.others_cores:.2f} cores on average "
                                 "while measuring")
        else:  # a burst during some cases only
            run.disturbed += _counted(conds, lambda k: k.others_cores, OTHERS_CORES,
                                      f"measured while others used more than {OTHERS_CORES} "
                                      "cores", lambda k: f"{k.others_cores:.2f}")
        if _over(run.steal_share, STEAL_SHARE):
            run.disturbed.append(f"the hypervisor stole {run.steal_share:.1%} of the CPU time")
        run.disturbed += _counted(conds, lambda k: k.waiting_share, OFF_CPU_SHARE,
                                  f"off-CPU more than {OFF_CPU_SHARE:.0%} of their wall time",
                                  lambda k: f"{k.off_cpu_share:.0%}")
        return run

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> RunConditions:
        return cls(**{**{k: d.get(k) for k in cls.__dataclass_fields__},
                      "cases": d.get("cases", 0), "disturbed": list(d.get("disturbed", []))})


def _counted(conds: Sequence[CaseConditions], figure: Callable[[CaseConditions], float | None],
             limit: float, what: str, shown: Callable[[CaseConditions], str]) -> list[str]:
    """One reason counting the cases whose `figure` is over `limit`, with the worst; the
    report marks each of them in its table."""
    hit = [k for k in conds if _over(figure(k), limit)]
    if not hit:
        return []
    worst = max(hit, key=lambda k: figure(k) or 0.0)
    return [f"{len(hit)} of {len(conds)} cases {what} (at most {shown(worst)})"]


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
