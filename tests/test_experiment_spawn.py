"""The `spawn` experiment (S13): process creation and no-op builds.

The kernel is checked by what it must do: every child runs and exits 0 (a failing one
fails the run), the children's getrusage lines belong to the timed calls, and a child
faults its pages in where the parent (vfork, posix_spawn) takes none. The generated
project really is built, really is up to date afterwards, and really rebuilds when a
header changes. Counting and verdicts are tested on fixed inputs; the experiment runs end
to end in its quick profile.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.experiments.spawn import experiment as spawn
from cpulab.experiments.spawn import noop_build
from cpulab.measure import syscalls
from cpulab.measure.kernel_output import parse
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Program, run_interleaved
from cpulab.results import Case, Evidence

GCC = find_toolchain("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not installed")
needs_tools = pytest.mark.skipif(not (shutil.which("make") and shutil.which("ninja")),
                                 reason="make or ninja not installed")


@pytest.fixture(scope="module")
def exes() -> dict[str, Path]:
    if GCC is None:
        pytest.skip("gcc not installed")
    cfg = BuildConfig(GCC, "O2")
    return {"spawn": build_one(spawn.EXPERIMENT.target(), cfg),
            "static": build_one(spawn.EXPERIMENT.child_target(True), cfg),
            "dynamic": build_one(spawn.EXPERIMENT.child_target(False), cfg)}


def run(exe: Path, *args: str) -> tuple[int, str]:
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


def test_every_spawn_case_runs_its_child_and_reports_children(exes):
    rc, out = run(exes["spawn"], "--iters", "5", "--reps", "2", "--param",
                  f"child={exes['static']}", "--param", f"child_dynamic={exes['dynamic']}")
    assert rc == 0, out
    parsed = parse(out)
    assert parsed.cases() == list(spawn.SPAWNS)
    for case in spawn.SPAWNS:
        lines = spawn.children_per_rep(parsed, case)
        assert len(lines) == 2 and all(x["iters"] == 5 for x in lines)
        # each child maps at least its stack and one page of code
        assert all(x["minflt"] >= 2 * 5 for x in lines), (case, lines)
    faults = {r.case: r.counters.get("page-faults") for r in parsed.reps}
    # vfork and posix_spawn share the parent's memory until exec: no copy-on-write
    assert faults["vfork-exec"] == 0 and faults["posix-spawn"] == 0, faults


def test_a_failing_child_fails_the_run(exes, tmp_path):
    rc, out = run(exes["spawn"], "--iters", "1", "--reps", "1", "--case", "posix-spawn",
                  "--param", "child=/bin/false")
    assert rc == 1 and "exited with status 1" in out


def test_command_file_is_checked(exes, tmp_path):
    argv = tmp_path / "cmd.argv"
    argv.write_text("false\n")
    rc, out = run(exes["spawn"], "--param", f"command={argv}", "--list")
    assert rc == 2 and "absolute program path" in out
    rc, out = run(exes["spawn"], "--param", f"command={tmp_path / 'missing'}", "--list")
    assert rc == 2 and "No such file" in out


def test_children_lines_must_match_the_reps():
    out = parse("\n".join([
        json.dumps({"type": "meta"}),
        json.dumps({"type": "children", "case": "a", "iters": 1, "minflt": 9}),
        json.dumps({"type": "children", "case": "a", "iters": 4, "minflt": 40}),
        json.dumps({"type": "rep", "case": "a", "rep": 0, "iters": 4, "units": 4,
                    "unit": "process", "ns": 100}),
    ]))
    assert spawn.children_per_rep(out, "a") == [out.extra[1]]
    out.reps[0].iters = 3
    with pytest.raises(ValueError):
        spawn.children_per_rep(out, "a")


def test_children_lines_pair_with_the_reps_of_their_own_round():
    """Each process prints a warm-up call's line, then one per timed call; over three
    interleaved processes every timed line is kept, each with the reps of its round."""
    def script(argv):
        rnd = len(runner.calls) - 1
        usage = {"type": "children", "case": "a", "majflt": 0, "utime_ns": 0, "stime_ns": 0}
        lines = [{"type": "meta"}, {**usage, "iters": 1, "minflt": -1}]
        for i in range(2):
            lines += [{**usage, "iters": 4, "minflt": 10 * rnd + i},
                      {"type": "rep", "case": "a", "rep": i, "iters": 4, "units": 4,
                       "unit": "process", "ns": 100}]
        return 0, "\n".join(json.dumps(x) for x in lines)

    runner = FakeRunner(script)
    outcome = run_interleaved([Program("a", ["spawn"])], runner, rounds=3, timeout=1)["a"]
    lines = spawn.children_per_rep(outcome.output, "a")
    assert [(x.round, x["minflt"]) for x in lines] == [(0, 0), (0, 1), (1, 10), (1, 11),
                                                       (2, 20), (2, 21)]
    case = Case("a", None, {}, {"time": Metric.of([25.0] * 6, "ns/process", "clock")})
    spawn.add_children(case, lines)
    assert sorted(case.metrics["child-page-faults"].values) == [0, 0.25, 2.5, 2.75, 5, 5.25]


# ---- the generated project -------------------------------------------------------------

@needs_tools
def test_generated_project_builds_and_its_noop_is_a_noop(tmp_path):
    tree = noop_build.generate(tmp_path, 150)
    assert len(tree.dirs) == 2
    for tool in ("make", "ninja"):
        noop_build.first_build(tree, tool, os.cpu_count() or 2, 300)
    state = {tool: tree.outputs_state(tool) for tool in noop_build.TOOLS}
    assert len(state["make"]) == 150 + 2 + 2  # objects, libraries, main.o, prog
    for tool in noop_build.TOOLS:
        subprocess.run(tree.noop_argv(tool), check=True, capture_output=True)
        assert tree.outputs_state(tool) == state[tool], tool
    assert subprocess.run([str(tree.root / "prog")]).returncode == 0
    # a header of d001 is included by d001's files and by d000's (the next directory)
    header = tree.root / "d001" / "d001.h"
    newest = max(t for st in state.values() for t in st.values())
    os.utime(header, ns=(newest + 10**9,) * 2)
    for tool in ("make", "ninja"):
        subprocess.run(tree.noop_argv(tool), check=True, capture_output=True)
        after = tree.outputs_state(tool)
        rebuilt = {Path(p).relative_to(tree.root).parts[-2] for p in after
                   if after[p] != state[tool][p] and p.endswith(".o") and "main" not in p}
        assert rebuilt == {"d000", "d001"}, (tool, rebuilt)


def test_generate_rejects_an_empty_project(tmp_path):
    with pytest.raises(ValueError, match="at least 1"):
        noop_build.generate(tmp_path, 0)


# ---- counting ---------------------------------------------------------------------------

def test_perf_csv_parsing():
    text = ("5,,task:task_newtask,12306415,100.00,,\n3799,,raw_syscalls:sys_enter,1,100.00,,"
            "\n<not supported>,,page-faults,0,0,,\n")
    assert syscalls.parse_perf_csv(text) == {"task:task_newtask": 5,
                                                  "raw_syscalls:sys_enter": 3799}


def test_strace_summary_parsing():
    text = """% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 81.87    0.037447        4680         8         3 wait4
  0.18    0.000084          42         2           clone3
  0.00    0.000000           0         4         1 vfork
------ ----------- ----------- --------- --------- ----------------
100.00    0.045740          12      3792       147 total
"""
    assert syscalls.parse_strace_summary(text) == (5, 3792)
    with pytest.raises(syscalls.CountError):
        syscalls.parse_strace_summary("nothing here")


@needs_tools
def test_counts_see_the_processes_a_command_starts():
    try:
        c = syscalls.count(["/bin/sh", "-c", "/bin/true; /bin/true; /bin/true"])
    except syscalls.CountError as e:
        pytest.skip(f"no counter here: {e}")
    assert c.processes == 3 and c.syscalls > 30


# ---- verdicts on fake cases ------------------------------------------------------------

def spread(v: float) -> list[float]:
    return [v * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)]


def build_case(tool: str, ms: float, processes: float | None, n: int = 1000) -> Case:
    c = Case(tool, None, {"targets": n})
    c.metrics["time"] = Metric.of(spread(ms * 1e6), "ns/run", "clock")
    if processes is None:
        c.unavailable["processes"] = {"source": "sw", "reason": "perf refused"}
    else:
        c.metrics["processes"] = Metric.exact(processes, "processes/run", "sw")
    return c


def spawn_case(us: float) -> Case:
    c = Case(spawn.PER_PROCESS, {"compiler": "gcc-12", "flags": "-O2", "pgo": False})
    c.metrics["time"] = Metric.of(spread(us * 1e3), "ns/process", "clock")
    return c


def test_verdicts_when_recursion_explains_make():
    cases = [spawn_case(1000), build_case("ninja", 10, 0),
             build_case("make", 11, 0), build_case("make-recursive", 40, 25)]
    a, b = spawn.EXPERIMENT.verdicts(cases, Evidence())
    assert a.verdict == "confirmed" and "make-recursive/ninja = 4.000x" in a.evidence
    # make: 1 ms extra, 0 processes (0%); make-recursive: 25 x 1 ms of 30 ms (83%)
    assert b.verdict == "inconclusive", b.evidence
    assert "83%" in b.evidence and "0%" in b.evidence
    a, b = spawn.EXPERIMENT.verdicts([c for c in cases if c.variant != "make"], Evidence())
    assert b.verdict == "confirmed"


def test_verdicts_when_ninja_is_slower_or_counts_are_missing():
    cases = [spawn_case(1000), build_case("ninja", 20, None), build_case("make", 10, None),
             build_case("make-recursive", 12, None)]
    a, b = spawn.EXPERIMENT.verdicts(cases, Evidence())
    assert a.verdict == "refuted" and b.verdict == "unmeasurable"
    cases[1] = build_case("ninja", 5, None)
    a, b = spawn.EXPERIMENT.verdicts(cases, Evidence())
    assert a.verdict == "confirmed"
    assert b.verdict == "unmeasurable" and "perf refused" in b.evidence


def test_verdicts_without_cases_are_unmeasurable():
    assert {v.verdict for v in spawn.EXPERIMENT.verdicts([], Evidence())} == {"unmeasurable"}


# ---- end to end ------------------------------------------------------------------------

@needs_gcc
@needs_tools
def test_quick_run_end_to_end(tmp_path, capsys, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the project goes
    rc = cli.main(["run", "spawn", "--quick", "--json", "--cc", "gcc",
                   "--db", str(tmp_path / "lab.db")])
    (rec,) = json.loads(capsys.readouterr().out)["runs"]
    assert rc == 0 and rec["status"] == "complete", rec["notes"]
    got = {(c["variant"], json.dumps(c["params"], sort_keys=True)) for c in rec["cases"]}
    want = {(v, json.dumps({"child": "static"} if v in spawn.NEEDS_CHILD else {}))
            for v in spawn.SPAWNS}
    want |= {(t, json.dumps({"targets": n})) for t in spawn.TOOLS for n in spawn.QUICK_TARGETS}
    assert got == want
    for c in rec["cases"]:
        assert not c.get("error"), c
        assert c["metrics"]["time"]["source"] == "clock"
        assert c["metrics"]["child-page-faults"]["source"] == "sw"
        assert c["metrics"]["child-page-faults"]["median"] > 0
        if c["variant"] in spawn.TOOLS:
            counted = "processes" in c["metrics"]
            assert counted or c["unavailable"]["processes"]["reason"]
    assert len(rec["verdicts"]) == 2
    assert all(v["verdict"] in ("confirmed", "refuted", "inconclusive") for v in
               rec["verdicts"]), rec["verdicts"]
    assert not list(scratch.iterdir())  # the generated project is gone
