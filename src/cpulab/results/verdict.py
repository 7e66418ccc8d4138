"""A verdict on one of the seed's claims: computed from the measurements, never written
by hand, and stated with its evidence and the seed's own figure beside it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

VerdictKind = Literal["confirmed", "refuted", "inconclusive", "unmeasurable"]
VERDICTS: tuple[VerdictKind, ...] = ("confirmed", "refuted", "inconclusive", "unmeasurable")


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
