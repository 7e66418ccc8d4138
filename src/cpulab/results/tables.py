"""The seed's own figures, shown beside this machine's: a titled grid of text cells."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class SeedTable:
    """The seed's own figures, shown beside this machine's (never used as results)."""

    title: str
    columns: list[str]
    rows: list[list[str]]

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> SeedTable:
        return cls(d["title"], list(d["columns"]), [list(r) for r in d["rows"]])
