"""Parsing `perf script` text into samples that know which file and offset they hit.

perf prints, in time order, samples (`pid ip sym (dso)`) and the events that shape each
process's address space: MMAP/MMAP2 (a file mapped at [start, start+len) from file
offset pgoff), FORK (a child copies its parent's maps; a new thread shares them) and
COMM exec (a new program: the maps start empty). Replaying them in order gives, for
each sample, the mapped file and the offset in it, whatever the load address: PIE
executables, shared libraries and ASLR all reduce to `ip - start + pgoff`. The ELF
layer then turns the file offset into the link-time address that DWARF speaks of.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Sample:
    pid: int
    ip: int
    sym: str  # perf's symbol ("[unknown]" when it has none)
    dso: str  # perf's dso: a path, [kernel.kallsyms], [vdso], [unknown]
    path: str | None = None  # the mapped file, None for kernel and anonymous memory
    offset: int | None = None  # offset of ip in that file


@dataclass
class _Map:
    start: int
    end: int
    pgoff: int
    path: str


@dataclass
class AddressSpace:
    """One process's executable mappings, sorted by start address."""

    maps: list[_Map] = field(default_factory=list)

    def add(self, m: _Map) -> None:
        # a new mapping replaces whatever overlapped it (mmap MAP_FIXED semantics)
        self.maps = [x for x in self.maps if x.end <= m.start or x.start >= m.end]
        bisect.insort(self.maps, m, key=lambda x: x.start)

    def find(self, ip: int) -> _Map | None:
        i = bisect.bisect_right(self.maps, ip, key=lambda x: x.start) - 1
        if i >= 0 and self.maps[i].start <= ip < self.maps[i].end:
            return self.maps[i]
        return None

    def copy(self) -> AddressSpace:
        return AddressSpace(list(self.maps))


_MMAP = re.compile(
    r"PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)"
    r"[^\]]*\]: (\S+) (.*)$"
)
_FORK = re.compile(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)")
_EXEC = re.compile(r"PERF_RECORD_COMM exec: .*:(\d+)/\d+\s*$")
_SAMPLE = re.compile(r"^\s*(-?\d+)\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")


def parse(lines: Iterable[str]) -> list[Sample]:
    """Samples of `perf script -F pid,ip,sym,dso --show-mmap-events --show-task-events`."""
    spaces: dict[int, AddressSpace] = {}
    out: list[Sample] = []
    for line in lines:
        if "PERF_RECORD_" in line:
            if m := _MMAP.search(line):
                pid, start, length, pgoff, prot, path = m.groups()
                if "x" not in prot:  # perf records data maps only with --data
                    continue
                start_i = int(start, 16)
                spaces.setdefault(int(pid), AddressSpace()).add(
                    _Map(start_i, start_i + int(length, 16), int(pgoff, 16), path.strip()))
            elif m := _FORK.search(line):
                child, parent = int(m.group(1)), int(m.group(2))
                if child != parent:  # a thread shares its process's space (same pid)
                    spaces[child] = spaces.get(parent, AddressSpace()).copy()
            elif m := _EXEC.search(line):
                spaces[int(m.group(1))] = AddressSpace()
            continue
        m = _SAMPLE.match(line)
        if not m:
            continue
        pid, ip_s, sym, dso = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        ip = int(ip_s, 16)
        path = offset = None
        if not dso.startswith("["):
            space = spaces.get(pid)
            mp = space.find(ip) if space else None
            if mp is not None and not mp.path.startswith("["):
                path, offset = mp.path, ip - mp.start + mp.pgoff
        out.append(Sample(pid, ip, sym or "[unknown]", dso, path, offset))
    return out


_CHAIN_HEAD = re.compile(r"^\s*(-?\d+)\s*$")
_CHAIN_FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")


def parse_callchains(lines: Iterable[str]) -> list[list[tuple[str, int]]]:
    """Call chains of `perf script -F pid,ip,sym,dso` on a recording with call graphs,
    one per sample in the order parse() gives them: (file, link-time address) per frame,
    leaf first. perf prints frame addresses relative to their file's mapping, which for
    an ELF file is the address DWARF speaks of; frames perf only inferred from inlining
    (`(inlined)`) repeat an address and are dropped."""
    out: list[list[tuple[str, int]]] = []
    for line in lines:
        if _CHAIN_HEAD.match(line):
            out.append([])
        elif out and (m := _CHAIN_FRAME.match(line)):
            addr, dso = int(m.group(1), 16), m.group(3)
            if dso != "inlined" and not dso.startswith("["):
                out[-1].append((dso, addr))
    return out
