"""What the machine did while a process ran: /proc/stat read on literal text, the
figures of one process from two readings, unavailable (None) where nothing could be
read, and a real child's CPU time from its rusage."""

from __future__ import annotations

import os
import sys

import pytest

from cpulab.measure.process_stats import (
    CpuTimes,
    ProcessStats,
    parse_proc_stat,
    read_cpu_times,
    stats_between,
)
from cpulab.measure.runner import ProcessRunner

# A 2-CPU VM's /proc/stat (Linux 6.1), cut after the per-CPU lines' first fields.
PROC_STAT = """\
cpu  4605 7 955 53221 181 3 72 40 11 0
cpu0 1408 0 333 27734 7 0 40 1 0 0
cpu1 3196 0 621 25486 173 0 31 2 0 0
intr 208659 0 0 0
ctxt 429533
btime 1700000000
"""


def test_the_aggregate_line_in_ns():
    t = parse_proc_stat(PROC_STAT, ticks_per_s=100)
    ms = 10_000_000  # one tick at 100 Hz
    assert t.busy == (4605 + 7 + 955 + 3 + 72) * ms  # user nice system irq softirq
    assert t.iowait == 181 * ms and t.steal == 40 * ms
    # guest (11) is inside user already: counted once
    assert t.total == (4605 + 7 + 955 + 53221 + 181 + 3 + 72 + 40) * ms


def test_an_old_kernel_without_steal_counts_it_zero():
    t = parse_proc_stat("cpu  10 0 5 100\n", ticks_per_s=100)
    assert (t.busy, t.iowait, t.steal, t.total) == (150_000_000, 0, 0, 1_150_000_000)


@pytest.mark.parametrize("text", ["", "cpu0 1 2 3 4\n", "cpu  1 2 3\n", "cpu  a b c d\n"])
def test_what_is_not_proc_stat_is_refused(text):
    with pytest.raises(ValueError):
        parse_proc_stat(text, ticks_per_s=100)


def test_unreadable_proc_stat_is_unavailable_not_zero(tmp_path):
    assert read_cpu_times(tmp_path / "missing") is None
    s = stats_between(None, None, wall_ns=10**9, cpu_ns=9 * 10**8, load=None)
    assert s == ProcessStats(10**9, 9 * 10**8, None, None, None, None, None)
    assert s.others_cores is None and s.io_wait_share is None
    assert s.off_cpu_share == pytest.approx(0.1)  # rusage still says it


def test_one_process_from_two_readings():
    before = CpuTimes(busy=10**9, iowait=0, steal=0, total=4 * 10**9)
    after = CpuTimes(busy=25 * 10**8, iowait=10**8, steal=2 * 10**8, total=6 * 10**9)
    s = stats_between(before, after, wall_ns=10**9, cpu_ns=6 * 10**8, load=0.5)
    assert s.others_ns == 9 * 10**8 and s.others_cores == pytest.approx(0.9)
    assert s.steal_ns == 2 * 10**8 and s.machine_ns == 2 * 10**9
    assert s.off_cpu_share == pytest.approx(0.4) and s.io_wait_share == pytest.approx(0.1)
    assert s.load_1m == 0.5


def test_a_rounding_remainder_below_zero_is_kept():
    # Clamped one by one, a quiet machine's processes would sum to a busy one.
    t = CpuTimes(busy=10**9, iowait=0, steal=0, total=2 * 10**9)
    later = CpuTimes(busy=t.busy + 10**8, iowait=0, steal=0, total=t.total + 2 * 10**8)
    s = stats_between(t, later, wall_ns=10**8, cpu_ns=10**8 + 3 * 10**6, load=None)
    assert s.others_ns == -3 * 10**6


def test_threads_give_a_negative_off_cpu_share():
    s = ProcessStats(10**9, 2 * 10**9, 0, 0, 0, 2 * 10**9, None)
    assert s.off_cpu_share == pytest.approx(-1.0)


def test_a_real_child_has_its_cpu_time_from_rusage():
    # Not a timing assertion: only that the rusage was read and /proc/stat differenced.
    res = ProcessRunner().run([sys.executable, "-c", "sum(range(3_000_000))"], timeout=60)
    assert res.returncode == 0 and res.stats is not None
    s = res.stats
    assert s.cpu_ns is not None and 0 < s.cpu_ns
    assert s.wall_ns > 0
    if read_cpu_times() is not None:
        assert s.machine_ns is not None and s.others_ns is not None
        # /proc/stat counts in ticks: each CPU's figure may round a tick either way at
        # both reads, so a quiet machine may show others' time a few ticks below zero.
        tick_ns = 10**9 // os.sysconf("SC_CLK_TCK")
        assert s.others_ns >= -2 * tick_ns * os.cpu_count()
