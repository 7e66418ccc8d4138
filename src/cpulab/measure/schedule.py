"""Run several programs round-robin (A B C A B C ...) and keep every round's output.

Interleaving whole processes spreads slow phases of a shared machine (another tenant,
frequency changes) over every variant instead of landing on one, which is what makes the
ratios of a run trustworthy even when absolute times drift.

How many rounds: a fixed count, or at least that many and then more while some case's
interval is wider than the wanted precision (`Adaptive`), within a time budget: the
process is the unit of the statistics, so a noisy machine gets more processes and a
quiet one finishes early.

Each program's output over its rounds is one `KernelOutput`: the repetitions numbered on
from round to round, and every repetition and every extra line tagged with the round
that printed it, so that an experiment can pair a kernel's own lines with the reps of
the same process (spawn's children rusage) or sum them over processes (fileread's page
cache checks).

Beside the output, every kept process's `ProcessStats` (wall and CPU time, what others
used of the machine meanwhile), in round order: the conditions the figures were taken in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from cpulab.build.config import label_of
from cpulab.measure.gobench import parse_gobench
from cpulab.measure.kernel_output import KernelOutput, KernelOutputError, parse
from cpulab.measure.process_stats import ProcessStats
from cpulab.measure.runner import Runner
from cpulab.measure.stats import Sample, relative_halfwidth


@dataclass
class Program:
    """One process to run in rounds, and what its figures are of: the variant (None:
    each case the program prints is a variant of that name), the build (its record,
    `BuildConfig.as_dict()`; None where the lab built nothing) and the parameters. Its
    cases are made from these (`context.cases_of`), never parsed back out of a name."""

    argv: list[str]
    variant: str | None = None
    build: dict | None = None
    params: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    # what the program prints: "harness" JSON lines, or "gobench" (go test -bench)
    output: str = "harness"
    key: str = ""  # unique within a run; made from the rest when not given

    def __post_init__(self) -> None:
        if not self.key:
            params = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
            self.key = f"{self.variant or '*'}|{label_of(self.build)}|{params}"


@dataclass
class Outcome:
    """A program's output over the rounds it ran, or the error that stopped it."""

    output: KernelOutput | None = None
    error: str | None = None
    # one per process whose output was kept, where the runner measured it
    processes: list[ProcessStats] = field(default_factory=list)


@dataclass(frozen=True)
class Adaptive:
    """Add rounds while a case's 95% interval is wider than `precision` (relative),
    up to `max_rounds`, and none that would end past `budget_s`."""

    max_rounds: int
    precision: float
    budget_s: float

    def more(self, outcomes: dict[str, Outcome], done: int, elapsed: float) -> bool:
        """Whether to run another round after `done` rounds that took `elapsed` s."""
        if done >= self.max_rounds or elapsed + elapsed / done > self.budget_s:
            return False
        return any(widest(o.output) > self.precision for o in outcomes.values()
                   if o.error is None and o.output is not None)


def widest(out: KernelOutput) -> float:
    """The largest relative half-width of a case's time interval in the output (inf
    while some case has too few processes for one)."""
    worst = 0.0
    for case in out.cases():
        reps = [r for r in out.reps if r.case == case]
        w = relative_halfwidth(Sample(tuple(r.ns / r.units for r in reps),
                                      tuple(r.round for r in reps)))
        worst = max(worst, float("inf") if w is None else w)
    return worst


def run_interleaved(
    programs: Sequence[Program],
    runner: Runner,
    rounds: int,
    timeout: float,
    progress: Callable[[], None] | None = None,
    until: Adaptive | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, Outcome]:
    """Each program runs `rounds` times, interleaved, and with `until` more rounds while
    it asks for them; a failing program stops being run. `progress` is called once per
    program and round up to the most rounds there could be, so a bar sized for them
    fills even when the rounds stop early. `clock`: seconds, for `until`'s budget."""
    outcomes: dict[str, Outcome] = {p.key: Outcome() for p in programs}
    most = max(rounds, until.max_rounds) if until else rounds
    t0 = clock()
    rnd = 0
    while rnd < rounds or (until and until.more(outcomes, rnd, clock() - t0)):
        for p in programs:
            o = outcomes[p.key]
            if o.error is None:
                _one(p, runner, timeout, rnd, o)
            if progress:
                progress()
        rnd += 1
    for _ in range((most - rnd) * len(programs) if progress else 0):
        progress()  # type: ignore[misc]
    return outcomes


def _one(p: Program, runner: Runner, timeout: float, rnd: int, o: Outcome) -> None:
    res = runner.run(p.argv, timeout=timeout, env=p.env)
    try:
        out = parse_gobench(res.stdout) if p.output == "gobench" else parse(res.stdout)
    except KernelOutputError as e:
        o.error = res.failure or f"malformed output: {e}"
        return
    if out.errors:
        o.error = "; ".join(out.errors)
        return
    if res.failure:
        o.error = res.failure
        return
    _append(o, out, rnd, res.stats)


def _append(o: Outcome, out: KernelOutput, rnd: int, stats: ProcessStats | None) -> None:
    """Add one process's output to the program's, tagged with its round; the first
    round's meta stands for all (the same binary and arguments print the same)."""
    if stats is not None:
        o.processes.append(stats)
    if o.output is None:
        o.output = KernelOutput(meta=out.meta)
    base = max((r.rep for r in o.output.reps), default=-1) + 1
    o.output.reps += [replace(r, rep=r.rep + base, round=rnd) for r in out.reps]
    o.output.extra += [replace(x, round=rnd) for x in out.extra]
