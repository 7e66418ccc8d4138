"""Many small files (issue: "thousands of 4-64 KiB files, where mmap's setup cost
dominates"): native/kernels/fileread/smallfiles.c reads a folder of files whole, per
file open+read+close against open+mmap+munmap+close (plain and MAP_POPULATE) and
fopen+fread+fclose, every byte checksummed and every pass's total checked.

One folder per file size (4, 16 and 64 KiB; 4,000 files, quick 400), written with known
content in the run's scratch folder and removed after. Warm, the kernel reads every
file; cold, it reads the first eighth of them (each cold file costs a disk round trip,
~60-140 us here, so 500 are enough), each evicted by posix_fadvise and confirmed by
mincore before every pass. Figures: ns per file (clock), GB/s, page faults per file (sw).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from cpulab.build import Artifact, Target
from cpulab.context import Context, Profile
from cpulab.experiments.fileread import testfile
from cpulab.experiments.fileread.cases import cell, program_cases
from cpulab.experiments.fileread.strategies import (
    CACHES,
    FILE_STRATEGIES,
    FILES_READ,
    KiB,
    MiB,
    by_group,
    size_label,
)
from cpulab.measure.schedule import Program
from cpulab.measure.stats import MIN_PROCESSES
from cpulab.paths import KERNELS
from cpulab.results import Case, EvidenceTable
from cpulab.results.ratios import format_ratio, median_ratio

DIR = KERNELS / "fileread"
SIZES = (4 * KiB, 16 * KiB, 64 * KiB)
FILES, QUICK_FILES = 4000, 400
COLD_SHARE = 8  # cold passes read files / COLD_SHARE of the folder
DISK_MARGIN = 64 * MiB


def target() -> Target:
    return Target("smallfiles", (DIR / "smallfiles.c",))


def files_read(cache: str, profile: Profile) -> int:
    n = QUICK_FILES if profile.quick else FILES
    return n // COLD_SHARE if cache == "cold" else n


def rounds_reps(cache: str, profile: Profile) -> tuple[int, int]:
    """3 processes (the least an interval needs), cold ones with 2 reps: the default
    profile's small files then take ~60 s on 2 cores (a warm process ~2 s, a cold one
    ~1 s), the quick ~5 s."""
    if cache == "cold":
        return MIN_PROCESSES, min(profile.reps, 2)
    return MIN_PROCESSES, profile.reps


def measure(ctx: Context, built: list[Artifact], scratch: Path) -> list[Case]:
    cases: list[Case] = []
    for size in SIZES:
        cases += _measure_size(ctx, built, scratch, size)
    return cases


def _measure_size(ctx: Context, built: list[Artifact], scratch: Path, size: int) -> list[Case]:
    """Write the folder of `size`-byte files, measure it warm and cold, remove it."""
    folder = scratch / f"files-{size}"
    most = files_read("warm", ctx.profile)
    free = shutil.disk_usage(scratch).free
    if free < most * size + DISK_MARGIN:
        why = (f"not measured: {most:,} files of {size_label(size)}, but {free / MiB:,.0f} "
               f"MiB free in {scratch}")
        ctx.note(f"fileread small files {size_label(size)}: {why}")
        return [Case(v, a.config.as_dict(), _params(size, c, ctx.profile), error=why)
                for a in built for c in CACHES for v in FILE_STRATEGIES]
    ctx.reporter.phase(f"writing {most:,} test files of {size_label(size)}")
    try:
        testfile.write_many(folder, most, size)
        cases = []
        for cache in CACHES:
            params = _params(size, cache, ctx.profile)
            n = params["files"]
            rounds, reps = rounds_reps(cache, ctx.profile)
            # The first n files are words 0 .. n*size/8 - 1 of the one long test file.
            args = ["--param", f"dir={folder}", "--param", f"files={n}", "--param",
                    f"size={size}", "--param", f"sum={testfile.expected_sum(n * size)}",
                    "--param", f"cache={cache}", "--reps", str(reps), "--target-ms",
                    str(ctx.profile.target_ms)]
            programs = [Program([str(a.path), *args], build=a.config.as_dict(), params=params)
                        for a in built]
            outcomes = ctx.measure(programs, rounds=rounds)
            for p in programs:
                cases += program_cases(p, outcomes[p.key], FILE_STRATEGIES)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return cases


def _params(size: int, cache: str, profile: Profile) -> dict:
    return {"size": size, "files": files_read(cache, profile), "cache": cache}


# ---- evidence (pure) -------------------------------------------------------------------


def table(cases: list[Case]) -> EvidenceTable:
    rows = []
    for (build, size, cache), by in by_group(cases).items():
        read = by.get(FILES_READ)
        for v in FILE_STRATEGIES:
            c = by.get(v)
            if c is None:
                continue
            r = median_ratio(c, read, "time") if read and c is not read else None
            rows.append([f"{int(c.params.get('files', 0)):,} x {size_label(size)}", cache, v,
                         build, cell(c, "time", 0), cell(c, "throughput"),
                         format_ratio(r) if r else "1" if c is read else "-",
                         cell(c, "page-faults")])
    return EvidenceTable("Many small files read whole, per file: time against "
                         "open+read+close (same process); GB = 10^9 bytes",
                         ["files", "cache", "strategy", "build", "ns/file (clock)",
                          "GB/s (clock)", f"time / {FILES_READ} (clock)",
                          "page faults/file (sw)"],
                         rows)
