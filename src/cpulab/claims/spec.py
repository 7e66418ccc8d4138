"""A claim in the lab's one vocabulary, the same for a built-in experiment and for a
user's described one: what is claimed (`kind`), of which variant, against what, on which
metric and cases. `claims.judge` turns a claim and a run's cases into a verdict.

Kinds: `faster` (variant against `than`, reaching the ratio `by`), `no-instruction` (a
category or mnemonic absent from the hot functions), `at-most` / `at-least` (a figure
against a bound). `metric` names a metric, or CYCLES for the best cycle-like figure
both cases have (PMU cycles, else TSC ticks, else time).
"""

from __future__ import annotations

from dataclasses import dataclass, field

CLAIM_KINDS = ("faster", "no-instruction", "at-most", "at-least")
# The metric of a claim judged on the best cycle-like figure the cases have.
CYCLES = "cycles|tsc|time"


@dataclass(frozen=True)
class ClaimSpec:
    kind: str  # one of CLAIM_KINDS
    variant: str
    text: str  # the claim as the reader sees it
    than: str | None = None  # faster: the variant compared against
    by: float = 1.0  # faster: the ratio to reach
    metric: str = "tsc"
    builds: str = "every"  # faster/at-most/at-least: "every" or "most" build and parameter
    instruction: str | None = None  # no-instruction: a category or a mnemonic
    value: float | None = None  # at-most / at-least: the bound
    # faster/at-most/at-least: only the cases whose parameters take one of these values
    # (as the kernel gets them: "4096"); empty, every case.
    where: dict[str, tuple[str, ...]] = field(default_factory=dict)
    seed: str | None = None  # what the seed reported, shown beside the verdict

    def applies_to(self, params: dict) -> bool:
        """Whether a case with these parameters (a record's: 4096 as a number) is one
        the claim is judged on."""
        return all(k in params and str(params[k]) in vs for k, vs in self.where.items())


def where_text(where: dict[str, tuple[str, ...]]) -> str:
    """A claim's `where` as the reader sees it: "n=4096, mode=a or b"."""
    return ", ".join(f"{k}={' or '.join(vs)}" for k, vs in where.items())
