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
rebuild that rebuilt anything fails its case. Claims per make-based build system,
each against the ninja build whose files the same generator wrote (make and recursive
make against noop_build's ninja, CMake's Makefiles against CMake's Ninja), in every
project: slower, and where slower, the share of the difference that its extra
processes account for at the measured cost of one (a model, `process-share`). The
evidence table shows each rebuild against the fastest ninja of its project.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cpulab.build import Artifact, Target
from cpulab.claims import ClaimSpec
from cpulab.claims.cases import group_of
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.experiments.spawn import noop_build, projects
from cpulab.measure import syscalls
from cpulab.measure.kernel_output import ExtraLine, KernelOutput
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome, Program
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable
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
# Each make-based build system's ninja peer: the one whose build files the same generator
# wrote (noop_build's flat files, or CMake), so that the tool is what differs.
PEER_OF = {"make": "ninja", "make-recursive": "ninja", "cmake-make": "cmake-ninja"}
# Objects of the generated project per profile. Each size is first built four times
# (make, ninja, CMake's two generators): for 10,000 objects 451 s of the full profile's
# 646 s here (2 cores); 1,000 objects took 45 s and already show a no-op past a toy.
TARGETS = {"quick": (200,), "default": (1_000,), "full": (1_000, 10_000)}
PER_PROCESS = "posix-spawn-dynamic"  # the cost of one process a build tool starts
MOST = 0.5
# On a make-based rebuild slower than its ninja peer: the share of the extra time its
# extra processes account for (add_process_shares; source model).
SHARE = "process-share"
SEED_NOOP = ("no-op make of a kernel allmodconfig ~30 s, half in make; Chromium's no-op "
             "ninja takes seconds; autotools to gyp+ninja halved a firm's build times")
SEED_PROCESSES = "many short-lived processes (shell snippets, fork/exit) and pathname lookups"


def _claims(tool: str) -> tuple[ClaimSpec, ClaimSpec]:
    what, peer = MAKES[tool], PEER_OF[tool]
    return (
        ClaimSpec("faster", peer, than=tool, metric="time", seed=SEED_NOOP,
                  text=f"(a) a no-op build takes longer with {tool} ({what}) than with "
                       f"ninja"),
        ClaimSpec("at-least", tool, metric=SHARE, value=MOST, seed=SEED_PROCESSES,
                  text=f"(b) where {tool}'s no-op ({what}) is slower than ninja's, the "
                       "processes it starts account for most of the difference"))


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
                     "processes", "syscalls", SHARE)
    claims = tuple(c for tool in MAKES for c in _claims(tool))

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
        kernel_runs = {a.path: Program([str(a.path), *spawn_args, *ctx.profile.harness_args()],
                                       build=a.config.as_dict()) for a in built}
        # One kernel times every rebuild: the tool is the variant, the project its params.
        rebuild_runs = {}
        for (project, tool), rebuild in rebuilds.items():
            argv_file = scratch / f"noop-{project}-{tool}.argv"
            argv_file.write_text("\n".join(rebuild.argv) + "\n")
            for a in built[:1]:
                rebuild_runs[(project, tool)] = Program(
                    [str(a.path), "--case", "command", "--param", f"command={argv_file}",
                     *ctx.profile.harness_args()],
                    variant=tool, params=projects.project_params(project))
        before = {k: r.outputs_state() for k, r in rebuilds.items()}
        outcomes = ctx.measure([*kernel_runs.values(), *rebuild_runs.values()])

        cases: list[Case] = []
        for a in kernels:
            build = a.config.as_dict()
            if not a.ok:
                cases += [Case(v, build, error=f"build failed: {a.error}") for v in SPAWNS]
                continue
            p = kernel_runs[a.path]
            found = _cases(p, outcomes[p.key], SPAWNS)
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
                p = rebuild_runs[(project, tool)]
                (case,) = _cases(p, outcomes[p.key])
                was = before[(project, tool)]
                changed = _changed(was, rebuild.outputs_state())
                if changed and not case.error:
                    case.error = f"the no-op rebuild rebuilt {changed} of {len(was)} outputs"
                if not case.error:
                    _add_counts(ctx, case, rebuild.argv)
                cases.append(case)
        add_process_shares(cases)
        return cases

    # ---- evidence and verdicts (pure) ------------------------------------------------

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        return Evidence([_spawn_table(cases), _build_table(cases)])


# ---- running: helpers ----------------------------------------------------------------


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


def _cases(p: Program, outcome: Outcome, names: tuple[str, ...] = ()) -> list[Case]:
    """Cases from every round's output, with the children's rusage added per unit. A
    rebuild's program names its tool; the harness calls that case `command`."""
    cases = cases_of(p, outcome, case_names=names)
    for c in cases:
        if c.error or outcome.output is None:
            continue
        add_children(c, children_per_rep(outcome.output, "command" if p.variant else c.variant))
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


# ---- the processes' share of a slower no-op ----------------------------------------


def add_process_shares(cases: list[Case]) -> None:
    """On each make-based rebuild slower than its ninja peer (PEER_OF) in the same
    project: the share of the extra time that its extra processes account for, at the
    measured cost of one (PER_PROCESS, median), round by round: (processes - the peer's)
    x cost / (time - the peer's time in that round). Source `model`: a count times a
    cost, not a measurement of where the time went. Where it cannot be had, the reason."""
    per = next((c for c in cases if c.variant == PER_PROCESS and not c.error
                and "time" in c.metrics), None)
    by = {(c.variant, group_of(c)): c for c in cases if not c.error}
    for c in cases:
        if c.variant not in MAKES or c.error or "time" not in c.metrics:
            continue
        peer = by.get((PEER_OF[c.variant], group_of(c)))
        why = _no_share(c, peer, per)
        if why:
            c.unavailable[SHARE] = {"source": "model", "reason": why}
            continue
        assert peer is not None and per is not None
        cost = (c.value("processes") - peer.value("processes")) * per.metrics["time"].median
        mine, theirs = c.metrics["time"], peer.metrics["time"].sample.by_process()
        tags = mine.processes or tuple(range(len(mine.values)))
        # a round not slower than the peer's has a difference of ~0: a share past any
        # bound, which widens the interval instead of dividing by zero
        c.metrics[SHARE] = Metric.of(
            [cost / max(v - theirs.get(p, peer.metrics["time"].median), 1.0)
             for v, p in zip(mine.values, tags, strict=True)], "share", "model",
            mine.processes)


def _no_share(c: Case, peer: Case | None, per: Case | None) -> str | None:
    """Why a rebuild has no process share, or None."""
    name = PEER_OF[c.variant]
    if per is None:
        return f"no {PER_PROCESS} measurement (the cost of one process)"
    if peer is None or "time" not in peer.metrics:
        return f"no {name} rebuild of this project"
    r = median_ratio(c, peer, "time")
    if r is None or r.low <= 1:
        return (f"not slower than {name} ({format_ratio(r) if r else 'no ratio'}): no "
                "difference to explain")
    for case in (c, peer):
        if "processes" not in case.metrics:
            why = case.unavailable.get("processes", {}).get("reason", "not counted")
            return f"processes of {case.variant} unavailable ({why})"
    return None


EXPERIMENT = Spawn()
