"""The ways of reading a file that native/kernels/fileread measures, and how its cases
are grouped: one group per build, file size and cache state, all measured in one process
(many small files of one size form a group of their own: their variants differ).
"""

from __future__ import annotations

from cpulab.results import Case

READS = ("read-4k", "read-64k", "read-1m", "read-4m")
MAPS = ("mmap", "mmap-sequential", "mmap-populate", "mmap-hugepage")
STRATEGIES = (*READS, *MAPS, "fread")
CEILING = "memory"  # the checksum pass over a copy already in memory
VARIANTS = (*STRATEGIES, CEILING)
CACHES = ("warm", "cold")
# Many small files (native/kernels/fileread/smallfiles.c): the cost per file, not per byte.
FILE_STRATEGIES = ("files-read", "files-mmap", "files-mmap-populate", "files-fread")
FILES_READ, FILES_MAP = "files-read", "files-mmap"
# The Go strategies (gorep/bench/fileread): the same files, checksum and cache states.
GO_READS = ("go-read-4k", "go-read-64k", "go-read-1m", "go-read-4m")
GO_CEILING = "go-memory"
GO_VARIANTS = (*GO_READS, "go-bufio", "go-readall", "go-mmap", GO_CEILING)
GO_PACKAGE = "bench/fileread"
# Go against C, each Go way beside the C way it mirrors (fread: a buffered reader).
GO_PAIRS = (("go-read-64k", "read-64k"), ("go-mmap", "mmap"), ("go-bufio", "fread"))
CEILINGS = (CEILING, GO_CEILING)
# The pair S8's claim is judged on: plain mmap against read() with a 64 KiB buffer
# (ripgrep's reader buffer), chosen before measuring, not the best of each family.
SEED_READ, SEED_MAP = "read-64k", "mmap"

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30

Group = tuple[str, int, str]  # (build label, file size in bytes, cache state)


def group_of(c: Case) -> Group:
    return c.build_label, int(c.params.get("size", 0)), str(c.params.get("cache", ""))


def by_group(cases: list[Case]) -> dict[Group, dict[str, Case]]:
    """Measured cases (no error, a time) by group and variant, in size order."""
    out: dict[Group, dict[str, Case]] = {}
    for c in cases:
        if not c.error and "time" in c.metrics:
            out.setdefault(group_of(c), {})[c.variant] = c
    return dict(sorted(out.items(), key=lambda kv: (CACHES.index(kv[0][2])
                                                    if kv[0][2] in CACHES else 9,
                                                    kv[0][1], kv[0][0])))


def size_label(n: int) -> str:
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def gbps(c: Case) -> float:
    """Median throughput in GB/s (10^9 bytes/s): bytes per ns, the reciprocal of ns/byte."""
    m = c.metrics.get("throughput")
    return m.median if m else 1.0 / c.metrics["time"].median
