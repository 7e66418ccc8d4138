"""Experiment `threading` (seed row S1): what an interpreter dispatch costs, and how well
this CPU predicts it.

Ertl's program `next1 next2 next1 next3 next1 next4 next1 next5 next1 loop` (10
dispatches per iteration) under six dispatch techniques (native/kernels/threading), each
built for gcc and clang at -O1/-O2/-O3 and profile-guided at -O1. Per technique and
build: ns and TSC ticks per dispatch (clock, tsc), cycles, instructions and branch
misses per dispatch where the PMU counts them (pmu), exact instructions per dispatch
(callgrind) and a modelled miss rate (cachegrind's last-target predictor: `model`), and
the number of indirect-jump sites in the hot code (asm), which is what tells a shared
dispatch jump from a replicated one.
"""

from __future__ import annotations

from collections.abc import Sequence

from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.build import Artifact, BuildError, Target
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.measure.stats import geomean
from cpulab.model import default_predictors, ertl_direct_trace, simulate
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio
from cpulab.results.tally import Tally

TECHNIQUES = ("direct", "indirect", "switch", "repl-switch", "call", "subroutine")
DIR = KERNELS / "threading"
DISPATCHES_PER_ITER = 10
CALLGRIND_ITERS = (1000, 3000)
PGO_TRAINING = ("--iters", "200000", "--reps", "1", "--no-pmu", "--cpu", "-1")
PGO_LITTLE = 0.10  # "changes little": within 10% either way
PREDICTED = 0.01  # "almost perfectly": under 1 miss per 100 dispatches
_MODEL_RATE = "indirect-miss-rate (model)"
MODEL_ITERATIONS = 100_000


class Threading(Experiment):
    name = "threading"
    seed_row = "S1"
    title = "Interpreter dispatch techniques and the indirect-branch predictor"
    summary = (
        "Ertl's dispatch benchmark: 10 dispatches per iteration, the jump after next1 "
        "rotating among four targets. A shared `jmp *reg` (one dispatch site for all "
        "handlers) is hard for a last-target predictor; replicated dispatch (one jump per "
        "handler) is easier. Measures time and ticks per dispatch, instructions, branch "
        "misses and the indirect-jump sites in the code for every technique and build."
    )
    compilers = ("gcc", "clang")
    opts = ("O1", "O2", "O3")
    pgo_opts = ("O1",)
    table_metrics = ("time", "tsc", "cycles", "instructions", "instructions (callgrind)",
                     "branch-misses", "branch-miss-rate", "indirect-miss-rate (model)",
                     "indirect-sites")

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S1: Ertl's `direct` under perf stat (10^8 dispatches; gcc -O -fomit-frame-pointer)",
            ["CPU", "binary", "cycles", "instructions", "branch-misses", "cycles/dispatch"],
            [
                ["Sandy Bridge E5-2630L", "gcc 4.8 -O (shared jmp)", "650.8 M", "423.9 M",
                 "12.25 M (5.87%)", "6.5"],
                ["Sandy Bridge E5-2630L", "gcc 5.4 -O", "352.4 M", "379.8 M", "3,933", "3.5"],
                ["Ivy Bridge E5-2650 v2", "gcc 4.8 -O (shared jmp)", "689.2 M", "430.9 M",
                 "14.2 M (6.76%)", "6.9"],
                ["Haswell E5-2660 v3", "gcc 4.8 -O (shared jmp)", "448.0 M", "430.1 M",
                 "4,887", "4.5"],
                ["Haswell E5-2660 v3", "gcc 5.4 -O", "315.5 M", "380.1 M", "6,829", "3.2"],
                ["Skylake E3-1245 v5", "gcc 5.4 -O", "300.8 M", "380.5 M", "9,349", "3.0"],
                ["Ivy Bridge E5-2650 v2", "gcc -O3 (+PGO)", "123.8-135.5 M", "320.4 M",
                 "~6,000", "1.24-1.35"],
            ],
        )]

    def target(self, technique: str) -> Target:
        return Target(f"threading-{technique}", (DIR / f"{technique}.c",),
                      pgo_args=PGO_TRAINING)

    def targets(self) -> dict[str, Target]:
        return {t: self.target(t) for t in TECHNIQUES}

    def hot_symbols(self, variant: str) -> list[str]:
        return ["engine", "op_*"] if variant in ("call", "subroutine") else ["engine"]

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        arts = ctx.build((self.target(t), cfg) for cfg in ctx.configs for t in TECHNIQUES)
        built = [a for a in arts if a.ok]
        programs = [Program([str(a.path), *ctx.profile.harness_args()], key=_key(a)) for a in built]
        outcomes = ctx.measure(programs)
        counts = ctx.callgrind(
            {_key(a): _argv_for(a) for a in built}, CALLGRIND_ITERS, DISPATCHES_PER_ITER,
            "dispatch", collect="engine")

        cases: list[Case] = []
        for a in arts:
            technique, build = a.target.name.removeprefix("threading-"), a.config.as_dict()
            if not a.ok:
                cases.append(Case(technique, build, error=f"build failed: {a.error}"))
                continue
            (case,) = cases_from_outcome(outcomes[_key(a)], lambda n: n, build, {},
                                         [technique])
            counted = counts[_key(a)]
            if isinstance(counted, str):
                case.unavailable["callgrind"] = {"source": "callgrind", "reason": counted}
            else:
                case.metrics.update(counted)
            sites = self._indirect_sites(a)
            if isinstance(sites, str):
                case.unavailable["indirect-sites"] = {"source": "asm", "reason": sites}
            else:
                case.metrics["indirect-sites"] = Metric.exact(sites, "sites", "asm")
            cases.append(case)
        return cases

    def _indirect_sites(self, art: Artifact) -> int | str:
        """Indirect jumps and calls in the hot functions: 1 = one shared dispatch site."""
        variant = art.target.name.removeprefix("threading-")
        try:
            fns = find_functions(art.path, self.hot_symbols(variant))
        except DisasmError as e:
            return str(e)
        mixes = [instruction_mix(f) for f in fns]
        return sum(m["jmp-indirect"] + m["call-indirect"] for m in mixes)

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """Modelled predictors on the program's own dispatch trace (source `model`): what
        a last-target table and a history-based (ITTAGE-like) predictor make of a shared
        and of a replicated dispatch. On a machine without a PMU this is the only view
        of prediction there is, and it is labelled as a model everywhere."""
        rows = []
        try:
            for shared in (True, False):
                sites, targets = ertl_direct_trace(MODEL_ITERATIONS, shared)
                for cfg in default_predictors():
                    r = simulate(sites, targets, cfg)
                    rows.append(["one shared jump" if shared else "one jump per handler",
                                 r.predictor, f"{100 * r.miss_rate:.2f}%"])
        except (BuildError, OSError, ValueError) as e:
            ctx.note(f"branch-predictor model unavailable: {e}")
            return Evidence()
        return Evidence([EvidenceTable(
            f"modelled indirect-branch predictors on the program's dispatch trace "
            f"({MODEL_ITERATIONS * DISPATCHES_PER_ITER:,} dispatches; source model)",
            ["dispatch", "predictor", "misses per dispatch"], rows)])

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [_replicated_beats_shared(ok), _pgo_changes_little(ok),
                _shared_predicted(ok, evidence)]


def _key(a: Artifact) -> str:
    return f"{a.target.name}|{a.config.label}"


def _argv_for(a: Artifact):
    def argv(iters: int) -> Sequence[str]:
        return [str(a.path), "--iters", str(iters), "--reps", "1", "--no-pmu", "--cpu", "-1"]
    return argv


def _sites(c: Case) -> float | None:
    return c.value("indirect-sites")


def _case_key(c: Case) -> tuple[str, str]:
    """(variant, build label): what identifies a case within one run."""
    return c.variant, c.build_label


def _replicated_beats_shared(cases: list[Case]) -> Verdict:
    claim = ("(a) replicated dispatch (one indirect jump per handler) needs fewer cycles per "
             "dispatch than one shared dispatch jump")
    seed = "Ivy Bridge: 6.9 cycles/dispatch (gcc 4.8 -O, shared) vs 1.24-1.35 (gcc -O3)"
    by = {_case_key(c): c for c in cases}
    rows, skipped, tally = [], [], Tally()
    for c in cases:
        if c.variant != "switch" or c.build is None or c.build.get("pgo"):
            continue
        repl = by.get(("repl-switch", c.build_label))
        if repl is None:
            continue
        if _sites(c) != 1 or (_sites(repl) or 0) < 2:
            skipped.append(f"{c.build_label} (switch has {_sites(c)} indirect sites, "
                           f"repl-switch {_sites(repl)})")
            continue
        metric = cycle_metric(c, repl)
        r = median_ratio(c, repl, metric)
        if r is None:
            continue
        tally.add(r)
        rows.append(f"{c.build_label}: shared/replicated {metric} = {format_ratio(r)}")
    tail = f"; not shared vs replicated, skipped: {', '.join(skipped)}" if skipped else ""
    if not rows:
        return Verdict(claim, "unmeasurable", "no build with both a shared (switch) and a "
                       "replicated (repl-switch) dispatch" + tail, seed)
    head = (f"replicated faster (95% interval above 1) in {tally.above} of {tally.n} builds, "
            f"slower in {tally.below}")
    return Verdict(claim, tally.majority(), head + ": " + "; ".join(rows) + tail, seed)


def _pgo_changes_little(cases: list[Case]) -> Verdict:
    claim = (f"(b) profile-guided builds change the time per dispatch little at -O1 "
             f"(within {PGO_LITTLE:.0%})")
    seed = "gcc -O vs -O + PGO: little change; -O3 vs -O3 + PGO: 123.8 vs 135.5 M cycles"
    by = {_case_key(c): c for c in cases}
    per_compiler: dict[str, list[float]] = {}
    rows = []
    for c in cases:
        if not (c.build and c.build.get("pgo")):
            continue
        plain_label = c.build_label.removesuffix(" +pgo")
        plain = by.get((c.variant, plain_label))
        if plain is None:
            continue
        metric = cycle_metric(plain, c)
        r = median_ratio(plain, c, metric)
        if r is None:
            continue
        per_compiler.setdefault(c.build["compiler"], []).append(r.value)
        rows.append(f"{c.variant} {plain_label}: plain/pgo = {format_ratio(r)}")
    if not per_compiler:
        return Verdict(claim, "unmeasurable", "no profile-guided build next to its plain "
                       "build (run with -O1 in --opt, without --no-pgo)", seed)
    gms = {cc: geomean(v) for cc, v in per_compiler.items()}
    little = all(abs(g - 1) <= PGO_LITTLE for g in gms.values())
    head = ", ".join(f"{cc}: geomean plain/pgo {g:.3f}x over {len(per_compiler[cc])} "
                     "techniques" for cc, g in gms.items())
    return Verdict(claim, "confirmed" if little else "refuted",
                   head + ". " + "; ".join(rows), seed)


def _shared_predicted(cases: list[Case], evidence: Evidence) -> Verdict:
    claim = (f"(c) this CPU predicts the shared dispatch jump almost perfectly "
             f"(under {PREDICTED:.0%} misses per dispatch)")
    seed = ("Sandy/Ivy Bridge: 5.9-6.8% of branches missed (gcc 4.8 -O); Haswell and later: "
            "0.00%")
    shared = [c for c in cases if _sites(c) == 1 and c.variant in ("switch", "direct")
              and not (c.build or {}).get("pgo")]
    if not shared:
        return Verdict(claim, "unmeasurable", "no build with a single shared dispatch jump",
                       seed)
    pmu = [c for c in shared if "branch-misses" in c.metrics]
    if not pmu:
        reason = next((c.unavailable.get("branch-misses", {}).get("reason") for c in shared
                       if "branch-misses" in c.unavailable), "no branch-miss counter")
        model = [f"{c.variant} {c.build_label}: {c.value(_MODEL_RATE):.1f}%"
                 for c in shared if c.value(_MODEL_RATE) is not None]
        ev = (f"needs the PMU's branch-misses, which this machine cannot count ({reason}). "
              "For comparison only, cachegrind's model (a last-target table, not this CPU) "
              "misses the shared jump in " + (", ".join(model[:4]) or "no build"))
        shared_rows = [r for t in evidence.tables for r in t.rows if r[0] == "one shared jump"]
        if shared_rows:
            ev += "; the predictor models on the dispatch trace miss it in " + ", ".join(
                f"{r[2]} of dispatches ({r[1]})" for r in shared_rows)
        return Verdict(claim, "unmeasurable", ev, seed)
    rates = {f"{c.variant} {c.build_label}": c.value("branch-misses") for c in pmu}
    worst = max(rates.values())
    ev = "branch misses per dispatch (pmu): " + ", ".join(
        f"{k}: {v:.4f}" for k, v in rates.items())
    return Verdict(claim, "confirmed" if worst < PREDICTED else "refuted", ev, seed)


EXPERIMENT = Threading()
