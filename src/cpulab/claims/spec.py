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
skipped and listed, never judged. `fastest_build` takes the build out of the set: in
each parameter set the variant's fastest build meets its peers' fastest builds (a peer
the lab does not build, such as a system library, has no build to pair with), and the
evidence names both.

`family` names other forms of the variant (rtdiv's branchfree verb beside its branchy
one): each set compares the fastest of them, the form the evidence names. A claim "at
every size" sets `every_value`: a run without some value of its `where` (a `--quick`
run stops early) cannot confirm it, though with `builds = "every"` a set that falls
short still refutes it.

`growth` (appended): the exponent k of metric ~ over^k, fitted on log axes over the
values of the parameter `over` per build, lies below `value`: confirmed where k plus
two standard errors does, refuted where k less two does not (claims.growth).

`share`: the part of the variant's figure its one peer `than` does not account for,
1 - than/variant (the trap's share of a fault: 1 - populate/fault), above `value` (0.5:
"most"); a figure outside 0% to 100% is no share and decides nothing.

`rank` (claims/rank.py): `variant`, and `family` after it, hold the first places among
all the variants of each set by `metric`, largest first (the hottest instructions of a
profile): the weakest of them over the strongest other must reach `by`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLAIM_KINDS = ("faster", "within", "no-instruction", "at-most", "at-least", "growth",
               "share", "rank")
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
    # faster/at-most/at-least: "every" or "most" build and parameter set, or "some"
    builds: str = "every"
    instruction: str | None = None  # no-instruction: a category or a mnemonic
    # at-most / at-least: the bound; growth: the exponent's; share: the share to pass
    value: float | None = None
    # faster/at-most/at-least: only the cases whose parameters take one of these values
    # (as the kernel gets them: "4096"); empty, every case.
    where: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # faster/within: a parameter averaged over (geometric mean); growth: the size fitted
    over: str | None = None
    # faster/within/at-most/at-least: what a judged build and parameter set must have
    requires: tuple[Requirement, ...] = ()
    seed: str | None = None  # what the seed reported, shown beside the verdict
    # faster/within: the variant's other forms, each set comparing the fastest of them;
    # rank: the variants that hold the places after it
    family: tuple[str, ...] = ()
    # a run must have every value `where` names (else unmeasurable, but for a refutation
    # by "every" build and parameter set)
    every_value: bool = False
    # faster/within: compare each variant at its fastest build in each parameter set,
    # not build by build ("than the best compiler build"; peers built by no one)
    fastest_build: bool = False

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
