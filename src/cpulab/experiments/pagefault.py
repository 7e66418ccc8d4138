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

import math
from dataclasses import dataclass
from pathlib import Path

from cpulab.build import Artifact, Target
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.measure.schedule import Program
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, SeedTable, Verdict
from cpulab.results.conditions import OFF_CPU_SHARE
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

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        arts = ctx.build((self.target(), cfg) for cfg in ctx.configs)
        thp_refusal = thp_refused()
        if thp_refusal:
            ctx.note(f"thp-write not run: {thp_refusal}")
        runnable = [c for c in CASES if not (c == "thp-write" and thp_refusal)]
        built = [a for a in arts if a.ok]
        # One process per case: a kernel feature refused fails that case, not the others.
        programs = [Program([str(a.path), "--case", c, *_params(c),
                                         *ctx.profile.harness_args()], key=_key(c, a))
                    for a in built for c in runnable]
        outcomes = ctx.measure(programs)

        cases: list[Case] = []
        for a in arts:
            build = a.config.as_dict()
            for c in CASES:
                if not a.ok:
                    cases.append(Case(c, build, error=f"build failed: {a.error}"))
                elif c not in runnable:
                    cases.append(Case(c, build, error=f"refused by the kernel: {thp_refusal}"))
                else:
                    cases += cases_from_outcome(outcomes[_key(c, a)], lambda n: n, build, {},
                                                [c])
        for case in cases:
            if case.error and "refused huge pages" in case.error:
                ctx.note(f"thp-write: {case.error}")
        return cases

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [_faults_dominate_loop(ok), _trap_is_largest_part(ok)]


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


def _key(case: str, a: Artifact) -> str:
    return f"{case}|{a.config.label}"


def _by_build(cases: list[Case]) -> dict[str, dict[str, Case]]:
    out: dict[str, dict[str, Case]] = {}
    for c in cases:
        out.setdefault(c.build_label, {})[c.variant] = c
    return out


@dataclass(frozen=True)
class Share:
    """1 - rest/fault: the share of the fault case's time that `rest` does not account
    for, with its 95% interval (None: the ratio had no usable interval)."""

    value: float
    interval: tuple[float, float] | None

    @property
    def measurable(self) -> bool:
        """Within [0, 1], value and interval: outside it, `rest` took longer than the
        fault case itself, and the figure is not a share of anything."""
        low, high = self.interval or (self.value, self.value)
        return 0 <= min(low, self.value) and max(high, self.value) <= 1

    def above(self, threshold: float) -> bool:
        return self.interval is not None and self.interval[0] > threshold

    def below(self, threshold: float) -> bool:
        return self.interval is not None and self.interval[1] < threshold

    def __str__(self) -> str:
        if self.interval is None:
            return f"{self.value:.1%} (no interval)"
        low, high = self.interval
        return f"{self.value:.1%}" if low == high else f"{self.value:.1%} [{low:.1%}, {high:.1%}]"


def _share(fault: Case, rest: Case, metric: str) -> Share | None:
    r = median_ratio(rest, fault, metric)
    if r is None:
        return None
    # A ratio without a usable interval has an infinite bound: the share then has none.
    usable = math.isfinite(r.low) and math.isfinite(r.high)
    return Share(1 - r.value, (1 - r.high, 1 - r.low) if usable else None)


def _not_measurable(what: str, s: Share, fault: Case, rest: Case) -> str:
    """Why a share outside [0, 1] is no result, without printing it: each case's wall
    time against its CPU time where the harness counted it (task-clock), else its
    processes' off-CPU share."""
    why = (f"{rest.variant} took longer per page than {fault.variant}" if s.value < 0 else
           "its interval reaches outside 0% to 100%")
    return (f"{what} not measurable here ({why}); off-CPU time: {_wall_vs_cpu(fault)}, "
            f"{_wall_vs_cpu(rest)}")


def _wall_vs_cpu(c: Case) -> str:
    wall, cpu = c.metrics.get("time"), c.metrics.get("task-clock")
    if wall is not None and cpu is not None and cpu.median > 0:
        off = " (off-CPU)" if 1 - cpu.median / wall.median > OFF_CPU_SHARE else ""
        return (f"{c.variant} wall {wall.median:,.0f} vs CPU {cpu.median:,.0f} "
                f"{wall.unit}{off}")
    k = c.conditions
    if k is not None and k.off_cpu_share is not None:
        return f"{c.variant}'s processes {max(k.off_cpu_share, 0):.0%} off-CPU"
    return f"{c.variant} without a CPU time (task-clock n/a)"


def _per_fault(c: Case) -> str:
    parts = [f"{c.value(m):,.0f} {c.metrics[m].unit} ({c.metrics[m].source})"
             for m in ("tsc", "cycles", "time") if m in c.metrics]
    return ", ".join(parts)


def _kind(shares: list[Share]) -> str:
    """Judged by measurable shares only; without one, nothing is decided."""
    shares = [s for s in shares if s.measurable]
    if any(s.above(MOST) for s in shares):
        return "confirmed"
    if shares and all(s.below(MOST) for s in shares):
        return "refuted"
    return "inconclusive"


def _faults_dominate_loop(cases: list[Case]) -> Verdict:
    claim = "(a) a loop that faults in the shared zero page spends most of its time in faults"
    seed = "Haswell: ~715 + ~330 = ~1050 cycles per fault, 80.7% of the CPU time"
    rows, shares = [], []
    for label, by in _by_build(cases).items():
        fault, loop = by.get("zero-read"), by.get(LOOP_OF["zero-read"])
        if fault is None or loop is None:
            continue
        metric = cycle_metric(fault, loop)
        s = _share(fault, loop, metric)
        if s is None:
            continue
        shares.append(s)
        in_faults = (f"time in faults {s} (1 - mapped-read/zero-read {metric})"
                     if s.measurable else _not_measurable("time in faults", s, fault, loop))
        rows.append(f"{label}: zero-read {_per_fault(fault)} per fault, "
                    f"{fault.value('page-faults') or 0:.3f} faults/page (sw); {in_faults}")
    if not rows:
        return Verdict(claim, "unmeasurable", "zero-read or mapped-read has no measurement",
                       seed)
    return Verdict(claim, _kind(shares), "; ".join(rows), seed)


def _pmu_split_reason(cases: list[Case]) -> str:
    for c in cases:
        if "cycles" in c.unavailable:
            return f"no PMU cycles ({c.unavailable['cycles'].get('reason', 'unavailable')})"
    return "the harness counts PMU cycles user and kernel together"


def _trap_is_largest_part(cases: list[Case]) -> Verdict:
    claim = ("(b) the trap itself (entering and leaving the kernel), not the page-table work, "
             "is the largest part of a minor fault")
    seed = "Haswell: ~715 cycles to take the fault + ~330 for the iret, of ~1050"
    rows, decisive = [], []
    for label, by in _by_build(cases).items():
        for fault_name, pop_name in (*POPULATE_OF.items(), ("anon-write", "populate-map")):
            fault, pop = by.get(fault_name), by.get(pop_name)
            if fault is None or pop is None:
                continue
            metric = cycle_metric(fault, pop)
            ratio = median_ratio(fault, pop, metric)
            s = _share(fault, pop, metric)
            if ratio is None or s is None:
                continue
            if fault_name == "zero-read":
                decisive.append(s)
            trap = (f"trap share {s}" if s.measurable
                    else _not_measurable("trap share", s, fault, pop))
            rows.append(f"{label}: {fault_name} vs {pop_name}: fault/populate {metric} = "
                        f"{format_ratio(ratio)}, {trap}")
        sys_call = by.get("syscall")
        if sys_call is not None and "tsc" in sys_call.metrics:
            rows.append(f"{label}: a null syscall takes {_per_fault(sys_call)}")
    head = (f"estimate, (fault - populate) / fault, both measured in this run (PMU user/kernel "
            f"split not used: {_pmu_split_reason(cases)}); the zero-page fault decides")
    if not decisive:
        return Verdict(claim, "unmeasurable", head + ": zero-read or populate-read has no "
                       "measurement" + "".join("; " + r for r in rows),
                       seed)
    return Verdict(claim, _kind(decisive), head + ": " + "; ".join(rows), seed)


EXPERIMENT = PageFault()
