"""Source line -> VM instruction, by marker patterns in the interpreter's source.

Interpreters write each instruction's code after a recognisable marker: CPython
`TARGET(LOAD_FAST)`, Lua `vmcase(OP_ADD)`, Ruby `DEFINE_INSN` + name in insns.def,
this project's VM `VM_INSN(ADD)` in its insns.def, `case OP_ADD:` in a switch, and
`op_add:` labels whose address a computed-goto table takes (`&&op_add`). A marker opens
a region that runs to the line before the next marker in the same brace block, or to
the block's closing brace; lines of the block outside every region are the
interpreter's own (dispatch/other).

The text is scanned with comments, string and character literals and preprocessor
lines blanked out first, so that `#define vmcase(l) case l:` or a comment quoting a
marker open no region, and braces inside them do not count.

Compilers, disassemblers and debuggers of the same project also switch on opcodes
(Lua's lcode.c has `case OP_ADD:` in a dozen places). So markers are grouped by their
top-level block (the function body, or the whole file for insns.def-style files) and
only groups with at least half as many distinct instructions as the largest group
count as interpreters: luaV_execute's 83 beat luaV_finishOp's 20 and lcode.c's few.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cpulab.opprof.regions import Block, Region, RegionIndex

# Each pattern's first group is the instruction's name.
DEFAULT_PATTERNS: dict[str, str] = {
    "TARGET(NAME)": r"\bTARGET\(\s*(\w+)\s*\)",
    "vmcase(NAME)": r"\bvmcase\(\s*(\w+)\s*\)",
    "DEFINE_INSN name": r"\bDEFINE_INSN\s+(\w+)",
    "case OP_NAME:": r"\bcase\s+(\w*OP_\w+)\s*:",
    "VM_INSN(NAME)": r"\bVM_INSN\(\s*(\w+)\s*\)",
}
LABEL_PATTERN = "NAME: (a label whose address is taken, &&NAME)"
_LABEL = re.compile(r"^[ \t]*([A-Za-z_]\w*)[ \t]*:(?!:)", re.M)
_ADDR_OF_LABEL = re.compile(r"&&\s*([A-Za-z_]\w*)")
MAX_SOURCE_BYTES = 16 << 20


def blank_non_code(text: str) -> str:
    """`text` with comments, literals and preprocessor lines replaced by spaces (newlines
    kept, so offsets and line numbers are unchanged)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c in " \t":
            i += 1
            continue
        if line_start and c == "#":  # a directive, with its backslash continuations
            j = i
            while j < n and not (text[j] == "\n" and text[j - 1] != "\\"):
                j += 1
            _blank(out, i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            _blank(out, i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            _blank(out, i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            _blank(out, i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def _blank(out: list[str], i: int, j: int) -> None:
    for k in range(i, j):
        if out[k] != "\n":
            out[k] = " "


@dataclass(frozen=True)
class Marker:
    name: str
    line: int
    pos: int


@dataclass(frozen=True)
class FileScan:
    """The markers of one file, with the blocks they sit in."""

    path: str  # as DWARF names it
    markers: list[Marker]
    regions: list[tuple[Region, tuple[int, int]]]  # with the top-level block's lines


def scan_text(text: str, path: str, patterns: list[str], labels: bool = True) -> FileScan:
    code = blank_non_code(text)
    line_of = _line_index(code)
    found: dict[int, Marker] = {}
    for pat in patterns:
        rx = re.compile(pat, re.M)
        for m in rx.finditer(code):
            name = m.group(1) if rx.groups else m.group(0).strip()
            found.setdefault(m.start(), Marker(name, line_of(m.start()), m.start()))
    if labels:
        taken = set(_ADDR_OF_LABEL.findall(code))
        for m in _LABEL.finditer(code):
            if m.group(1) in taken:
                found.setdefault(m.start(1), Marker(m.group(1), line_of(m.start(1)),
                                                    m.start(1)))
    markers = sorted(found.values(), key=lambda mk: mk.pos)
    blocks = _brace_blocks(code)

    def enclosing(pos: int) -> tuple[tuple[int, int], tuple[int, int], int]:
        """(innermost block, top-level block, depth) around pos, as char offsets."""
        inner, top, depth = (0, len(code)), (0, len(code)), 0
        for o, c in blocks:
            if o < pos < c:
                depth += 1
                if top == (0, len(code)):
                    top = (o, c)
                if o >= inner[0] or inner == (0, len(code)):
                    inner = (o, c)
        return inner, top, depth

    placed = [(mk, *enclosing(mk.pos)) for mk in markers]
    regions = []
    for k, (mk, inner, top, depth) in enumerate(placed):
        nxt = next((p for p in placed[k + 1:] if p[1] == inner), None)
        end = nxt[0].line - 1 if nxt else line_of(inner[1])
        if nxt and nxt[0].line == mk.line:
            end = mk.line
        region = Region(mk.name, path, mk.line, max(end, mk.line), depth)
        regions.append((region, (line_of(top[0]), line_of(top[1]))))
    return FileScan(path, markers, regions)


def _line_index(text: str):
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    import bisect

    return lambda pos: bisect.bisect_right(starts, pos)


def _brace_blocks(code: str) -> list[tuple[int, int]]:
    """(open, close) offsets of every {...} block, outer blocks first."""
    stack, out = [], []
    for i, c in enumerate(code):
        if c == "{":
            stack.append(i)
        elif c == "}" and stack:
            out.append((stack.pop(), i))
    return sorted(out)


def build_index(scans: list[FileScan]) -> RegionIndex:
    """Regions of the interpreter blocks among all scanned files (see the module note)."""
    groups: dict[tuple[str, tuple[int, int]], list[Region]] = {}
    for s in scans:
        for region, top in s.regions:
            groups.setdefault((s.path, top), []).append(region)
    if not groups:
        return RegionIndex([], [])
    counts = {k: len({r.name for r in rs}) for k, rs in groups.items()}
    need = max(1, (max(counts.values()) + 1) // 2)
    regions, blocks = [], []
    for (path, (start, end)), rs in groups.items():
        if counts[(path, (start, end))] < need:
            continue
        regions += rs
        blocks.append(Block(path, start, end, f"{Path(path).name}:{start}-{end}",
                            counts[(path, (start, end))]))
    return RegionIndex(regions, blocks)


class SourceFinder:
    """Finds the source file that DWARF names, in --source folders first, then at the
    path DWARF recorded (the compilation directory joined with the file's name)."""

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = [Path(d) for d in dirs]
        self._by_name: dict[str, list[Path]] | None = None

    def find(self, dwarf_path: str) -> Path | None:
        parts = Path(dwarf_path).parts
        for d in self.dirs:
            # the longest tail of the DWARF path that exists under d
            for k in range(1 if parts and parts[0] == "/" else 0, len(parts)):
                cand = d.joinpath(*parts[k:])
                if cand.is_file():
                    return cand
        if self.dirs:
            hits = self._names().get(Path(dwarf_path).name, [])
            if len(hits) == 1:
                return hits[0]
        p = Path(dwarf_path)
        return p if p.is_file() else None

    def _names(self) -> dict[str, list[Path]]:
        if self._by_name is None:
            self._by_name = {}
            for d in self.dirs:
                for p in d.rglob("*"):
                    if p.suffix in (".c", ".h", ".inc", ".def", ".cc", ".cpp") and p.is_file():
                        self._by_name.setdefault(p.name, []).append(p)
        return self._by_name


def scan_files(dwarf_paths: set[str], finder: SourceFinder, patterns: list[str],
               labels: bool = True) -> tuple[list[FileScan], dict[str, Path]]:
    """Scan every source file that the sampled frames name; returns the scans and where
    each file was found."""
    scans, found = [], {}
    for dp in sorted(dwarf_paths):
        p = finder.find(dp)
        if p is None:
            continue
        try:
            if p.stat().st_size > MAX_SOURCE_BYTES:
                continue
            text = p.read_text(errors="replace")
        except OSError:
            continue
        found[dp] = p
        s = scan_text(text, dp, patterns, labels)
        if s.markers:
            scans.append(s)
    return scans, found
