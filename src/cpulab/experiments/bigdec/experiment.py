"""Experiment `bigdec` (seed row S5): big integer to decimal, from the seed's two-`div`
digit loop to a subquadratic library.

First the seed's own case: a 1000-bit number converted with CRuby r54102's scheme
(hardware division by 10^19, then the digit loop with two `div` per digit) and with its
fix (one `div`), beside native/lib/bigdec and GMP's mpz_get_str, all four in one program
(native/kernels/bigdec/bigdec_bench.c) for gcc and clang; `cpulab asm` counts the
divisions of each loop. Then a size sweep from 64 bits to 10^6 digits of bigdec and GMP
(one program per build and size) and of CPython's str(int) with its digit limit lifted
(a Python child process timed with perf_counter_ns: cpython.py), and GMP again on each
GMP build for this CPU present (gmp.py: the same binary on that build's libgmp, case
gmp@LABEL; verdicts take the fastest GMP), all programs interleaved, and the growth
exponent of each fitted on log axes. bigdec is swept warm
(its powers of ten cached by earlier calls) and cold (`bigdec_cold`: the cache released
before every call, as in a process's first conversion); GMP keeps no cache, so it is
cold every call. Per case: ns and TSC ticks per conversion (clock, tsc; CPython: clock
only) and the `div` instructions of the hot code (asm).
"""

from __future__ import annotations

import math
import sys

from cpulab.asm import disassemble, find_functions
from cpulab.asm.disasm import DisasmError, Function
from cpulab.build import Artifact, Target, library
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.experiments.bigdec.gmp import GMP, gmp_libdirs
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.measure.stats import loglog_slope
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, PlotSpec, SeedTable, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio

SEED_BITS = 1000
SEED_CASES = ("seed_twodiv", "seed_fused", "bigdec", "gmp")
# 64 bits to 10^6 digits (every 3,321,928-bit number has exactly 10^6 digits);
# the quick profile stops at 262,144 bits (78,914 digits).
SWEEP_BITS = (64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 3321928)
QUICK_MAX_BITS = 262144
# CPython 3.11's str(int) is quadratic: ~1 s at 1,048,576 bits and ~10 s at 10^6 digits
# on this project's machines; the sweep stops it earlier. No claim rests on CPython (it
# is shown beside, with its fitted growth: three sizes from FIT_FROM_BITS suffice), so
# its 1,048,576 bits, 45 s of the default profile's 6 rounds on 2 cores, are the full
# profile's; bigdec and GMP reach 10^6 digits in every profile but quick.
CPYTHON_MAX_BITS = {"quick": 262144, "default": 262144, "full": 1048576}
FIT_FROM_BITS = 16384  # the growth exponent is fitted where the size dominates the cost
SMALL_BITS = 4096  # "up to 4096 bits": the 1.3x target
SMALL_TARGET = 1.3
LARGE_DIGITS = 1_000_000
LARGE_TARGET = 2.0
CLEARLY_SUBQUADRATIC = 1.9  # "clearly below 2": the exponent + 2 standard errors
SEED_BEFORE_S, SEED_AFTER_S = 8.686, 6.392
SWEEP_CASES = ("bigdec", "bigdec_cold", "gmp")
# bigdec's two states, each judged against GMP at every size of the sweep
STATES = {"warm": "bigdec", "cold": "bigdec_cold"}
DIR = KERNELS / "bigdec"
LIB = library("bigdec")
_DIVS = "divs/digit"

# The code that writes the digits: the seed's loops are kept from unrolling, so their
# static count is the count per digit; bigdec's is its basecase and chunk writers.
DIGIT_CODE = {"seed_twodiv": ["big2str_twodiv_loop"], "seed_fused": ["big2str_fused_loop"],
              "bigdec": ["bigdec__basecase", "bigdec__chunk_fixed", "bigdec__chunk_var"]}


def digits_max(bits: int) -> int:
    """The most decimal digits of a `bits`-bit number, floor(bits log10 2) + 1; the swept
    numbers have their top bit set, so this is their count or one more."""
    return math.floor(bits * math.log10(2)) + 1


class Bigdec(Experiment):
    name = "bigdec"
    seed_row = "S5"
    title = "Big integer to decimal: one `div` per digit or two, and subquadratic growth"
    summary = (
        "CRuby's big2str wrote each digit with `num % base` and `num / base` around a char "
        "store that may alias the base: two `div` per digit; taking the remainder first "
        "lets one do (8.686 s -> 6.392 s for 10^6 conversions of a 1000-bit number). "
        "Measures both loops, native/lib/bigdec (no `div`, divide and conquer) and GMP on "
        "that number, then bigdec, GMP and CPython's str(int) from 64 bits to 10^6 digits "
        "with the fitted growth exponent."
    )
    compilers = ("gcc", "clang")
    opts = ("O2",)
    table_metrics = ("time", "tsc", "cycles", _DIVS)
    plots = (PlotSpec("sweep", "time per conversion against size (slope = growth exponent)",
                      x="digits", metric="time", x_label="decimal digits"),)

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S5: `n = rand(2**1000); n.to_s` (~300 digits), 1,000,000 conversions, CRuby "
            "r54102 on Ivy Bridge",
            ["big2str_2bdigits' digit loop", "div per digit", "time", "profile"],
            [["p[--j] = digitmap[num % base]; num /= base;", "2", f"{SEED_BEFORE_S} s",
              "big2str_2bdigits 64.5%, bigdivrem1 21%, big2str_karatsuba 5%"],
             ["idx = num % base; num /= base; p[--j] = digitmap[idx];", "1",
              f"{SEED_AFTER_S} s", f"{SEED_BEFORE_S / SEED_AFTER_S:.3f}x faster"]],
        )]

    def target(self) -> Target:
        return LIB.target("bigdec-bench", (DIR / "bigdec_bench.c", DIR / "big2str_seed.c"),
                          libs=("gmp",))

    def targets(self) -> dict[str, Target]:
        return dict.fromkeys(("seed_twodiv", "seed_fused", "bigdec"), self.target())

    def hot_symbols(self, variant: str) -> list[str]:
        if variant == "bigdec":
            return DIGIT_CODE["bigdec"]
        form = variant.removeprefix("seed_")
        return [f"big2str_{form}_loop", f"big2str_{form}_top"]

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        arts = ctx.build((self.target(), cfg) for cfg in ctx.configs)
        built = [a for a in arts if a.ok]
        sweep = [b for b in SWEEP_BITS if not ctx.profile.quick or b <= QUICK_MAX_BITS]
        py_max = CPYTHON_MAX_BITS[ctx.profile.name]
        if ctx.profile.quick:
            ctx.note(f"bigdec: the quick profile stops the sweep at {sweep[-1]:,} bits "
                     f"({digits_max(sweep[-1]):,} digits); the default profile reaches "
                     f"10^6 digits")
        ctx.note(f"bigdec: CPython {sys.version.split()[0]}'s str(int) is measured up to "
                 f"{py_max:,} bits ({digits_max(py_max):,} digits): it grows quadratically "
                 "and larger sizes take seconds per conversion")
        args = ctx.profile.harness_args()
        jobs: list[tuple[str, Program, dict | None, list[str]]] = []
        for a in built:
            key = f"{a.config.label}|{SEED_BITS}"
            jobs.append((key, Program([str(a.path), *args, "--param",
                                            f"bits={SEED_BITS}"], key=key),
                         a.config.as_dict(), list(SEED_CASES)))
            for bits in sweep:
                key = f"{a.config.label}|{bits}"
                cases = [arg for c in SWEEP_CASES for arg in ("--case", c)]
                jobs.append((key, Program([str(a.path), *args, "--param", f"bits={bits}",
                                                *cases], key=key),
                             a.config.as_dict(), list(SWEEP_CASES)))
        for label, libdir in gmp_libdirs(ctx).items():
            for a in built:
                for bits in sweep:
                    key = f"{a.config.label}|gmp@{label}|{bits}"
                    jobs.append((key, Program([str(a.path), *args, "--param",
                                                    f"bits={bits}", "--case", GMP],
                                              env={"LD_LIBRARY_PATH": str(libdir)}, key=key),
                                 a.config.as_dict(), [GMP]))
        for bits in (b for b in sweep if b <= py_max):
            key = f"cpython|{bits}"
            jobs.append((key, Program([sys.executable, "-m",
                                            "cpulab.experiments.bigdec.cpython", "--bits",
                                            str(bits), *args], key=key), None, ["cpython"]))
        outcomes = ctx.measure([p for _, p, _, _ in jobs])

        code = {a.config.label: _div_counts(a) for a in built}
        gmp_at = {key: key.split("|")[1] for key, *_ in jobs if "|gmp@" in key}
        cases = [Case(v, a.config.as_dict(), error=f"build failed: {a.error}")
                 for a in arts if not a.ok for v in SEED_CASES]
        for key, _, build, names in jobs:
            bits = int(key.rsplit("|", 1)[1])
            params = {"bits": bits, "digits": digits_max(bits)}
            for case in cases_from_outcome(outcomes[key], lambda n: n, build, params, names):
                if key in gmp_at:
                    case.variant = gmp_at[key]
                elif build is not None:
                    _add_divs(case, code[key.rsplit("|", 1)[0]])
                cases.append(case)
        return cases

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """The fitted growth exponents, as a table (computed from the cases alone)."""
        fits = growth_fits(cases)
        if not fits:
            return Evidence()
        growth = [{"method": m, "build": b, "exponent": k, "stderr": se, "sizes": n,
                   "from_bits": lo, "to_bits": hi}
                  for (m, b), (k, se, n, lo, hi) in fits.items()]
        return Evidence([EvidenceTable(
            f"growth of the time per conversion with the size, fitted on log axes "
            f"from {FIT_FROM_BITS:,} bits (time ~ digits^k; source clock)",
            ["method", "build", "k", "std. error", "sizes (bits)"],
            [[m, b, f"{k:.3f}", f"{se:.3f}", f"{lo:,} .. {hi:,} ({n})"]
             for (m, b), (k, se, n, lo, hi) in fits.items()])], {"growth": growth})

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [_fused_beats_twodiv(ok), _faster_than_gmp_small(ok), _near_gmp_large(ok),
                _subquadratic(ok), *(_as_fast_as_gmp(ok, state) for state in STATES)]


def _div_counts(a: Artifact) -> dict[str, int] | str:
    """variant -> 64-bit divisions per digit written, or why they could not be read."""
    out = {}
    try:
        for variant, symbols in DIGIT_CODE.items():
            fns = find_functions(a.path, symbols)
            if len(fns) != len(symbols):
                return f"not all of {', '.join(symbols)} are in {a.path}"
            out[variant] = sum(wide_divs(f) for f in fns)
    except DisasmError as e:
        return str(e)
    return out


def wide_divs(fn: Function) -> int:
    """64-bit `div`/`idiv` in a function. clang guards each 64-bit division with a 32-bit
    one, taken when both operands fit 32 bits (a tuning for CPUs with a slow 64-bit
    divide): one division with two code paths, so only the 64-bit form is counted."""
    n = 0
    for insn in disassemble(fn):
        if insn.mnemonic in ("div", "idiv"):
            op = insn.op_str
            n += "qword" in op or (op.startswith("r") and not op.endswith(("d", "w", "b")))
    return n


def _add_divs(case: Case, code: dict[str, int] | str) -> None:
    if isinstance(code, str):
        case.unavailable[_DIVS] = {"source": "asm", "reason": code}
    elif case.variant in code:
        case.metrics[_DIVS] = Metric.exact(code[case.variant], "div/digit", "asm")


def _find(cases: list[Case], variant: str, label: str, bits: int) -> Case | None:
    return next((c for c in cases if c.variant == variant and c.build_label == label
                 and c.params.get("bits") == bits), None)


def _labels(cases: list[Case]) -> list[str]:
    return list(dict.fromkeys(c.build_label for c in cases if c.build))


def growth_fits(cases: list[Case]) -> dict[tuple[str, str], tuple[float, float, int, int, int]]:
    """(method, build) -> (exponent k of time ~ size^k, its standard error, points, first
    and last size in bits), fitted over the sweep's sizes from FIT_FROM_BITS; at least
    three sizes are needed."""
    series: dict[tuple[str, str], dict[int, float]] = {}
    for c in cases:
        bits, t = c.params.get("bits"), c.value("time")
        if (c.variant in (*SWEEP_CASES, "cpython") or c.variant.startswith(f"{GMP}@")) \
                and bits and bits >= FIT_FROM_BITS \
                and t and bits != SEED_BITS:
            series.setdefault((c.variant, c.build_label), {})[bits] = t
    out = {}
    for key, pts in series.items():
        if len(pts) >= 3:
            sizes = sorted(pts)
            k, se = loglog_slope([digits_max(b) for b in sizes], [pts[b] for b in sizes])
            out[key] = (k, se, len(sizes), sizes[0], sizes[-1])
    return out


def _fused_beats_twodiv(cases: list[Case]) -> Verdict:
    claim = ("(a) taking the remainder into a temporary before the quotient (one `div` per "
             "digit instead of two) makes converting a 1000-bit number faster")
    seed = (f"{SEED_BEFORE_S} s -> {SEED_AFTER_S} s for 10^6 conversions "
            f"({SEED_BEFORE_S / SEED_AFTER_S:.3f}x), CRuby r54102, Ivy Bridge")
    rows, judged = [], []
    for label in _labels(cases):
        two, one = (_find(cases, v, label, SEED_BITS) for v in ("seed_twodiv", "seed_fused"))
        if two is None or one is None:
            continue
        metric = cycle_metric(two, one)
        r = median_ratio(two, one, metric)
        if r is None:
            continue
        divs = (f"{int(two.value(_DIVS))} vs {int(one.value(_DIVS))} div per digit"
                if two.value(_DIVS) is not None and one.value(_DIVS) is not None
                else "div count n/a")
        judged.append("confirmed" if r.low > 1 else "refuted" if r.high < 1.02
                      else "inconclusive")
        rows.append(f"{label}: twodiv/fused {metric} = {format_ratio(r)} ({divs}; "
                    f"{two.value('time'):.0f} vs {one.value('time'):.0f} ns/conversion)")
    if not rows:
        return Verdict(claim, "unmeasurable", "no build measured both seed loops", seed)
    kind = ("confirmed" if judged.count("confirmed") > len(judged) / 2 else
            "refuted" if judged.count("refuted") > len(judged) / 2 else "inconclusive")
    return Verdict(claim, kind, "; ".join(rows), seed)


def _fastest_gmp(cases: list[Case], label: str, bits: int) -> Case | None:
    """The fastest GMP measured at this size with this build (Debian's or gmp@LABEL)."""
    gmps = [c for c in cases if (c.variant == GMP or c.variant.startswith(f"{GMP}@"))
            and c.build_label == label and c.params.get("bits") == bits and c.value("time")]
    return min(gmps, key=lambda c: c.value("time")) if gmps else None  # type: ignore


def _gmp_ratios(cases: list[Case], label: str, bits: int, variant: str = "bigdec"):
    """fastest GMP / bigdec at one size and build (> 1: bigdec is faster)."""
    b, g = _find(cases, variant, label, bits), _fastest_gmp(cases, label, bits)
    if b is None or g is None:
        return None
    return median_ratio(g, b, cycle_metric(g, b))


def _faster_than_gmp_small(cases: list[Case]) -> Verdict:
    claim = (f"(b) bigdec converts at least {SMALL_TARGET}x faster than GMP's mpz_get_str "
             f"up to {SMALL_BITS:,} bits")
    rows, fails, open_ = [], 0, 0
    for label in _labels(cases):
        for bits in sorted({c.params.get("bits", 0) for c in cases if c.variant == "gmp"}):
            if bits > SMALL_BITS:
                continue
            r = _gmp_ratios(cases, label, bits)
            if r is None:
                continue
            fails += r.high < SMALL_TARGET
            open_ += r.low < SMALL_TARGET <= r.high
            rows.append(f"{label} {bits} bits: gmp/bigdec {format_ratio(r)}")
    if not rows:
        return Verdict(claim, "unmeasurable", "no size with both bigdec and GMP measured")
    kind = "refuted" if fails else "inconclusive" if open_ else "confirmed"
    head = (f"below {SMALL_TARGET}x (whole interval) at {fails} of {len(rows)} sizes, "
            f"undecided at {open_}")
    return Verdict(claim, kind, head + ": " + "; ".join(rows))


def _near_gmp_large(cases: list[Case]) -> Verdict:
    claim = f"(c) bigdec is within {LARGE_TARGET:.0f}x of GMP at 10^6 digits"
    sizes = sorted({c.params.get("bits", 0) for c in cases if c.variant == "bigdec"})
    if not sizes:
        return Verdict(claim, "unmeasurable", "no bigdec size was measured")
    top = sizes[-1]
    rows, fails, open_ = [], 0, 0
    for label in _labels(cases):
        r = _gmp_ratios(cases, label, top)
        if r is None:
            continue
        fails += r.high < 1 / LARGE_TARGET  # r is gmp/bigdec
        open_ += r.low < 1 / LARGE_TARGET <= r.high
        rows.append(f"{label}: bigdec/gmp = {1 / r.value:.3f}x "
                    + (f"[{1 / r.high:.3f}, {1 / r.low:.3f}]" if r.has_interval
                       else f"[no interval: {r.why}]"))
    where = f"at {top:,} bits ({digits_max(top):,} digits)"
    if not rows:
        return Verdict(claim, "unmeasurable", f"no build measured both {where}")
    if digits_max(top) < LARGE_DIGITS:
        return Verdict(claim, "unmeasurable", f"the run stopped {where} (the quick profile; "
                       "run without --quick for 10^6 digits); there: " + "; ".join(rows))
    kind = "refuted" if fails else "inconclusive" if open_ else "confirmed"
    return Verdict(claim, kind, f"{where}: " + "; ".join(rows))


def _subquadratic(cases: list[Case]) -> Verdict:
    claim = (f"(d) bigdec's cost grows subquadratically: the fitted exponent of time vs "
             f"digits is clearly below 2 (k + 2 standard errors < {CLEARLY_SUBQUADRATIC})")
    seed = "CRuby's big2str_karatsuba (5% of the seed's profile at ~300 digits)"
    fits = growth_fits(cases)
    ours = {b: f for (m, b), f in fits.items() if m == "bigdec"}
    if not ours:
        return Verdict(claim, "unmeasurable", f"fewer than three sizes from {FIT_FROM_BITS:,} "
                       "bits were measured", seed)
    judged = ["confirmed" if k + 2 * se < CLEARLY_SUBQUADRATIC
              else "refuted" if k - 2 * se >= CLEARLY_SUBQUADRATIC else "inconclusive"
              for k, se, *_ in ours.values()]
    kind = ("confirmed" if all(j == "confirmed" for j in judged)
            else "refuted" if "refuted" in judged else "inconclusive")
    text = [f"{m} {b}: k = {k:.3f} ± {se:.3f} ({lo:,} .. {hi:,} bits, {n} sizes)"
            for (m, b), (k, se, n, lo, hi) in fits.items()]
    return Verdict(claim, kind, "; ".join(text), seed)


EXPERIMENT = Bigdec()


def _as_fast_as_gmp(cases: list[Case], state: str) -> Verdict:
    """bigdec warm or cold against GMP's mpz_get_str at every swept size and build."""
    variant = STATES[state]
    letter = "e" if state == "warm" else "f"
    what = ("its powers of ten cached by an earlier call" if state == "warm" else
            "its cache released before every call, as in a first conversion")
    claim = (f"({letter}) bigdec {state} ({what}) is at least as fast as GMP's mpz_get_str "
             f"(the fastest GMP build at each size) at every size from {SWEEP_BITS[0]} bits "
             "to 10^6 digits, with every compiler")
    seed = "the seed measures no GMP; GMP is the strongest converter this machine has"
    rows, below, above, n, top = [], [], 0, 0, 0
    for label in _labels(cases):
        for bits in sorted({c.params.get("bits", 0) for c in cases if c.variant == variant}):
            r = _gmp_ratios(cases, label, bits, variant)
            if r is None:
                continue
            n, top = n + 1, max(top, bits)
            above += r.above(1.0)
            if r.below(1.0):
                below.append(f"{label} {bits:,} bits {format_ratio(r)}")
        worst = [(b, r) for b in sorted({c.params.get("bits", 0) for c in cases})
                 if (r := _gmp_ratios(cases, label, b, variant)) is not None]
        if worst:
            # ties (to rounding of the logs) go to the smallest size
            b, r = min(worst, key=lambda br: round(br[1].value, 9))
            g = _fastest_gmp(cases, label, b)
            rows.append(f"{label}: slowest against GMP at {b:,} bits, {g.variant if g else GMP}"
                        f"/{variant} {format_ratio(r)}")
    if not n:
        return Verdict(claim, "unmeasurable", f"no size with both {variant} and GMP measured",
                       seed)
    ev = (f"gmp/{variant} (> 1: bigdec faster): interval above 1 at {above} of {n} "
          f"(build, size) pairs, below 1 at {len(below)}; " + "; ".join(rows))
    if below:
        ev += "; below 1: " + ", ".join(below)
    if below:
        kind = "refuted"
    elif digits_max(top) < LARGE_DIGITS:
        return Verdict(claim, "unmeasurable", f"the run stopped at {top:,} bits (the quick "
                       "profile; run without --quick for 10^6 digits); " + ev, seed)
    else:
        kind = "confirmed" if above == n else "inconclusive"
    return Verdict(claim, kind, ev, seed)
