"""One mapped ELF file: its load segments, its kind, and where its DWARF lives.

perf gives a sample as (file, offset in the file); DWARF speaks of link-time virtual
addresses. The PT_LOAD segment that holds the offset converts one into the other:
`vaddr = offset - p_offset + p_vaddr`. The same formula serves a non-PIE executable
(linked at 0x400000, loaded there), a PIE executable and a shared library (linked at
0, loaded anywhere), so no load bias is ever guessed.

Debug information is read from the file itself, else from a separate debug file as
Debian's -dbgsym packages install them: /usr/lib/debug/.build-id/xx/yyyy.debug, or the
name in .gnu_debuglink next to the file or under /usr/lib/debug.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from cpulab.opprof.errors import OpprofError

DEBUG_ROOT = Path("/usr/lib/debug")


@dataclass(frozen=True)
class Segment:
    offset: int
    filesz: int
    vaddr: int


def _has_dwarf(elf: ELFFile) -> bool:
    names = {s.name for s in elf.iter_sections()}
    return (".debug_info" in names or ".zdebug_info" in names) and (
        ".debug_line" in names or ".zdebug_line" in names)


def _build_id(elf: ELFFile) -> str | None:
    for sec in elf.iter_sections():
        if sec.header.sh_type != "SHT_NOTE":
            continue
        for note in sec.iter_notes():
            if note["n_type"] == "NT_GNU_BUILD_ID":
                return note["n_desc"]
    return None


def _debuglink(elf: ELFFile) -> str | None:
    sec = elf.get_section_by_name(".gnu_debuglink")
    if sec is None:
        return None
    return sec.data().split(b"\0", 1)[0].decode(errors="replace") or None


class Binary:
    """An ELF file opened for address translation and (if any) its DWARF."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._file = open(self.path, "rb")  # noqa: SIM115 - held for pyelftools
            self.elf = ELFFile(self._file)
        except (OSError, ELFError) as e:
            raise OpprofError(f"cannot read {self.path} as ELF: {e}") from e
        self.segments = [
            Segment(s["p_offset"], s["p_filesz"], s["p_vaddr"])
            for s in self.elf.iter_segments() if s["p_type"] == "PT_LOAD"
        ]
        interp = any(s["p_type"] == "PT_INTERP" for s in self.elf.iter_segments())
        etype = self.elf["e_type"]
        self.kind = "exec" if etype == "ET_EXEC" else ("pie" if interp else "shared")
        self.debug_path, self.debug_elf = self._find_debug()

    @property
    def build_id(self) -> str | None:
        return _build_id(self.elf)

    @property
    def has_debug_info(self) -> bool:
        return self.debug_elf is not None

    def vaddr(self, offset: int) -> int | None:
        """The link-time address of a file offset, None if no PT_LOAD segment holds it."""
        for s in self.segments:
            if s.offset <= offset < s.offset + s.filesz:
                return offset - s.offset + s.vaddr
        return None

    def read(self, vaddr: int, size: int) -> bytes | None:
        """`size` bytes of the file's image at link-time address `vaddr` (code for the
        disassembler; a separate debug file has none, so this reads the file itself)."""
        for s in self.segments:
            if s.vaddr <= vaddr and vaddr + size <= s.vaddr + s.filesz:
                self._file.seek(s.offset + vaddr - s.vaddr)
                return self._file.read(size)
        return None

    def function_at(self, vaddr: int) -> str | None:
        """The ELF symbol (.symtab, else .dynsym) of the function holding `vaddr`: a
        stripped binary keeps its exported functions, which perf does not always name."""
        if not hasattr(self, "_functions"):
            funcs = []
            for name in (".symtab", ".dynsym"):
                sec = self.elf.get_section_by_name(name)
                if sec is None:
                    continue
                funcs = sorted((sym["st_value"], sym["st_size"], sym.name)
                               for sym in sec.iter_symbols()
                               if sym["st_info"]["type"] == "STT_FUNC" and sym["st_value"])
                if funcs:
                    break
            self._functions = funcs
        i = bisect.bisect_right(self._functions, (vaddr, 1 << 64, "")) - 1
        if i < 0:
            return None
        start, size, name = self._functions[i]
        # an exported function's size covers its body; cold parts split off elsewhere
        return name if vaddr < start + max(size, 1) else None

    @property
    def machine(self) -> str:
        return self.elf["e_machine"]

    def _find_debug(self) -> tuple[Path | None, ELFFile | None]:
        if _has_dwarf(self.elf):
            return self.path, self.elf
        candidates: list[Path] = []
        if bid := _build_id(self.elf):
            candidates.append(DEBUG_ROOT / ".build-id" / bid[:2] / f"{bid[2:]}.debug")
        if link := _debuglink(self.elf):
            d = self.path.resolve().parent
            candidates += [d / link, d / ".debug" / link,
                           DEBUG_ROOT / os.path.relpath(d, "/") / link]
        for c in candidates:
            if c.is_file():
                try:
                    f = open(c, "rb")  # noqa: SIM115
                    elf = ELFFile(f)
                except (OSError, ELFError):
                    continue
                if _has_dwarf(elf):
                    self._debug_file = f
                    return c, elf
                f.close()
        return None, None

    def close(self) -> None:
        self._file.close()
        if getattr(self, "_debug_file", None):
            self._debug_file.close()
