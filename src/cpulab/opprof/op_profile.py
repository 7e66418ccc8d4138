"""The result of profiling a command per VM instruction, as the renderers read it.

`schema` names the JSON format render.py writes from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cpulab.opprof.aggregate import Aggregate
from cpulab.opprof.perf_record import Event

SCHEMA = "cpulab.opprof/1"


@dataclass(frozen=True)
class BinaryInfo:
    path: str
    kind: str  # exec (non-PIE), pie, shared
    samples: int
    debug_info: bool
    debug_file: str | None
    dwarf_read: bool = False  # False: too few samples to be worth reading (run.MIN_DWARF_SHARE)


@dataclass
class Mapping:
    mode: str  # markers | label | function
    reason: str
    patterns: list[str]
    interpreter: list[str]  # blocks or handler names that were found
    sources: dict[str, str]  # DWARF path -> file read
    flow: dict[str, str] = field(default_factory=dict)  # function -> entries|lines|skipped
    inclusive: bool = False  # callees charged to the calling instruction (--inclusive)


@dataclass
class OpProfile:
    """What each VM instruction of one command cost: the samples attributed, how they
    were mapped and why, and which binaries took them."""

    command: list[str]
    event: Event
    frequency: int
    mapping: Mapping
    result: Aggregate
    binaries: list[BinaryInfo]
    warnings: list[str]
    schema: str = SCHEMA
    # wall seconds of each stage: "record" (perf record, the command included),
    # "script" (perf script) and "post" (parsing, DWARF, attribution)
    seconds: dict[str, float] = field(default_factory=dict)
