"""What an experiment found besides its cases: tables for the reader, and named facts
(which handlers have a frame, the fitted growth exponents) that its verdicts read.

Stored in the record as one JSON object: the facts under their own names and the tables
under "tables", the layout schema 1 has always had, so records written before this type
existed read back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cpulab.results.tables import EvidenceTable

_TABLES = "tables"  # the key of the tables in the stored object; no fact may use it


@dataclass
class Evidence:
    tables: list[EvidenceTable] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # JSON-serializable values

    def __post_init__(self) -> None:
        if _TABLES in self.facts:
            raise ValueError(f"an evidence fact cannot be named {_TABLES!r}: the tables "
                             "are stored under that key")

    def as_dict(self) -> dict:
        d = dict(self.facts)
        if self.tables:
            d[_TABLES] = [t.as_dict() for t in self.tables]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Evidence:
        return cls([EvidenceTable.from_dict(t) for t in d.get(_TABLES, [])],
                   {k: v for k, v in d.items() if k != _TABLES})
