"""What an experiment is: a seed claim, the cases it measures, and verdicts computed from them.

An experiment module declares; it does not time, store or print. `run()` asks the
`Context` to build and measure and returns `Case`s; `verdicts()` is a pure function of
those cases (so it is tested with fake cases); the orchestrator stores and reports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from cpulab.build import Target
from cpulab.measure.metrics import Metric

if TYPE_CHECKING:
    from cpulab.context import Context

VerdictKind = Literal["confirmed", "refuted", "inconclusive", "unmeasurable"]
VERDICTS: tuple[VerdictKind, ...] = ("confirmed", "refuted", "inconclusive", "unmeasurable")


@dataclass
class Case:
    variant: str
    build: dict | None  # BuildConfig.as_dict(), or None for a peer not built here
    params: dict = field(default_factory=dict)
    metrics: dict[str, Metric] = field(default_factory=dict)
    unavailable: dict[str, dict] = field(default_factory=dict)
    error: str | None = None

    @property
    def build_label(self) -> str:
        if not self.build:
            return "-"
        s = f"{self.build['compiler']} {self.build['flags']}"
        return s + " +pgo" if self.build.get("pgo") else s

    def value(self, metric: str) -> float | None:
        m = self.metrics.get(metric)
        return m.median if m else None

    def as_dict(self) -> dict:
        d = {
            "variant": self.variant,
            "build": self.build,
            "params": self.params,
            "metrics": {k: m.as_dict() for k, m in self.metrics.items()},
            "unavailable": self.unavailable,
        }
        if self.error:
            d["error"] = self.error
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Case:
        return cls(
            variant=d["variant"], build=d.get("build"), params=d.get("params", {}),
            metrics={k: Metric(**{**m, "values": tuple(m.get("values", ()))})
                     for k, m in d.get("metrics", {}).items()},
            unavailable=d.get("unavailable", {}), error=d.get("error"),
        )


@dataclass
class Verdict:
    claim: str
    verdict: VerdictKind
    evidence: str
    seed: str | None = None  # what the seed reported, for the side-by-side

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, not {self.verdict!r}")

    def as_dict(self) -> dict:
        return {"claim": self.claim, "verdict": self.verdict, "evidence": self.evidence,
                "seed": self.seed}


@dataclass
class SeedTable:
    """The seed's own figures, shown beside this machine's (never used as results)."""

    title: str
    columns: list[str]
    rows: list[list[str]]

    def as_dict(self) -> dict:
        return {"title": self.title, "columns": self.columns, "rows": self.rows}


@dataclass(frozen=True)
class PlotSpec:
    """One figure of a run: `metric` against the numeric parameter `x`, a line per
    variant and build, cases with other parameters equal to `where` only."""

    name: str  # file name stem: "sweep" -> run-12-bigdec-sweep.png
    title: str
    x: str  # a key of Case.params
    metric: str
    x_label: str | None = None
    log_x: bool = True
    log_y: bool = True
    where: tuple[tuple[str, object], ...] = ()


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

    def seed_tables(self) -> list[SeedTable]:
        return []

    @abstractmethod
    def targets(self) -> dict[str, Target]:
        """variant -> what to build for it (used by `run` and by `cpulab asm`)."""

    def hot_symbols(self, variant: str) -> list[str]:
        """Symbols (globs allowed) whose machine code is the evidence for this variant."""
        return []

    @abstractmethod
    def run(self, ctx: Context) -> list[Case]:
        """Build, measure, return the cases. Failures become cases with `error` set."""

    @abstractmethod
    def verdicts(self, cases: list[Case], evidence: dict) -> list[Verdict]:
        """Pure: the verdict for each claim, computed from the cases and evidence."""

    def evidence(self, ctx: Context, cases: list[Case]) -> dict:
        """Extra evidence (instruction mixes, models); default none. Under the key
        "tables", a list of {"title", "columns", "rows"} that the report prints."""
        return {}
