"""How many processes and system calls a command makes, itself and all its descendants.

First choice: `perf stat` with the kernel's tracepoints `task:task_newtask` (one per
process or thread created) and `raw_syscalls:sys_enter` (one per system call); it counts
in the kernel and barely slows the command. Without perf, or where the kernel refuses
tracepoints to this user (perf_event_paranoid, no tracefs), `strace -f -c` counts the
same by tracing every call (slow, but the counts are exact). Without either, the reason.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PERF_EVENTS = {"task:task_newtask": "processes", "raw_syscalls:sys_enter": "syscalls"}
# strace's names for the calls that create a process or thread
STRACE_CREATE = ("fork", "vfork", "clone", "clone3")


@dataclass(frozen=True)
class Counts:
    processes: int  # created by the command and its descendants (the command not counted)
    syscalls: int
    tool: str  # "perf" or "strace": what counted


class CountError(RuntimeError):
    """Neither perf nor strace could count this command; the message says why."""


def count(argv: Sequence[str], env: dict | None = None, timeout: float = 300) -> Counts:
    """Counts for one run of `argv` (its output discarded); raises CountError with reasons."""
    reasons = []
    for tool, fn in (("perf", _perf), ("strace", _strace)):
        if not shutil.which(tool):
            reasons.append(f"{tool} not installed")
            continue
        try:
            return fn(list(argv), env, timeout)
        except CountError as e:
            reasons.append(f"{tool}: {e}")
    raise CountError("; ".join(reasons))


def _run(argv: list[str], env: dict | None, timeout: float) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise CountError(f"timed out after {timeout:.0f} s") from e


def parse_perf_csv(text: str, events: Iterable[str] = PERF_EVENTS) -> dict[str, int]:
    """event -> count from `perf stat -x,` output; an event perf could not count is absent."""
    out = {}
    wanted = set(events)
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) >= 3 and fields[2] in wanted and fields[0].isdigit():
            out[fields[2]] = int(fields[0])
    return out


def _perf(argv: list[str], env: dict | None, timeout: float) -> Counts:
    p = _run(["perf", "stat", "-x,", "-e", ",".join(PERF_EVENTS), "--", *argv], env, timeout)
    got = parse_perf_csv(p.stderr)
    if p.returncode != 0 or len(got) != len(PERF_EVENTS):
        tail = " ".join(p.stderr.strip().splitlines()[-2:])[:300]
        raise CountError(f"tracepoints not counted (exit {p.returncode}): {tail}")
    return Counts(got["task:task_newtask"], got["raw_syscalls:sys_enter"], "perf")


def parse_strace_summary(text: str) -> tuple[int, int]:
    """(processes created, system calls) from `strace -c` output."""
    created, total = 0, None
    for line in text.splitlines():
        cols = line.split()
        if not cols or not re.fullmatch(r"[\d.]+", cols[0]):
            continue
        name, calls = cols[-1], int(cols[3])
        if name == "total":
            total = calls
        elif name in STRACE_CREATE:
            created += calls - (int(cols[4]) if len(cols) == 6 else 0)
    if total is None:
        raise CountError("no 'total' line in strace's summary")
    return created, total


def _strace(argv: list[str], env: dict | None, timeout: float) -> Counts:
    fd, path = tempfile.mkstemp(prefix="cpulab-strace-", suffix=".txt")
    os.close(fd)
    try:
        p = _run(["strace", "-f", "-c", "-o", path, "--", *argv], env, timeout * 10)
        with open(path) as f:
            text = f.read()
        if p.returncode != 0:
            raise CountError(f"exit {p.returncode}: {p.stderr.strip()[-300:]}")
        processes, syscalls = parse_strace_summary(text)
        return Counts(processes, syscalls, "strace")
    finally:
        os.unlink(path)
