"""What an experiment is given to work with: the profile, the build matrix, a runner.

The context is the one place where experiments reach the layers below (build, measure);
it also carries progress reporting and notes (what was skipped and why), so that an
experiment module stays a declaration of what to build, run and conclude.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from cpulab.build import Artifact, BuildConfig, Target, build
from cpulab.measure import valgrind
from cpulab.measure.metrics import Metric, case_metrics
from cpulab.measure.runner import ProcessRunner, Runner
from cpulab.measure.schedule import Adaptive, Outcome, Program, run_interleaved
from cpulab.paths import build_dir
from cpulab.results import Case, CaseConditions

T = TypeVar("T")


@dataclass(frozen=True)
class Profile:
    """How much to measure. A profile asks for a precision, not a count: every program
    runs in `rounds` processes, and more rounds are added, interleaved, while some
    case's 95% interval is wider than `precision` (a fraction of its figure), up to
    `max_rounds` and for at most `budget_s` per measurement. The process is the unit
    of the statistics (measure/stats.py), so rounds buy precision and repetitions
    inside a process mostly do not: a few suffice to take a median.

    A profile also says how far each experiment sweeps: experiments look its name up
    (`SIZES[ctx.profile.name]`), quick the least, full the longest sweeps (1 GiB files,
    10,000-object builds). `experiment_budget_s` bounds the rounds an experiment adds
    in all its measurements together; its minimum rounds are run regardless."""

    name: str
    rounds: int  # processes per program at least, interleaved across programs
    reps: int  # repetitions inside each process (--reps)
    target_ms: int  # duration of one timed call (--target-ms)
    timeout_s: float  # per process
    max_rounds: int  # processes per program at most
    precision: float  # wanted half-width of each case's interval, relative
    budget_s: float  # one measurement adds no round after this long
    # an experiment's measurements add no round after this long in all (None: no bound)
    experiment_budget_s: float | None = None

    @property
    def quick(self) -> bool:
        return self.name == "quick"

    @property
    def full(self) -> bool:
        return self.name == "full"

    def harness_args(self) -> list[str]:
        return ["--reps", str(self.reps), "--target-ms", str(self.target_ms)]

    def until(self, left_s: float | None = None) -> Adaptive:
        """Adding rounds for at most `budget_s`, or `left_s` where that is less."""
        budget = self.budget_s if left_s is None else min(self.budget_s, left_s)
        return Adaptive(self.max_rounds, self.precision, budget)


LEAST_ROUNDS = 3  # the fewest processes a 95% interval rests on (also `run --rounds`'s)

PROFILES = {
    # quick: for tests and a first look, with the least rounds an interval needs.
    "quick": Profile("quick", rounds=LEAST_ROUNDS, reps=2, target_ms=5, timeout_s=60,
                     max_rounds=5, precision=0.03, budget_s=20),
    # default: `make lab`, every experiment within minutes on 2 cores. A loaded machine
    # rarely reaches 1%, so rounds go on until a budget: 60 s from each experiment's
    # start. The 16 experiments then took ~22 minutes one by one here (2 cores, others'
    # load 2-3); those whose builds and least rounds take longer (protobuf 160 s, spawn
    # 130 s) add none.
    "default": Profile("default", rounds=6, reps=3, target_ms=20, timeout_s=300,
                       max_rounds=20, precision=0.01, budget_s=90, experiment_budget_s=60),
    # full: the default's statistics over the long sweeps, without a bound per experiment.
    "full": Profile("full", rounds=6, reps=3, target_ms=20, timeout_s=300,
                    max_rounds=20, precision=0.01, budget_s=90),
}


class Reporter:
    """Progress sink; the CLI supplies a rich progress bar, tests a silent one.

    A phase starts with what it counts: `total` steps (None: not counted), its counter
    at 0, so that the label and the counter beside it always speak of the same thing
    ("building 2 binaries 0/2", never "0/?" or the last phase's "28/28")."""

    def phase(self, text: str, total: int | None = None) -> None: ...
    def advance(self, n: int = 1) -> None: ...


@dataclass
class Context:
    profile: Profile
    configs: list[BuildConfig]
    runner: Runner = field(default_factory=ProcessRunner)
    reporter: Reporter = field(default_factory=Reporter)
    notes: list[str] = field(default_factory=list)
    # seconds the experiment's measurements may add rounds for, from `started` (None:
    # no bound); `clock` is seconds, a fake one in tests
    budget_s: float | None = None
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def budget_left(self) -> float | None:
        """Seconds of the experiment's budget left (0 once spent); None: no budget."""
        if self.budget_s is None:
            return None
        return max(0.0, self.budget_s - (self.clock() - self.started))

    def note(self, text: str) -> None:
        """Something the reader must know: a skipped tool, a refused kernel feature."""
        if text not in self.notes:
            self.notes.append(text)

    def build(self, pairs: Iterable[tuple[Target, BuildConfig]]) -> list[Artifact]:
        pairs = list(pairs)
        counted = [0]

        def progress(done: int, total: int) -> None:
            if done == 0:  # said once, before anything is built: how many are out of date
                fresh = len(pairs) - total
                label = f"building {_n(total, 'binary', 'binaries')}" if total \
                    else "nothing to build"
                self.reporter.phase(label + (f" ({fresh} up to date)" if fresh else ""),
                                    total=total or None)
            else:
                self.reporter.advance(done - counted[0])
            counted[0] = done

        def waiting() -> None:
            self.reporter.phase(f"waiting for another build in {build_dir()} to end")

        arts = build(pairs, progress=progress, waiting=waiting)
        for a in arts:
            if a.error:
                self.note(f"build failed: {a.target.name} with {a.config.label}: "
                          f"{first_error(a.error)}")
        return arts

    def measure(self, programs: Sequence[Program], rounds: int | None = None) -> dict[str, Outcome]:
        """Each program in interleaved rounds: the profile's, adding rounds until its
        precision is reached or the experiment's budget is spent; exactly `rounds` when
        an experiment fixes them (a pass over a 1 GiB file is too long to repeat at
        will). The progress total counts the most rounds there can be; rounds that
        prove unneeded are counted done."""
        left = None if rounds else self.budget_left()
        until = None if rounds or left == 0 else self.profile.until(left)
        rounds = rounds or self.profile.rounds
        most = max(rounds, until.max_rounds) if until else rounds
        label = (f"measuring {_n(len(programs), 'program', 'programs')}, "
                 + (f"{rounds}-{most} rounds" if most > rounds else _n(rounds, 'round', 'rounds')))
        if left is not None:  # the rounds it may add, which the bar's estimate cannot know
            label += (f" (time budget: {_clock(left)} left)" if left
                      else " (time budget spent: no rounds added)")
        self.reporter.phase(label, total=len(programs) * most)
        return run_interleaved(programs, self.runner, rounds, self.profile.timeout_s,
                               progress=self.reporter.advance, until=until, clock=self.clock)

    def callgrind(
        self, jobs: dict[str, Callable[[int], Sequence[str]]], iters: tuple[int, int],
        units_per_iter: float, unit: str, collect: str | None = None,
    ) -> dict[str, dict[str, Metric] | str]:
        """Exact per-unit counts for each job (key -> argv for an iteration count), or the
        reason they could not be had. Valgrind runs one process per core: its ~50x
        slowdown makes it the longest part of a quick run."""
        return self._under_valgrind(jobs, lambda argv_for: valgrind.per_unit_counts(
            self.runner, argv_for, iters, units_per_iter, unit,
            timeout=self.profile.timeout_s * 4, collect=collect))

    def callgrind_functions(
        self, jobs: dict[str, Callable[[int], Sequence[str]]], iters: tuple[int, int],
        units_per_iter: float, collect: str | None = None,
    ) -> dict[str, dict[str, float] | str]:
        """Each job's functions and their own instructions per unit, largest first
        (valgrind.per_unit_functions), or the reason they could not be had."""
        return self._under_valgrind(jobs, lambda argv_for: valgrind.per_unit_functions(
            self.runner, argv_for, iters, units_per_iter,
            timeout=self.profile.timeout_s * 4, collect=collect))

    def _under_valgrind(self, jobs: dict[str, Callable[[int], Sequence[str]]],
                        count: Callable[[Callable[[int], Sequence[str]]], T]
                        ) -> dict[str, T | str]:
        why = valgrind.available()
        if why:
            return {k: why for k in jobs}
        self.reporter.phase(f"counting instructions of {_n(len(jobs), 'program', 'programs')}"
                            " (callgrind)",
                            total=len(jobs))

        def one(argv_for: Callable[[int], Sequence[str]]) -> T | str:
            try:
                return count(argv_for)
            except valgrind.ValgrindError as e:
                return str(e)
            finally:
                self.reporter.advance()

        pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
        try:
            futures = {k: pool.submit(one, f) for k, f in jobs.items()}
            return {k: f.result() for k, f in futures.items()}
        finally:
            # On Ctrl-C, drop the queued runs instead of finishing them all first.
            pool.shutdown(wait=True, cancel_futures=True)


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _clock(seconds: float) -> str:
    """`1:05`, the way the progress bar writes its times (to the second)."""
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


def first_error(text: str) -> str:
    """The line of a compiler's output that says what is wrong (`x.c:3:5: error: ...`),
    rather than its first (`In function 'f':`)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return next((ln for ln in lines if "error" in ln), lines[0] if lines else "")


def cases_of(program: Program, outcome: Outcome,
             variant_of: Callable[[str], str] | None = None,
             case_names: Sequence[str] = ()) -> list[Case]:
    """The cases a program measured, of its variant, build and parameters: one per case
    its output has (each its own variant where the program names none, through
    `variant_of` where given), or one failed case per expected name."""
    if program.variant is not None:
        def of(_: str) -> str:
            return program.variant  # type: ignore[return-value]
    else:
        of = variant_of or (lambda name: name)
    names = case_names or ([program.variant] if program.variant else ())
    return cases_from_outcome(outcome, of, program.build, program.params, names)


def cases_from_outcome(
    outcome: Outcome, variant_of: Callable[[str], str], build_info: dict | None, params: dict,
    case_names: Sequence[str] = (),
) -> list[Case]:
    """One Case per harness case in the output, or one failed Case per expected name.
    Every case of the output was measured by the same processes: it carries their
    conditions."""
    if outcome.error or outcome.output is None:
        names = case_names or ["?"]
        return [Case(variant_of(n), build_info, dict(params), error=outcome.error or "no output")
                for n in names]
    conditions = CaseConditions.of(outcome.processes)
    cases = []
    for name in outcome.output.cases():
        metrics, unavailable = case_metrics(outcome.output, name)
        cases.append(Case(variant_of(name), build_info, dict(params), metrics, unavailable,
                          conditions=conditions))
    return cases
