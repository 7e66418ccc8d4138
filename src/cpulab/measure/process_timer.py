"""Whole commands timed as processes, interleaved (A B A B ...), like hyperfine: warm-up
runs first, then every timed run of every command in turn.

Each timed run gives its wall time (CLOCK_MONOTONIC around fork and wait) and, from the
kernel's accounting of the child and the descendants it waited for (wait4's rusage, so
it costs the command nothing): CPU time, page faults and context switches. Peak RSS is
left out: the kernel's figure for a child includes the memory of the process that
spawned it (this Python's, ~60 MB), so it would not be the command's.
Hardware counters come from `perf stat` in separate, untimed runs, so that perf's own
start-up is never in a timed figure; where the machine has no PMU they are reported
unavailable with the kernel's reason.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cpulab.measure.syscalls import parse_perf_csv

HW_EVENTS = ("cycles", "instructions", "branch-misses")


@dataclass(frozen=True)
class ProcessRun:
    """One run of a command: wall time and the kernel's rusage of it and its children."""

    wall_ns: int
    cpu_ns: int  # user + system
    page_faults: int  # minor + major
    context_switches: int  # voluntary + involuntary
    failure: str | None = None
    exit_status: int = 0  # non-zero only where it was asked not to be a failure


@dataclass
class CommandTiming:
    """A command's timed runs, its hardware counts per run (or why there are none), or
    the failure that stopped it being run."""

    runs: list[ProcessRun] = field(default_factory=list)
    counters: dict[str, list[int]] = field(default_factory=dict)
    counters_unavailable: str | None = None
    error: str | None = None


def run_once(command: str, timeout: float, env: dict | None = None,
             ignore_status: bool = False) -> ProcessRun:
    """Run `command` with /bin/sh, output discarded (hyperfine's default), in a session
    of its own that a timeout kills whole. posix_spawn (vfork underneath) rather than
    fork: a forked copy of this Python would add its own page faults to the command's.
    A non-zero exit status is a failure unless `ignore_status` (hyperfine's -i); a
    signal or a timeout always is."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "r+b") as null:
        actions = [(os.POSIX_SPAWN_DUP2, null.fileno(), 0),
                   (os.POSIX_SPAWN_DUP2, null.fileno(), 1),
                   (os.POSIX_SPAWN_DUP2, err.fileno(), 2)]
        t0 = time.monotonic_ns()
        pid = os.posix_spawn("/bin/sh", ["/bin/sh", "-c", command],
                             {**os.environ, **(env or {})}, file_actions=actions,
                             setsid=True)
        timer = threading.Timer(timeout, _kill_group, (pid,))
        timer.start()
        try:
            _, status, ru = os.wait4(pid, 0)
        except BaseException:
            _kill_group(pid)
            os.waitpid(pid, 0)
            raise
        finally:
            timer.cancel()
        wall = time.monotonic_ns() - t0
        code = os.waitstatus_to_exitcode(status)
        failure, ignored = None, 0
        if wall >= timeout * 1e9:
            failure = f"timed out after {timeout:g} s"
        elif code > 0 and ignore_status:
            ignored = code
        elif code != 0:
            err.seek(0)
            tail = (err.read().decode(errors="replace").strip().splitlines() or [""])[-1]
            failure = (f"killed by signal {-code}" if code < 0 else f"exit status {code}") \
                + (f": {tail[:300]}" if tail else "")
    return ProcessRun(wall, int((ru.ru_utime + ru.ru_stime) * 1e9),
                      ru.ru_minflt + ru.ru_majflt, ru.ru_nvcsw + ru.ru_nivcsw, failure,
                      ignored)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def hardware_counts(command: str, timeout: float, ignore_status: bool = False) -> dict[str, int]:
    """cycles, instructions, branch misses of one untimed run under `perf stat` (which
    exits with the command's status: non-zero is perf's failure unless `ignore_status`)."""
    p = subprocess.run(["perf", "stat", "-x,", "-e", ",".join(HW_EVENTS), "--",
                        "/bin/sh", "-c", command], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=timeout)
    got = parse_perf_csv(p.stderr, HW_EVENTS)
    if (p.returncode != 0 and not ignore_status) or len(got) != len(HW_EVENTS):
        tail = " ".join(p.stderr.strip().splitlines()[-2:])[:300]
        raise RuntimeError(f"perf stat counted {sorted(got) or 'nothing'} "
                           f"(exit {p.returncode}): {tail}")
    return got


def time_interleaved(
    commands: Sequence[str], runs: int, warmup: int, timeout: float,
    pmu_reason: str | None, progress: Callable[[], None] | None = None,
    ignore_status: bool = False,
) -> list[CommandTiming]:
    """`warmup` untimed runs of each command, then `runs` rounds of one timed run of
    each in turn; a command that fails stops being run and carries the failure (a
    non-zero exit status is none with `ignore_status`). `pmu_reason` says why hardware
    counters cannot be read (None: they can)."""
    out = [CommandTiming() for _ in commands]
    if pmu_reason is None and not shutil.which("perf"):
        pmu_reason = "perf not installed (run `make setup`)"
    for t in out:
        t.counters_unavailable = pmu_reason
    for _ in range(warmup):
        for cmd, t in zip(commands, out, strict=True):
            if t.error is None:
                t.error = _warm(cmd, timeout, ignore_status)
    for _ in range(runs):
        for cmd, t in zip(commands, out, strict=True):
            if t.error is None:
                run = run_once(cmd, timeout, ignore_status=ignore_status)
                if run.failure:
                    t.error = run.failure
                else:
                    t.runs.append(run)
                    _count(cmd, t, timeout, ignore_status)
            if progress:
                progress()
    return out


def _warm(command: str, timeout: float, ignore_status: bool) -> str | None:
    failure = run_once(command, timeout, ignore_status=ignore_status).failure
    return f"warm-up run: {failure}" if failure else None


def _count(command: str, t: CommandTiming, timeout: float, ignore_status: bool) -> None:
    if t.counters_unavailable is not None:
        return
    try:
        got = hardware_counts(command, timeout, ignore_status)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        t.counters_unavailable, t.counters = str(e), {}
        return
    for k, v in got.items():
        t.counters.setdefault(k, []).append(v)
