"""Line regions of VM instructions, and how one sample's frames are attributed to them.

Both marker patterns in the source (markers.py) and DWARF labels (labels.py) end up as
the same thing: per source file, the line ranges [start, end] where each instruction's
code is written, inside "blocks" (the interpreter function's body) whose other lines are
the interpreter's own work: dispatch, decoding, the loop, error paths.

Attribution of one sample, whose frames run from the physical function inwards:
1. the first frame, outermost first, whose line lies in an instruction's region names
   the instruction. Outermost first because the handler that runs is where the
   interpreter function stands; an inlined helper's own lines (another file, or a
   helper that happens to contain a `case OP_X:` of its own) do not decide;
2. else, a frame inside an interpreter block, or in a function where instructions were
   found, makes it `dispatch/other`;
3. else the sample belongs to the rest of the process.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from cpulab.opprof.symbolize import Frame

DISPATCH = "dispatch/other"


@dataclass(frozen=True)
class Block:
    """An interpreter function's body (or a whole file of instruction definitions)."""

    file: str  # the path as DWARF names it
    start: int
    end: int
    label: str  # what the user reads: "lvm.c:1154-1950" or a function's name
    instructions: int  # distinct instruction names in it


@dataclass(frozen=True)
class Region:
    name: str
    file: str
    start: int
    end: int  # inclusive
    depth: int  # brace depth of the marker; the shallowest wins where regions nest


class RegionIndex:
    def __init__(self, regions: list[Region], blocks: list[Block]) -> None:
        self.regions = regions
        self.blocks = blocks
        self._by_file: dict[str, list[Region]] = {}
        for r in sorted(regions, key=lambda r: (r.start, r.depth)):
            self._by_file.setdefault(r.file, []).append(r)
        self._starts = {f: [r.start for r in rs] for f, rs in self._by_file.items()}

    def __bool__(self) -> bool:
        return bool(self.regions)

    @property
    def names(self) -> list[str]:
        return sorted({r.name for r in self.regions})

    def region_at(self, file: str | None, line: int) -> Region | None:
        rs = self._by_file.get(file or "")
        if not rs or line <= 0:
            return None
        i = bisect.bisect_right(self._starts[file], line)
        best = None
        # regions do not overlap except where a marker sits in a nested block; the few
        # candidates that start at or before `line` are checked back to the first.
        for r in reversed(rs[:i]):
            if r.start <= line <= r.end and (best is None or r.depth < best.depth):
                best = r
        return best

    def block_at(self, file: str | None, line: int) -> Block | None:
        for b in self.blocks:
            if b.file == file and b.start <= line <= b.end:
                return b
        return None


@dataclass(frozen=True)
class Attribution:
    kind: str  # "insn", "shared", "dispatch" or "rest"
    name: str  # the instruction, DISPATCH, or "" for shared code and the rest
    where: Frame | None = None  # the frame that decided
    among: frozenset[str] = frozenset()  # "shared": the instructions that reach the code


def attribute_insn(frames: list[Frame], index: RegionIndex) -> Attribution | None:
    for f in frames:
        r = index.region_at(f.file, f.line)
        if r is not None:
            return Attribution("insn", r.name, f)
    return None


def attribute_rest(frames: list[Frame], index: RegionIndex,
                   vm_functions: set[str]) -> Attribution:
    for f in frames:
        if index.block_at(f.file, f.line) is not None or (f.function and
                                                          f.function in vm_functions):
            return Attribution("dispatch", DISPATCH, f)
    return Attribution("rest", "")
