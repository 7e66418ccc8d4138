"""Read a harness program's JSON lines (native/harness/README.md documents the schema)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


class KernelOutputError(ValueError):
    """The program's output is not what the harness writes."""


@dataclass
class Rep:
    case: str
    rep: int
    iters: int
    units: float
    unit: str
    ns: float
    tsc: float | None
    counters: dict[str, float]
    scaled: bool = False
    round: int = 0  # the process of an interleaved schedule that measured it


@dataclass(frozen=True)
class ExtraLine(Mapping[str, Any]):
    """A record of a type the harness does not define (a kernel's own: rusage of the
    children, a refused madvise), read like the JSON object it was, and tagged with
    the round whose process printed it: a kernel prints such lines in every process,
    and what they mean often depends on that process's reps."""

    fields: dict[str, Any]
    round: int = 0

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.fields)

    def __len__(self) -> int:
        return len(self.fields)


@dataclass
class KernelOutput:
    meta: dict
    reps: list[Rep] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    extra: list[ExtraLine] = field(default_factory=list)  # other record types a kernel adds

    def cases(self) -> list[str]:
        seen: dict[str, None] = {}
        for r in self.reps:
            seen.setdefault(r.case, None)
        return list(seen)

    def unavailable(self) -> dict[str, str]:
        """counter -> reason, for every counter the harness could not open."""
        return {
            k: v.get("reason", "unavailable")
            for k, v in self.meta.get("counters", {}).items()
            if not v.get("available")
        }

    def counter_source(self, name: str) -> str:
        return self.meta.get("counters", {}).get(name, {}).get("source", "pmu")


def parse(text: str) -> KernelOutput:
    """Parse the whole stdout of a harness program; raises KernelOutputError if malformed."""
    meta: dict | None = None
    out = KernelOutput(meta={})
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise KernelOutputError(f"line {lineno}: not JSON ({e.msg}): {line[:120]!r}") from e
        if not isinstance(rec, dict) or "type" not in rec:
            raise KernelOutputError(f"line {lineno}: a record without 'type'")
        kind = rec["type"]
        try:
            if kind == "meta":
                meta = rec
            elif kind == "rep":
                out.reps.append(Rep(
                    case=str(rec["case"]), rep=int(rec["rep"]), iters=int(rec["iters"]),
                    units=float(rec["units"]), unit=str(rec["unit"]), ns=float(rec["ns"]),
                    tsc=float(rec["tsc"]) if rec.get("tsc") is not None else None,
                    counters={k: float(v) for k, v in rec.get("counters", {}).items()},
                    scaled=bool(rec.get("scaled", False)),
                ))
            elif kind == "error":
                out.errors.append(str(rec.get("message", "unspecified error")))
            else:
                out.extra.append(ExtraLine(rec))
        except (KeyError, TypeError, ValueError) as e:
            raise KernelOutputError(f"line {lineno}: bad {kind!r} record: {e}") from e
    if meta is None:
        raise KernelOutputError("no meta record: not a cpulab harness program?")
    out.meta = meta
    for r in out.reps:
        if r.units <= 0 or r.iters <= 0 or r.ns < 0:
            raise KernelOutputError(f"case {r.case} rep {r.rep}: non-positive units/iters")
    return out
