"""Experiment `spawn` (seed row S13): what a process costs, and what a no-op build costs
with GNU make, ninja and CMake's two generators.

Part one, native/kernels/spawn: create, run and reap one do-nothing child per iteration
with fork+_exit, fork+exec, vfork+exec and posix_spawn of a static child, posix_spawn of
the same child linked dynamically, and posix_spawn of `/bin/sh -c true`. Figures per
process: ns (clock) and TSC ticks (tsc), the parent's page faults and CPU (sw, harness
counters), the children's page faults and CPU from getrusage(RUSAGE_CHILDREN) (sw).

Part two, real no-op builds (projects.py): a generated C project (noop_build.py) of 1,000
objects, and 10,000 in the full profile (quick: 200), and the lab's own native/ CMake
project. The generated one is built by make (one flat Makefile, the control), by make
the autotools way (a shell loop, one make per directory), by ninja, and by CMake's "Unix
Makefiles" and "Ninja" generators (cmake_project.py); native/ by CMake's two. Then the
same kernel times every no-op rebuild, interleaved, one process per rebuild. Per
rebuild: ns (clock), the page faults and CPU of the tool and its children (sw, rusage),
and the processes and system calls it makes (sw: perf's kernel tracepoints, else strace;
else unavailable). Every output's modification time is compared before and after: a
rebuild that rebuilt anything fails its case. Verdicts per make-based build system,
each against the fastest ninja build of the same project.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cpulab.build import Artifact, Target
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.experiments.spawn import noop_build, projects
from cpulab.measure import syscalls
from cpulab.measure.kernel_output import ExtraLine, KernelOutput
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome, Program
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable, Verdict
from cpulab.results.ratios import format_ratio, median_ratio

DIR = KERNELS / "spawn"
SPAWNS = ("fork-exit", "fork-exec", "vfork-exec", "posix-spawn", "posix-spawn-dynamic",
          "posix-spawn-sh")
NEEDS_CHILD = ("fork-exec", "vfork-exec", "posix-spawn")  # run --param child
TOOLS = noop_build.TOOLS
# the make-based build systems, each judged against the fastest ninja of the same project
MAKES = {"make": "GNU make, one flat Makefile", "make-recursive":
         "GNU make, recursive the autotools way", "cmake-make":
         "CMake's Unix Makefiles generator"}
NINJAS = ("ninja", "cmake-ninja")
# Objects of the generated project per profile. Each size is first built four times
# (make, ninja, CMake's two generators): for 10,000 objects 451 s of the full profile's
# 646 s here (2 cores); 1,000 objects took 45 s and already show a no-op past a toy.
TARGETS = {"quick": (200,), "default": (1_000,), "full": (1_000, 10_000)}
PER_PROCESS = "posix-spawn-dynamic"  # the cost of one process a build tool starts
MOST = 0.5


class Spawn(Experiment):
    name = "spawn"
    seed_row = "S13"
    title = "Process creation, and no-op builds with make, ninja and CMake"
    summary = (
        "S13's comments blame many short-lived processes and pathname lookups for slow "
        "no-op makes, and praise ninja's. Measures ns and page faults per process for "
        "fork, vfork and posix_spawn of a static and a dynamic child and of /bin/sh, then "
        "times the no-op rebuild of a generated C project by make, recursive make, ninja "
        "and CMake's Makefile and Ninja generators, and of the lab's own native/ CMake "
        "project, with the processes, system calls and page faults of each rebuild."
    )
    compilers = ("gcc",)  # the loops only call into the kernel: the compiler is moot
    opts = ("O2",)
    table_metrics = ("time", "tsc", "page-faults", "child-page-faults", "child-cpu",
                     "processes", "syscalls")

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S13 (and S12): no-op builds, from the discussion of Torvalds' page-fault post",
            ["build", "what was reported"],
            [
                ["Linux allmodconfig, no-op make", "~30 s, half of it in make itself (S12)"],
                ["Chromium, no-op ninja", "seconds"],
                ["a firm moving from autotools to gyp+ninja", "build times halved"],
                ["why make is slow", "many short-lived processes (shell snippets, fork/"
                 "exit) and pathname lookups"],
            ],
        )]

    def target(self) -> Target:
        return Target("spawn", (DIR / "spawn.c",))

    def child_target(self, static: bool) -> Target:
        if static:
            return Target("spawn-child-static", (DIR / "child.c",), ldflags=("-static",))
        return Target("spawn-child", (DIR / "child.c",))

    def targets(self) -> dict[str, Target]:
        return {v: self.target() for v in (*SPAWNS, *TOOLS)}

    def hot_symbols(self, variant: str) -> list[str]:
        return [{"fork-exit": "fork_exit", "fork-exec": "fork_exec",
                 "vfork-exec": "vfork_exec*", "posix-spawn": "spawn_static",
                 "posix-spawn-dynamic": "spawn_dynamic", "posix-spawn-sh": "spawn_sh"}.get(
                     variant, "spawn_command")]

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        cfg = ctx.configs[0]
        arts = ctx.build([(self.target(), c) for c in ctx.configs]
                         + [(self.child_target(True), cfg), (self.child_target(False), cfg)])
        kernels, (static, dynamic) = arts[:-2], arts[-2:]
        child, linkage = _child(ctx, static, dynamic)
        sizes = TARGETS[ctx.profile.name]
        with tempfile.TemporaryDirectory(prefix="cpulab-spawn-") as tmp:
            rebuilds, errors = projects.prepare(Path(tmp), sizes, ctx.profile.quick,
                                                ctx.profile.timeout_s * 4, ctx.reporter.phase)
            for (project, tool), why in errors.items():
                ctx.note(f"{tool} on {projects.project_label(project)} not measured: {why}")
            order = [*map(str, sizes), projects.NATIVE_PROJECT]
            return self._measure(ctx, kernels, child, linkage, dynamic, rebuilds, errors,
                                 order, Path(tmp))

    def _measure(self, ctx: Context, kernels: list[Artifact], child: Path | None,
                 linkage: str, dynamic: Artifact,
                 rebuilds: dict[tuple[str, str], projects.Rebuild],
                 errors: dict[tuple[str, str], str], order: list[str],
                 scratch: Path) -> list[Case]:
        built = [a for a in kernels if a.ok]
        spawn_args = ["--param", f"child={child}"] if child else []
        if dynamic.ok:
            spawn_args += ["--param", f"child_dynamic={dynamic.path}"]
        programs = [Program([str(a.path), *spawn_args,
                                      *ctx.profile.harness_args()], key=_key(a)) for a in built]
        for (project, tool), rebuild in rebuilds.items():
            argv_file = scratch / f"noop-{project}-{tool}.argv"
            argv_file.write_text("\n".join(rebuild.argv) + "\n")
            programs += [Program([
                str(a.path), "--case", "command", "--param", f"command={argv_file}",
                *ctx.profile.harness_args()], key=_key(a, tool, project)) for a in built[:1]]
        before = {k: r.outputs_state() for k, r in rebuilds.items()}
        outcomes = ctx.measure(programs)

        cases: list[Case] = []
        for a in kernels:
            build = a.config.as_dict()
            if not a.ok:
                cases += [Case(v, build, error=f"build failed: {a.error}") for v in SPAWNS]
                continue
            found = _cases(outcomes[_key(a)], build, {}, SPAWNS)
            for c in found:
                if c.variant in NEEDS_CHILD:
                    c.params["child"] = linkage
            cases += found
        for project in order:
            params = projects.project_params(project)
            for tool in projects.project_tools(project):
                rebuild = rebuilds.get((project, tool))
                if rebuild is None or not built:
                    why = errors.get((project, tool)) or "the spawn kernel did not build"
                    cases.append(Case(tool, None, dict(params), error=why))
                    continue
                (case,) = _cases(outcomes[_key(built[0], tool, project)], None, params,
                                 (tool,), rename={"command": tool})
                was = before[(project, tool)]
                changed = _changed(was, rebuild.outputs_state())
                if changed and not case.error:
                    case.error = f"the no-op rebuild rebuilt {changed} of {len(was)} outputs"
                if not case.error:
                    _add_counts(ctx, case, rebuild.argv)
                cases.append(case)
        return cases

    # ---- evidence and verdicts (pure) ------------------------------------------------

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        return Evidence([_spawn_table(cases), _build_table(cases)])

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [v for tool in MAKES for v in (_make_slower_than_ninja(ok, tool),
                                              _processes_explain_make(ok, tool))]


# ---- running: helpers ----------------------------------------------------------------


def _key(a: Artifact, tool: str = "", project: str = "") -> str:
    return f"{a.config.label}|{tool}|{project}"


def _child(ctx: Context, static: Artifact, dynamic: Artifact) -> tuple[Path | None, str]:
    """The child the exec cases run, and how it is linked ("static", or why not)."""
    if static.ok:
        return static.path, "static"
    first = (static.error or "").strip().splitlines()[:1]
    if dynamic.ok:
        ctx.note("static linking failed (" + (first[0] if first else "no message") +
                 "); fork-exec, vfork-exec and posix-spawn run the dynamic child")
        return dynamic.path, "dynamic (static link failed)"
    ctx.note("neither the static nor the dynamic child built: the exec cases cannot run")
    return None, "none"


def _cases(outcome: Outcome, build: dict | None, params: dict, names: tuple[str, ...],
           rename: dict[str, str] | None = None) -> list[Case]:
    """Cases from every round's output, with the children's rusage added per unit."""
    rename = rename or {}
    cases = cases_from_outcome(outcome, lambda n: rename.get(n, n), build, params, names)
    for c in cases:
        if c.error or outcome.output is None:
            continue
        harness_name = next((k for k, v in rename.items() if v == c.variant), c.variant)
        add_children(c, children_per_rep(outcome.output, harness_name))
    return cases


def children_per_rep(out: KernelOutput, case: str) -> list[ExtraLine]:
    """The `children` lines of the timed calls of `case`: of each round's lines, the last
    as many as that round has reps (warm-up and calibration calls print theirs first)."""
    timed = []
    for rnd in sorted({r.round for r in out.reps} | {x.round for x in out.extra}):
        lines = [x for x in out.extra if x.round == rnd and x.get("type") == "children"
                 and x.get("case") == case]
        reps = [r for r in out.reps if r.round == rnd and r.case == case]
        if len(lines) < len(reps):
            raise ValueError(f"{case}: {len(reps)} reps but {len(lines)} children lines")
        own = lines[len(lines) - len(reps):]
        timed += own
        for line, rep in zip(own, reps, strict=True):
            if line["iters"] != rep.iters:
                raise ValueError(f"{case}: a children line of {line['iters']} iterations "
                                 f"for a rep of {rep.iters}")
    return timed


def add_children(case: Case, lines: list[ExtraLine]) -> None:
    if not lines:
        case.unavailable["child-page-faults"] = {"source": "sw",
                                                 "reason": "no getrusage lines"}
        return
    unit = case.metrics["time"].unit.split("/", 1)[1]
    rounds = [x.round for x in lines]
    case.metrics["child-page-faults"] = Metric.of(
        [x["minflt"] / x["iters"] for x in lines], f"faults/{unit}", "sw", rounds)
    case.metrics["child-major-faults"] = Metric.of(
        [x["majflt"] / x["iters"] for x in lines], f"faults/{unit}", "sw", rounds)
    case.metrics["child-cpu"] = Metric.of(
        [(x["utime_ns"] + x["stime_ns"]) / x["iters"] for x in lines], f"ns/{unit}", "sw",
        rounds)


def _changed(before: dict[str, int], after: dict[str, int]) -> int:
    return sum(before[p] != after.get(p) for p in before)


def _add_counts(ctx: Context, case: Case, argv: list[str]) -> None:
    """Processes and system calls per rebuild, counted over as many runs as rounds."""
    runs = []
    try:
        for _ in range(ctx.profile.rounds):
            runs.append(syscalls.count(argv, env=noop_build.clean_env(),
                                            timeout=ctx.profile.timeout_s))
    except syscalls.CountError as e:
        for m in ("processes", "syscalls"):
            case.unavailable[m] = {"source": "sw", "reason": str(e)}
        ctx.note(f"processes and system calls per rebuild unavailable: {e}")
        return
    ctx.note(f"processes and system calls per rebuild counted by {runs[0].tool}")
    case.metrics["processes"] = Metric.of([r.processes for r in runs], "processes/run", "sw")
    case.metrics["syscalls"] = Metric.of([r.syscalls for r in runs], "syscalls/run", "sw")


# ---- evidence ------------------------------------------------------------------------


def _fmt(c: Case, metric: str, scale: float = 1.0, digits: int = 0) -> str:
    v = c.value(metric)
    if v is None:
        why = c.unavailable.get(metric, {}).get("reason")
        return "unavailable" if why else "-"
    return f"{v * scale:,.{digits}f}"


def _spawn_table(cases: list[Case]) -> EvidenceTable:
    rows = [[c.variant, c.build_label, c.params.get("child", "-"), _fmt(c, "time", 1e-3, 1),
             _fmt(c, "page-faults", digits=1), _fmt(c, "child-page-faults", digits=1),
             _fmt(c, "child-cpu", 1e-3, 1)]
            for c in cases if c.variant in SPAWNS and not c.error]
    return EvidenceTable("Per process: create, run and reap a do-nothing child",
                         ["variant", "build", "child", "us/process (clock)",
                          "parent faults/process (sw)", "child faults/process (sw)",
                          "child CPU us/process (sw)"], rows)


def _builds(cases: list[Case]) -> dict[str, dict[str, Case]]:
    """project label -> tool -> case; generated sizes ascending, then native/."""
    keyed: dict[tuple[int, str], dict[str, Case]] = {}
    for c in cases:
        if c.variant in TOOLS and not c.error:
            native = c.params.get("project") == projects.NATIVE_PROJECT
            project = projects.NATIVE_PROJECT if native else str(c.params["targets"])
            order = (1 << 62) if native else c.params["targets"]
            keyed.setdefault((order, projects.project_label(project)), {})[c.variant] = c
    return {label: by for (_, label), by in sorted(keyed.items())}


def _fastest_ninja(by: dict[str, Case]) -> tuple[str, Case] | None:
    """The peer: of the ninja builds of one project, the one with the lowest median."""
    found = [(t, by[t]) for t in NINJAS if t in by and by[t].value("time") is not None]
    return min(found, key=lambda tc: tc[1].value("time")) if found else None


def _build_table(cases: list[Case]) -> EvidenceTable:
    rows = []
    for label, by in _builds(cases).items():
        peer = _fastest_ninja(by)
        for tool in TOOLS:
            c = by.get(tool)
            if c is None:
                continue
            r = median_ratio(c, peer[1], "time") if peer else None
            rows.append([label, tool, _fmt(c, "time", 1e-6, 2),
                         f"{format_ratio(r)} ({peer[0]})" if r and peer else "-",
                         _fmt(c, "processes"), _fmt(c, "syscalls"),
                         _fmt(c, "child-page-faults"), _fmt(c, "child-cpu", 1e-6, 2)])
    return EvidenceTable("No-op rebuild of a generated C project and of native/ (one rebuild "
                         "per row's figures)",
                         ["project", "tool", "ms/run (clock)", "/ fastest ninja (clock)",
                          "processes/run (sw)", "syscalls/run (sw)", "page faults/run (sw)",
                          "CPU ms/run (sw)"], rows)


# ---- verdicts ------------------------------------------------------------------------


def _make_slower_than_ninja(cases: list[Case], tool: str) -> Verdict:
    claim = f"(a) a no-op build takes longer with {tool} ({MAKES[tool]}) than with ninja"
    seed = ("no-op make of a kernel allmodconfig ~30 s, half in make; Chromium's no-op "
            "ninja takes seconds; autotools to gyp+ninja halved a firm's build times")
    rows, above, below = [], 0, 0
    for label, by in _builds(cases).items():
        peer = _fastest_ninja(by)
        if peer is None or tool not in by:
            continue
        r = median_ratio(by[tool], peer[1], "time")
        if r is None:
            continue
        above += r.low > 1
        below += r.high < 1
        rows.append(f"{label}: {tool}/{peer[0]} = {format_ratio(r)} "
                    f"({by[tool].value('time') / 1e6:.2f} vs "
                    f"{peer[1].value('time') / 1e6:.2f} ms per no-op, clock)")
    if not rows:
        return Verdict(claim, "unmeasurable", f"no project has both a {tool} and a ninja "
                       "rebuild", seed)
    kind = ("confirmed" if above == len(rows) else "refuted" if below == len(rows)
            else "inconclusive")
    head = (f"{tool} slower than the fastest ninja (95% interval above 1) in {above} of "
            f"{len(rows)} projects, faster in {below}: ")
    return Verdict(claim, kind, head + "; ".join(rows), seed)


def _spawn_cost(cases: list[Case]) -> Case | None:
    return next((c for c in cases if c.variant == PER_PROCESS and "time" in c.metrics), None)


def _processes_explain_make(cases: list[Case], tool: str) -> Verdict:
    claim = (f"(b) where {tool}'s no-op ({MAKES[tool]}) is slower than ninja's, the "
             "processes it starts account for most of the difference")
    seed = "many short-lived processes (shell snippets, fork/exit) and pathname lookups"
    per = _spawn_cost(cases)
    if per is None:
        return Verdict(claim, "unmeasurable", f"no {PER_PROCESS} measurement", seed)
    t_proc = per.value("time")
    rows, shares = [], []
    for label, by in _builds(cases).items():
        c, peer = by.get(tool), _fastest_ninja(by)
        if c is None or peer is None:
            continue
        name, ninja = peer
        r = median_ratio(c, ninja, "time")
        if r is None or r.low <= 1:
            continue  # not slower than ninja: nothing to explain
        if "processes" not in c.metrics or "processes" not in ninja.metrics:
            why = (c.unavailable.get("processes") or ninja.unavailable.get("processes")
                   or {}).get("reason", "not counted")
            rows.append(f"{label}: processes unavailable ({why})")
            continue
        extra = c.value("time") - ninja.value("time")
        procs = c.value("processes") - ninja.value("processes")
        share = procs * t_proc / extra
        shares.append(share)
        rows.append(f"{label}: {tool} starts {c.value('processes'):.0f} processes per no-op "
                    f"({name} {ninja.value('processes'):.0f}); x {t_proc / 1e3:.0f} us "
                    f"({PER_PROCESS}, clock) = {share:.0%} of its extra {extra / 1e6:.2f} ms")
    head = (f"model: extra processes x the measured cost of one ({PER_PROCESS}) / the "
            f"extra no-op time over the fastest ninja")
    if not shares:
        return Verdict(claim, "unmeasurable", head + f": no {tool} rebuild both slower than "
                       "ninja's and with processes counted" + "".join("; " + r for r in rows),
                       seed)
    kind = ("confirmed" if all(s > MOST for s in shares) else
            "refuted" if all(s < MOST for s in shares) else "inconclusive")
    return Verdict(claim, kind, head + ": " + "; ".join(rows), seed)


EXPERIMENT = Spawn()
