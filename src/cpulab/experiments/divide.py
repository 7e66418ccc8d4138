"""Experiment `divide` (seed row S4): dividing by a divisor known only at run time as fast
as by a compile-time constant, and the seed's quo() pattern.

native/kernels/divide/divide_bench.c, built once per divisor (DIVIDE_CONST), divides the
same numerators by that divisor nine ways: the hardware `div`, the compiler's constant
division (scalar, and vectorised at the best ISA of this CPU), native/lib/rtdiv (the
sequence of the divisor's kind, chosen once per loop with RTDIV_DISPATCH; branchfree; and
the AVX2/AVX-512 batch), Debian's libdivide (branchy, branchfree) and
Lemire's fastmod remainder; each in a throughput loop (independent divisions) and a
dependent chain (latency), for u32, u64, s32 and s64 and for quotient and remainder. The
divisors cover each kind of magic number: plain (3), add (7: the N+1-bit magic), a power
of two (1024) and even (10^9, which a compiler pre-shifts). The scalar verbs are judged
against the scalar constant, the batch against the vectorised constant loop: one form
never stands for the other. One program per (build, divisor, type, op), all interleaved.
quo_bench.c times the seed's quo() (`c = a / b; c * b == a` against `a % b == 0`, b =
10^9) and the machine code of both is counted (asm): the seed's claim is about code.
Per case: ns and TSC ticks per division or call (clock, tsc), cycles where the PMU
counts them (pmu), and the `div` instructions of the loop (asm); quo_mod's, the
instructions it adds over quo_mul in its build (asm). The claims are declared
(`claims`): the faster of rtdiv's verbs (`family`) against the fastest peer in each
(build, divisor, type, op) set, in throughput.
"""

from __future__ import annotations

from cpulab.asm import disassemble, find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.build import Artifact, Target, library
from cpulab.claims import CYCLES, ClaimSpec
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable

TYPES = ("u32", "u64", "s32", "s64")
OPS = ("div", "rem")
METHODS = ("hw", "const", "const_vec", "rtdiv", "rtdiv_bf", "rtdiv_batch", "libdivide",
           "libdivide_bf", "fastmod")
OURS = ("rtdiv", "rtdiv_bf", "rtdiv_batch")
SCALAR = ("rtdiv", "rtdiv_bf")  # the inline verbs, one division at a time (rtdiv: the
# kind's verb, rtdiv_<T>_div_kind, in a loop compiled per kind and chosen before it runs)
VECTOR_LOOPS = ("const_vec", "rtdiv_batch")  # loops built per ISA (target_clones)
LIBDIVIDE = ("libdivide", "libdivide_bf")
QUO = ("mul", "mod", "inverse")
# One divisor of each kind (divisor_kind): 7 needs the N+1-bit magic ("add") except for
# s64, 3 does not ("plain"), 1024 is a shift, 10^9 (the seed's) is even.
DIVISORS = (7, 3, 1024, 1_000_000_000)
# The divisors per profile. Each is 8 programs per build (4 types x 2 ops), ~0.3 s a
# process: the 66 programs of all four took 2 minutes for their 6 least rounds on 2
# cores. The default keeps 7 (the N+1-bit magic of the unsigned types, rtdiv's longest
# path) and the seed's 10^9 (even, pre-shifted); the quick 7.
PROFILE_DIVISORS = {"quick": (7,), "default": (7, 1_000_000_000), "full": DIVISORS}
QUO_DIVISOR = 1_000_000_000
QUO_MAGIC = "0x112e0be826d694b3"  # the seed's multiplier for a signed 64-bit / 10^9
CONST_BOUND = 1.15  # the target: ours within 1.15x of the compile-time constant
TIE = 0.03  # "at least as fast": at most 3% slower counts as a tie on a shared VM
DIR = KERNELS / "divide"
RTDIV = library("rtdiv")
_DIVS, _SIZE = "div-instructions", "code-size"
# quo_mod's instructions less quo_mul's, of one build (asm): what `a % b == 0` adds
_ADDED = "added-instructions"
TPUT = {"loop": ("tput",)}  # the claims on speed are judged in throughput


class Divide(Experiment):
    name = "divide"
    seed_row = "S4"
    title = "Division by a run-time divisor versus `div`, constants and libdivide; quo()"
    summary = (
        "A `div` costs tens of cycles on the seed's Ivy Bridge; a compiler divides by a "
        "constant with a multiply and shifts. rtdiv does the same for a divisor known only "
        "at run time (generate once, then multiply). Measures hardware `div`, the "
        "constant, rtdiv, libdivide and fastmod for four integer types in throughput and "
        "latency, and the seed's quo(): whether `a % b == 0` adds instructions over "
        "`c * b == a` when b = 10^9 is a constant."
    )
    compilers = ("gcc", "clang")
    opts = ("O2",)
    table_metrics = ("time", "tsc", "cycles", _DIVS, _SIZE)
    claims = (
        # "within 1.15x": at most 1.15x slower, i.e. a speed-up of at least 1/1.15
        ClaimSpec("faster", "rtdiv", family=("rtdiv_bf",), than="const", by=1 / CONST_BOUND,
                  metric=CYCLES, where=TPUT,
                  text=f"(a) rtdiv's scalar verbs (the faster of the kind's verb, chosen "
                       "once per loop, and div_bf) divide "
                       f"within {CONST_BOUND}x of the compiler's scalar compile-time "
                       "constant, for every type, divisor kind and compiler, in throughput",
                  seed="no figure: the seed muses on run-time magic numbers (\"JIT-like\")"),
        ClaimSpec("faster", "rtdiv", family=("rtdiv_bf",), than=LIBDIVIDE, by=1 / (1 + TIE),
                  metric=CYCLES, where=TPUT,
                  text="(b) rtdiv's scalar verbs (the faster form) are at least as fast as "
                       "libdivide's faster form (libdivide or libdivide_bf) for every type, "
                       f"divisor kind and compiler, in throughput (a tie: at most {TIE:.0%} "
                       "slower)",
                  seed="no figure (libdivide is the peer the library is measured against)"),
        ClaimSpec("faster", "rtdiv", family=("rtdiv_bf", "rtdiv_batch"), than="hw",
                  metric=CYCLES, where=TPUT,
                  text="(c) on this CPU, rtdiv is faster than the hardware `div` for every "
                       "type (throughput; latency shown beside)",
                  seed="Ivy Bridge (Agner Fog, in S3): DIV r64 latency 29-94 cycles, "
                       "reciprocal throughput 22-76; recent CPUs divide far faster"),
        ClaimSpec("at-least", "quo_mod", metric=_ADDED, value=1, where=TPUT,
                  text="(d) in quo() with b = 10^9 a constant, `a % b == 0` only adds "
                       "instructions over `c = a / b; c * b == a` (neither divides)",
                  seed=f"c * b == a compiles to a multiply by {QUO_MAGIC} and shifts; "
                       "a % b == 0 only added instructions"),
        ClaimSpec("faster", "rtdiv_batch", than="const_vec", by=1 / CONST_BOUND,
                  metric=CYCLES, where=TPUT,
                  text=f"(e) rtdiv's batch divides an array within {CONST_BOUND}x of the "
                       "compiler's vectorised constant loop (const_vec: the same array "
                       "into an output array, built for the best ISA this CPU has), for "
                       "every type, divisor kind and compiler",
                  seed="no figure: the seed has no batch"),
    )

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S4: CRuby time.c quo(), b = 1000000000 known at compile time",
            ["code", "what the compiler made of it"],
            [["c = a / b; if (c * b == a) return c;",
              f"multiply by the magic number {QUO_MAGIC} and shifts (no div)"],
             ["if (a % b == 0) return a / b;", "only more instructions"],
             ["a divisor known at run time", "the post muses on magic numbers made at run "
              "time (\"JIT-like\"); no figure"]],
        )]

    def divide_target(self, divisor: int) -> Target:
        return RTDIV.target(f"divide-bench-{divisor}", (DIR / "divide_bench.c",),
                            defines=(f"DIVIDE_CONST={divisor}",), meta={"divisor": divisor})

    def quo_target(self) -> Target:
        return Target("quo-bench", (DIR / "quo_bench.c", DIR / "quo_seed.c"))

    def targets(self) -> dict[str, Target]:
        out = dict.fromkeys(METHODS, self.divide_target(DIVISORS[0]))
        out.update({f"quo_{v}": self.quo_target() for v in QUO})
        return out

    def hot_symbols(self, variant: str) -> list[str]:
        if variant.startswith("quo_"):
            return [f"{variant}_check"]
        loops = ("tput",) if variant == "const_vec" else ("tput", "lat")
        syms = [f"{loop}_{op}_{variant}_{t}" for loop in loops for op in "QR" for t in TYPES]
        if variant == "rtdiv_batch":
            syms += ["rtdiv_*_div_batch", "rtdiv_*_rem_batch", "rtdiv__*_div",
                     "rtdiv__*_rem"]
        return syms

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        divisors = PROFILE_DIVISORS[ctx.profile.name]
        targets = [self.divide_target(d) for d in divisors] + [self.quo_target()]
        arts = ctx.build((t, cfg) for cfg in ctx.configs for t in targets)
        # Many short programs (4 types x 2 ops per divisor): each timed call is a quarter
        # of the profile's, so that the default profile stays within minutes; a division
        # takes nanoseconds, so even 10 ms calls hold millions of them.
        args = ["--reps", str(ctx.profile.reps),
                "--target-ms", str(max(2, ctx.profile.target_ms // 4))]
        programs: list[tuple[Artifact, Program]] = []
        for a in arts:
            if not a.ok:
                continue
            build = a.config.as_dict()
            if a.target.name == "quo-bench":
                params = {"divisor": QUO_DIVISOR, "exact_pct": 50}
                programs.append((a, Program([str(a.path), *args, *_param_args(a, params)],
                                            build=build, params=params)))
                continue
            d = a.target.meta["divisor"]
            for t in TYPES:
                for op in OPS:
                    params = {"divisor": d, "type": t, "op": op, "kind": divisor_kind(d, t)}
                    programs.append((a, Program([str(a.path), *args,
                                                *_param_args(a, params)],
                                               build=build, params=params)))
        outcomes = ctx.measure([p for _, p in programs])

        code = {a.path: _loop_code(a) for a in arts if a.ok}
        cases: list[Case] = []
        for a in arts:
            if not a.ok:
                cases.append(Case(a.target.name, a.config.as_dict(),
                                  error=f"build failed: {a.error}"))
        for a, p in programs:
            # the harness names a case `<loop>_<method>`: the method is the variant, the
            # loop a parameter (_with_code)
            cases += [_with_code(c, code[a.path], p.params)
                      for c in cases_of(p, outcomes[p.key])]
        _add_quo_difference(cases)
        return cases

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """quo()'s two forms as each compiler compiled them (cached builds)."""
        rows = []
        for a in ctx.build((self.quo_target(), cfg) for cfg in ctx.configs):
            code = _loop_code(a) if a.ok else f"build failed: {a.error}"
            if isinstance(code, str):
                ctx.note(f"divide: no machine code for quo() with {a.config.label}: {code}")
                continue
            for v in ("mul", "mod"):
                divs, size, listing = code[f"quo_{v}_check"]
                rows.append([a.config.label, f"quo_{v}_check", str(divs), str(size),
                             "; ".join(listing)])
        if not rows:
            return Evidence()
        return Evidence([EvidenceTable(
            "quo(): the code of both forms (source asm; b = 10^9)",
            ["build", "function", "div", "instructions", "code"], rows)])


def divisor_kind(d: int, type_: str) -> str:
    """Which code a divisor takes in `type_`: "pow2" (a shift), "even" (a compiler
    pre-shifts it), else "plain" (an N-bit magic and one shift) or "add" (the N+1-bit
    magic: the numerator is added back), by rtdiv_gen.c's tests (for signed types the
    largest numerators of residue d - 1 bound the error, as in a compiler)."""
    if d & (d - 1) == 0:
        return "pow2"
    if d % 2 == 0:
        return "even"
    bits = int(type_[1:])
    s = d.bit_length() - 1
    if type_[0] == "u":
        p = bits + s
        return "plain" if d - (1 << p) % d < 1 << s else "add"
    p = bits - 1 + s
    e = d - (1 << p) % d
    half = 1 << (bits - 1)
    uc = half - (half % d + 1) % d  # the largest |n| <= 2^(N-1) of residue d - 1
    nc = half - d if uc == half else uc
    return "plain" if nc * e < 1 << p and uc * e <= 1 << p else "add"


def _param_args(a: Artifact, params: dict) -> list[str]:
    if a.target.name == "quo-bench":
        return ["--param", f"exact_pct={params['exact_pct']}"]
    return ["--param", f"type={params['type']}", "--param", f"op={params['op']}"]


def _loop_code(a: Artifact) -> dict[str, tuple[int, int, list[str]]] | str:
    """function -> (div instructions, instructions, listing) for the timed loops (divide)
    or the quo() functions; or why the code could not be read."""
    patterns = ["quo_*_check"] if a.target.name == "quo-bench" else ["tput_*", "lat_*"]
    try:
        fns = find_functions(a.path, patterns)
    except DisasmError as e:
        return str(e)
    if not fns:
        return f"no function matching {', '.join(patterns)} in {a.path}"
    out = {}
    for f in fns:
        mix = instruction_mix(f)
        listing = ([f"{i.mnemonic} {i.op_str}".strip() for i in disassemble(f)]
                   if f.name.startswith("quo_") else [])
        out[f.name] = (mix["div"], mix["instructions"], listing)
    return out


def _with_code(case: Case, code: dict[str, tuple[int, int, list[str]]] | str,
               params: dict) -> Case:
    """Harness case `<loop>_<method>` as variant `method` (quo: `quo_<form>`), with the
    loop in the params and the loop's (or quo function's) machine-code figures."""
    if case.error or "_" not in case.variant:  # a failed program: no case names
        return case
    loop, method = case.variant.split("_", 1)
    if "type" in params:
        fn = f"{loop}_{'R' if params['op'] == 'rem' else 'Q'}_{method}_{params['type']}"
        case.variant = method
    else:
        fn = f"quo_{method}_check"
        case.variant = f"quo_{method}"
    case.params = {**params, "loop": loop}
    if isinstance(code, str) or fn not in code:
        why = code if isinstance(code, str) else f"{fn} not found in the binary"
        case.unavailable[_DIVS] = {"source": "asm", "reason": why}
        return case
    if case.variant in VECTOR_LOOPS:  # clones for three ISAs behind an ifunc: no one body
        why = f"{fn} is chosen from its ISA clones at load time"
        case.unavailable[_DIVS] = case.unavailable[_SIZE] = {"source": "asm", "reason": why}
        return case
    divs, size, _ = code[fn]
    case.metrics[_DIVS] = Metric.exact(divs, "instructions", "asm")
    case.metrics[_SIZE] = Metric.exact(size, "instructions", "asm")
    return case


def _add_quo_difference(cases: list[Case]) -> None:
    """quo_mod's instructions less quo_mul's of the same build (asm), on quo_mod's
    cases: what `a % b == 0` adds. The seed compares code that does not divide, so where
    either form divides (or its code is unread) the figure is unavailable, with why."""
    forms = {(c.build_label, c.params.get("loop"), c.variant): c for c in cases
             if c.variant in ("quo_mul", "quo_mod") and not c.error}
    for (label, loop, variant), mod in forms.items():
        if variant != "quo_mod":
            continue
        mul = forms.get((label, loop, "quo_mul"))
        if mul is None:
            why = "quo_mul was not measured in this build"
        elif any(c.value(_SIZE) is None for c in (mul, mod)):
            why = next(c.unavailable.get(_SIZE, {}).get("reason", "no code size")
                       for c in (mul, mod) if c.value(_SIZE) is None)
        elif mul.value(_DIVS) or mod.value(_DIVS):
            why = (f"the premise fails: quo_mul has {mul.value(_DIVS):g} div, quo_mod "
                   f"{mod.value(_DIVS):g}")
        else:
            added = mod.value(_SIZE) - mul.value(_SIZE)  # type: ignore[operator]
            mod.metrics[_ADDED] = Metric.exact(added, "instructions", "asm")
            continue
        mod.unavailable[_ADDED] = {"source": "asm", "reason": why}


EXPERIMENT = Divide()
