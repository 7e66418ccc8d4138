"""What the machine did while one measured process ran: its wall and CPU time, and how
busy everything else kept the CPUs meanwhile.

The child's CPU time is the kernel's rusage of it (wait4: user + system, the threads and
the children it waited for included). The machine's side comes from the first line of
/proc/stat, read before the child starts and after it is reaped: every CPU's time summed,
in USER_HZ ticks (10 ms at the usual 100 Hz). Busy time minus the child's own CPU time is
what others used: other tenants' processes, interrupts, this Python itself (~nothing while
it waits). Steal is time the hypervisor ran someone else's vCPU instead of ours; iowait
is idle time with a task blocked on a disk, the child's own cold reads included.

The ticks make one reading coarse: the kernel rounds the summed line down to a tick, so
a 100 ms process can see others off by 0.1 cores from rounding alone; the figures are
meant to be summed, or their median taken, over processes. Where /proc/stat or the load
average cannot be read (not Linux, a sandbox), the figures are None, never 0.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC_STAT = Path("/proc/stat")


@dataclass(frozen=True)
class CpuTimes:
    """The machine's CPU time since boot, all CPUs summed, in ns."""

    busy: int  # user + nice + system + irq + softirq
    iowait: int
    steal: int
    total: int  # every state, guest time not counted twice (it is in user already)


def parse_proc_stat(text: str, ticks_per_s: int) -> CpuTimes:
    """The aggregate `cpu` line of /proc/stat. Kernels before 2.6.33 print fewer than
    the ten fields; what they lack counts 0. Raises ValueError on anything else."""
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            break
    else:
        raise ValueError("no aggregate 'cpu' line")
    ticks = [int(x) for x in fields[1:11]]
    if len(ticks) < 4:
        raise ValueError(f"a 'cpu' line of {len(ticks)} fields: {line[:80]!r}")
    user, nice, system, idle, iowait, irq, softirq, steal = (ticks + [0] * 8)[:8]
    ns = 1_000_000_000 // ticks_per_s
    busy = user + nice + system + irq + softirq
    return CpuTimes(busy * ns, iowait * ns, steal * ns, (busy + idle + iowait + steal) * ns)


def read_cpu_times(path: Path = PROC_STAT) -> CpuTimes | None:
    try:
        return parse_proc_stat(path.read_text(), os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError):
        return None


def load_1m() -> float | None:
    """To two decimals, as /proc/loadavg prints it (the kernel keeps 11 bits of fraction)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


@dataclass(frozen=True)
class ProcessStats:
    """One measured process: its own times, and the machine's while it ran (ns)."""

    wall_ns: int
    cpu_ns: int | None  # the child's user + system (rusage)
    others_ns: int | None  # busy time of all CPUs minus the child's own (< 0: rounding)
    steal_ns: int | None
    iowait_ns: int | None
    machine_ns: int | None  # all time of all CPUs (~ wall x CPUs): steal's denominator
    load_1m: float | None  # the 1-minute load average when it started

    @property
    def off_cpu_share(self) -> float | None:
        """1 - cpu/wall: the share of its wall time the child was not running. Below 0
        when it ran on more than one core at once (threads, parallel children)."""
        if self.cpu_ns is None or self.wall_ns <= 0:
            return None
        return 1 - self.cpu_ns / self.wall_ns

    @property
    def others_cores(self) -> float | None:
        """How many cores others kept busy on average while the child ran."""
        return None if self.others_ns is None or self.wall_ns <= 0 else \
            self.others_ns / self.wall_ns

    @property
    def io_wait_share(self) -> float | None:
        """The machine's iowait as a share of the child's wall time."""
        return None if self.iowait_ns is None or self.wall_ns <= 0 else \
            self.iowait_ns / self.wall_ns


class Watch:
    """Started just before a child is spawned; `stop` once it is reaped."""

    def __init__(self) -> None:
        self.load = load_1m()
        self.before = read_cpu_times()

    def stop(self, wall_ns: int, cpu_ns: int | None) -> ProcessStats:
        return stats_between(self.before, read_cpu_times(), wall_ns, cpu_ns, self.load)


def stats_between(before: CpuTimes | None, after: CpuTimes | None, wall_ns: int,
                  cpu_ns: int | None, load: float | None) -> ProcessStats:
    """A process's stats from the machine's CPU times around it (pure)."""
    if before is None or after is None:
        return ProcessStats(wall_ns, cpu_ns, None, None, None, None, load)
    # Kept as it is when the ticks' rounding makes it negative: clamped one by one, a
    # quiet machine's processes would sum to a busy one.
    others = None if cpu_ns is None else after.busy - before.busy - cpu_ns
    return ProcessStats(wall_ns, cpu_ns, others, after.steal - before.steal,
                        after.iowait - before.iowait, after.total - before.total, load)
