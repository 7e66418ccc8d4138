"""The verdicts of `fileread`: S8's claim (mmap is faster than read) with the page cache
warm and cold, its rebuttal, and read() against mmap for many small files. Pure functions
of the cases: every figure they state is a ratio of two cases measured in the same
process, with its 95% bootstrap interval.
"""

from __future__ import annotations

from cpulab.experiments.fileread.strategies import (
    CACHES,
    FILES_MAP,
    FILES_READ,
    GO_PAIRS,
    MAPS,
    READS,
    SEED_MAP,
    SEED_READ,
    by_group,
    gbps,
    size_label,
)
from cpulab.measure.stats import Ratio
from cpulab.results import Case, Verdict
from cpulab.results.ratios import format_ratio, median_ratio
from cpulab.results.tally import Tally

SEED = ("1 GB file, mean of 10 runs, MacBook 2008: Clang 3.4 open+read 1.70 s vs open+mmap "
        "0.83 s (2.05x; 0.59 vs 1.20 GB/s); GCC 4.9 2.87 vs 2.01 s (1.43x); LLVM-GCC 4.2 "
        "2.71 vs 1.85 s (1.46x)")
REBUTTAL_SEED = ("a later addendum to S8 links a rebuttal: \"mmap is faster than read\" is a "
                 "myth in general (no figures)")
UNITS = "GB = 10^9 bytes; time = ns per byte (clock)"


def winner(r: Ratio) -> str:
    """Who wins on read/mmap time: its 95% interval above 1 is mmap, below 1 read()."""
    if r.above(1):
        return "mmap faster"
    if r.below(1):
        return "read() faster"
    return "no clear winner"


def _why_unmeasured(cases: list[Case], cache: str) -> str:
    errors = sorted({c.error for c in cases if c.error and c.params.get("cache") == cache})
    if errors:
        return f"no {cache} measurement: " + "; ".join(errors[:3])
    return f"no {cache} case has both {SEED_READ} and {SEED_MAP}"


def seed_claim(cases: list[Case], cache: str, label: str) -> Verdict:
    """S8's claim on the pre-chosen pair, one ratio per build and size, tallied."""
    claim = (f"({label}) reading a file with mmap is faster than with read() (page cache "
             f"{cache}; {SEED_MAP} vs {SEED_READ}, every size and build)")
    rows, tally = [], Tally()
    for (build, size, c), by in by_group(cases).items():
        read, mapped = by.get(SEED_READ), by.get(SEED_MAP)
        if c != cache or read is None or mapped is None:
            continue
        r = median_ratio(read, mapped, "time")
        if r is None:
            continue
        tally.add(r)
        rows.append(f"{size_label(size)} {build}: {SEED_READ}/{SEED_MAP} time = "
                    f"{format_ratio(r)} ({gbps(read):.2f} vs {gbps(mapped):.2f} GB/s)")
    if not rows:
        return Verdict(claim, "unmeasurable", _why_unmeasured(cases, cache), SEED)
    head = (f"mmap faster (95% interval above 1) in {tally.above} of {tally.n}, read() "
            f"faster in {tally.below} ({UNITS}): ")
    return Verdict(claim, tally.majority(), head + "; ".join(rows), SEED)


def _fastest(by: dict[str, Case], family: tuple[str, ...]) -> Case | None:
    found = [by[v] for v in family if v in by]
    return max(found, key=gbps) if found else None


def rebuttal(cases: list[Case]) -> Verdict:
    """Where each family wins: the fastest read() buffer against the fastest mmap flavour
    of each build, size and cache state."""
    claim = ("(c) the rebuttal: mmap is not faster than read() in general; for some file "
             "sizes or cache states read() with a suitable buffer is as fast or faster")
    rows, tally = [], Tally()
    for (build, size, cache), by in by_group(cases).items():
        read, mapped = _fastest(by, READS), _fastest(by, MAPS)
        if read is None or mapped is None:
            continue
        r = median_ratio(read, mapped, "time")
        if r is None:
            continue
        tally.add(r)
        rows.append(f"{size_label(size)} {cache} {build}: {winner(r)}, fastest {read.variant} "
                    f"{gbps(read):.2f} vs {mapped.variant} {gbps(mapped):.2f} GB/s, "
                    f"read/mmap time = {format_ratio(r)}")
    if not rows:
        return Verdict(claim, "unmeasurable", "no group has both a read() and an mmap case",
                       REBUTTAL_SEED)
    # The rebuttal stands if read() wins anywhere, and falls if mmap wins everywhere.
    kind = ("confirmed" if tally.below else "refuted" if tally.above == tally.n
            else "inconclusive")
    head = (f"the fastest of each family per build, size and cache state ({UNITS}); mmap "
            f"faster in {tally.above} of {tally.n}, read() faster in {tally.below}: ")
    return Verdict(claim, kind, head + "; ".join(rows), REBUTTAL_SEED)


SMALL_SEED = ("the issue's expectation for thousands of 4-64 KiB files: mmap's setup cost "
              "dominates (no figures in S8, which read one 1 GB file)")


def small_files(cases: list[Case]) -> Verdict:
    """Judged warm, one ratio per build and file size: there a file costs its system calls
    and page-table work. Cold passes wait on the disk for every file and are shown beside,
    not counted."""
    claim = ("(d) for many small files, read() beats mmap (mmap's setup and teardown cost "
             f"dominates; {FILES_MAP} vs {FILES_READ}, page cache warm, every size and build)")
    rows, cold, tally = [], [], Tally()
    for (build, size, cache), by in by_group(cases).items():
        read, mapped = by.get(FILES_READ), by.get(FILES_MAP)
        r = median_ratio(mapped, read, "time") if read and mapped else None
        if r is None:
            continue
        files = int(read.params.get("files", 0))
        row = (f"{files:,} x {size_label(size)} {build}: {FILES_MAP}/{FILES_READ} time = "
               f"{format_ratio(r)} ({read.value('time') / 1000:.2f} vs "
               f"{mapped.value('time') / 1000:.2f} us/file, {gbps(read):.2f} vs "
               f"{gbps(mapped):.2f} GB/s, {_faults(read)} vs {_faults(mapped)} faults/file)")
        if cache == "warm":
            tally.add(r)
            rows.append(row)
        else:
            cold.append(row)
    if not rows:
        errors = sorted({c.error for c in cases if c.error and c.variant in (FILES_READ,
                                                                              FILES_MAP)})
        why = "; ".join(errors[:3]) or f"no warm group has both {FILES_READ} and {FILES_MAP}"
        return Verdict(claim, "unmeasurable", why, SMALL_SEED)
    head = (f"read() faster (95% interval of mmap/read time above 1) in {tally.above} of "
            f"{tally.n}, mmap faster in {tally.below} (time = ns per file, clock; faults: "
            "sw): ")
    tail = f". Cold, not counted (a disk round trip per file): {'; '.join(cold)}" if cold else ""
    return Verdict(claim, tally.majority(), head + "; ".join(rows) + tail, SMALL_SEED)


def _faults(c: Case) -> str:
    v = c.value("page-faults")
    return "?" if v is None else f"{v:.2f}"


GO_SEED = ("1 GB file, MacBook 2008: Go 1.1.1 open+read 2.41 s vs Clang 3.4 1.70 s (1.42x), "
           "mmap 1.49 vs 0.83 s (1.80x), bufio 2.38 s vs fread 1.69 s (1.41x); GCC 4.9 "
           "2.87 / 2.01 / 2.86 s")


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


def go_slower(cases: list[Case]) -> Verdict:
    """S8's Go row: Go took 1.4-1.8x Clang's time for the same way of reading."""
    claim = ("(e) Go is slower than C at reading a file the same way (read() 64 KiB, mmap, "
             "buffered), against the fastest C build, every size and cache state")
    pairs = go_against_c(cases)
    if not pairs:
        errors = sorted({c.error for c in cases if c.error and c.variant.startswith("go-")})
        return Verdict(claim, "unmeasurable", "; ".join(errors[:3]) or
                       "no size and cache state has both a Go and a C case", GO_SEED)
    tally = Tally.of(r for *_, r in pairs)
    rows = [f"{size_label(size)} {cache} {go.variant}/{c.variant} ({c.build_label}) time = "
            f"{format_ratio(r)} ({gbps(go):.2f} vs {gbps(c):.2f} GB/s)"
            for size, cache, go, c, r in pairs]
    head = (f"Go slower (95% interval of Go/C time above 1) in {tally.above} of {tally.n}, "
            f"faster in {tally.below} ({UNITS}): ")
    return Verdict(claim, tally.majority(), head + "; ".join(rows), GO_SEED)


def all_verdicts(cases: list[Case]) -> list[Verdict]:
    return [seed_claim(cases, "warm", "a"), seed_claim(cases, "cold", "b"), rebuttal(cases),
            small_files(cases), go_slower(cases)]
