"""How a program is executed: a real process runner and a scripted fake for tests.

Everything above this layer asks a `Runner` to run an argv; swapping in `FakeRunner`
makes the orchestrator (statistics, verdicts, storage, reports) testable without
timing anything.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RunResult:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

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
        try:
            proc = subprocess.Popen(
                list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env=full_env, cwd=cwd, start_new_session=True,
            )
        except OSError as e:
            return RunResult(tuple(argv), 127, "", f"cannot start {argv[0]}: {e}")
        try:
            out, err = proc.communicate(timeout=timeout)
            return RunResult(tuple(argv), proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid)
            out, err = proc.communicate()
            return RunResult(tuple(argv), proc.returncode, out, err, timed_out=True)
        except KeyboardInterrupt:
            _kill_group(proc.pid)
            proc.communicate()
            raise


def _kill_group(pid: int) -> None:
    """Kill the child's whole process group; it may have exited on its own already."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class FakeRunner:
    """Returns scripted output: `script(argv) -> (returncode, stdout)`; records every call."""

    def __init__(self, script: Callable[[Sequence[str]], tuple[int, str]]):
        self.script = script
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], timeout: float, env: dict | None = None,
            cwd: str | None = None) -> RunResult:
        self.calls.append(tuple(argv))
        rc, out = self.script(argv)
        return RunResult(tuple(argv), rc, out, "")
