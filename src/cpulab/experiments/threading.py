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
from dataclasses import replace

from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.build import Artifact, BuildError, Target
from cpulab.claims import CYCLES, ClaimSpec, Requirement, judge
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.model import default_predictors, ertl_direct_trace, simulate
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable, Verdict

TECHNIQUES = ("direct", "indirect", "switch", "repl-switch", "call", "subroutine")
DIR = KERNELS / "threading"
DISPATCHES_PER_ITER = 10
CALLGRIND_ITERS = (1000, 3000)
PGO_TRAINING = ("--iters", "200000", "--reps", "1", "--no-pmu", "--cpu", "-1")
PGO_LITTLE = 0.10  # "changes little": within 10% either way
PREDICTED = 0.01  # "almost perfectly": under 1 miss per 100 dispatches
MODEL_ITERATIONS = 100_000
SITES = "indirect-sites"  # indirect jumps and calls in the hot code (asm)
# Claim (b) compares builds, not techniques: it sees each case as one of these two
# variants (`by_profile`), its technique a parameter.
PGO, PLAIN = "profile-guided", "plain"
# One shared dispatch jump: what claims (a) and (c) are about.
SHARED = Requirement("switch", SITES, "==", 1)

PGO_CLAIM = ClaimSpec(
    "within", PGO, than=PLAIN, by=PGO_LITTLE, metric=CYCLES, over="technique",
    text=f"(b) profile-guided builds change the time per dispatch little at -O1 "
         f"(within {PGO_LITTLE:.0%})",
    seed="gcc -O vs -O + PGO: little change; -O3 vs -O3 + PGO: 123.8 vs 135.5 M cycles")


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
                     SITES)
    claims = (
        ClaimSpec("faster", "repl-switch", than="switch", metric=CYCLES, builds="most",
                  requires=(SHARED, Requirement("repl-switch", SITES, ">=", 2)),
                  text="(a) replicated dispatch (one indirect jump per handler) needs fewer "
                       "cycles per dispatch than one shared dispatch jump",
                  seed="Ivy Bridge: 6.9 cycles/dispatch (gcc 4.8 -O, shared) vs 1.24-1.35 "
                       "(gcc -O3)"),
        PGO_CLAIM,
        ClaimSpec("at-most", "switch", metric="branch-misses", value=PREDICTED,
                  requires=(SHARED,),
                  text=f"(c) this CPU predicts the shared dispatch jump almost perfectly "
                       f"(under {PREDICTED:.0%} misses per dispatch)",
                  seed="Sandy/Ivy Bridge: 5.9-6.8% of branches missed (gcc 4.8 -O); Haswell "
                       "and later: 0.00%"),
    )

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
        programs = {a.path: Program([str(a.path), *ctx.profile.harness_args()],
                                    variant=_technique(a), build=a.config.as_dict())
                    for a in built}
        outcomes = ctx.measure(list(programs.values()))
        counts = ctx.callgrind(
            {programs[a.path].key: _argv_for(a) for a in built}, CALLGRIND_ITERS,
            DISPATCHES_PER_ITER, "dispatch", collect="engine")

        cases: list[Case] = []
        for a in arts:
            if not a.ok:
                cases.append(Case(_technique(a), a.config.as_dict(),
                                  error=f"build failed: {a.error}"))
                continue
            p = programs[a.path]
            (case,) = cases_of(p, outcomes[p.key])
            counted = counts[p.key]
            if isinstance(counted, str):
                case.unavailable["callgrind"] = {"source": "callgrind", "reason": counted}
            else:
                case.metrics.update(counted)
            sites = self._indirect_sites(a)
            if isinstance(sites, str):
                case.unavailable[SITES] = {"source": "asm", "reason": sites}
            else:
                case.metrics[SITES] = Metric.exact(sites, "sites", "asm")
            cases.append(case)
        return cases

    def _indirect_sites(self, art: Artifact) -> int | str:
        """Indirect jumps and calls in the hot functions: 1 = one shared dispatch site."""
        try:
            fns = find_functions(art.path, self.hot_symbols(_technique(art)))
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
        """The one judge on each claim; (b) on the cases seen as profile-guided or plain
        (`by_profile`), the comparison being between builds of one technique."""
        return [judge(c, by_profile(cases) if c is PGO_CLAIM else cases, evidence)
                for c in self.claims]


def by_profile(cases: list[Case]) -> list[Case]:
    """The cases as claim (b) compares them: variant PGO (a profile-guided build) or
    PLAIN, the technique a parameter, in the plain build's name, so that each
    profile-guided build is paired with its plain build technique by technique."""
    out = []
    for c in cases:
        pgo = bool((c.build or {}).get("pgo"))
        out.append(replace(c, variant=PGO if pgo else PLAIN,
                           build={**c.build, "pgo": False} if c.build else c.build,
                           params={**c.params, "technique": c.variant}))
    return out


def _technique(a: Artifact) -> str:
    return a.target.name.removeprefix("threading-")


def _argv_for(a: Artifact):
    def argv(iters: int) -> Sequence[str]:
        return [str(a.path), "--iters", str(iters), "--reps", "1", "--no-pmu", "--cpu", "-1"]
    return argv


EXPERIMENT = Threading()
