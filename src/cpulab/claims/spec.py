"""A claim in the lab's one vocabulary, the same for a built-in experiment and for a
user's described one: what is claimed (`kind`), of which variant, against what, on which
metric and cases. `claims.judge` turns a claim and a run's cases into a verdict.

Kinds: `faster` (variant against `than`, reaching the ratio `by`), `within` (the ratio
of variant and `than` within `by` of 1 either way: "changes little"), `no-instruction`
(a category or mnemonic absent from the hot functions), `at-most` / `at-least` (a
figure against a bound). `metric` names a metric, or CYCLES for the best cycle-like
figure both cases have (PMU cycles, else TSC ticks, else time).

`than` may name several variants: each comparison is then against the fastest of them
in that build and parameter set (the strongest peer there), and the evidence names it.
`over` names a parameter whose values a comparison averages (a geometric mean paired
by round: "over the programs"). `requires` states what must hold of a case before it
is compared at all (a shared dispatch has one indirect jump); cases without it are
skipped and listed, never judged.

`best-faster` (claims/best.py): the fastest of a family (`variant` and `family`) against
the fastest of `than`, in each build and parameter set, or each parameter set with
`across_builds` (the fastest build); `builds` may also be "some" (one set confirms,
every set short refutes: a rebuttal of "faster in general").

`rank` (claims/rank.py): `variant`, and `family` after it, hold the first places among
all the variants of each set by `metric`, largest first (the hottest instructions of a
profile): the weakest of them over the strongest other must reach `by`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLAIM_KINDS = ("faster", "within", "no-instruction", "at-most", "at-least", "best-faster",
               "rank")
# The metric of a claim judged on the best cycle-like figure the cases have.
CYCLES = "cycles|tsc|time"


@dataclass(frozen=True)
class Requirement:
    """A precondition on the cases of `variant`: its exact `metric` compared by `op`
    ("==", "<=", ">=") with `value`."""

    variant: str
    metric: str
    op: str
    value: float

    def holds(self, figure: float | None) -> bool:
        if figure is None:
            return False
        return {"==": figure == self.value, "<=": figure <= self.value,
                ">=": figure >= self.value}[self.op]

    def __str__(self) -> str:
        return f"{self.variant}'s {self.metric} {self.op} {self.value:g}"


@dataclass(frozen=True)
class ClaimSpec:
    kind: str  # one of CLAIM_KINDS
    variant: str
    text: str  # the claim as the reader sees it
    # faster/within: the variant compared against, or several (the fastest of them)
    than: str | tuple[str, ...] | None = None
    by: float = 1.0  # faster: the ratio to reach; within: the tolerance (0.05: 5%)
    metric: str = "tsc"
    builds: str = "every"  # faster/at-most/at-least: "every" or "most" build and parameter
    instruction: str | None = None  # no-instruction: a category or a mnemonic
    value: float | None = None  # at-most / at-least: the bound
    # faster/at-most/at-least: only the cases whose parameters take one of these values
    # (as the kernel gets them: "4096"); empty, every case.
    where: dict[str, tuple[str, ...]] = field(default_factory=dict)
    over: str | None = None  # faster/within: a parameter averaged over (geometric mean)
    requires: tuple[Requirement, ...] = ()  # faster/within: what a compared case must have
    seed: str | None = None  # what the seed reported, shown beside the verdict
    # best-faster: the variants beside `variant` whose fastest is compared; rank: the
    # variants that hold the places after it
    family: tuple[str, ...] = ()
    # best-faster: compare across builds (each build's case a candidate of its own)
    across_builds: bool = False

    @property
    def peers(self) -> tuple[str, ...]:
        """The variants a faster/within claim compares against."""
        if self.than is None:
            return ()
        return (self.than,) if isinstance(self.than, str) else tuple(self.than)

    def applies_to(self, params: dict) -> bool:
        """Whether a case with these parameters (a record's: 4096 as a number) is one
        the claim is judged on."""
        return all(k in params and str(params[k]) in vs for k, vs in self.where.items())


def where_text(where: dict[str, tuple[str, ...]]) -> str:
    """A claim's `where` as the reader sees it: "n=4096, mode=a or b"."""
    return ", ".join(f"{k}={' or '.join(vs)}" for k, vs in where.items())
