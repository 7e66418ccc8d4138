"""Address -> source: the DWARF line table and inline frames of one binary (pyelftools).

For an address this gives the chain of frames that the code there belongs to, outermost
first: the physical function, then each function inlined into it down to the innermost,
each with the source line at which it stands. The innermost line comes from the line
table; each outer line is the call site of the inlined function below it
(DW_AT_call_file / DW_AT_call_line of a DW_TAG_inlined_subroutine). An interpreter whose
handler calls an always-inline helper is thus still seen at the call inside the handler.

Cost: pyelftools is pure Python, ~20 us per DIE; only compilation units that hold sampled
addresses are decoded (a 30,000-line interpreter: a few CUs of ~10,000 DIEs each).
DW_TAG_label entries (name, declared line, address) are collected in the same walk.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass, field

from elftools.elf.elffile import ELFFile

from cpulab.opprof.dwarf_cache import DwarfCache


@dataclass(frozen=True)
class Frame:
    function: str  # "" when no DW_TAG_subprogram covers the address
    file: str | None
    line: int  # 0: no line (compiler-generated code)


@dataclass(frozen=True)
class Label:
    function: str  # the function whose body declares it
    name: str
    file: str | None
    line: int
    address: int | None


@dataclass
class _Node:
    """A concrete subprogram or inlined subroutine: where its code is, and, for an inlined
    one, where it was called from."""

    name: str
    ranges: list[tuple[int, int]]
    call_file: str | None = None
    call_line: int = 0
    decl_file: str | None = None
    decl_line: int = 0
    children: list[_Node] = field(default_factory=list)

    def contains(self, addr: int) -> bool:
        return any(lo <= addr < hi for lo, hi in self.ranges)


@dataclass
class _Unit:
    """The decoded part of one compilation unit."""

    files: list[str | None]
    file_base: int  # DWARF >= 5 numbers files from 0, older versions from 1
    row_addrs: list[int]
    rows: list[tuple[int, str | None, int, bool]]  # (address, file, line, end_sequence)
    func_lo: list[int]
    funcs: list[tuple[int, int, _Node]]
    labels: list[Label]
    functions: list[_Node]

    def file(self, index: int | None) -> str | None:
        if index is None:
            return None
        i = index - self.file_base
        return self.files[i] if 0 <= i < len(self.files) else None


_DESCEND = {"DW_TAG_lexical_block", "DW_TAG_namespace", "DW_TAG_try_block",
            "DW_TAG_catch_block"}


class DebugInfo:
    """The DWARF of one ELF file, decoded on demand, one compilation unit at a time."""

    def __init__(self, elf: ELFFile, cache: DwarfCache | None = None) -> None:
        self.dwarf = elf.get_dwarf_info()
        self._units: dict[int, _Unit] = {}
        self._frames: dict[int, list[Frame]] = {}
        self._index: list[tuple[int, int, int]] | None = None
        self._index_lo: list[int] = []
        self._cache = cache
        saved = cache.load() if cache else None
        if saved:
            self._units, self._frames = saved["units"], saved["frames"]
            if saved["index"] is not None:
                self._index = saved["index"]
                self._index_lo = [e[0] for e in self._index]
        self._saved = self._size()
        # .debug_aranges (gcc writes it) maps an address to its CU without touching the
        # others; without it (clang's default) every CU's top DIE is read once, on the
        # first address that aranges does not cover: ~8 ms a CU in pyelftools.
        self._aranges = self.dwarf.get_aranges() if self.dwarf.has_debug_info else None

    def _size(self) -> tuple[int, int, bool]:
        return len(self._units), len(self._frames), self._index is not None

    def _scan_units(self) -> None:
        self._index = []
        for cu in self.dwarf.iter_CUs():
            for lo, hi in self._ranges(cu.get_top_DIE(), cu):
                self._index.append((lo, hi, cu.cu_offset))
        self._index.sort()
        self._index_lo = [e[0] for e in self._index]

    # -- public ------------------------------------------------------------------------

    def save(self) -> None:
        """Keep what was decoded for the next profile (if there is a cache and it grew)."""
        if self._cache and self._saved != self._size():
            self._cache.save({"units": self._units, "frames": self._frames,
                              "index": self._index})
            self._saved = self._size()

    def frames(self, addr: int) -> list[Frame]:
        """Frames at `addr`, outermost (the physical function) first; [] if unknown."""
        out = self._frames.get(addr)
        if out is None:
            out = self._frames[addr] = self._frames_uncached(addr)
        return out

    def _frames_uncached(self, addr: int) -> list[Frame]:
        unit = self._unit_at(addr)
        if unit is None:
            return []
        file, line = self._line(unit, addr)
        node = self.function_at(addr)
        if node is None:
            return [Frame("", file, line)] if file else []
        chain = [node]
        while True:
            nxt = next((c for c in chain[-1].children if c.contains(addr)), None)
            if nxt is None:
                break
            chain.append(nxt)
        out = []
        for k, n in enumerate(chain):
            if k + 1 < len(chain):
                out.append(Frame(n.name, chain[k + 1].call_file, chain[k + 1].call_line))
            else:
                out.append(Frame(n.name, file, line))
        return out

    def function_at(self, addr: int) -> _Node | None:
        """The physical function (concrete subprogram) whose code holds `addr`."""
        unit = self._unit_at(addr)
        if unit is None:
            return None
        i = bisect.bisect_right(unit.func_lo, addr) - 1
        while i >= 0:
            lo, hi, n = unit.funcs[i]
            if lo <= addr < hi:
                return n
            if lo < addr - (1 << 20):
                return None
            i -= 1
        return None

    def unit_labels(self, addr: int) -> list[Label]:
        """DW_TAG_label entries of the compilation unit holding `addr`."""
        unit = self._unit_at(addr)
        return unit.labels if unit else []

    def unit_functions(self, addr: int) -> list[_Node]:
        """The concrete functions of the compilation unit holding `addr`."""
        unit = self._unit_at(addr)
        return unit.functions if unit else []

    # -- compilation units -------------------------------------------------------------

    def _unit_at(self, addr: int) -> _Unit | None:
        off = None
        if self._aranges is not None:
            off = self._aranges.cu_offset_at_addr(addr)
        if off is None:
            if self._index is None:
                self._scan_units()
            i = bisect.bisect_right(self._index_lo, addr) - 1
            while i >= 0:
                lo, hi, o = self._index[i]
                if lo <= addr < hi:
                    off = o
                    break
                if lo < addr - (1 << 24):
                    break
                i -= 1
        if off is None:
            return None
        if off not in self._units:
            self._units[off] = self._decode(self.dwarf.get_CU_at(off))
        return self._units[off]

    def _ranges(self, die, cu) -> list[tuple[int, int]]:
        attrs = die.attributes
        if "DW_AT_ranges" in attrs:
            rl = self.dwarf.range_lists()
            if rl is None:
                return []
            base = attrs["DW_AT_low_pc"].value if "DW_AT_low_pc" in attrs else None
            if base is None:
                top = cu.get_top_DIE()
                base = top.attributes["DW_AT_low_pc"].value \
                    if "DW_AT_low_pc" in top.attributes else 0
            out = []
            for e in rl.get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=cu):
                if hasattr(e, "base_address"):
                    base = e.base_address
                elif e.is_absolute:
                    out.append((e.begin_offset, e.end_offset))
                else:
                    out.append((base + e.begin_offset, base + e.end_offset))
            return [(lo, hi) for lo, hi in out if hi > lo]
        if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
            lo = attrs["DW_AT_low_pc"].value
            hp = attrs["DW_AT_high_pc"]
            hi = hp.value if hp.form == "DW_FORM_addr" else lo + hp.value
            return [(lo, hi)] if hi > lo else []
        return []

    def _decode(self, cu) -> _Unit:
        top = cu.get_top_DIE()
        comp_dir = _str(top.attributes.get("DW_AT_comp_dir"))
        lp = self.dwarf.line_program_for_CU(cu)
        files: list[str | None] = []
        rows: list[tuple[int, str | None, int, bool]] = []
        base = 1
        if lp is not None:
            version = lp.header["version"]
            base = 0 if version >= 5 else 1
            dirs = [_str(d) for d in lp["include_directory"]]
            for fe in lp["file_entry"]:
                name = _str(fe.name)
                di = fe.dir_index
                if version >= 5:
                    d = dirs[di] if 0 <= di < len(dirs) else comp_dir
                else:
                    d = comp_dir if di == 0 else (dirs[di - 1] if di - 1 < len(dirs) else None)
                path = name
                if d and not os.path.isabs(name):
                    path = os.path.join(d, name)
                if comp_dir and not os.path.isabs(path):
                    path = os.path.join(comp_dir, path)
                files.append(os.path.normpath(path))
            for entry in lp.get_entries():
                st = entry.state
                if st is None:
                    continue
                fi = st.file - base
                rows.append((st.address, files[fi] if 0 <= fi < len(files) else None,
                             st.line, st.end_sequence))
        # at an address where one sequence ends and another starts, the start wins
        rows.sort(key=lambda r: (r[0], not r[3]))
        unit = _Unit(files, base, [r[0] for r in rows], rows, [], [], [], [])
        self._walk(top, cu, unit, None)
        unit.funcs.sort(key=lambda f: f[0])
        unit.func_lo = [f[0] for f in unit.funcs]
        return unit

    def _walk(self, die, cu, unit: _Unit, parent: _Node | None) -> None:
        for child in die.iter_children():
            tag = child.tag
            if tag == "DW_TAG_subprogram":
                ranges = self._ranges(child, cu)
                if not ranges:
                    continue  # a declaration or an abstract instance: no code of its own
                node = _Node(_name(child), ranges,
                             decl_file=unit.file(_attr(child, "DW_AT_decl_file")),
                             decl_line=_attr(child, "DW_AT_decl_line") or 0)
                unit.functions.append(node)
                for lo, hi in ranges:
                    unit.funcs.append((lo, hi, node))
                self._walk(child, cu, unit, node)
            elif tag == "DW_TAG_inlined_subroutine" and parent is not None:
                node = _Node(_name(child), self._ranges(child, cu),
                             call_file=unit.file(_attr(child, "DW_AT_call_file")),
                             call_line=_attr(child, "DW_AT_call_line") or 0)
                parent.children.append(node)
                self._walk(child, cu, unit, node)
            elif tag == "DW_TAG_label" and parent is not None:
                low = child.attributes.get("DW_AT_low_pc")
                unit.labels.append(Label(
                    parent.name, _name(child), unit.file(_attr(child, "DW_AT_decl_file")),
                    _attr(child, "DW_AT_decl_line") or 0, low.value if low else None))
            elif tag in _DESCEND:
                self._walk(child, cu, unit, parent)

    @staticmethod
    def _line(unit: _Unit, addr: int) -> tuple[str | None, int]:
        i = bisect.bisect_right(unit.row_addrs, addr) - 1
        if i < 0:
            return None, 0
        _, file, line, end = unit.rows[i]
        return (None, 0) if end else (file, line)


def _str(attr_or_value) -> str | None:
    v = getattr(attr_or_value, "value", attr_or_value)
    if v is None:
        return None
    return v.decode(errors="replace") if isinstance(v, bytes) else str(v)


def _origin(die):
    for a in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if a in die.attributes:
            try:
                return die.get_DIE_from_attribute(a)
            except Exception:  # a reference pyelftools cannot follow (e.g. DW_FORM_ref_sig8)
                return None
    return None


def _attr(die, name: str, hops: int = 4):
    """An attribute's value, looked up through abstract origins / specifications."""
    d = die
    for _ in range(hops):
        if d is None:
            return None
        if name in d.attributes:
            return d.attributes[name].value
        d = _origin(d)
    return None


def _name(die) -> str:
    v = _attr(die, "DW_AT_name")
    return _str(v) or "?"
