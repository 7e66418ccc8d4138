"""Experiment `dispatch` (seed row S15, S1, S14's claim about handler code): one real
bytecode VM under every dispatch technique.

The VM of native/lib/vm runs its five shipped programs (fib, sieve, nbody, loops,
fannkuch) under `switch`, computed goto with one shared and with replicated dispatch,
call threading, musttail tail calls with the C convention (`tail`) and with
`preserve_none` (`tail-pn`, the S15 design), and the portable trampoline; one binary per
technique and build (native/kernels/dispatch). gcc 12 has no musttail: its builds lack
`tail` and `tail-pn`. Per program x technique x build: ns and TSC ticks per VM
instruction (clock, tsc); exact instructions per VM instruction (callgrind) and
cachegrind's branch model; the miss rate of a last-target and an ITTAGE-like predictor
fed with the VM's own dispatch trace (src/cpulab/model: `model`); branch misses where
the PMU counts them; and from the machine code (asm) the indirect-jump sites and the
stack traffic (prologue, epilogue, spills) of the hot handlers.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.asm.mix import has_frame
from cpulab.build import Artifact, BuildConfig, Target, library
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.experiments.dispatch.names import (
    ITTAGE,
    LAST_TARGET,
    MUSTTAIL,
    PROGRAMS,
    TECHNIQUES,
)
from cpulab.experiments.dispatch.verdicts import CLAIMS
from cpulab.measure import valgrind
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome, Program
from cpulab.measure.stats import Ratio, geomean
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable
from cpulab.results.ratios import cycle_metric, geomean_ratio

# The library's manifest carries clang's tail-duplication limits for goto-replicated.
VM = library("vm")
DWARF = valgrind.DWARF_CFLAGS  # the handlers are counted under callgrind
# Callgrind runs the programs with smaller arguments than the timed runs: the kernel
# sets up every program before it runs one (~0.3 s per valgrind run instead of ~0.9 s);
# instructions per VM instruction agree to 3 digits (fib: 24.6 at n=15 and at n=24).
CALLGRIND_ARGS = {"fib": 15, "sieve": 5000, "nbody": 100, "loops": 30, "fannkuch": 6}
CALLGRIND_ITERS = (1, 3)
_STACK_KINDS = ("push", "pop", "spills", "reloads", "stack-adjust")


class Dispatch(Experiment):
    name = "dispatch"
    seed_row = "S15, S1, S14"
    title = "A bytecode VM under every dispatch technique: is the tail-call interpreter fastest?"
    summary = (
        "Five real VM programs under switch, shared and replicated computed goto, call "
        "threading, musttail tail calls (C convention and preserve_none) and a portable "
        "trampoline. Measures time and ticks per VM instruction, instructions per "
        "dispatch, modelled indirect-branch misses from the VM's own dispatch trace, and "
        "from the machine code the dispatch sites and any stack use in the handlers."
    )
    compilers = ("clang", "gcc")
    opts = ("O2",)
    table_metrics = ("time", "tsc", "cycles", "instructions (callgrind)", "branch-misses",
                     "indirect-miss-rate (model)", LAST_TARGET, ITTAGE, "indirect-sites",
                     "handlers-with-frame", "stack-insns")
    claims = CLAIMS

    def seed_tables(self) -> list[SeedTable]:
        return [
            SeedTable(
                "S15/S14: the tail-call design and the code it compiles to",
                ["seed", "claim"],
                [["S15", "LuaJIT-style ADDVN in a musttail handler: code close to LuaJIT's "
                  "hand-written interpreter; one dispatch = load, decode, jmp via the table"],
                 ["S14", "each fast path: a handful of instructions, no prologue, epilogue "
                  "or stack use; > 2 GB/s, over 2x the best previous parser"],
                 ["S14", "without guaranteed tail calls: 'catastrophically pessimised'; a "
                  "portable build must return to a loop at least once per iteration"]],
            ),
            SeedTable(
                "S1: Ertl's `direct`, shared versus replicated dispatch (cycles/dispatch)",
                ["CPU", "shared jmp (gcc 4.8 -O)", "replicated (gcc 5.4 -O)"],
                [["Sandy Bridge E5-2630L", "6.5", "3.5"],
                 ["Ivy Bridge E5-2650 v2", "6.9", "1.24-1.35 (gcc -O3, PGO)"],
                 ["Haswell E5-2660 v3", "4.5", "3.2"]],
            ),
        ]

    def target(self, technique: str) -> Target:
        if technique not in TECHNIQUES:
            raise ValueError(f"unknown technique {technique!r}; known: {', '.join(TECHNIQUES)}")
        macro = technique.upper().replace("-", "_")
        return VM.target(
            f"dispatch-{technique}", (KERNELS / "dispatch" / "dispatch.c",),
            defines=("VM_ONLY=1", f"VM_ONLY_{macro}=1",
                     f'VM_PROGRAMS_DIR="{VM.root / "programs"}"'),
            cflags=DWARF)

    def trace_target(self) -> Target:
        """vmrun with every technique and the dispatch trace (VM_TRACE=1)."""
        return VM.target("vmrun-trace", (VM.root / "tools" / "vmrun.c",),
                         defines=("VM_TRACE=1",), cflags=DWARF)

    def targets(self) -> dict[str, Target]:
        return {t: self.target(t) for t in TECHNIQUES}

    def hot_symbols(self, variant: str) -> list[str]:
        return {
            "switch": ["vm_exec_switch"],
            "goto-shared": ["vm_exec_goto_shared"],
            "goto-replicated": ["vm_exec_goto_replicated"],
            "call": ["vm_exec_call", "vm_call_[A-Z]*"],
            "tail": ["vm_tail_[A-Z]*"],
            "tail-pn": ["vm_op_[A-Z]*"],
            "trampoline": ["vm_exec_trampoline", "vm_tramp_[A-Z]*"],
        }.get(variant, [])

    def techniques_for(self, config: BuildConfig) -> tuple[str, ...]:
        if config.toolchain.family == "clang":
            return TECHNIQUES
        return tuple(t for t in TECHNIQUES if t not in MUSTTAIL)

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        for cfg in ctx.configs:
            if cfg.toolchain.family != "clang":
                ctx.note(f"{cfg.toolchain.name} has no musttail: `tail` and `tail-pn` are "
                         "built with clang only; `trampoline` is their portable form")
        pairs = [(self.target(t), cfg) for cfg in ctx.configs for t in self.techniques_for(cfg)]
        arts = ctx.build(pairs)
        programs = {a.path: Program([str(a.path), *ctx.profile.harness_args()],
                                    variant=_technique(a), build=a.config.as_dict())
                    for a in arts if a.ok}
        outcomes = ctx.measure(list(programs.values()))
        counts = self._callgrind(ctx, [a for a in arts if a.ok], programs)
        model = self._model(ctx)

        cases: list[Case] = []
        for a in arts:
            tech, build = _technique(a), a.config.as_dict()
            if not a.ok:
                cases += [Case(tech, build, {"program": p}, error=f"build failed: {a.error}")
                          for p in PROGRAMS]
                continue
            code = handler_code(a.path, self.hot_symbols(tech))
            p = programs[a.path]
            for case in program_cases(p, outcomes[p.key]):
                program = case.params["program"]
                if not case.error:
                    _add(case, counts.get(program, {}).get(p.key, "not counted"), "callgrind")
                    _add(case, model.get((tech, program), "no trace"), "model")
                    _add(case, code, "asm")
                cases.append(case)
        return cases

    def _callgrind(self, ctx: Context, built: list[Artifact],
                   programs: dict[Path, Program]) -> dict[str, dict]:
        """VM program -> (the timed Program's key -> per-VM-instruction counts or the
        reason not)."""
        if not built:
            return {}
        params = [w for p, n in CALLGRIND_ARGS.items() for w in ("--param", f"{p}={n}")]
        res = ctx.runner.run([str(built[0].path), "--list", *params], timeout=60)
        if res.failure:
            return {p: {programs[a.path].key: f"--list failed: {res.failure}" for a in built}
                    for p in PROGRAMS}
        listed = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
        units = {d["name"]: d["units_per_iter"] for d in listed if d.get("type") == "case"}
        if set(units) != set(PROGRAMS):
            return {p: {programs[a.path].key: f"--list named {sorted(units)}, not "
                        f"{list(PROGRAMS)}" for a in built} for p in PROGRAMS}
        ctx.note("callgrind ran the programs with smaller arguments than the timed runs ("
                 + ", ".join(f"{p}={n}" for p, n in CALLGRIND_ARGS.items()) + ")")
        out = {}
        for program in PROGRAMS:
            def argv_for(a: Artifact, program: str = program):
                def argv(iters: int) -> Sequence[str]:
                    return [str(a.path), "--iters", str(iters), "--reps", "1", "--no-pmu",
                            "--cpu", "-1", "--case", program, *params]
                return argv
            out[program] = ctx.callgrind({programs[a.path].key: argv_for(a) for a in built},
                                         CALLGRIND_ITERS, units[program], "vminsn",
                                         collect="vm_machine_run")
        return out

    def _model(self, ctx: Context) -> dict[tuple[str, str], dict[str, Metric] | str]:
        """(technique, program) -> modelled miss rates from the VM's dispatch trace.

        The trace's sites are the technique's design (one shared site, or one per handler
        exit), not a compiler's output, so the figures hold for every build."""
        from cpulab.model import ittage, last_target, simulate_vm_trace

        cfg = next((c for c in ctx.configs if c.toolchain.family == "clang"), None) or \
            next(iter(ctx.configs), None)
        if cfg is None:
            return {}
        (art,) = ctx.build([(self.trace_target(), cfg)])
        if not art.ok:
            return {(t, p): f"trace build failed: {art.error}" for t in TECHNIQUES
                    for p in PROGRAMS}
        ctx.reporter.phase("modelling the indirect-branch predictor on dispatch traces")
        out: dict[tuple[str, str], dict[str, Metric] | str] = {}
        with tempfile.TemporaryDirectory(prefix="cpulab-trace-") as d:
            trace = Path(d) / "trace.bin"
            for tech in TECHNIQUES:
                for program in PROGRAMS:
                    res = ctx.runner.run([str(art.path), "-t", tech, "--trace", str(trace),
                                          str(VM.root / "programs" / f"{program}.vmasm")],
                                         timeout=ctx.profile.timeout_s)
                    if res.failure:
                        out[(tech, program)] = f"vmrun --trace: {res.failure}"
                        continue
                    records = _read_trace(trace)
                    out[(tech, program)] = {
                        name: Metric.exact(100 * simulate_vm_trace(records, p).miss_rate,
                                           "% of dispatches", "model")
                        for name, p in ((LAST_TARGET, last_target()), (ITTAGE, ittage()))}
        return out

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """The hot handlers that have a frame (push/pop, spills, rsp adjustment), by build."""
        arts = ctx.build((self.target(t), cfg) for cfg in ctx.configs for t in MUSTTAIL
                         if t in self.techniques_for(cfg))
        framed: dict[str, dict[str, list[str]]] = {}
        for a in arts:
            if not a.ok:
                continue
            try:
                fns = find_functions(a.path, self.hot_symbols(_technique(a)))
            except DisasmError:
                continue
            framed.setdefault(a.config.label, {})[_technique(a)] = [
                f.name for f in fns if has_frame(instruction_mix(f))]
        return Evidence([summary_table(cases)], {"handlers-with-frame": framed})


# ---- running helpers ----------------------------------------------------------------------


def program_cases(program: Program, outcome: Outcome) -> list[Case]:
    """The cases of one technique's binary: the harness names each case after the VM
    program it ran, a parameter of the technique's case (`program`), not a variant."""
    cases = cases_from_outcome(outcome, lambda name: name, program.build, program.params,
                               PROGRAMS)
    for c in cases:
        c.variant, c.params = program.variant or c.variant, {**c.params, "program": c.variant}
    return cases


def _technique(a: Artifact) -> str:
    return a.target.name.removeprefix("dispatch-")


def _read_trace(path: Path) -> np.ndarray:
    return np.fromfile(path, dtype="<u4")


def _add(case: Case, found: dict[str, Metric] | str, source: str) -> None:
    """Metrics, or the reason they are missing under the source's name."""
    if isinstance(found, str):
        case.unavailable[source] = {"source": source, "reason": found}
    else:
        case.metrics.update(found)


def handler_code(binary: Path, symbols: list[str]) -> dict[str, Metric] | str:
    """Static facts of the hot functions: indirect jump/call sites, how many functions,
    how many have a frame (S14: a handler must have none) and their stack instructions."""
    try:
        fns = find_functions(binary, symbols)
    except DisasmError as e:
        return str(e)
    if not fns:
        return f"no function matching {', '.join(symbols)} in {binary.name}"
    mixes = [instruction_mix(f) for f in fns]
    return {
        "indirect-sites": Metric.exact(sum(m["jmp-indirect"] + m["call-indirect"]
                                           for m in mixes), "sites", "asm"),
        "handlers": Metric.exact(len(fns), "functions", "asm"),
        "handlers-with-frame": Metric.exact(sum(has_frame(m) for m in mixes), "functions",
                                            "asm"),
        "stack-insns": Metric.exact(sum(m[k] for m in mixes for k in _STACK_KINDS),
                                    "instructions", "asm"),
    }


def summary_table(cases: list[Case]) -> EvidenceTable:
    """One row per technique and build: times and counts as geometric means over the
    programs, modelled miss rates as plain means (a rate may be 0), asm facts as they
    are (one binary serves every program). Pure."""
    ok = [c for c in cases if not c.error]
    rows = []
    for tech, lb in dict.fromkeys((c.variant, c.build_label) for c in ok):
        mine = [c for c in ok if (c.variant, c.build_label) == (tech, lb)]
        vs_switch = slowdown(ok, (tech, lb), ("switch", lb))
        rows.append([tech, lb, _over(mine, "time", geomean),
                     f"{vs_switch.value:.3f}" if vs_switch else "n/a",
                     _over(mine, "instructions (callgrind)", geomean),
                     _over(mine, LAST_TARGET, _mean), _over(mine, ITTAGE, _mean),
                     _over(mine, "indirect-sites", min), _over(mine, "handlers-with-frame", min)])
    return EvidenceTable("per technique and build, over the programs",
                         ["technique", "build", "ns/vminsn [clock] geomean",
                          "time / switch [clock] geomean", "instructions/vminsn [callgrind]",
                          "last-target miss % [model] mean", "ittage miss % [model] mean",
                          "jmp/call * sites [asm]", "handlers with frame [asm]"],
                         rows)


def slowdown(cases: list[Case], slow: tuple[str, str], fast: tuple[str, str]) -> Ratio | None:
    """Geometric mean over the programs of cycles(slow)/cycles(fast) (> 1: `fast` is
    faster), each side a (variant, build label), paired by round; for the summary table."""
    def of(side: tuple[str, str]) -> dict[str, Case]:
        return {c.params.get("program"): c for c in cases
                if (c.variant, c.build_label) == side}
    a, b = of(slow), of(fast)
    pairs = []
    for p in PROGRAMS:
        if p in a and p in b:
            metric = cycle_metric(a[p], b[p])
            if metric in a[p].metrics and metric in b[p].metrics:
                pairs.append((a[p].metrics[metric], b[p].metrics[metric]))
    return geomean_ratio(pairs) if pairs else None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _over(cases: list[Case], metric: str, combine) -> str:
    """`combine` of every case's figure, or n/a when any case lacks it."""
    vals = [c.value(metric) for c in cases]
    if not vals or any(v is None for v in vals):
        return "n/a"
    return f"{combine(vals):.3g}"


EXPERIMENT = Dispatch()
