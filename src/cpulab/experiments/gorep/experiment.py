"""Experiment `gorep` (seed row S9): gorep against ripgrep, GNU grep, git grep, ugrep and
The Silver Searcher, modelled on ripgrep's own benchsuite: on the Go toolchain's source
tree, a large C tree (Debian's `linux` source package) and one large file of natural-
language text (the system's manual pages and documentation), page cache warm. The
cases (`PATTERNS`): a literal, the literal with -i, a word (-w), a class with a literal
suffix, a 5-word alternation and the same with -i, a Unicode class, a Unicode word
pattern, a pattern with no literal, and a rare word. How much is searched depends on
the profile (`SEARCHES`): the full profile takes every case x 1 and all threads over
the C tree and a 1 GiB file, the default 6 cases x all threads over the Go tree and
256 MiB, the quick 2 cases over the Go tree and 32 MiB.

Every tool's output for every case is first checked to be ripgrep's (the same lines,
sorted; commands.py makes them search the same files): a tool that differs is not
timed, its cases carry the difference (GNU grep and ag under LC_ALL=C read `\\w` and
`\\p{Greek}` otherwise than ripgrep). Then native/kernels/spawn's `command` case runs
each command line (posix_spawn, output to a file: GNU grep and ugrep stop at the
first match when it is /dev/null), all interleaved; figures per run:
wall time (clock) and the CPU time of the tool and its threads (getrusage of the
children, sw). Last, S9's own question: names and contents in one gorep run, against
find + grep and `rg --files | rg` + rg. Where gorep is more than 1.5x slower than
ripgrep, a CPU profile of gorep (go tool pprof -top) says where the time goes.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cpulab.build import BuildConfig, Target, go_build
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.experiments.gorep import commands, corpus
from cpulab.experiments.gorep.verdicts import CLAIMS
from cpulab.experiments.spawn.experiment import add_children, children_per_rep
from cpulab.measure.schedule import Program
from cpulab.paths import KERNELS, build_dir
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable

ALTERNATION = "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT|Holmes"  # ripgrep's benchsuite's
PATTERNS = (("error",), ("-i", "error"), ("-w", "for"), ("[A-Z]+_SUSPEND",),
            (ALTERNATION,), ("-i", ALTERNATION), ("\\p{Greek}",), ("\\w+ing\\s",),
            ("[A-Z]{2}[0-9]{3}",), ("zygote",))
ALL_THREADS = max(os.cpu_count() or 1, 2)


@dataclass(frozen=True)
class Searches:
    """What one profile searches: every pattern x thread count x tool, on the Go tree and
    on a text file of `large` bytes; each command run `reps` times per process (None:
    the profile's reps). Every run is a fresh process of the tool, so the rounds, not
    the runs inside one, are what the intervals rest on."""

    patterns: tuple[tuple[str, ...], ...]
    threads: tuple[int, ...]
    large: int
    reps: int | None = None
    c_tree: bool = True  # the C tree too (fetched once, ~20 s; git grep's index ~1 min)


# The old full profile's 176 programs took over 55 minutes on this project's 2-core
# machines. The default keeps 6 of the 10 cases (one per search path: a literal, -i, a
# word, a literal suffix, a folded alternation, no literal) at all threads, one run per
# process after the harness's warm-up run; with the C tree too its 95 programs took
# 21.6 minutes here (others using 1.3 cores meanwhile), most of it in the C tree, which
# is therefore the full profile's only. The quick one: 2 cases, 65 s.
SEARCHES = {
    "quick": Searches((("error",), ("[A-Z]+_SUSPEND",)), (ALL_THREADS,), 32 << 20, reps=1,
                      c_tree=False),
    "default": Searches(tuple(PATTERNS[i] for i in (0, 1, 2, 3, 5, 8)), (ALL_THREADS,),
                        256 << 20, reps=1, c_tree=False),
    "full": Searches(PATTERNS, (1, ALL_THREADS), 1 << 30),
}
NAMES_PATTERN = "gopher"
PROFILE_ABOVE = 1.5  # gorep/rg past which a CPU profile of gorep is taken
NAMES_TOOLS = ("gorep-names", "find+grep", "rg-files+rg")


def pattern_label(p: tuple[str, ...]) -> str:
    return " ".join(p)


class Gorep(Experiment):
    name = "gorep"
    seed_row = "S9"
    title = "gorep against ripgrep, GNU grep, git grep, ugrep and ag"
    summary = (
        "S9's gorep found directory names, file names and contents matching one regular "
        "expression in one command. Times gorep's content search against ripgrep, GNU "
        "grep, git grep, ugrep and ag on ripgrep's benchsuite cases over the Go source "
        "tree, Linux's C tree and a large file of real text, warm, 1 and all threads, "
        "outputs checked equal to ripgrep's first (wall and CPU time per run); then "
        "names + contents in one gorep run against find + grep and rg --files | rg + rg."
    )
    compilers = ("gcc", "go")  # gcc: the timing kernel (spawn.c); go: gorep
    table_metrics = ("time", "child-cpu")
    claims = CLAIMS

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable("S9: gorep (no figures)", ["what", "the seed"],
                          [["one command", "directory names, file names and (-g) contents"],
                           ["example", "gorep -g go..p ."],
                           ["planned", "mmap reading (S8), colour only on a terminal (S10)"]])]

    def targets(self) -> dict[str, Target]:
        return {"timer": _timer()}

    def variants(self) -> list[str]:
        return [*commands.TOOLS, *NAMES_TOOLS]

    def run(self, ctx: Context) -> list[Case]:
        go_cfg = next((c for c in ctx.configs if c.toolchain.family == "go"), None)
        c_cfg = next((c for c in ctx.configs if c.toolchain.family != "go"), None)
        if go_cfg is None or c_cfg is None:
            raise RuntimeError("gorep needs the Go toolchain and a C compiler (--cc gcc,go)")
        (timer,) = ctx.build([(_timer(), c_cfg)])
        if not timer.ok:
            raise RuntimeError(f"the timing kernel did not build: {timer.error}")
        exe = str(go_build(go_cfg, "."))
        self._exe, self._go = exe, go_cfg
        ctx.reporter.phase("preparing the trees, their git repositories and the large file")
        tree = corpus.go_source(go_cfg.toolchain.cc)
        work = build_dir() / "gorep"
        searches = SEARCHES[ctx.profile.name]
        corpora = {"go-tree": (tree, corpus.git_repository(tree, work / "gosrc.git"))}
        if searches.c_tree:
            ctree = corpus.c_tree()
            corpora["c-tree"] = (ctree, corpus.git_repository(ctree, work / "ctree.git"))
        size = searches.large
        large_dir = work / f"text-{size}"
        corpus.large_file(corpus.text_sources(), large_dir / "text.txt", size)
        corpora[f"text-{size >> 20}MiB"] = (large_dir, None)
        patterns, reps = searches.patterns, searches.reps or ctx.profile.reps
        self._corpora, self._patterns = corpora, patterns
        programs, cases = [], []
        argv_dir = work / "argv"
        argv_dir.mkdir(parents=True, exist_ok=True)
        ctx.reporter.phase("checking that every tool prints what ripgrep prints")
        for cname, (root, gdir) in corpora.items():
            for pat in patterns:
                for threads in searches.threads:
                    params = {"corpus": cname, "pattern": pattern_label(pat), "threads": threads}
                    reference = None
                    for tool in sorted(commands.TOOLS, key=lambda t: t != "rg"):
                        prog = exe if tool == "gorep" else commands.program(tool)
                        if prog is None or (tool == "git-grep" and gdir is None):
                            why = (f"{tool} is not installed (make setup)" if prog is None
                                   else "git grep searches a git repository; this is one file")
                            cases.append(Case(tool, None, dict(params), error=why))
                            continue
                        argv = commands.argv(tool, prog, pat[-1], root, threads, gdir)
                        argv = _with_flags(argv, pat[:-1])
                        got, why = _output(argv)
                        if tool == "rg":
                            reference = got
                        elif why is None and reference is not None:
                            why = commands.difference(got, reference)
                        if why:
                            cases.append(Case(tool, None, dict(params), error=why))
                            continue
                        name = f"{cname}|{pattern_label(pat)}|{threads}|{tool}"
                        programs.append(_program(timer.path, argv_dir, name, argv, reps,
                                                 tool, params))
        names = {"corpus": "go-tree", "pattern": NAMES_PATTERN, "threads": 2}
        for tool, argv in _names_commands(exe, tree).items():
            programs.append(_program(timer.path, argv_dir, f"names|{tool}", argv, reps,
                                     tool, names))
        outcomes = ctx.measure(programs)
        for p in programs:
            out = outcomes[p.key]
            (case,) = cases_of(p, out, case_names=["command"])
            if not case.error and out.output is not None:
                add_children(case, children_per_rep(out.output, "command"))
            cases.append(case)
        return cases

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        rows = []
        exe, go = getattr(self, "_exe", None), getattr(self, "_go", None)
        for cname, pattern, threads, ratio in slow_patterns(cases):
            if exe is None or go is None:
                break
            root = self._corpora[cname][0]
            pat = next(p for p in self._patterns if pattern_label(p) == pattern)
            top = _profile(exe, go, root, pat, threads, build_dir() / "gorep" / "profiles")
            rows.append([cname, pattern, str(threads), f"{ratio:.2f}x", top])
        table = EvidenceTable(
            f"Where gorep's time goes when it takes more than {PROFILE_ABOVE}x ripgrep's CPU "
            "time (go tool pprof -top of one run, CPU samples)",
            ["corpus", "pattern", "threads", "gorep/rg CPU", "top functions (flat %)"], rows)
        return Evidence([table] if rows else [])


def slow_patterns(cases: list[Case]) -> list[tuple[str, str, int, float]]:
    """(corpus, pattern, threads, gorep/rg) where gorep is over PROFILE_ABOVE x slower,
    in CPU time as the claims against ripgrep compare them (else wall time)."""
    times: dict[tuple[str, str, int], dict[str, float]] = {}
    for c in cases:
        metric = next((m for m in ("child-cpu", "time") if m in c.metrics), None)
        if not c.error and c.variant in ("gorep", "rg") and metric:
            k = (str(c.params.get("corpus")), str(c.params.get("pattern")),
                 int(c.params.get("threads", 0)))
            times.setdefault(k, {})[c.variant] = c.metrics[metric].median
    return [(*k, t["gorep"] / t["rg"]) for k, t in sorted(times.items())
            if len(t) == 2 and t["gorep"] / t["rg"] > PROFILE_ABOVE]


def _timer() -> Target:
    return Target("spawn", (KERNELS / "spawn" / "spawn.c",))


def _with_flags(argv: list[str], flags: tuple[str, ...]) -> list[str]:
    """The pattern's own flags (-i, -w) go before the `--` that ends the options."""
    i = argv.index("--")
    return [*argv[:i], *flags, *argv[i:]]


def _output(argv: list[str]) -> tuple[list[str], str | None]:
    """The command's sorted output lines, or why it could not be had."""
    root = Path(argv[-1]) if argv[-1].startswith("/") else Path(argv[argv.index("-C") + 1])
    try:
        p = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           env={**_env(), **commands.ENV}, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [], f"{argv[0]}: {e}"
    if p.returncode not in (0, 1):
        return [], f"exit status {p.returncode}: {p.stderr.strip()[-200:]}"
    return commands.lines(p.stdout, root), None


def _env() -> dict:
    import os

    return dict(os.environ)


def _program(timer: Path, argv_dir: Path, name: str, argv: list[str], reps: int, tool: str,
             params: dict) -> Program:
    """The timing kernel running one tool's command line (kept in a file named `name`);
    the tool is not built here, so the program has no build."""
    f = argv_dir / (name.replace("/", "_").replace("|", "_").replace(" ", "_") + ".argv")
    f.write_text("\n".join(argv) + "\n")
    out = argv_dir / "output.txt"  # not /dev/null: GNU grep and ugrep stop at a first match
    # exit status 1 is every tool's "no line found" (the rare word in Linux's tree), as
    # the output check takes it; 2 and up fail the run
    return Program([str(timer), "--case", "command", "--param", f"command={f}",
                         "--param", f"stdout={out}", "--param", "ok_status=1",
                         "--iters", "1", "--reps", str(reps), "--cpu", "-1"],
                   variant=tool, params=dict(params), env=dict(commands.ENV))


def _names_commands(exe: str, tree: Path) -> dict[str, list[str]]:
    """S9's question: directory names, file names and contents matching one pattern."""
    p, r = NAMES_PATTERN, str(tree)
    return {
        "gorep-names": [exe, "-g", "--hidden", "--no-ignore", "--color", "never", p, r],
        "find+grep": ["/bin/sh", "-c", f"find {r} -regextype posix-extended -regex "
                      f"'.*/[^/]*{p}[^/]*'; grep -rnIE -- '{p}' {r}"],
        "rg-files+rg": ["/bin/sh", "-c", f"rg --files -uu {r} | rg -- '{p}'; "
                        f"rg -n --no-heading -uu -- '{p}' {r}"],
    }


def _profile(exe: str, go: BuildConfig, root: Path, pat: tuple[str, ...], threads: int,
             folder: Path) -> str:
    """The top of a CPU profile of one gorep run, as `func flat%` pairs."""
    folder.mkdir(parents=True, exist_ok=True)
    prof = folder / f"{abs(hash((str(root), pat, threads)))}.pprof"
    argv = _with_flags(commands.argv("gorep", exe, pat[-1], root, threads), pat[:-1])
    try:
        subprocess.run([argv[0], "--cpuprofile", str(prof), *argv[1:]], capture_output=True,
                       timeout=900, env={**_env(), **commands.ENV})
        top = subprocess.run([go.toolchain.cc, "tool", "pprof", "-top", "-nodecount=8", exe,
                              str(prof)], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no profile: {e}"
    rows = []
    for line in top.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[1].endswith("%") and not line.lstrip().startswith("flat"):
            rows.append(f"{parts[-1]} {parts[1]}")
    return "; ".join(rows) or f"no profile: {top.stderr.strip()[-200:]}"


EXPERIMENT = Gorep()
