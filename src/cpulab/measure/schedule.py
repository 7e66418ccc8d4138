"""Run several programs round-robin (A B C A B C ...) and merge each one's repetitions.

Interleaving whole processes spreads slow phases of a shared machine (another tenant,
frequency changes) over every variant instead of landing on one, which is what makes the
ratios of a run trustworthy even when absolute times drift.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cpulab.measure.kernel_output import KernelOutput, KernelOutputError, parse
from cpulab.measure.runner import Runner


@dataclass
class Program:
    key: str
    argv: list[str]
    env: dict = field(default_factory=dict)


@dataclass
class Outcome:
    output: KernelOutput | None = None
    error: str | None = None


def run_interleaved(
    programs: Sequence[Program],
    runner: Runner,
    rounds: int,
    timeout: float,
    progress: Callable[[], None] | None = None,
) -> dict[str, Outcome]:
    """Each program runs `rounds` times, interleaved; a failing program stops being run."""
    outcomes: dict[str, Outcome] = {p.key: Outcome() for p in programs}
    for _ in range(rounds):
        for p in programs:
            o = outcomes[p.key]
            if o.error is None:
                _one(p, runner, timeout, o)
            if progress:
                progress()
    return outcomes


def _one(p: Program, runner: Runner, timeout: float, o: Outcome) -> None:
    res = runner.run(p.argv, timeout=timeout, env=p.env)
    try:
        out = parse(res.stdout)
    except KernelOutputError as e:
        o.error = res.failure or f"malformed output: {e}"
        return
    if out.errors:
        o.error = "; ".join(out.errors)
        return
    if res.failure:
        o.error = res.failure
        return
    if o.output is None:
        o.output = out
        return
    base = max((r.rep for r in o.output.reps), default=-1) + 1
    for r in out.reps:
        r.rep += base
    o.output.reps.extend(out.reps)
