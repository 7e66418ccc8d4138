"""The claims of `fileread`, in the lab's one vocabulary (`claims.ClaimSpec`) and judged
by its one judge: S8's claim (mmap is faster than read) with the page cache warm and
cold, its rebuttal, read() against mmap for many small files, and Go against C. Every
figure is a ratio of cases measured in the same processes (rounds), with its 95%
interval; time is ns per byte (ns per file for many small files), clock.
"""

from __future__ import annotations

from cpulab.claims import ClaimSpec
from cpulab.experiments.fileread.strategies import (
    FILES_MAP,
    FILES_READ,
    GO_PAIRS,
    MAPS,
    READS,
    SEED_MAP,
    SEED_READ,
)

SEED = ("1 GB file, mean of 10 runs, MacBook 2008: Clang 3.4 open+read 1.70 s vs open+mmap "
        "0.83 s (2.05x; 0.59 vs 1.20 GB/s); GCC 4.9 2.87 vs 2.01 s (1.43x); LLVM-GCC 4.2 "
        "2.71 vs 1.85 s (1.46x)")
REBUTTAL_SEED = ("a later addendum to S8 links a rebuttal: \"mmap is faster than read\" is a "
                 "myth in general (no figures)")
SMALL_SEED = ("the issue's expectation for thousands of 4-64 KiB files: mmap's setup cost "
              "dominates (no figures in S8, which read one 1 GB file)")
GO_SEED = ("1 GB file, MacBook 2008: Go 1.1.1 open+read 2.41 s vs Clang 3.4 1.70 s (1.42x), "
           "mmap 1.49 vs 0.83 s (1.80x), bufio 2.38 s vs fread 1.69 s (1.41x); GCC 4.9 "
           "2.87 / 2.01 / 2.86 s")
# How each Go way is named in its claim (GO_PAIRS: the C way it mirrors).
GO_WAYS = {"go-read-64k": "read() 64 KiB", "go-mmap": "mmap",
           "go-bufio": "buffered: bufio against fread"}


def _seed_claim(cache: str, label: str) -> ClaimSpec:
    """S8's claim on the pair chosen before measuring, one ratio per build and size."""
    return ClaimSpec(
        "faster", SEED_MAP, than=SEED_READ, metric="time", builds="most",
        where={"cache": (cache,)}, seed=SEED,
        text=f"({label}) reading a file with mmap is faster than with read() (page cache "
             f"{cache}; {SEED_MAP} vs {SEED_READ}, in most sizes and builds)")


def _go_claim(go_way: str, c_way: str) -> ClaimSpec:
    """S8's Go row: Go took 1.4-1.8x Clang's time for the same way of reading. Go is a
    build of its own, measured in the C builds' processes (interleaved), so the fastest
    C build of the mirrored way is compared across builds."""
    return ClaimSpec(
        "faster", c_way, than=go_way, metric="time", builds="most", fastest_build=True,
        seed=GO_SEED,
        text=f"(e) Go is slower than C at reading a file the same way ({GO_WAYS[go_way]}), "
             "against the fastest C build, in most sizes and cache states")


CLAIMS = (
    _seed_claim("warm", "a"),
    _seed_claim("cold", "b"),
    # Stands if read() with some buffer wins somewhere, falls if mmap wins everywhere.
    ClaimSpec(
        "faster", READS[0], family=READS[1:], than=MAPS, metric="time", builds="some",
        seed=REBUTTAL_SEED,
        text="(c) the rebuttal: mmap is not faster than read() in general; for some file "
             "sizes or cache states read() with a suitable buffer is as fast or faster"),
    # Judged warm: there a file costs its system calls and page-table work; cold passes
    # wait on the disk for every file.
    ClaimSpec(
        "faster", FILES_READ, than=FILES_MAP, metric="time", builds="most",
        where={"cache": ("warm",)}, seed=SMALL_SEED,
        text="(d) for many small files, read() beats mmap (mmap's setup and teardown cost "
             f"dominates; {FILES_MAP} vs {FILES_READ}, page cache warm, in most sizes and "
             "builds)"),
    *(_go_claim(go, c) for go, c in GO_PAIRS),
)
