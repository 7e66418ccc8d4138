"""Experiment `fileread` (seed row S8, the C side): read versus mmap versus fread.

native/kernels/fileread makes whole passes over one file, checksumming every byte (a sum
of 64-bit words, the same code for every strategy): read() with 4 KiB to 4 MiB buffers,
mmap plain, with MADV_SEQUENTIAL, MAP_POPULATE and MADV_HUGEPAGE, and fread; and, as the
ceiling, the same sum over a copy already in memory. Built with gcc and clang, for files
of 1 MiB to 1 GiB (`READING`: the full profile; the default stops at 256 MiB, quick at
16 MiB) written once per size with known content (every
pass's sum is checked), with the page cache warm and evicted before every pass by
posix_fadvise(POSIX_FADV_DONTNEED), which the kernel confirms with mincore() or the cold
cases fail with the reason. All strategies of one build, size and cache state run in one
process, interleaved, in several processes (rounds).

Figures: GB/s (10^9 bytes/s) and ns per byte (clock), page faults per GiB (sw), the share
of the file an untimed pass mapped with huge pages (sw, /proc/self/smaps), and each
strategy as a fraction of the in-memory pass (evidence table). Large files get fewer
passes (`schedule`) so that the profile stays within its minutes. Then many small
files, where the cost per file decides (smallfiles.py).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from cpulab.build import Artifact, BuildConfig, BuildError, Target, go_build
from cpulab.context import Context, Profile
from cpulab.experiments.base import Experiment
from cpulab.experiments.fileread import smallfiles, testfile
from cpulab.experiments.fileread.cases import cell, program_cases
from cpulab.experiments.fileread.strategies import (
    CACHES,
    CEILING,
    CEILINGS,
    FILE_STRATEGIES,
    GO_CEILING,
    GO_PACKAGE,
    GO_PAIRS,
    GO_VARIANTS,
    VARIANTS,
    GiB,
    MiB,
    by_group,
    gbps,
    size_label,
)
from cpulab.experiments.fileread.verdicts import CLAIMS
from cpulab.measure.schedule import Program
from cpulab.measure.stats import MIN_PROCESSES, Ratio
from cpulab.paths import KERNELS, build_dir
from cpulab.results import Case, Evidence, EvidenceTable, PlotSpec, SeedTable
from cpulab.results.ratios import format_ratio, median_ratio

DIR = KERNELS / "fileread"


@dataclass(frozen=True)
class Reading:
    """What one profile reads: the file sizes, and the bytes one case may read per size
    over all its processes (warm-up and calibration passes included)."""

    sizes: tuple[int, ...]
    cold_budget: int
    warm_budget: int


# Cold passes run at disk speed, warm ones at ~15 GB/s. At 1 GiB (the seed's file) the
# cold cases alone read ~160 GiB (28 cases x 3 processes x 2 passes): the 1 GiB file
# took 80 s of the full profile's 165 s here, and the experiment once 14 minutes on a
# busier machine. The default stops at 256 MiB, still 8x this machine's 32 MiB L3 and ~100x a
# read() buffer, with a quarter of the full profile's bytes per case: 69-112 s here.
READING = {
    "quick": Reading((MiB, 16 * MiB), GiB, 4 * GiB),
    "default": Reading((MiB, 16 * MiB, 256 * MiB), GiB, 4 * GiB),
    "full": Reading((MiB, 16 * MiB, 256 * MiB, GiB), 4 * GiB, 16 * GiB),
}
DISK_MARGIN = 256 * MiB  # free space left beside the largest test file


@dataclass(frozen=True)
class Schedule:
    rounds: int  # processes, interleaved across the builds
    reps: int  # timed calls per case per process


def schedule(size: int, cache: str, profile: Profile) -> Schedule:
    """The profile's rounds and reps, fewer where a case's passes over a large file would
    read more than its budget. Each process adds one untimed pass per case (the harness's
    warm-up), and a warm case one more for calibration."""
    reading = READING[profile.name]
    budget, extra = (reading.cold_budget, 1) if cache == "cold" else (reading.warm_budget, 2)
    rounds, reps = profile.rounds, profile.reps
    while reps > 1 and rounds * (reps + extra) * size > budget:
        reps -= 1
    while rounds > MIN_PROCESSES and rounds * (reps + extra) * size > budget:
        rounds -= 1
    return Schedule(rounds, reps)


class FileRead(Experiment):
    name = "fileread"
    seed_row = "S8"
    title = "Reading a file: read() buffers, mmap flavours and fread, page cache warm and cold"
    summary = (
        "S8 read a 1 GB file on a 2008 MacBook: open+mmap took 0.83 s against 1.70 s for "
        "open+read with Clang 3.4 (~2x; ~1.4x with GCC), fread as read; a later addendum "
        "calls 'mmap is faster than read' a myth in general. Measures GB/s for read() with "
        "4 KiB to 4 MiB buffers, four mmap flavours and fread, gcc and clang, 1 MiB to "
        "1 GiB, page cache warm and evicted, with page faults per GiB and each strategy "
        "as a fraction of an in-memory checksum pass; then thousands of 4-64 KiB files, "
        "ns and page faults per file."
    )
    compilers = ("gcc", "clang", "go")
    opts = ("O2",)
    table_metrics = ("throughput", "time", "faults-per-gib", "huge-mapped", "task-clock")
    claims = CLAIMS
    plots = tuple(PlotSpec(f"{cache}", f"throughput against file size, page cache {cache}",
                           x="size", metric="throughput", x_label="bytes", log_y=False,
                           where=(("cache", cache),)) for cache in CACHES)

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S8: a 1 GB file, mean of 10 runs (Mac OS X, MacBook 2008)",
            ["compiler", "open+read", "open+mmap", "fopen+fread", "read/mmap"],
            [
                ["LLVM-GCC 4.2", "2.71 s", "1.85 s", "2.70 s", "1.46x"],
                ["GCC 4.9", "2.87 s", "2.01 s", "2.86 s", "1.43x"],
                ["Clang 3.4", "1.70 s", "0.83 s", "1.69 s", "2.05x"],
                ["Go 1.1.1 (bufio for fread)", "2.41 s", "1.49 s", "2.38 s", "1.62x"],
            ],
        )]

    def target(self) -> Target:
        return Target("fileread", (DIR / "fileread.c",))

    def targets(self) -> dict[str, Target]:
        return ({v: self.target() for v in VARIANTS}
                | {v: smallfiles.target() for v in FILE_STRATEGIES})

    def hot_symbols(self, variant: str) -> list[str]:
        return ["sum_words", "pass"]  # the passes (and per-file readers) inline into `pass`

    # ---- running ---------------------------------------------------------------------

    def variants(self) -> list[str]:
        return [*self.targets(), *GO_VARIANTS]

    def run(self, ctx: Context) -> list[Case]:
        c_configs = [c for c in ctx.configs if c.toolchain.family != "go"]
        go, cases = self._go_programs(ctx, [c for c in ctx.configs if c not in c_configs])
        arts = ctx.build((t, cfg) for t in (self.target(), smallfiles.target())
                         for cfg in c_configs)
        one = [a for a in arts if a.ok and a.target.name == "fileread"] + go
        many = [a for a in arts if a.ok and a.target.name == "smallfiles"]
        cases += [Case(v, a.config.as_dict(), error=f"build failed: {a.error}")
                  for a in arts if not a.ok
                 for v in (VARIANTS if a.target.name == "fileread" else FILE_STRATEGIES)]
        sizes = READING[ctx.profile.name].sizes
        plans = {(s, c): schedule(s, c, ctx.profile) for s in sizes for c in CACHES}
        if not one and not many:
            return cases
        with testfile.scratch_dir(build_dir() / "fileread") as scratch:
            if one:
                for size in sizes:
                    cases += self._measure_size(ctx, one, scratch, size, plans)
            if many:
                cases += smallfiles.measure(ctx, many, scratch)
        return cases

    def _go_programs(self, ctx: Context, configs: list[BuildConfig]
                     ) -> tuple[list[Artifact], list[Case]]:
        """The Go strategies' program per Go toolchain, as artifacts measured beside the C
        kernels (the same arguments), or failed cases."""
        built, failed = [], []
        for cfg in configs:
            try:
                exe = go_build(cfg, GO_PACKAGE)
            except BuildError as e:
                ctx.note(str(e).splitlines()[0])
                failed += [Case(v, cfg.as_dict(), error=f"build failed: {e}") for v in GO_VARIANTS]
                continue
            built.append(Artifact(Target("go-fileread", ()), cfg, exe, "go"))
        return built, failed

    def _measure_size(self, ctx: Context, built: list[Artifact], scratch: Path, size: int,
                      plans: dict[tuple[int, str], Schedule]) -> list[Case]:
        """Write the file of `size` bytes, measure it warm and cold, remove it."""
        path = scratch / f"{size}.bin"
        free = shutil.disk_usage(scratch).free
        if free < size + DISK_MARGIN:
            why = (f"not measured: {size_label(size)} test file, but {free / MiB:,.0f} MiB "
                   f"free in {scratch}")
            ctx.note(f"fileread {size_label(size)}: {why}")
            return [Case(v, a.config.as_dict(), {"size": size, "cache": c}, error=why)
                    for a in built for c in CACHES for v in _variants(a)]
        ctx.reporter.phase(f"writing a {size_label(size)} test file")
        try:
            total = testfile.write(path, size)
            cases = []
            for cache in CACHES:
                plan = plans[(size, cache)]
                args = ["--param", f"path={path}", "--param", f"sum={total}", "--param",
                        f"cache={cache}", "--reps", str(plan.reps), "--target-ms",
                        str(ctx.profile.target_ms)]
                programs = {a: Program([str(a.path), *args], build=a.config.as_dict(),
                                       params={"size": size, "cache": cache}) for a in built}
                outcomes = ctx.measure(list(programs.values()), rounds=plan.rounds)
                for a, p in programs.items():
                    cases += program_cases(p, outcomes[p.key], _variants(a))
        finally:
            path.unlink(missing_ok=True)
        for c in cases:
            if c.error and c.error.startswith("refused by the kernel"):
                ctx.note(f"fileread {c.variant}: {c.error}")
        return cases

    # ---- evidence (pure) -------------------------------------------------------------

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        return Evidence([ceiling_table(cases), go_table(cases), smallfiles.table(cases),
                         cache_table(cases)])


def _variants(a: Artifact) -> tuple[str, ...]:
    return GO_VARIANTS if a.config.toolchain.family == "go" else VARIANTS


# ---- evidence tables -------------------------------------------------------------------


def ceiling_table(cases: list[Case]) -> EvidenceTable:
    rows = []
    for (build, size, cache), by in by_group(cases).items():
        memory = by.get(CEILING) or by.get(GO_CEILING)
        for v in (*VARIANTS, *GO_VARIANTS):
            c = by.get(v)
            if c is None:
                continue
            r = median_ratio(memory, c, "time") if memory and c is not memory else None
            rows.append([size_label(size), cache, v, build, cell(c, "throughput"),
                         format_ratio(r) if r else "1" if c is memory else "-",
                         cell(c, "faults-per-gib", 0), cell(c, "huge-mapped", 0)])
    return EvidenceTable("Throughput of each strategy, as a fraction of the checksum pass "
                         "over a copy in memory (same process); GB = 10^9 bytes",
                         ["file", "cache", "strategy", "build", "GB/s (clock)",
                          "/ memory (clock)", "faults/GiB (sw)", "huge-mapped % (sw, smaps)"],
                         rows)


def go_against_c(cases: list[Case]) -> list[tuple[int, str, Case, Case, Ratio]]:
    """(size, cache, Go case, C case, Go/C time) for every Go way and size and cache
    state, against the fastest C build of the way it mirrors (GO_PAIRS)."""
    groups = by_group(cases)
    out = []
    for size in sorted({k[1] for k in groups}):
        for cache in CACHES:
            here = [by for (_, s, c), by in groups.items() if s == size and c == cache]
            for go_way, c_way in GO_PAIRS:
                go = next((by[go_way] for by in here if go_way in by), None)
                cs = [by[c_way] for by in here if c_way in by]
                if go is None or not cs:
                    continue
                c = max(cs, key=gbps)
                r = median_ratio(go, c, "time")
                if r is not None:
                    out.append((size, cache, go, c, r))
    return out


def go_table(cases: list[Case]) -> EvidenceTable:
    """Each Go way beside the C way it mirrors, against the fastest C build of it."""
    rows = [[size_label(size), cache, go.variant, go.build_label, cell(go, "throughput"),
             c.variant, c.build_label, cell(c, "throughput"), format_ratio(r)]
            for size, cache, go, c, r in go_against_c(cases)]
    return EvidenceTable("Go beside C: each Go way against the fastest C build of the way it "
                         "mirrors (same processes' rounds, interleaved); GB = 10^9 bytes",
                         ["file", "cache", "Go way", "Go", "GB/s (clock)", "C way", "C build",
                          "GB/s (clock)", "Go/C time (clock)"], rows)


def cache_table(cases: list[Case]) -> EvidenceTable:
    """What the cache states rest on (mincore, over every process of each build and
    size): eviction confirmed before every cold pass, residency before every warm one."""
    rows, seen = [], set()
    for c in cases:
        key = (c.build_label, c.params.get("size"), c.params.get("cache"))
        refused = (c.error or "").startswith("refused by the kernel")  # one case, not all
        if key in seen or c.variant in CEILINGS or refused:
            continue
        seen.add(key)
        if c.error:
            state = c.error
        elif c.params.get("cache") == "cold":
            state = (f"at most {cell(c, 'resident-after-eviction', 3)}% of pages resident "
                     "after eviction")
        else:
            state = (f"pages missing before {cell(c, 'rewarmed-calls', 0)} calls (at most "
                     f"{cell(c, 'missing-before-pass', 3)}%), read back untimed")
        label = size_label(int(c.params.get("size", 0)))
        if "files" in c.params:
            label = f"{int(c.params['files']):,} x {label}"
        rows.append([label, str(c.params.get("cache")), c.build_label, state])
    return EvidenceTable("The page cache before each pass (mincore, sw, every process of "
                         "each build): cold, evicted by posix_fadvise(POSIX_FADV_DONTNEED), "
                         "over 1% resident fails the run; warm, every page resident; many "
                         "small files summed over the files",
                         ["file", "cache", "build", "page cache"], rows)


EXPERIMENT = FileRead()
