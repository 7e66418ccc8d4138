"""A described experiment as the lab runs it: the same `Experiment` the built-in ones
are, so the matrix builds (cached), the interleaved schedule, the table, storage, plots,
`cpulab asm`, `compare` and `report` treat it as they treat theirs.

One program per variant (its sources, its defines), built for every compiler x level
of the matrix; each built program runs once per combination of the swept parameters
(`--param k=v`), all of them interleaved. A program may hold several harness cases:
each becomes a case with the parameter `case`. The machine code of each variant's hot
functions is read once per build and is the evidence of `no-instruction` claims.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from cpulab.asm import DisasmError, disassemble, find_functions, instruction_mix
from cpulab.build import Artifact, Target
from cpulab.claims import ASM_FACT, MNEMONIC, count_of, judge
from cpulab.context import Context, first_error
from cpulab.described.description import Description
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import case_metrics
from cpulab.measure.schedule import Outcome, Program
from cpulab.results import (
    OWN_SEED_ROW,
    Case,
    CaseConditions,
    Evidence,
    EvidenceTable,
    PlotSpec,
    Verdict,
)

# Iteration counts of the two callgrind runs whose difference is one iteration's cost.
CALLGRIND_ITERS = (8, 40)
# The machine-code figures the evidence table shows, in order (all are kept as facts).
_ASM_COLUMNS = ("instructions", "jcc", "cmov", "div", "mul", "loads", "stores", "spills",
                "call-direct", "call-indirect", "jmp-indirect")
# The fact naming the description a stored run came from (`cpulab report` reads it).
DESCRIPTION_FACT = "description"


class DescribedExperiment(Experiment):
    def __init__(self, description: Description):
        d = self.description = description
        self.name, self.seed_row, self.title = d.name, OWN_SEED_ROW, d.title
        self.summary = d.summary or d.title
        self.compilers, self.opts, self.pgo_opts = d.compilers, d.opts, d.pgo
        self.table_metrics = d.table
        self.plots = self._plots(d.param_grid(quick=False))

    def targets(self) -> dict[str, Target]:
        d = self.description
        return {v.name: Target(f"{d.name}-{v.name}", v.sources, v.defines,
                               (d.folder, *v.include_dirs), v.cflags, libs=v.libs,
                               pgo_args=("--reps", "1", "--target-ms", "20"),
                               meta={"variant": v.name})
                for v in d.variants}

    def _plots(self, grid: list[dict]) -> tuple[PlotSpec, ...]:
        """A figure of the leading metric against the one numeric parameter that the
        grid sweeps (none when it sweeps none, or several: the lines would mix)."""
        swept = [k for k in grid[0] if len({p[k] for p in grid}) > 1]
        if len(swept) != 1 or not all(_number(p[swept[0]]) for p in grid):
            return ()
        metric = (self.table_metrics or ("tsc",))[0]
        return (PlotSpec(f"sweep-{swept[0]}", f"{metric} against {swept[0]}", swept[0],
                         metric),)

    def hot_symbols(self, variant: str) -> list[str]:
        return list(self.description.variant(variant).hot)

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        targets = self.targets()
        arts = ctx.build((targets[v.name], cfg) for v in self.description.variants
                         for cfg in ctx.configs)
        grid = self.description.param_grid(ctx.profile.quick)
        self.plots = self._plots(grid)  # this run's figures: what its grid sweeps
        programs = {(a.path, i): Program([str(a.path), *ctx.profile.harness_args(),
                                          *_param_args(p)],
                                         variant=_variant(a), build=a.config.as_dict(),
                                         params=_typed(p))
                    for a in arts if a.ok for i, p in enumerate(grid)}
        outcomes = ctx.measure(list(programs.values()))
        counts = self._callgrind(ctx, grid, programs, outcomes)
        cases: list[Case] = []
        for a in arts:
            variant, build = _variant(a), a.config.as_dict()
            for i, p in enumerate(grid):
                if not a.ok:
                    # The line that says what is wrong first (the table shows it), then
                    # the compiler's whole output for `cpulab show --json`.
                    cases.append(Case(variant, build, _typed(p),
                                      error=f"build failed: {first_error(a.error or '')}\n"
                                            f"{a.error}"))
                    continue
                prog = programs[(a.path, i)]
                cases += _cases(prog, outcomes[prog.key], counts.get(prog.key, {}))
        return cases

    def _callgrind(self, ctx: Context, grid: list[dict], programs: dict[tuple, Program],
                   outcomes: dict[str, Outcome]) -> dict[str, dict]:
        """program key -> harness case -> exact counts per unit (or why there are none);
        only when a claim or the table asks for them (valgrind is ~50x slower)."""
        if not self.description.needs_callgrind():
            return {}
        jobs, per_unit = {}, {}
        for (path, i), prog in programs.items():
            out = outcomes[prog.key].output
            for c in (out.meta.get("cases", []) if out else []):
                job = f"{prog.key}|{c['name']}"
                jobs[job] = _argv_for(path, grid[i], c["name"])
                per_unit[job] = (c.get("units_per_iter", 1), c.get("unit", "iter"))
        result: dict[str, dict] = {}
        if not jobs:
            return result
        # One callgrind call per kind of work, so that each job has its own units.
        for upi, unit in set(per_unit.values()):
            group = {j: f for j, f in jobs.items() if per_unit[j] == (upi, unit)}
            for job, got in ctx.callgrind(group, CALLGRIND_ITERS, upi, unit).items():
                key, _, case = job.rpartition("|")
                result.setdefault(key, {})[case] = got
        return result

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """The machine code of each variant's hot functions in every build (the build
        cache returns the binaries `run` built)."""
        targets = self.targets()
        variants = [v for v in self.description.variants if v.hot]
        arts = ctx.build((targets[v.name], cfg) for v in variants for cfg in ctx.configs)
        facts: dict[str, dict] = {}
        rows = []
        for a in arts:
            variant = _variant(a)
            code = _hot_code(a, self.description.variant(variant).hot)
            facts.setdefault(variant, {})[a.config.label] = code
            if "error" in code:
                ctx.note(f"{variant}: no machine code for {a.config.label}: "
                         f"{code['error']}")
                continue
            rows.append([variant, a.config.label, ", ".join(code["functions"]),
                         *(str(count_of(code["counts"], k)) for k in _ASM_COLUMNS)])
        tables = [EvidenceTable("the hot functions as compiled (source asm; counts of "
                                "instructions)", ["variant", "build", "functions",
                                                  *_ASM_COLUMNS], rows)] if rows else []
        return Evidence(tables, {ASM_FACT: facts,
                                 DESCRIPTION_FACT: str(self.description.path)})

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        return [judge(c, cases, evidence) for c in self.description.claims]


def _variant(a: Artifact) -> str:
    return a.target.meta["variant"]


def _param_args(params: dict) -> list[str]:
    return [arg for k, v in params.items() for arg in ("--param", f"{k}={v}")]


def _argv_for(path: Path, params: dict, case: str):
    return lambda n: [str(path), "--iters", str(n), "--reps", "1", "--no-pmu",
                      "--case", case, *_param_args(params)]


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _typed(params: dict) -> dict:
    """Parameters as the record keeps them: numbers as numbers (for plots and sorting)."""
    out: dict = {}
    for k, v in params.items():
        try:
            out[k] = int(v)
        except ValueError:
            out[k] = float(v) if _number(v) else v
    return out


def _cases(program: Program, outcome: Outcome, counts: dict) -> list[Case]:
    """The program's cases, each with its exact counts; a harness that measures several
    cases in one process tells them apart by the parameter `case`."""
    variant, build, params = program.variant or "?", program.build, program.params
    if outcome.error or outcome.output is None:
        return [Case(variant, build, dict(params), error=outcome.error or "no output")]
    names = outcome.output.cases()
    conditions = CaseConditions.of(outcome.processes)
    out = []
    for name in names:
        metrics, unavailable = case_metrics(outcome.output, name)
        exact = counts.get(name)
        if isinstance(exact, dict):
            metrics.update(exact)
        elif isinstance(exact, str):
            unavailable["instructions (callgrind)"] = {"source": "callgrind", "reason": exact}
        p = dict(params) | ({"case": name} if len(names) > 1 else {})
        out.append(Case(variant, build, p, metrics, unavailable, conditions=conditions))
    return out


def _hot_code(a: Artifact, symbols: tuple[str, ...]) -> dict:
    """{"functions", "counts"}: the instruction mix's categories and every mnemonic
    (prefixed MNEMONIC) counted over the hot functions; or {"error"}: why the code
    cannot be read."""
    if not a.ok:
        return {"error": f"build failed: {first_error(a.error or '')}"}
    try:
        fns = find_functions(a.path, list(symbols))
    except DisasmError as e:
        return {"error": str(e)}
    if not fns:
        return {"error": f"no function matching {', '.join(symbols)} in {a.path.name} "
                         "(inlined away? mark it noinline)"}
    counts: Counter[str] = Counter()
    for f in fns:
        counts.update(instruction_mix(f))
        mnemonics = Counter(i.mnemonic for i in disassemble(f))
        counts.update({f"{MNEMONIC}{m}": n for m, n in mnemonics.items()})
    return {"functions": [f.name for f in fns], "counts": dict(counts)}
