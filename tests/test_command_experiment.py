"""`cpulab run --cmd A --cmd B`: whole commands timed interleaved, with the kernel's
software counters and the store; the structure and the counters are checked, never
the timing."""

from __future__ import annotations

import json

from cpulab import cli
from cpulab.context import PROFILES
from cpulab.described.command_experiment import expand
from cpulab.machine.pmu import probe_counters
from cpulab.results import Case

LOOP = "i=0; while [ $i -lt {n} ]; do i=$((i+1)); done"


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_two_commands_end_to_end(tmp_path, capsys):
    db = str(tmp_path / "r.db")
    rc, out, err = _run(capsys, "run", "--cmd", LOOP, "--cmd", "true", "--param", "n=10,2000",
                        "--quick", "--warmup", "2", "--db", db, "--json", "--name", "loops")
    assert rc == 0, err
    (run,) = json.loads(out)["runs"]
    assert (run["experiment"], run["status"]) == ("loops", "complete")
    assert run["machine"]["cpu"] and run["machine_key"]  # the fingerprint
    cases = {(c["variant"], c["params"]["n"]): c for c in run["cases"]}
    assert set(cases) == {(LOOP, 10), (LOOP, 2000), ("true", 10), ("true", 2000)}
    pmu = probe_counters()["cycles"]
    for c in cases.values():
        m = c["metrics"]
        assert c["build"] is None and "error" not in c
        assert (m["time"]["unit"], m["time"]["source"]) == ("ns/run", "clock")
        quick = PROFILES["quick"]  # a timed run is a process: rounds x reps of them
        assert m["time"]["n"] == quick.rounds * quick.reps == len(m["time"]["values"])
        for sw in ("cpu-time", "page-faults", "context-switches"):
            assert m[sw]["source"] == "sw"
        assert m["page-faults"]["min"] > 0  # a process starts with faults, never 0
        if pmu["available"]:
            assert m["cycles"]["source"] == "pmu" and m["cycles"]["min"] > 0
        else:  # unavailable, with the kernel's reason; never a zero
            assert "cycles" not in m
            assert c["unavailable"]["cycles"]["reason"]
    # The loop's CPU time grows with n; a count of work, not a timing claim: 200x the
    # iterations take more CPU than 10 in every run's median.
    assert cases[(LOOP, 2000)]["metrics"]["cpu-time"]["median"] > \
        cases[(LOOP, 10)]["metrics"]["cpu-time"]["median"]
    (table,) = run["evidence"]["tables"]
    assert [r[1] for r in table["rows"] if r[4] == "fastest"] and len(table["rows"]) == 4
    assert set(run["evidence"]["fastest"]) == {"n=10", "n=2000"}
    assert len(run["verdicts"]) == 1
    assert run["verdicts"][0]["verdict"] in ("confirmed", "inconclusive")

    # A second run compares with the first like any stored run.
    rc, _, err = _run(capsys, "run", "--cmd", LOOP, "--cmd", "true", "--param", "n=10,2000",
                      "--quick", "--db", db, "--name", "loops")
    assert rc == 0, err
    rc, out, err = _run(capsys, "compare", "1", "2", "--metric", "time", "--db", db,
                        "--json")
    assert rc == 0, err
    (comparison,) = json.loads(out)["comparisons"]
    assert len(comparison["cases"]) == 4


def test_a_failing_command_fails_alone(tmp_path, capsys):
    rc, out, err = _run(capsys, "run", "--cmd", "true", "--cmd", "echo broken >&2; exit 3",
                        "--quick", "--db", str(tmp_path / "r.db"), "--json")
    assert rc == 1, err
    (run,) = json.loads(out)["runs"]
    cases = {c["variant"]: c for c in run["cases"]}
    assert cases["echo broken >&2; exit 3"]["error"] == "warm-up run: exit status 3: broken"
    assert "error" not in cases["true"]
    assert run["status"] == "complete"  # stored, with the command that ran measured
    assert "cmd: `echo broken >&2; exit 3`: warm-up run: exit status 3: broken" in err


def test_a_failing_command_makes_the_claim_unmeasurable_and_the_run_fail(tmp_path, capsys):
    # `false` has no time: "`true` fastest, the next nanx or more" was printed, status 0.
    rc, out, err = _run(capsys, "run", "--cmd", "false", "--cmd", "true", "--quick",
                        "--warmup", "0", "--db", str(tmp_path / "r.db"))
    assert rc == 1
    assert "unmeasurable" in out and "confirmed" not in out
    assert "nan" not in out.lower()
    assert "`false`: exit status 1" in out and "`false`: exit status 1" in err
    assert "fastest of those that ran" in out  # not simply "fastest"


def test_ignore_failure_times_a_command_that_exits_non_zero(tmp_path, capsys):
    rc, out, err = _run(capsys, "run", "--cmd", "echo no >&2; exit 4", "--cmd", "true",
                        "--quick", "--db", str(tmp_path / "r.db"), "--json",
                        "--ignore-failure")
    assert rc == 0, err
    (run,) = json.loads(out)["runs"]
    assert all("error" not in c and c["metrics"]["time"]["n"] == 6 for c in run["cases"])
    assert run["verdicts"][0]["verdict"] != "unmeasurable"
    assert "`echo no >&2; exit 4` exited with status 4; timed anyway (--ignore-failure)" \
        in run["notes"]


def test_verdict_of_made_up_cases_with_a_failure_is_unmeasurable():
    from cpulab.described.command_experiment import CommandExperiment
    from cpulab.measure.metrics import Metric
    from cpulab.results import Evidence

    exp = CommandExperiment(["a {n}", "b {n}"], {"n": ["1", "2"]})
    time = Metric.of([10.0, 11.0, 12.0], "ns/run", "clock")
    cases = [Case("a {n}", None, {"n": 1}, {"time": time}),
             Case("b {n}", None, {"n": 1}, {"time": time}),
             Case("a {n}", None, {"n": 2}, {"time": time}),
             Case("b {n}", None, {"n": 2}, error="exit status 2: no such file")]
    (v,) = exp.verdicts(cases, Evidence())
    assert v.verdict == "unmeasurable"
    assert v.evidence == "`b {n}` (n=2): exit status 2: no such file"
    assert exp.run_errors(cases) == [v.evidence]
    assert exp.run_errors(cases[:3]) == []


def test_bad_command_requests_are_one_line(capsys):
    for argv, message in [
        (["run", "--cmd", "true", "--param", "n"], "expected KEY=V1,V2"),
        (["run", "--cmd", "true", "--param", "n=1"], "no --cmd (or --setup, --prepare, "
                                                     "--cleanup) uses {n}"),
        (["run", "--cmd", "true", "threading"], "give no experiment"),
        (["run", "threading", "--param", "n=1"], "--param goes with --cmd"),
        (["run", "--cmd", "true", "--cc", "gcc"], "--cmd builds nothing"),
        (["run", "threading", "--ignore-failure"], "--ignore-failure goes with --cmd"),
        (["run", "threading", "--prepare", "sync"], "--prepare goes with --cmd"),
    ]:
        rc, _, err = _run(capsys, *argv)
        assert rc == 2 and message in err and err.count("\n") == 1


def test_setup_prepare_and_cleanup_run_where_hyperfine_runs_them(tmp_path):
    from cpulab.measure.process_timer import CommandJob, time_interleaved

    log = tmp_path / "log"

    def echo(word):
        return f"echo {word} >> {log}"
    jobs = [CommandJob(echo(n), echo(f"setup-{n}"), echo(f"prepare-{n}"),
                       echo(f"cleanup-{n}")) for n in ("a", "b")]
    out = time_interleaved(jobs, runs=2, warmup=1, timeout=30, pmu_reason="no PMU here")
    assert [len(t.runs) for t in out] == [2, 2] and not any(t.error for t in out)
    assert log.read_text().split() == [
        "setup-a", "setup-b",
        "prepare-a", "a", "prepare-b", "b",  # the warm-up runs are prepared too
        "prepare-a", "a", "prepare-b", "b",
        "prepare-a", "a", "prepare-b", "b",
        "cleanup-a", "cleanup-b"]


def test_a_failing_setup_prepare_or_cleanup_is_an_error_naming_it(tmp_path):
    from cpulab.measure.process_timer import CommandJob, time_interleaved

    log = tmp_path / "log"
    note = f"echo cleaned >> {log}"
    jobs = [CommandJob("true", setup="echo no disk >&2; exit 5", cleanup=note),
            CommandJob("true", prepare="exit 6", cleanup=note),
            CommandJob(f"echo ran >> {log}", cleanup="echo gone >&2; exit 7")]
    setup, prepare, cleanup = time_interleaved(jobs, runs=2, warmup=0, timeout=30,
                                               pmu_reason="no PMU here")
    assert setup.error == "setup `echo no disk >&2; exit 5`: exit status 5: no disk"
    assert prepare.error == "prepare `exit 6`: exit status 6"
    assert cleanup.error == "cleanup `echo gone >&2; exit 7`: exit status 7: gone"
    assert not setup.runs and not prepare.runs and len(cleanup.runs) == 2
    # cleanup follows a setup that succeeded, even when the command then failed
    assert log.read_text().split() == ["ran", "ran", "cleaned"]


def test_setup_prepare_and_cleanup_take_the_parameters(tmp_path, capsys):
    log = tmp_path / "log"
    rc, out, err = _run(capsys, "run", "--cmd", "true {n}", "--param", "n=1,2", "--quick",
                        "--warmup", "0", "--db", str(tmp_path / "r.db"), "--json",
                        "--setup", f"echo setup-{{n}} >> {log}",
                        "--prepare", f"echo prepare-{{n}} >> {log}",
                        "--cleanup", f"echo cleanup-{{n}} >> {log}")
    assert rc == 0, err
    words = log.read_text().split()
    assert words[:2] == ["setup-1", "setup-2"] and words[-2:] == ["cleanup-1", "cleanup-2"]
    runs = 2 * 3  # quick
    assert words.count("prepare-1") >= runs and words.count("prepare-2") >= runs
    (run,) = json.loads(out)["runs"]
    assert f"untimed, around each command: setup `echo setup-{{n}} >> {log}`, prepare " \
        f"`echo prepare-{{n}} >> {log}`, cleanup `echo cleanup-{{n}} >> {log}`" in run["notes"]
    rc, _, err = _run(capsys, "run", "--cmd", "true", "--quick", "--db",
                      str(tmp_path / "r.db"), "--prepare", "exit 9")
    assert rc == 1 and "prepare `exit 9`: exit status 9" in err


def test_parameters_replace_only_their_placeholders():
    assert expand("awk '{print}' {n}.txt {nn}", {"n": "5"}) == "awk '{print}' 5.txt {nn}"


def test_hardware_counts_become_pmu_metrics_and_their_absence_a_reason():
    from cpulab.described.command_experiment import _case
    from cpulab.measure.process_timer import CommandTiming, ProcessRun

    runs = [ProcessRun(1000 + i, 900, 150, 3) for i in range(4)]
    counted = CommandTiming(runs, {"cycles": [2000] * 4, "instructions": [3000] * 4,
                                   "branch-misses": [7] * 4})
    c = _case("./app {n}", {"n": "8"}, counted)
    assert c.params == {"n": 8}
    assert (c.metrics["cycles"].source, c.metrics["cycles"].unit) == ("pmu", "cycles/run")
    assert c.metrics["ipc"].median == 1.5
    assert "cycles" not in c.unavailable
    lacking = CommandTiming(runs, counters_unavailable="perf_event_open: No such file")
    c = _case("./app", {}, lacking)
    assert "cycles" not in c.metrics and "ipc" not in c.metrics
    assert c.unavailable["instructions"] == {"source": "pmu",
                                             "reason": "perf_event_open: No such file"}
    assert c.metrics["page-faults"].median == 150
