"""Experiment `mulpre` (seed row S11): fixed-size multi-precision multiplication,
z[2N] = x[N] * y[N] with 64-bit limbs, generated mulx/adox/adcx assembly against GMP and
against what compilers make of the same schoolbook loop.

For N = 1..9, in one run, ns and TSC ticks per call (clock, tsc) of: the generated asm of
native/lib/mulpre (and its squaring), its portable C and intrinsics paths built by every
compiler of the matrix, with and without `-mbmi2 -madx` (the seed's "LLVM without / with
mulx"), the checked public entry point, and GMP's `mpn_mul_n`: Debian's generic build and
the GMPs that run this CPU's own assembly where one can be had (gmp.py finds them
and notes which `mpn_mul_basecase` each one ran). The seed's instruction counts come from
this build's machine code (asm): multiplies (mulx among them), add-type, mov, xor-zero,
stack spills and reloads of every per-N function. The asm and the GMPs run in one
process, each other build in its own; ctx.measure interleaves the processes.

The strongest peer is mcl (mcl.py): the hand-written code that the seed's hand asm is.
The asm, mcl and the GMPs run in three modes, each its own process: independent inputs
(throughput, the seed's loop), and a chain through x or through y (each call's operand is
the previous product). The modes differ because mulx takes one operand in rdx: mcl loads
x[i] there, the asm y[i]. A `model` figure sets the asm's cost per call beside the
minimum of N^2 mulx and 2N^2 - 1 adds on two carry chains: N^2 cycles.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.asm import disassemble, find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.build import Artifact, BuildConfig, Target, library
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.experiments.mulpre.gmp import GMP_MUL, case_prefix, gmp_peers, usable_peers
from cpulab.experiments.mulpre.mcl import MCL, MCL_NAME, mcl_peer
from cpulab.machine.cpuinfo import parse_cpuinfo
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.measure.stats import Ratio
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, PlotSpec, SeedTable, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio
from cpulab.results.tally import Tally

DIR = KERNELS / "mulpre"
LIB = library("mulpre")
SIZES = tuple(range(1, 10))
MULX_FLAGS = ("-mbmi2", "-madx")  # the seed's "LLVM with mulx"
# Cases of the kernel this experiment measures (mulpre_bench.c's header lists them all).
LIB_CASES = ("asm", "asm_sqr", "portable", "intrin", "mulpre_mul")
COMPILED = ("portable", "intrin")  # the compiler's own code for the schoolbook loop
GMP_SQR = "gmp_sqr"
FAST_VS_GMP = 1.7  # issue target: asm >= 1.7x faster than GMP at N = 4 and 6
FAST_VS_CC = 1.3  # issue target: asm >= 1.3x faster than the best compiler build at N = 8
ECC_SIZES = (4, 6)
CC_SIZE = 8
# "mul" counts every multiply (mul, imul, mulx); "mulx" those that are mulx.
MIX = ("mul", "mulx", "add", "mov", "xor-zero", "spills", "reloads")
MIX_SIZES = (4, 8)  # the seed's listing is N = 4; N = 8 is where the compilers spill most
# The benchmark's --param mode values: the seed's loop first, then the two chains.
THROUGHPUT = "throughput"
MODES = (THROUGHPUT, "chain_x", "chain_y")
FAST_VS_MCL = 1.15  # issue target: asm >= 1.15x mcl in throughput at N = 4..8
MCL_SIZES = range(4, 9)


class Mulpre(Experiment):
    name = "mulpre"
    seed_row = "S11"
    title = "N x N-limb multiplication: generated mulx/adox/adcx asm vs GMP and compilers"
    summary = (
        "z[2N] = x[N] * y[N] for N = 1..9 (64-bit limbs): asm emitted by a Python generator "
        "(mulx, adox/adcx carry chains, the whole sum in N + 6 registers, no spills) beside "
        "the same schoolbook loop in portable C and intrinsics built by gcc and clang, and "
        "beside GMP's mpn_mul_n: Debian's generic build and GMPs that run this CPU's own "
        "assembly. ns and TSC ticks per call; the instruction mix of every per-N function."
    )
    compilers = ("gcc", "clang")
    opts = ("O2",)
    table_metrics = ("time", "tsc", "cycles", "mulx", "spills")
    plots = (PlotSpec("n", "ns per call against N (the seed's table as a figure)", x="N",
                      metric="time", x_label="N (64-bit limbs per operand)", log_x=False),)

    def seed_tables(self) -> list[SeedTable]:
        return [
            SeedTable(
                "S11: ns per call of z[2N] = x[N] * y[N] (the seed's benchmark loop)",
                ["CPU", "code", "N=3", "N=4", "N=5", "N=6", "N=7", "N=8"],
                [
                    ["Xeon 8280 2.7 GHz", "GMP", "28.59", "12.93", "18.48", "23.43", "30.91",
                     "38.42"],
                    ["Xeon 8280 2.7 GHz", "LLVM without mulx", "7.78", "10.58", "15.32",
                     "22.42", "30.57", "58.64"],
                    ["Xeon 8280 2.7 GHz", "LLVM with mulx", "6.04", "8.08", "11.88", "17.21",
                     "25.59", "50.25"],
                    ["Xeon 8280 2.7 GHz", "hand asm", "4.48", "6.19", "9.66", "12.31",
                     "17.77", "21.97"],
                    ["Apple M1", "GMP", "23.16", "12.21", "15.49", "18.39", "23.69", "36.38"],
                    ["Apple M1", "LLVM", "6.34", "5.23", "8.13", "11.60", "15.80", "20.81"],
                ],
            ),
            SeedTable(
                "S11: instructions of the N = 4 function (from the listings)",
                ["code", "mulx", "add-type", "mov", "xor", "stack spills"],
                [
                    ["LLVM", "16", "31", "36", "-", "yes (8-byte spills)"],
                    ["hand asm (generated)", "16", "31", "16", "4", "none"],
                ],
            ),
        ]

    def bench(self) -> Target:
        return LIB.target("mulpre_bench", (DIR / "mulpre_bench.c",), libs=("gmp", "dl"))

    def targets(self) -> dict[str, Target]:
        # One program holds every implementation; the variants differ in their hot code.
        return {v: self.bench() for v in ("asm", "asm_sqr", "portable", "intrin")}

    def hot_symbols(self, variant: str) -> list[str]:
        return [_symbol(variant, "*")] if variant in ("asm", "asm_sqr", *COMPILED) else []

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        # The record lists what was built: the matrix and its -mbmi2 -madx twins.
        configs = ctx.configs = _with_mulx_builds(ctx)
        arts = ctx.build((self.bench(), cfg) for cfg in configs)
        built = [a for a in arts if a.ok]
        cases = [Case(v, a.config.as_dict(), error=f"build failed: {a.error}")
                 for a in arts if not a.ok for v in COMPILED]
        if not built:
            return cases
        main = built[0]
        peers = usable_peers(ctx, main.path, gmp_peers(ctx))
        mcl = mcl_peer(ctx) if _cpu_has_mulx() else None
        programs = [_program(main, ctx, peers, main=True, mcl=mcl)]
        programs += [_program(main, ctx, peers, main=True, mcl=mcl, mode=m)
                     for m in MODES[1:] if _cpu_has_mulx()]
        programs += [_program(a, ctx, {}, main=False) for a in built[1:]]
        outcomes = ctx.measure(programs)
        for a in built:
            mixes = _mixes(a)
            if isinstance(mixes, str):
                ctx.note(f"instruction mix of {a.config.label}: {mixes}")
                mixes = {}
            expected = [f"{v}/N={n}" for v in (LIB_CASES if a is main else COMPILED)
                        for n in SIZES]
            for case in cases_from_outcome(outcomes[_key(a)], str, a.config.as_dict(),
                                           {"mode": THROUGHPUT}, expected):
                cases.append(_finish(case, mixes))
            for m in MODES[1:]:
                if a is main and _key(a, m) in outcomes:
                    cases += [_finish(c, {}) for c in cases_from_outcome(
                        outcomes[_key(a, m)], str, a.config.as_dict(), {"mode": m},
                        [f"asm/N={n}" for n in SIZES])]
        return sorted(cases, key=_order)

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """The seed's two tables redrawn from this run: ns per call by N, and the
        instruction mix of the N = 4 and N = 8 functions."""
        return Evidence([t for t in (time_table(cases), mix_table(cases), model_table(cases))
                         if t])

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [_fast_at_ecc_sizes(ok), _beats_every_gmp(ok), _beats_compilers(ok),
                _asm_in_registers(ok), _as_fast_as_mcl(ok), _faster_than_mcl(ok)]


# ---- builds and peers ----------------------------------------------------------------


def _with_mulx_builds(ctx: Context) -> list[BuildConfig]:
    """The matrix, plus each build again with -mbmi2 -madx where this CPU runs them."""
    configs = list(ctx.configs)
    if _cpu_has_mulx():
        configs += [BuildConfig(c.toolchain, c.opt, c.pgo, (*c.extra, *MULX_FLAGS))
                    for c in ctx.configs if not c.extra]
    else:
        ctx.note("this CPU lacks BMI2 or ADX: no asm, no intrinsics, no -mbmi2 builds")
    return configs


def _cpu_has_mulx() -> bool:
    try:
        flags = parse_cpuinfo(Path("/proc/cpuinfo").read_text()).get("flags", [])
    except OSError:
        return False
    return {"bmi2", "adx"} <= set(flags)


def _program(a: Artifact, ctx: Context, peers: dict[str, Path], main: bool,
             mcl: Path | None = None, mode: str = THROUGHPUT) -> Program:
    """The main build measures every case, mcl and the GMPs (in a chain: the asm and the
    peers only); the others only their C paths."""
    gmps = [GMP_MUL, *(case_prefix(p) for p in peers)]
    impls = ([*LIB_CASES, GMP_SQR] if mode == THROUGHPUT else ["asm"]) + gmps if main \
        else list(COMPILED)
    if main and mcl is not None:
        impls.append(MCL)
    argv = [str(a.path), *ctx.profile.harness_args(), "--param", f"impls={','.join(impls)}",
            "--param", f"mode={mode}"]
    if main and peers:
        argv += ["--param", "gmp_peers=" + ",".join(f"{k}:{v}" for k, v in peers.items())]
    if main and mcl is not None:
        argv += ["--param", f"mcl_peer={mcl}"]
    return Program(argv, key=_key(a, mode))


def _key(a: Artifact, mode: str = THROUGHPUT) -> str:
    return f"{a.target.name}|{a.config.label}" + ("" if mode == THROUGHPUT else f"|{mode}")


def _symbol(variant: str, n: int | str) -> str:
    """The per-N function behind a case (hidden in the library, named in .symtab)."""
    return {"asm": f"mulpre_asm_mul_{n}", "asm_sqr": f"mulpre_asm_sqr_{n}",
            "portable": f"portable_mul_{n}", "intrin": f"intrin_mul_{n}"}[variant]


def _mixes(a: Artifact) -> dict[str, dict[str, int]] | str:
    """function name -> instruction mix, for every per-N function of one build."""
    try:
        fns = find_functions(a.path, [_symbol(v, "*") for v in ("asm", "asm_sqr", *COMPILED)])
    except DisasmError as e:
        return str(e)
    return {f.name: {**instruction_mix(f),
                     "mulx": sum(i.mnemonic == "mulx" for i in disassemble(f))} for f in fns}


def _finish(case: Case, mixes: dict[str, dict[str, int]]) -> Case:
    """Variant and N from the kernel's case name ("asm/N=4"); GMP cases lose the build
    (their code is not built here); the static mix of the case's function as exact `asm`
    figures."""
    case.variant, _, size = case.variant.partition("/N=")
    case.params["N"] = int(size)
    if case.variant.startswith("gmp_") or case.variant == MCL:
        case.build = None
    elif case.variant in ("asm", "asm_sqr", *COMPILED) and not case.error \
            and _mode(case) == THROUGHPUT:  # one static mix per function, not per mode
        mix = mixes.get(_symbol(case.variant, case.params["N"]))
        if mix is not None:
            case.metrics.update({m: Metric.exact(mix[m], "instructions", "asm") for m in MIX})
    if case.variant == "asm" and not case.error and _mode(case) == THROUGHPUT:
        n = case.params["N"]
        case.metrics["model_cycles"] = Metric.exact(model_cycles(n), "cycles/call", "model")
    return case


def model_cycles(n: int) -> int:
    """The fewest core cycles an N x N product can take on a core that issues one mulx
    and, on each of two carry chains (adox: OF, adcx: CF), one add per cycle: N^2 mulx
    and N + (N-1)(2N+1) = 2N^2 - 1 adds split over the two chains, so N^2 cycles."""
    return max(n * n, -(-(2 * n * n - 1) // 2))


def _mode(c: Case) -> str:
    return c.params.get("mode", THROUGHPUT)


_ORDER = ("asm", "asm_sqr", "mulpre_mul", MCL, "intrin", "portable", GMP_MUL, GMP_SQR)


def _rank(variant: str) -> int:
    base = variant.split("@")[0]
    return _ORDER.index(base) if base in _ORDER else len(_ORDER)


def _order(c: Case) -> tuple:
    return (MODES.index(_mode(c)) if _mode(c) in MODES else len(MODES),
            c.params.get("N") or 0, _rank(c.variant), c.variant, c.build_label)


# ---- the seed's tables, from this run (pure) -------------------------------------------


def time_table(cases: list[Case]) -> EvidenceTable | None:
    """One row per implementation and build, one column per N: median ns per call."""
    rows: dict[tuple[str, str], dict[int, str]] = {}
    for c in sorted(cases, key=_order):
        cell = "failed" if c.error else f"{c.value('time'):.2f}" if "time" in c.metrics \
            else "n/a"
        code = c.variant if _mode(c) == THROUGHPUT else f"{c.variant} ({_mode(c)})"
        rows.setdefault((code, c.build_label), {})[c.params.get("N")] = cell
    if not rows:
        return None
    sizes = sorted({n for cells in rows.values() for n in cells if n is not None})
    ordered = sorted(rows.items(), key=lambda kv: (_rank(kv[0][0].split(" (")[0]), kv[0]))
    return EvidenceTable("ns per call on this machine (median; source clock), as in the "
                         "seed's table; the seed's loop (throughput), and chains through x "
                         "and y where marked",
                         ["code", "build", *(f"N={n}" for n in sizes)],
                         [[v, b, *(cells.get(n, "-") for n in sizes)]
                          for (v, b), cells in ordered])


def mix_table(cases: list[Case]) -> EvidenceTable | None:
    """The seed's instruction counts for N = 4 and N = 8, from the machine code."""
    rows = [[f"{c.variant} N={c.params['N']}", c.build_label,
             *(f"{c.value(m):.0f}" for m in MIX)]
            for c in sorted(cases, key=_order)
            if c.params.get("N") in MIX_SIZES and "mulx" in c.metrics]
    if not rows:
        return None
    return EvidenceTable("instructions of the N=4 and N=8 functions (static; source asm): "
                         "mul counts every multiply, mulx those that are mulx, add every "
                         "add-type (add, adc, adcx, adox, sub, sbb, inc, dec, neg)",
                         ["function", "build", *MIX], rows)


# ---- verdicts ------------------------------------------------------------------------


def _at(cases: list[Case], n: int, mode: str = THROUGHPUT) -> list[Case]:
    return [c for c in cases if c.params.get("N") == n and _mode(c) == mode]


def _asm(cases: list[Case], n: int, mode: str = THROUGHPUT) -> Case | None:
    return next((c for c in _at(cases, n, mode) if c.variant == "asm"), None)


def _gmps(cases: list[Case], n: int, mode: str = THROUGHPUT) -> list[Case]:
    return [c for c in _at(cases, n, mode) if c.variant.split("@")[0] == GMP_MUL]


def _peers(cases: list[Case], n: int, mode: str) -> list[Case]:
    """mcl and every GMP measured at N in one mode: the field the asm is judged in."""
    return [c for c in _at(cases, n, mode) if c.variant == MCL] + _gmps(cases, n, mode)


def _name(c: Case) -> str:
    return c.variant if c.build is None else f"{c.variant} ({c.build_label})"


def _speedup(slow: Case, asm: Case) -> Ratio | None:
    """slow/asm per call (TSC ticks where both have them): > 1 means the asm is faster."""
    return median_ratio(slow, asm, cycle_metric(slow, asm))


def _fastest(cases: list[Case], asm: Case) -> tuple[Case, Ratio] | None:
    ratios = [(c, r) for c in cases if (r := _speedup(c, asm)) is not None]
    return min(ratios, key=lambda cr: cr[1].value, default=None)


def _metric_of(cases: list[Case]) -> str:
    return cycle_metric(*cases) if cases else "time"


def _fast_at_ecc_sizes(cases: list[Case]) -> Verdict:
    claim = (f"(a) the asm is at least {FAST_VS_GMP}x faster than GMP's mpn_mul_n at N = 4 and "
             "N = 6 (the elliptic-curve sizes), against the fastest GMP measured at each N")
    seed = ("Xeon 8280: GMP / hand asm = 2.09x at N=4 (12.93 / 6.19 ns), 1.90x at N=6 "
            "(23.43 / 12.31 ns); 'hand asm 1.7-2x faster than GMP'")
    tally, rows = Tally(), []
    for n in ECC_SIZES:
        asm = _asm(cases, n)
        best = _fastest(_gmps(cases, n), asm) if asm else None
        if asm is None or best is None:
            return Verdict(claim, "unmeasurable", f"no asm and GMP cases at N={n} (the asm "
                           "needs BMI2 and ADX)", seed)
        gmp, r = best
        tally.add(r, FAST_VS_GMP)
        every = ", ".join(f"{c.variant} {format_ratio(s)}" for c in _gmps(cases, n)
                          if (s := _speedup(c, asm)) is not None)
        rows.append(f"N={n}: fastest GMP {gmp.variant} / asm "
                    f"{_metric_of([gmp, asm])} = {format_ratio(r)} (every GMP: {every})")
    head = f"needs the 95% interval at or above {FAST_VS_GMP}x at both sizes"
    return Verdict(claim, tally.every(), head + ". " + "; ".join(rows), seed)


def _beats_every_gmp(cases: list[Case]) -> Verdict:
    claim = "(b) the asm is faster than every GMP measured, at every N from 1 to 9"
    seed = "Xeon 8280: GMP / hand asm from 1.75x (N=8) to 6.38x (N=3) over N = 3..8"
    pairs = [(c, asm, r) for n in SIZES if (asm := _asm(cases, n)) is not None
             for c in _gmps(cases, n) if (r := _speedup(c, asm)) is not None]
    if not pairs:
        return Verdict(claim, "unmeasurable", "no N with both an asm and a GMP case", seed)
    tally = Tally.of(r for _, _, r in pairs)
    worst = min(pairs, key=lambda p: p[2].value)
    lost = [f"{c.variant} N={c.params['N']} {format_ratio(r)}" for c, _, r in pairs
            if not r.above(1.0)]
    sizes = sorted({c.params["N"] for c, _, _ in pairs})
    ev = (f"GMP / asm ({_metric_of([worst[0], worst[1]])}): interval above 1 in "
          f"{tally.above} of {tally.n} (GMP, N) pairs over N = {sizes[0]}..{sizes[-1]}"
          f" and {len({c.variant for c, _, _ in pairs})} GMPs; smallest "
          f"{worst[0].variant} at N={worst[0].params['N']}: {format_ratio(worst[2])}")
    if lost:
        ev += "; not above 1: " + ", ".join(lost)
    return Verdict(claim, tally.every(), ev, seed)


def _beats_compilers(cases: list[Case]) -> Verdict:
    claim = (f"(c) at N = {CC_SIZE} the asm is at least {FAST_VS_CC}x faster than the best "
             "compiler build (portable C or intrinsics, any compiler and flags)")
    seed = ("Xeon 8280 at N=8: LLVM with mulx / hand asm = 2.29x (50.25 / 21.97 ns); "
            "'~1.4x faster than LLVM with mulx' over N = 3..8")
    asm = _asm(cases, CC_SIZE)
    compiled = [c for c in _at(cases, CC_SIZE) if c.variant in COMPILED]
    best = _fastest(compiled, asm) if asm else None
    if asm is None or best is None:
        return Verdict(claim, "unmeasurable", f"no asm and compiler-built cases at "
                       f"N={CC_SIZE}", seed)
    c, r = best
    others = ", ".join(f"{_name(o)} {format_ratio(s)}" for o in compiled
                       if o is not c and (s := _speedup(o, asm)) is not None)
    ev = (f"fastest compiler build {_name(c)} / asm ({_metric_of([c, asm])}) = "
          f"{format_ratio(r)}, needs the interval at or above {FAST_VS_CC}x; the others: "
          f"{others or 'none'}")
    return Verdict(claim, Tally.of([r], FAST_VS_CC).every(), ev, seed)


def _asm_in_registers(cases: list[Case]) -> Verdict:
    claim = ("(d) the generated asm keeps the product in registers: for every N <= 9 exactly "
             "N^2 mulx and no stack spill or reload (static, from the machine code)")
    seed = ("N=4, LLVM: 16 mulx, 31 add-type, 36 mov with 8-byte stack spills; "
            "hand asm: 16 mulx, 31 add-type, 16 mov, 4 xor, no spills")
    asm = {c.params["N"]: c for c in cases if c.variant == "asm" and "mulx" in c.metrics}
    if not asm:
        return Verdict(claim, "unmeasurable", "no instruction mix of the asm (not built, or "
                       "this CPU lacks BMI2/ADX so the kernel has no asm case)", seed)
    bad = [f"N={n}: {c.value('mulx'):.0f} mulx, {c.value('spills'):.0f} spills, "
           f"{c.value('reloads'):.0f} reloads" for n, c in sorted(asm.items())
           if c.value("mulx") != n * n or c.value("spills") or c.value("reloads")]
    missing = [n for n in SIZES if n not in asm]
    ev = (f"asm: N^2 mulx and no spill for {len(asm) - len(bad)} of {len(SIZES)} sizes"
          + (f"; wrong: {'; '.join(bad)}" if bad else "")
          + (f"; no mix for N = {missing}" if missing else ""))
    for n in MIX_SIZES:
        compiled = [c for c in _at(cases, n) if c.variant in COMPILED and "mulx" in c.metrics]
        if n in asm and compiled:
            ev += (f"; N={n}: asm {_mix_row(asm[n])}; the {len(compiled)} compiler builds "
                   f"{_span(compiled, 'mov')} mov, {_span(compiled, 'spills')} spills, "
                   f"{_span(compiled, 'reloads')} reloads")
    kind = "refuted" if bad else "inconclusive" if missing else "confirmed"
    return Verdict(claim, kind, ev, seed)


def _mix_row(c: Case) -> str:
    return ", ".join(f"{c.value(m):.0f} {m}" for m in MIX)


def _span(cases: list[Case], metric: str) -> str:
    values = sorted(c.value(metric) or 0 for c in cases)
    return f"{values[0]:.0f}" if values[0] == values[-1] else \
        f"{values[0]:.0f}-{values[-1]:.0f}"


EXPERIMENT = Mulpre()


# ---- against mcl, the strongest peer, and the model ------------------------------------


def _mcl_missing(cases: list[Case]) -> str | None:
    if not any(c.variant == MCL for c in cases):
        return ("no mcl case: build_mcl_peer.sh builds it (the default profile runs it); "
                "it needs cargo, and BMI2 and ADX like the asm")
    return None


def _as_fast_as_mcl(cases: list[Case]) -> Verdict:
    claim = ("(e) the asm is at least as fast as the fastest peer (mcl or any GMP) in every "
             "mode (independent inputs, a chain through x, a chain through y), at every N "
             "from 1 to 9")
    seed = ("Xeon 8280: hand asm (mcl's code) 4.48-21.97 ns at N = 3..8; the seed does "
            "not compare against it, it is the code being reproduced")
    if why := _mcl_missing(cases):
        return Verdict(claim, "unmeasurable", why, seed)
    tally, rows, lost = Tally(), [], []
    for mode in MODES:
        worst = None
        for n in SIZES:
            asm = _asm(cases, n, mode)
            best = _fastest(_peers(cases, n, mode), asm) if asm else None
            if best is None:
                continue
            peer, r = best
            tally.add(r)
            if not r.above(1.0):
                lost.append(f"{mode} N={n} {peer.variant} {format_ratio(r)}")
            if worst is None or r.value < worst[1].value:
                worst = (peer, r, n)
        if worst:
            rows.append(f"{mode}: closest N={worst[2]}, fastest peer {worst[0].variant} / asm "
                        f"= {format_ratio(worst[1])}")
    if not tally.n:
        return Verdict(claim, "unmeasurable", "no (mode, N) with both an asm and a peer case",
                       seed)
    ev = (f"peer / asm ({_metric_of(cases)}; > 1: the asm is faster): interval above 1 in "
          f"{tally.above} of {tally.n} (mode, N) pairs, below 1 in {tally.below}; "
          + "; ".join(rows))
    if lost:
        ev += "; not above 1: " + ", ".join(lost)
    return Verdict(claim, tally.every(), ev, seed)


def _faster_than_mcl(cases: list[Case]) -> Verdict:
    claim = (f"(f) in throughput the asm is at least {FAST_VS_MCL}x faster than {MCL_NAME} "
             f"at N = {MCL_SIZES[0]}..{MCL_SIZES[-1]}, and than any faster peer")
    seed = ("Xeon 8280: GMP / hand asm = 2.09x at N=4; 'hand asm 1.7-2x faster than GMP' "
            "needs code faster than mcl where GMP runs its own mulx code")
    if why := _mcl_missing(cases):
        return Verdict(claim, "unmeasurable", why, seed)
    tally, rows = Tally(), []
    for n in MCL_SIZES:
        asm = _asm(cases, n)
        best = _fastest(_peers(cases, n, THROUGHPUT), asm) if asm else None
        if best is None:
            continue
        peer, r = best
        tally.add(r, FAST_VS_MCL)
        rows.append(f"N={n}: {peer.variant} / asm {format_ratio(r)}")
    if not tally.n:
        return Verdict(claim, "unmeasurable", "no N with both an asm and an mcl case", seed)
    ev = (f"fastest peer / asm ({_metric_of(cases)}), needs the interval at or above "
          f"{FAST_VS_MCL}x at every N: " + "; ".join(rows))
    return Verdict(claim, tally.every(), ev, seed)


def model_table(cases: list[Case]) -> EvidenceTable | None:
    """How close the asm comes to the model's minimum at each N, in throughput: core
    cycles where the PMU gives them; TSC ticks beside them, which are not core cycles."""
    asm = [c for c in sorted(cases, key=_order) if c.variant == "asm"
           and "model_cycles" in c.metrics and not c.error]
    if not asm:
        return None
    rows, why = [], ""
    for c in asm:
        model = c.value("model_cycles")
        cycles = f"{c.value('cycles'):.1f}" if "cycles" in c.metrics else "unavailable"
        if "cycles" not in c.metrics and not why:
            why = c.unavailable.get("cycles", {}).get("reason", "not measured")
        ratio = f"{c.value('cycles') / model:.2f}" if "cycles" in c.metrics else "-"
        ticks = f"{c.value('tsc'):.1f}" if "tsc" in c.metrics else "unavailable"
        tratio = f"{c.value('tsc') / model:.2f}" if "tsc" in c.metrics else "-"
        rows.append([f"N={c.params['N']}", f"{model:.0f}", cycles, ratio, ticks, tratio])
    return EvidenceTable("the asm against the model (throughput): N^2 mulx at one per cycle "
                         "and 2N^2 - 1 adds on two carry chains give N^2 cycles per call "
                         "(source model); cycles/model 1.00 is the limit. TSC ticks run at "
                         "the TSC's rate, not the core's: their ratio is not cycles/model"
                         + (f". Cycles unavailable: {why}" if why else ""),
                         ["N", "model cycles", "cycles/call (pmu)", "cycles / model",
                          "ticks/call (tsc)", "ticks / model"], rows)
