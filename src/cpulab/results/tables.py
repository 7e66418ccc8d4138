"""The titled tables a run carries beside its cases: the seed's own figures, and the
evidence this machine's run produced. Both are a grid of text cells under a title; they
are two types because they mean opposite things, and the report labels them so: a seed
table is never a result of this machine, an evidence table always is."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Self


@dataclass
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Self:
        return cls(d["title"], list(d["columns"]), [list(r) for r in d["rows"]])


@dataclass
class SeedTable(Table):
    """The seed's own figures, shown beside this machine's (never used as results)."""


@dataclass
class EvidenceTable(Table):
    """Figures this run produced beyond its cases (instruction mixes, modelled
    predictors, fitted exponents), printed by the report under its title."""
