"""Experiment `pagefault` (seed row S12): what a minor page fault costs, and how much of it
is the trap rather than the kernel's page-table work.

native/kernels/pagefault has one case per kind of fault, each a loop that does nothing
but touch one page per iteration of memory that setup left unmapped: anonymous first
write, the shared zero page (the seed's contrived case) and its copy-on-write, a
page-cache file page, a 2 MiB transparent huge page (per 4 KiB), and the same work done
without a trap per page (`MAP_POPULATE`, `MADV_POPULATE_WRITE`/`_READ`). For scale: the
loop over mapped pages alone, a null system call, and `memset` of a 4 KiB page (what the
kernel's `clear_page` does). Each case runs in its own process (a refused huge page fails
its case only), interleaved with the others; figures are ns (clock) and TSC ticks (tsc)
per page, PMU cycles where counted, and page faults per page (sw): ~1 where a fault is
taken, ~0 where the memory was pre-faulted.

Without a PMU that can split user and kernel cycles, the trap's share of a fault is
estimated as (fault - populate) / fault: both do the same page-table work, only the fault
enters and leaves the kernel once per page. A share is a result only inside [0, 1]: one
outside it (a run saw populate-read at 8,897 ns/page of wall time but 1,301 ns of CPU
time, a share of -577%) measured the time a process spent off-CPU, not the trap, and the
verdict says so with each case's wall and CPU time instead of printing it.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.build import Target
from cpulab.claims import CYCLES, ClaimSpec
from cpulab.claims.share import is_share, off_cpu, share_of, share_text
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.measure.schedule import Program
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio

DIR = KERNELS / "pagefault"
FAULTS = ("anon-write", "zero-read", "zero-cow", "file-read", "thp-write")
POPULATED = ("populate-map", "populate-write", "populate-read")
SCALE = ("mapped-write", "mapped-read", "syscall", "memset-page")
CASES = FAULTS + POPULATED + SCALE
# fault case -> the case doing its page-table work without a trap per page
POPULATE_OF = {"zero-read": "populate-read", "anon-write": "populate-write"}
# fault case -> the same loop over memory already mapped (the loop's own cost)
LOOP_OF = {"zero-read": "mapped-read", "anon-write": "mapped-write"}
THP_SYSFS = Path("/sys/kernel/mm/transparent_hugepage")
MOST = 0.5  # "the largest part": more than half


class PageFault(Experiment):
    name = "pagefault"
    seed_row = "S12"
    title = "The cost of a minor page fault, and the trap's share of it"
    summary = (
        "Linus Torvalds found a page fault to cost ~715 cycles to take plus ~330 for the "
        "iret back on Haswell, 80.7% of the CPU time of a loop faulting in the zero page. "
        "Measures ns and TSC ticks per fault for anonymous, zero-page, copy-on-write, "
        "page-cache and huge-page faults, the same work pre-faulted (MAP_POPULATE, "
        "MADV_POPULATE_*), a null syscall and a 4 KiB memset, with faults per page counted."
    )
    compilers = ("gcc",)  # the loops are a store or a load per page: the compiler is moot
    opts = ("O2",)
    table_metrics = ("time", "tsc", "cycles", "page-faults", "task-clock")
    # Shares 1 - rest/fault (`claims.share`): printed only inside 0% to 100%, else each
    # case's wall and CPU time say why not. Without a PMU that splits user and kernel
    # cycles, the trap's share is estimated against the same page-table work done
    # without a trap per page (populate); the zero-page fault decides.
    claims = (
        ClaimSpec("share", "zero-read", than=LOOP_OF["zero-read"], value=MOST,
                  metric=CYCLES,
                  text="(a) a loop that faults in the shared zero page spends most of its "
                       "time in faults",
                  seed="Haswell: ~715 + ~330 = ~1050 cycles per fault, 80.7% of the CPU "
                       "time"),
        ClaimSpec("share", "zero-read", than=POPULATE_OF["zero-read"], value=MOST,
                  metric=CYCLES,
                  text="(b) the trap itself (entering and leaving the kernel), not the "
                       "page-table work, is the largest part of a minor fault",
                  seed="Haswell: ~715 cycles to take the fault + ~330 for the iret, of "
                       "~1050"),
    )

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S12: Torvalds' page-fault test (perf profile of the exception entry and iret)",
            ["CPU", "fault taken", "iret", "in all", "share of CPU time (zero-page loop)"],
            [
                ["Haswell", "~715 cycles", "~330 cycles", "~1050 (other runs ~1150)",
                 "80.7%"],
                ["Core Duo (32-bit)", "~700 cycles", "~240 cycles", "~940", "58%"],
                ["Haswell, a real kernel build", "", "", "", "5%"],
            ],
        )]

    def target(self) -> Target:
        return Target("pagefault", (DIR / "pagefault.c",))

    def targets(self) -> dict[str, Target]:
        return {c: self.target() for c in CASES}

    def hot_symbols(self, variant: str) -> list[str]:
        return [{"anon-write": "write_pages", "zero-cow": "write_pages",
                 "thp-write": "write_pages", "mapped-write": "write_pages",
                 "populate-map": "populate_map", "populate-write": "populate_write",
                 "populate-read": "populate_read", "syscall": "null_syscall",
                 "memset-page": "memset_pages"}.get(variant, "read_pages")]

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        return Evidence([trap_estimates(cases)])

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        arts = ctx.build((self.target(), cfg) for cfg in ctx.configs)
        thp_refusal = thp_refused()
        if thp_refusal:
            ctx.note(f"thp-write not run: {thp_refusal}")
        runnable = [c for c in CASES if not (c == "thp-write" and thp_refusal)]
        built = [a for a in arts if a.ok]
        # One process per case: a kernel feature refused fails that case, not the others.
        programs = {(a.path, c): Program([str(a.path), "--case", c, *_params(c),
                                          *ctx.profile.harness_args()],
                                         variant=c, build=a.config.as_dict())
                    for a in built for c in runnable}
        outcomes = ctx.measure(list(programs.values()))

        cases: list[Case] = []
        for a in arts:
            build = a.config.as_dict()
            for c in CASES:
                if not a.ok:
                    cases.append(Case(c, build, error=f"build failed: {a.error}"))
                elif c not in runnable:
                    cases.append(Case(c, build, error=f"refused by the kernel: {thp_refusal}"))
                else:
                    p = programs[(a.path, c)]
                    cases += cases_of(p, outcomes[p.key])
        for case in cases:
            if case.error and "refused huge pages" in case.error:
                ctx.note(f"thp-write: {case.error}")
        return cases


def trap_estimates(cases: list[Case]) -> EvidenceTable:
    """Every estimate of the trap's share, 1 - populate/fault, beside the zero-page
    fault's that claim (b) judges: the anonymous write against MADV_POPULATE_WRITE and
    against MAP_POPULATE. Printed only inside 0% to 100%, as the claims are."""
    by_build: dict[str, dict[str, Case]] = {}
    for c in cases:
        if not c.error:
            by_build.setdefault(c.build_label, {})[c.variant] = c
    rows = []
    for label, by in by_build.items():
        for fault_name, pop_name in (*POPULATE_OF.items(), ("anon-write", "populate-map")):
            fault, pop = by.get(fault_name), by.get(pop_name)
            metric = cycle_metric(fault, pop) if fault and pop else "time"
            r = median_ratio(pop, fault, metric) if fault and pop else None
            slower = median_ratio(fault, pop, metric) if fault and pop else None
            if r is None or slower is None:
                continue
            value, interval = share_of(r)
            trap = (share_text(value, interval) if is_share(value, interval) else
                    f"not measurable here: {off_cpu(fault)}, {off_cpu(pop)}")
            rows.append([label, fault_name, pop_name, metric, format_ratio(slower), trap])
    return EvidenceTable("the trap's share of a fault, estimated as 1 - populate/fault "
                         "(both measured in this run; no PMU user/kernel split)",
                         ["build", "fault", "without a trap", "metric", "fault/populate",
                          "trap share"], rows)


def thp_refused(sysfs: Path = THP_SYSFS) -> str | None:
    """Why this kernel will not give transparent huge pages to a madvised mapping, or None."""
    enabled = sysfs / "enabled"
    try:
        text = enabled.read_text()
    except OSError as e:
        return f"{enabled}: {e.strerror} (kernel without transparent huge pages)"
    if "[never]" in text:
        return f"{enabled} is [never]"
    return None


def _params(case: str) -> list[str]:
    if case != "thp-write":
        return []
    try:
        return ["--param", f"huge={int((THP_SYSFS / 'hpage_pmd_size').read_text())}"]
    except (OSError, ValueError):
        return []  # the kernel's default, 2 MiB on x86-64


EXPERIMENT = PageFault()
