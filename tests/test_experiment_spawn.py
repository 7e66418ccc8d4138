"""The `spawn` experiment (S13): process creation and no-op builds.

The kernel is checked by what it must do: every child runs and exits 0 (a failing one
fails the run), the children's getrusage lines belong to the timed calls, and a child
faults its pages in where the parent (vfork, posix_spawn) takes none. The generated
project really is built, really is up to date afterwards, and really rebuilds when a
header changes. Counting and verdicts are tested on fixed inputs; the experiment runs end
to end in its quick profile, its projects built and counted for real and its timed runs
replayed from recorded kernel output (all for real with CPULAB_FULL=1).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.build import BuildConfig, build_one
from cpulab.experiments.spawn import cmake_project, noop_build, projects
from cpulab.experiments.spawn import experiment as spawn
from cpulab.measure import syscalls
from cpulab.measure.kernel_output import parse
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Program, run_interleaved
from cpulab.results import VERDICTS, Case, Evidence
from replay import replay


@pytest.fixture(scope="module")
def exes(gcc) -> dict[str, Path]:
    cfg = BuildConfig(gcc, "O2")
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


def test_a_commands_ok_status_is_accepted_and_no_other(exes, tmp_path):
    """--param ok_status=1: a search tool that finds nothing exits 1, and that is a run;
    any other non-zero status still fails it."""
    argv = tmp_path / "cmd.argv"
    argv.write_text("/bin/false\n")  # exits 1
    rc, out = run(exes["spawn"], "--iters", "2", "--reps", "1", "--case", "command",
                  "--param", f"command={argv}", "--param", "ok_status=1")
    assert rc == 0, out
    rc, out = run(exes["spawn"], "--iters", "1", "--reps", "1", "--case", "command",
                  "--param", f"command={argv}", "--param", "ok_status=2")
    assert rc == 1 and "exited with status 1" in out
    argv.write_text("/bin/sh\n-c\nexit 2\n")
    rc, out = run(exes["spawn"], "--iters", "1", "--reps", "1", "--case", "command",
                  "--param", f"command={argv}", "--param", "ok_status=1")
    assert rc == 1 and "exited with status 2" in out
    p = subprocess.run([str(exes["spawn"]), "--case", "command", "--param", f"command={argv}",
                        "--param", "ok_status=256"], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "ok_status=256" in p.stdout + p.stderr


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
    outcome = run_interleaved([Program(["spawn"], key="a")], runner, rounds=3, timeout=1)["a"]
    lines = spawn.children_per_rep(outcome.output, "a")
    assert [(x.round, x["minflt"]) for x in lines] == [(0, 0), (0, 1), (1, 10), (1, 11),
                                                       (2, 20), (2, 21)]
    case = Case("a", None, {}, {"time": Metric.of([25.0] * 6, "ns/process", "clock")})
    spawn.add_children(case, lines)
    assert sorted(case.metrics["child-page-faults"].values) == [0, 0.25, 2.5, 2.75, 5, 5.25]


# ---- the generated project -------------------------------------------------------------

@pytest.mark.needs("make", "ninja", "cmake")
def test_generated_project_builds_and_its_noop_is_a_noop(tmp_path, monkeypatch):
    # Two directories, as small as they can be: what is proven holds at any size, and
    # each file is built four times (~20 s at 100 files a directory on 2 cores).
    monkeypatch.setattr(noop_build, "FILES_PER_DIR", 10)
    targets = 15
    tree = noop_build.generate(tmp_path, targets)
    assert len(tree.dirs) == 2
    jobs = os.cpu_count() or 2
    for tool in ("make", "ninja"):
        noop_build.first_build(tree, tool, jobs, 300)
    argv = {tool: tree.noop_argv(tool) for tool in noop_build.HAND_WRITTEN}
    state = {tool: functools.partial(tree.outputs_state, tool)
             for tool in noop_build.HAND_WRITTEN}
    for tool in cmake_project.GENERATORS:
        b = noop_build.cmake_build(tree, tool, jobs, 300)
        argv[tool], state[tool] = b.noop_argv(), b.outputs_state
    assert set(argv) == set(noop_build.TOOLS)
    before = {tool: state[tool]() for tool in argv}
    for tool in noop_build.TOOLS:
        # objects, libraries, main.o, prog
        assert len(before[tool]) == targets + 2 + 2, (tool, sorted(before[tool]))
        subprocess.run(argv[tool], check=True, capture_output=True, env=noop_build.clean_env())
        assert state[tool]() == before[tool], tool
    for prog in (tree.root / "prog", tree.root / "cmake-make" / "prog"):
        assert subprocess.run([str(prog)]).returncode == 0
    # a header of d001 is included by d001's files and by d000's (the next directory)
    header = tree.root / "d001" / "d001.h"
    newest = max(t for st in before.values() for t in st.values())
    os.utime(header, ns=(newest + 10**9,) * 2)
    for tool in ("make", "ninja", *cmake_project.GENERATORS):
        subprocess.run(argv[tool], check=True, capture_output=True, env=noop_build.clean_env())
        after = state[tool]()
        rebuilt = {d for p in after if after[p] != before[tool][p] and p.endswith(".o")
                   for d in tree.dirs if f"/{d}/" in p}
        assert rebuilt == {"d000", "d001"}, (tool, rebuilt)


def test_cmake_outputs_skip_the_compiler_probes(tmp_path):
    for rel in ("CMakeFiles/3.25.1/CompilerIdC/a.out", "CMakeFiles/p.dir/m.c.o", "lib/libx.a",
                "lib/libx.so.1", "prog", "CMakeFiles/Makefile2", "run.sh"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    for rel in ("CMakeFiles/3.25.1/CompilerIdC/a.out", "prog", "run.sh"):
        (tmp_path / rel).chmod(0o755)
    b = cmake_project.CMakeBuild("cmake-ninja", tmp_path, tmp_path, "/usr/bin/ninja")
    got = {str(p.relative_to(tmp_path)) for p in b.outputs()}
    assert got == {"CMakeFiles/p.dir/m.c.o", "lib/libx.a", "lib/libx.so.1", "prog"}


def test_cmake_configure_names_the_generator_that_failed(tmp_path):
    if not shutil.which("cmake"):
        pytest.skip("cmake not installed")
    (tmp_path / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.13)\n"
                                             "project(broken C)\nno_such_command()\n")
    with pytest.raises(cmake_project.CMakeError, match="cmake-make: the configure failed"):
        cmake_project.configure("cmake-make", tmp_path, tmp_path / "b")
    with pytest.raises(ValueError, match="unknown CMake build"):
        cmake_project.configure("cmake-bazel", tmp_path, tmp_path / "b")


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


@pytest.mark.needs("make", "ninja", "cmake")
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


def verdicts(cases: list[Case]) -> dict[tuple[str, str], object]:
    """(tool, "a" or "b") -> verdict, checking each names its build system. The process
    shares are added as `run` adds them."""
    spawn.add_process_shares(cases)
    got = spawn.EXPERIMENT.verdicts(cases, Evidence())
    assert len(got) == 2 * len(spawn.MAKES)
    out = {}
    for v, (tool, part) in zip(got, [(t, p) for t in spawn.MAKES for p in "ab"], strict=True):
        assert v.claim.startswith(f"({part})") and spawn.MAKES[tool] in v.claim, v.claim
        out[(tool, part)] = v
    return out


def test_verdicts_when_recursion_explains_make():
    cases = [spawn_case(1000), build_case("ninja", 10, 0),
             build_case("make", 11, 0), build_case("make-recursive", 40, 25)]
    v = verdicts(cases)
    assert v[("make-recursive", "a")].verdict == "confirmed"
    assert "targets=1000: 4.000x" in v[("make-recursive", "a")].evidence
    # make: 1 ms extra, 0 processes (0%); make-recursive: 25 x 1 ms of 30 ms (83%)
    assert v[("make", "b")].verdict == "refuted" and ": 0 share" in v[("make", "b")].evidence
    assert v[("make-recursive", "b")].verdict == "confirmed"
    assert "targets=1000: 0.8333 share [" in v[("make-recursive", "b")].evidence
    assert {v[("cmake-make", p)].verdict for p in "ab"} == {"unmeasurable"}


def test_process_share_pairs_the_rounds_of_both_rebuilds():
    tool, peer = build_case("make-recursive", 40, 25), build_case("ninja", 10, 0)
    peer.metrics["time"] = Metric.of([10e6, 12e6, 8e6, 10e6, 11e6], "ns/run", "clock")
    spawn.add_process_shares([spawn_case(1000), tool, peer])
    got = tool.metrics[spawn.SHARE]
    assert got.source == "model" and got.unit == "share"
    # round 1: 25 ms of processes over 39.6 - 12 ms
    assert got.values[1] == pytest.approx(25e6 / (39.6e6 - 12e6))


def test_each_make_is_judged_against_the_ninja_of_its_own_generator():
    native = {"project": projects.NATIVE_PROJECT}
    cases = [spawn_case(1000), build_case("ninja", 10, 0), build_case("cmake-ninja", 20, 2),
             build_case("cmake-make", 50, 30),
             build_case("cmake-ninja", 4, 1), build_case("cmake-make", 30, 40)]
    for c in cases[-2:]:
        c.params = dict(native)
    v = verdicts(cases)
    a, b = v[("cmake-make", "a")], v[("cmake-make", "b")]
    assert a.verdict == "confirmed"
    # CMake's Makefiles against CMake's Ninja, even where hand-written ninja is faster
    assert "targets=1000: 2.500x" in a.evidence
    assert "project=native: 7.500x" in a.evidence
    # 28 x 1 ms of 30 ms (93%); 39 x 1 ms of 26 ms (150%)
    assert b.verdict == "confirmed" and "0.9333" in b.evidence and "1.5 share" in b.evidence
    # the evidence table still sets every rebuild beside the fastest ninja of its project
    table = spawn.EXPERIMENT.evidence(None, cases).tables[1]
    assert [r[:2] for r in table.rows] == [["1,000 objects", "ninja"],
                                           ["1,000 objects", "cmake-make"],
                                           ["1,000 objects", "cmake-ninja"],
                                           ["native/", "cmake-make"], ["native/", "cmake-ninja"]]
    assert table.rows[1][3].endswith("(ninja)") and table.rows[3][3].endswith("(cmake-ninja)")


def test_a_make_faster_in_one_project_refutes():
    native = {"project": projects.NATIVE_PROJECT}
    cases = [build_case("cmake-ninja", 20, 2), build_case("cmake-make", 50, 30),
             build_case("cmake-ninja", 30, 1), build_case("cmake-make", 4, 40)]
    for c in cases[-2:]:
        c.params = dict(native)
    v = verdicts(cases)[("cmake-make", "a")]
    assert v.verdict == "refuted" and "reached in 1 of 2, short in 1" in v.evidence


def test_verdicts_when_ninja_is_slower_or_counts_are_missing():
    cases = [spawn_case(1000), build_case("ninja", 20, None), build_case("make", 10, None),
             build_case("make-recursive", 12, None)]
    v = verdicts(cases)
    assert v[("make", "a")].verdict == "refuted" and v[("make", "b")].verdict == "unmeasurable"
    assert "not slower than ninja" in v[("make", "b")].evidence
    cases = [spawn_case(1000), build_case("ninja", 5, None), build_case("make", 10, None),
             build_case("make-recursive", 12, None)]
    v = verdicts(cases)
    assert v[("make", "a")].verdict == "confirmed"
    assert v[("make", "b")].verdict == "unmeasurable"
    assert "perf refused" in v[("make", "b")].evidence
    without_spawn = [build_case("ninja", 5, 0), build_case("make", 10, 3)]
    v = verdicts(without_spawn)
    assert "no posix-spawn-dynamic measurement" in v[("make", "b")].evidence


def test_too_few_rounds_decide_nothing():
    cases = [spawn_case(1000), build_case("ninja", 10, 0), build_case("make", 40, 25)]
    for c in cases[1:]:
        m = c.metrics["time"]
        c.metrics["time"] = Metric.of(list(m.values[:2]), m.unit, m.source, (0, 1))
    v = verdicts(cases)
    assert v[("make", "a")].verdict == "inconclusive" and "no interval" in v[("make", "a")].evidence


def test_the_10000_object_project_is_built_by_the_full_profile_only():
    assert spawn.TARGETS["full"] == (1_000, 10_000)
    assert max(spawn.TARGETS["default"]) < 10_000 and max(spawn.TARGETS["quick"]) < 1_000
    # every make-based tool keeps a generated project to be judged on
    assert spawn.TARGETS["default"]


def test_verdicts_without_cases_are_unmeasurable():
    assert {v.verdict for v in spawn.EXPERIMENT.verdicts([], Evidence())} == {"unmeasurable"}


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output spawn` recorded
# (tests/data/replay/spawn.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.

def check_quick_run(rec: dict) -> None:
    assert rec["status"] == "complete", rec["notes"]
    got = {(c["variant"], json.dumps(c["params"], sort_keys=True)) for c in rec["cases"]}
    want = {(v, json.dumps({"child": "static"} if v in spawn.NEEDS_CHILD else {}))
            for v in spawn.SPAWNS}
    want |= {(t, json.dumps({"targets": n})) for t in spawn.TOOLS
             for n in spawn.TARGETS["quick"]}
    want |= {(t, json.dumps({"project": "native"})) for t in projects.NATIVE_TOOLS}
    assert got == want
    for c in rec["cases"]:
        assert not c.get("error"), c
        assert c["metrics"]["time"]["source"] == "clock"
        assert c["metrics"]["child-page-faults"]["source"] == "sw"
        assert c["metrics"]["child-page-faults"]["median"] > 0
        if c["variant"] in spawn.TOOLS:
            counted = "processes" in c["metrics"]
            assert counted or c["unavailable"]["processes"]["reason"]
    assert len(rec["verdicts"]) == 2 * len(spawn.MAKES)
    # Timings decide these verdicts: any kind, as long as each says why.
    assert all(v["verdict"] in VERDICTS and v["evidence"] for v in rec["verdicts"])


def prebuilt(tmp, sizes, quick, timeout, phase):
    """projects.prepare without its ~40 s of builds: every (project, tool) of the quick
    profile, built as far as the run can tell, its no-op rebuild a `true` that changes
    no output. The real builds are test_generated_project_builds_and_its_noop_is_a_noop's
    and, for native/ too, the real quick run's (CPULAB_FULL=1)."""
    keys = [(str(n), t) for n in sizes for t in noop_build.TOOLS]
    keys += [(projects.NATIVE_PROJECT, t) for t in projects.NATIVE_TOOLS]
    return {k: projects.Rebuild([shutil.which("true")], dict) for k in keys}, {}


@pytest.mark.needs("gcc")
def test_quick_run_replayed(tmp_path, monkeypatch):
    """The kernel's timed runs replayed, the projects stood in for (`prebuilt`); counting
    the processes of each no-op rebuild runs for real."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the run's folder goes
    monkeypatch.setattr(projects, "prepare", prebuilt)
    rec, _ = replay(spawn.EXPERIMENT, compilers=["gcc"])
    check_quick_run(rec.as_dict())
    assert not list(tmp_path.iterdir())  # the run's folder is gone


@pytest.mark.full
@pytest.mark.needs("gcc", "make", "ninja", "cmake")
def test_quick_run_end_to_end(tmp_path, results_db, capsys, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the project goes
    rc = cli.main(["run", "spawn", "--quick", "--json", "--cc", "gcc",
                   "--db", str(results_db)])
    (rec,) = json.loads(capsys.readouterr().out)["runs"]
    assert rc == 0
    check_quick_run(rec)
    assert not list(scratch.iterdir())  # the generated project is gone
