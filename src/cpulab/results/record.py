"""The result record of one experiment run: what is stored, exported and reported.

Versioned (`schema`), and carrying its context (machine fingerprint, lab revision,
compilers and flags), so that a record read back years later still says what it measured
and on what, and in what conditions (`conditions`: how busy the machine was, and why it
counts as disturbed, if it does). Format history:
  1: first version; later additions are optional, and a record without them reads back
     as it was written: `origin`, `conditions` (the run's and each case's).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cpulab.results.case import Case
from cpulab.results.conditions import RunConditions
from cpulab.results.evidence import Evidence
from cpulab.results.tables import SeedTable
from cpulab.results.verdict import Verdict

SCHEMA = 1
# The seed_row of an experiment of one's own (described, or whole commands): it has no
# seed article, so there are no seed figures to show beside its verdicts.
OWN_SEED_ROW = "own"


@dataclass
class RunRecord:
    experiment: str
    seed_row: str
    title: str
    profile: str
    started: str  # ISO 8601, UTC
    duration_s: float
    machine: dict  # the fingerprint
    machine_key: str
    lab_revision: str
    builds: list[dict]
    cases: list[Case]
    verdicts: list[Verdict]
    seed_tables: list[SeedTable] = field(default_factory=list)
    evidence: Evidence = field(default_factory=Evidence)
    notes: list[str] = field(default_factory=list)
    # "complete", or "failed" when the experiment raised (its error is in `notes`); a run
    # cut short by Ctrl-C is not stored at all.
    status: str = "complete"
    id: int | None = None  # set by the store
    # Where the run was made when it came from elsewhere (a fleet host's name, given to
    # `cpulab export --origin`); None for a run made where it is stored. Not part of the
    # run's identity: the same run imported under two names is one run.
    origin: str | None = None
    # The machine while the run measured (None: stored before it was recorded).
    conditions: RunConditions | None = None

    @property
    def has_seed(self) -> bool:
        return self.seed_row != OWN_SEED_ROW

    def as_dict(self) -> dict:
        return {
            "schema": SCHEMA, "id": self.id, "experiment": self.experiment,
            "seed_row": self.seed_row, "title": self.title, "profile": self.profile,
            "started": self.started, "duration_s": self.duration_s, "status": self.status,
            "lab_revision": self.lab_revision, "machine_key": self.machine_key,
            "machine": self.machine, "builds": self.builds,
            "cases": [c.as_dict() for c in self.cases],
            "verdicts": [v.as_dict() for v in self.verdicts],
            "seed_tables": [t.as_dict() for t in self.seed_tables],
            "evidence": self.evidence.as_dict(), "notes": self.notes,
            **({"origin": self.origin} if self.origin else {}),
            **({"conditions": self.conditions.as_dict()} if self.conditions else {}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> RunRecord:
        if d.get("schema") != SCHEMA:
            raise ValueError(f"record schema {d.get('schema')!r}; this cpulab reads {SCHEMA}")
        return cls(
            experiment=d["experiment"], seed_row=d["seed_row"], title=d["title"],
            profile=d["profile"], started=d["started"], duration_s=d["duration_s"],
            machine=d["machine"], machine_key=d["machine_key"],
            lab_revision=d["lab_revision"], builds=d["builds"],
            cases=[Case.from_dict(c) for c in d["cases"]],
            verdicts=[Verdict(**v) for v in d["verdicts"]],
            seed_tables=[SeedTable.from_dict(t) for t in d.get("seed_tables", [])],
            evidence=Evidence.from_dict(d.get("evidence", {})), notes=d.get("notes", []),
            status=d.get("status", "complete"), id=d.get("id"), origin=d.get("origin"),
            conditions=RunConditions.from_dict(d["conditions"]) if d.get("conditions")
            else None,
        )

