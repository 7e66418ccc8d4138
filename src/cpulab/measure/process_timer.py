"""Whole commands timed as processes, interleaved (A B A B ...), like hyperfine: warm-up
runs first, then every timed run of every command in turn. Around them, untimed, as in
hyperfine: a command's setup once before its first run, its prepare before each of its
runs (warm-up and perf's counting runs too: each starts from the state prepare makes),
and its cleanup once after its last, run even when the command failed.

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


@dataclass(frozen=True)
class CommandJob:
    """A command to time and the untimed commands around it (None: none)."""

    command: str
    setup: str | None = None
    prepare: str | None = None
    cleanup: str | None = None


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
    jobs: Sequence[CommandJob], runs: int, warmup: int, timeout: float,
    pmu_reason: str | None, progress: Callable[[], None] | None = None,
    ignore_status: bool = False,
) -> list[CommandTiming]:
    """Each job's setup, `warmup` untimed runs of each command, then `runs` rounds of
    one timed run of each in turn, then each job's cleanup. A command that fails, or
    whose setup, prepare or cleanup fails, stops being run and carries the failure (a
    command's non-zero exit status is none with `ignore_status`). `pmu_reason` says why
    hardware counters cannot be read (None: they can)."""
    out = [CommandTiming() for _ in jobs]
    if pmu_reason is None and not shutil.which("perf"):
        pmu_reason = "perf not installed (run `make setup`)"
    for t in out:
        t.counters_unavailable = pmu_reason
    for job, t in zip(jobs, out, strict=True):
        t.error = _around("setup", job.setup, timeout)
    set_up = [t.error is None for t in out]
    for _ in range(warmup):
        for job, t in zip(jobs, out, strict=True):
            if t.error is None:
                t.error = _warm(job, timeout, ignore_status)
    for _ in range(runs):
        for job, t in zip(jobs, out, strict=True):
            if t.error is None:
                t.error = _timed(job, t, timeout, ignore_status)
            if progress:
                progress()
    for job, t, ran in zip(jobs, out, set_up, strict=True):
        failure = _around("cleanup", job.cleanup, timeout) if ran else None
        t.error = t.error or failure  # the first failure is the one that stopped it
    return out


def _around(what: str, command: str | None, timeout: float) -> str | None:
    """Run a setup, prepare or cleanup command; its failure, naming it."""
    if command is None:
        return None
    failure = run_once(command, timeout).failure
    return f"{what} `{command}`: {failure}" if failure else None


def _warm(job: CommandJob, timeout: float, ignore_status: bool) -> str | None:
    failure = _around("prepare", job.prepare, timeout)
    if failure:
        return failure
    failure = run_once(job.command, timeout, ignore_status=ignore_status).failure
    return f"warm-up run: {failure}" if failure else None


def _timed(job: CommandJob, t: CommandTiming, timeout: float,
           ignore_status: bool) -> str | None:
    failure = _around("prepare", job.prepare, timeout)
    if failure:
        return failure
    run = run_once(job.command, timeout, ignore_status=ignore_status)
    if run.failure:
        return run.failure
    t.runs.append(run)
    return _count(job, t, timeout, ignore_status)


def _count(job: CommandJob, t: CommandTiming, timeout: float,
           ignore_status: bool) -> str | None:
    if t.counters_unavailable is not None:
        return None
    failure = _around("prepare", job.prepare, timeout)
    if failure:
        return failure
    try:
        got = hardware_counts(job.command, timeout, ignore_status)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
        t.counters_unavailable, t.counters = str(e), {}
        return None
    for k, v in got.items():
        t.counters.setdefault(k, []).append(v)
    return None
