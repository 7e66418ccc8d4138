"""The one way a verdict weighs ratios against a target: count the 95% intervals that
lie wholly at or above it and wholly below it (`Ratio.above`, `Ratio.below`); an
interval across the target decides nothing either way, and neither does a ratio
measured by too few processes to have an interval (counted apart, so a verdict can say
that it had too few). The rules are symmetric: a split decides nothing."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cpulab.measure.stats import Ratio
from cpulab.results.verdict import VerdictKind


@dataclass
class Tally:
    """How many ratio intervals lie wholly above or wholly below a threshold: the raw
    material of a verdict over several builds, sizes or programs."""

    above: int = 0
    below: int = 0
    n: int = 0
    no_interval: int = 0  # ratios from too few processes to have an interval

    @classmethod
    def of(cls, ratios: Iterable[Ratio], threshold: float = 1.0) -> Tally:
        tally = cls()
        for r in ratios:
            tally.add(r, threshold)
        return tally

    def add(self, r: Ratio, threshold: float = 1.0) -> None:
        self.n += 1
        self.above += r.above(threshold)
        self.below += r.below(threshold)
        self.no_interval += not r.has_interval

    def majority(self) -> VerdictKind:
        """confirmed when most intervals are above, refuted when most are below; a
        split (one build each way) is inconclusive."""
        if self.above > self.n / 2:
            return "confirmed"
        return "refuted" if self.below > self.n / 2 else "inconclusive"

    def every(self) -> VerdictKind:
        """confirmed when all intervals are above, refuted when any is below."""
        if self.n and self.above == self.n:
            return "confirmed"
        return "refuted" if self.below else "inconclusive"

    def some(self) -> VerdictKind:
        """confirmed when any interval is above, refuted when every one is below: a
        rebuttal of "X is faster in general" needs one place where it is not."""
        if self.above:
            return "confirmed"
        return "refuted" if self.n and self.below == self.n else "inconclusive"
