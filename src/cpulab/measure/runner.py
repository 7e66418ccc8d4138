"""How a program is executed: a real process runner and a scripted fake for tests.

Everything above this layer asks a `Runner` to run an argv; swapping in `FakeRunner`
makes the orchestrator (statistics, verdicts, storage, reports) testable without
timing anything.

Each real run also says what the machine did meanwhile (`ProcessStats`): the child is
reaped with wait4 so that its CPU time comes from the kernel's rusage, at no cost to it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from cpulab.measure.process_stats import ProcessStats, Watch


@dataclass(frozen=True)
class RunResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False
    stats: ProcessStats | None = None  # None: a runner that measures no process

    @property
    def failure(self) -> str | None:
        """None when the program succeeded, else a one-line account of how it failed."""
        if self.timed_out:
            return "timed out"
        if self.returncode < 0:
            try:
                name = signal.Signals(-self.returncode).name
            except ValueError:
                name = f"signal {-self.returncode}"
            return f"killed by {name}"
        if self.returncode != 0:
            tail = (self.stderr.strip().splitlines() or [""])[-1][:300]
            return f"exit status {self.returncode}" + (f": {tail}" if tail else "")
        return None


class Runner(Protocol):
    def run(self, argv: Sequence[str], timeout: float, env: dict | None = None,
            cwd: str | None = None) -> RunResult: ...


class ProcessRunner:
    """Runs the program as a child process in its own process group (killed whole on timeout)."""

    def run(self, argv: Sequence[str], timeout: float, env: dict | None = None,
            cwd: str | None = None) -> RunResult:
        full_env = {**os.environ, **(env or {})}
        watch = Watch()
        t0 = time.monotonic_ns()
        try:
            proc = _Reaped(
                list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=full_env, cwd=cwd, start_new_session=True,
            )
        except OSError as e:
            return RunResult(tuple(argv), 127, "", f"cannot start {argv[0]}: {e}")
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, err = proc.communicate()
            timed_out = True
        except KeyboardInterrupt:
            _kill_group(proc.pid)
            proc.communicate()
            raise
        stats = watch.stop(time.monotonic_ns() - t0, proc.cpu_ns)
        return RunResult(tuple(argv), proc.returncode, out, err, timed_out, stats)


class _Reaped(subprocess.Popen):
    """A Popen that reaps its child with wait4 and keeps the child's CPU time.

    Popen reaps through `_try_wait` in `wait()` and `communicate()`, the only calls made
    here; were the child reaped some other way (a `poll()`), `cpu_ns` stays None."""

    cpu_ns: int | None = None

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            pid, status, ru = os.wait4(self.pid, wait_flags)
        except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): Popen's answer
            return self.pid, 0
        if pid == self.pid:
            self.cpu_ns = round((ru.ru_utime + ru.ru_stime) * 1e9)
        return pid, status


def _kill_group(pid: int) -> None:
    """Kill the child's whole process group; it may have exited on its own already."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


Scripted = tuple[int, str] | tuple[int, str, ProcessStats | None]


class FakeRunner:
    """Returns scripted output: `script(argv) -> (returncode, stdout)`, or `(returncode,
    stdout, stats)` to script what the machine did meanwhile; records every call."""

    def __init__(self, script: Callable[[Sequence[str]], Scripted]):
        self.script = script
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], timeout: float, env: dict | None = None,
            cwd: str | None = None) -> RunResult:
        self.calls.append(tuple(argv))
        rc, out, *stats = self.script(argv)
        return RunResult(tuple(argv), rc, out, "", stats=stats[0] if stats else None)
