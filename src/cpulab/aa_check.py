"""The A/A test of the lab's statistics: runs of one unchanged build compared as `cpulab
compare` would compare them. Nothing changed between the runs, so every case called
faster or slower is a false alarm, and so is a verdict that turns from confirmed to
refuted; a lab that raises more than its nominal share of them cannot judge a real
change. With a change of known size on one side (the harness's CPULAB_SLOWER), the
same comparison says whether a real change is still found (the A/B test).

Pure: it reads run records, so it is tested with made-up runs; `commands/check.py`
makes the runs.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from itertools import combinations

from cpulab.comparison import ALPHA, NOISE, ComparisonError, compare
from cpulab.results import RunRecord

# The share of cases an A/A pair may call different and still pass: the nominal false
# discovery rate of the comparison.
NOMINAL = ALPHA
# The share of cases an A/B pair must call slower to have found the change.
FOUND = 0.9


@dataclass(frozen=True)
class Pair:
    """One run against another: how many cases it called changed, and the verdicts that
    moved between them."""

    old: int  # index of the run, 0-based, in the order they ran
    new: int
    slowed: bool  # the new run carried a change of known size
    cases: int
    faster: int
    slower: int
    variants: int
    variants_changed: int
    flips: list[str] = field(default_factory=list)  # claims confirmed in one, refuted in other
    moved: list[str] = field(default_factory=list)  # claims whose verdict changed otherwise
    error: str | None = None  # why the two runs did not compare

    @property
    def changed(self) -> int:
        return self.faster + self.slower

    @property
    def passed(self) -> bool:
        if self.error:
            return False
        if self.slowed:
            return self.slower >= FOUND * self.cases
        return self.changed <= NOMINAL * self.cases and not self.flips

    def as_dict(self) -> dict:
        return {"old": self.old + 1, "new": self.new + 1, "slowed": self.slowed,
                "cases": self.cases, "faster": self.faster, "slower": self.slower,
                "variants": self.variants, "variants_changed": self.variants_changed,
                "verdict_flips": self.flips, "verdicts_moved": self.moved,
                "error": self.error, "passed": self.passed}


def pairs_of(n: int, slowed: set[int]) -> list[tuple[int, int]]:
    """Which runs to compare: every pair of plain runs (A/A), and each plain run against
    each slowed one (A/B)."""
    plain = [i for i in range(n) if i not in slowed]
    return list(combinations(plain, 2)) + [(a, b) for a in plain for b in sorted(slowed)]


def judge(records: list[RunRecord], metric: str, slowed: Collection[int] = (),
          noise: float = NOISE) -> list[Pair]:
    """Each pair of `pairs_of`, compared on `metric`; `slowed` are the indices of the
    runs that carried the change."""
    out = []
    for i, j in pairs_of(len(records), set(slowed)):
        old, new = records[i], records[j]
        try:
            c = compare(old, new, metric, noise=noise)
        except ComparisonError as e:
            out.append(Pair(i, j, j in slowed, 0, 0, 0, 0, 0, error=str(e)))
            continue
        counts = c.counts()
        flips, moved = _verdict_moves(old, new)
        out.append(Pair(i, j, j in slowed, len(c.rows), counts["faster"], counts["slower"],
                        len(c.geomeans), sum(ch != "same" for _, ch in c.geomeans.values()),
                        flips, moved))
    return out


def _verdict_moves(old: RunRecord, new: RunRecord) -> tuple[list[str], list[str]]:
    before = {v.claim: v.verdict for v in old.verdicts}
    flips, moved = [], []
    for v in new.verdicts:
        was = before.get(v.claim)
        if was is None or was == v.verdict:
            continue
        line = f"{v.claim}: {was} -> {v.verdict}"
        (flips if {was, v.verdict} == {"confirmed", "refuted"} else moved).append(line)
    return flips, moved
