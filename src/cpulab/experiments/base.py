"""What an experiment is: a seed claim, the cases it measures, and verdicts computed from them.

An experiment module declares; it does not time, store or print. `run()` asks the
`Context` to build and measure and returns `Case`s; its claims are declared in the
vocabulary a user's described experiment uses (`claims.ClaimSpec`) and judged by the one
judge (`claims.judge`), so `verdicts()` is a pure function of the cases (tested with
fake cases); the orchestrator stores and reports. An experiment whose claim the
vocabulary cannot say yet overrides `verdicts()`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from cpulab.build import Target
from cpulab.claims import ClaimSpec, judge
from cpulab.results import Case, Evidence, PlotSpec, SeedTable, Verdict

if TYPE_CHECKING:
    from cpulab.context import Context


class Experiment(ABC):
    name: str
    seed_row: str
    title: str
    summary: str  # one paragraph: what it measures and why
    # The default build matrix; `cpulab run --cc/--opt` narrows or changes it.
    compilers: tuple[str, ...] = ("gcc", "clang")
    opts: tuple[str, ...] = ("O2",)
    pgo_opts: tuple[str, ...] = ()  # profile-guided builds at these levels (if selected)
    # Metrics shown in the terminal table, in order (all are stored; None: every one).
    table_metrics: tuple[str, ...] | None = None
    # Figures `cpulab plot` draws from a stored run (sweeps over a size or a count).
    plots: tuple[PlotSpec, ...] = ()
    # The seed's claims, judged by `claims.judge` unless `verdicts()` is overridden.
    claims: tuple[ClaimSpec, ...] = ()
    # Seconds its measurements may add rounds for, in a profile that bounds each
    # experiment (the default), where the profile's bound is too few; None: the profile's.
    budget_s: float | None = None

    def seed_tables(self) -> list[SeedTable]:
        return []

    @abstractmethod
    def targets(self) -> dict[str, Target]:
        """variant -> what to build for it (used by `run` and by `cpulab asm`)."""

    def variants(self) -> list[str]:
        """The variants `cpulab list` shows: those of targets(), unless the experiment
        builds something other than C kernels (Go programs, peers)."""
        return list(self.targets())

    def hot_symbols(self, variant: str) -> list[str]:
        """Symbols (globs allowed) whose machine code is the evidence for this variant."""
        return []

    @abstractmethod
    def run(self, ctx: Context) -> list[Case]:
        """Build, measure, return the cases. Failures become cases with `error` set."""

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        """Pure: the verdict for each claim, computed from the cases and evidence."""
        return [judge(c, cases, evidence) for c in self.claims]

    def run_errors(self, cases: list[Case]) -> list[str]:
        """The failures that make `cpulab run` exit with status 1, the run being stored
        all the same. None by default: a kernel's failed build or case is one case among
        many, shown as failed in the table beside the others."""
        return []

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """Extra evidence (instruction mixes, models): tables the report prints and facts
        the verdicts read; default none."""
        return Evidence()
