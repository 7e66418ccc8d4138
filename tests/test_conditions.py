"""A disturbed machine is named, not hidden: scripted process figures go through the
interleaved schedule into each case's conditions and the run's, and the run's reasons
(none on a quiet machine) reach every verdict's evidence."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from cpulab.build import Target
from cpulab.context import PROFILES, Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.lab import run_experiment
from cpulab.measure.process_stats import ProcessStats
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Program
from cpulab.results import Case, CaseConditions, Evidence, RunConditions, RunRecord, Verdict

META = {"type": "meta", "schema": 1, "counters": {}}
S = 10**9  # ns


def _output(case: str) -> str:
    lines = [META] + [{"type": "rep", "case": case, "rep": i, "iters": 1, "units": 1,
                       "unit": "op", "ns": 100 + i} for i in range(3)]
    return "\n".join(json.dumps(x) for x in lines)


def stats(cpu: float = 1.0, others: float = 0.02, steal: float = 0.0, iowait: float = 0.0,
          wall: float = 1.0) -> ProcessStats:
    """One process on a 2-CPU machine; figures in seconds (others: in cores)."""
    return ProcessStats(int(wall * S), int(cpu * wall * S), int(others * wall * S),
                        int(steal * 2 * wall * S), int(iowait * wall * S), int(2 * wall * S),
                        0.1)


class TwoPrograms(Experiment):
    """Two programs of one case each, A and B, measured interleaved; one verdict."""

    name = "probe"
    seed_row = "T1"
    title = "scripted"
    summary = "scripted"
    compilers = ()

    def targets(self) -> dict[str, Target]:
        return {}

    def run(self, ctx: Context) -> list[Case]:
        outcomes = ctx.measure([Program([n], key=n) for n in ("A", "B")])
        return [c for n in ("A", "B")
                for c in cases_from_outcome(outcomes[n], lambda x: x, None, {}, [n])]

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        return [Verdict("A is B", "confirmed", "A/B = 1.000x")]


def run_with(per_program: dict[str, ProcessStats | None]) -> RunRecord:
    def script(argv: Sequence[str]):
        return 0, _output(argv[0]), per_program[argv[0]]

    return run_experiment(TwoPrograms(), "quick", runner=FakeRunner(script))


def test_a_quiet_machine_has_no_reasons_and_verdicts_stay_as_they_were():
    rec = run_with({"A": stats(), "B": stats(cpu=0.98)})
    a, b = rec.cases
    n = PROFILES["quick"].rounds  # the figures are all alike: no round is added
    assert a.conditions == CaseConditions(processes=n, wall_s=1.0 * n, off_cpu_share=0.0,
                                          io_wait_share=0.0, others_cores=0.02,
                                          others_cores_max=0.02,
                                          others_cpu_s=pytest.approx(0.02 * n),
                                          steal_share=0.0)
    assert b.conditions.off_cpu_share == pytest.approx(0.02)
    c = rec.conditions
    assert c.disturbed == [] and c.cases == 2
    assert c.others_cores == pytest.approx(0.02) and c.steal_share == 0.0
    assert rec.verdicts[0].evidence == "A/B = 1.000x"


def test_others_at_one_core_flag_the_run_and_every_verdict():
    rec = run_with({"A": stats(others=1.0), "B": stats(others=0.9)})
    assert rec.conditions.others_cores == pytest.approx(0.95)
    assert rec.conditions.others_cores_max == pytest.approx(1.0)
    assert rec.conditions.disturbed == ["others used 0.95 cores on average while measuring"]
    assert rec.verdicts[0].evidence == ("A/B = 1.000x [measured on a disturbed machine: "
                                        "others used 0.95 cores on average while measuring]")
    # Others are judged over the run, not per case: one process's reading is too coarse.
    assert rec.cases[0].conditions.reasons() == []


def test_rounding_remainders_average_out_instead_of_adding_up():
    # A quiet machine read in ticks: each process sees others +-0.3 cores from rounding.
    # Clamped at 0 one by one they would add up to 0.15 cores; kept, they cancel.
    rec = run_with({"A": stats(others=0.3, wall=0.06), "B": stats(others=-0.3, wall=0.06)})
    assert rec.cases[1].conditions.others_cores == 0.0  # a median is never below 0
    assert rec.conditions.others_cores == pytest.approx(0.0)
    assert rec.conditions.others_cores_max == pytest.approx(0.3)
    assert rec.conditions.disturbed == []


def test_a_burst_during_some_cases_counts_in_the_run_average():
    rec = run_with({"A": stats(others=0.0, wall=3.0), "B": stats(others=1.2)})
    assert rec.conditions.others_cores == pytest.approx(0.3)
    assert rec.conditions.disturbed == ["others used 0.30 cores on average while measuring"]


def test_a_case_mostly_off_cpu_is_flagged():
    rec = run_with({"A": stats(), "B": stats(cpu=0.6)})
    assert rec.conditions.others_cores < 0.25  # the others' figure alone would pass it
    assert rec.conditions.disturbed == [
        "1 of 2 cases off-CPU more than 25% of their wall time (at most 40%)"]
    assert rec.cases[1].conditions.reasons() == ["off-CPU 40% of its wall time"]
    assert "[measured on a disturbed machine: 1 of 2 cases off-CPU" in rec.verdicts[0].evidence


def test_threads_on_two_cores_are_never_off_cpu():
    rec = run_with({"A": stats(cpu=2.0), "B": stats(cpu=1.9)})
    assert rec.cases[0].conditions.off_cpu_share == pytest.approx(-1.0)
    assert rec.conditions.disturbed == []


def test_waiting_for_the_disk_is_not_a_disturbance():
    # A cold read: 60% off-CPU, of it 50 points in the machine's iowait.
    rec = run_with({"A": stats(), "B": stats(cpu=0.4, iowait=0.5)})
    assert rec.cases[1].conditions.waiting_share == pytest.approx(0.1)
    assert rec.conditions.disturbed == []


def test_steal_flags_the_run():
    rec = run_with({"A": stats(steal=0.08), "B": stats(steal=0.06)})
    assert rec.conditions.steal_share == pytest.approx(0.07)
    assert rec.conditions.disturbed == ["the hypervisor stole 7.0% of the CPU time"]


def test_figures_that_could_not_be_read_flag_nothing():
    blind = ProcessStats(S, None, None, None, None, None, None)
    rec = run_with({"A": blind, "B": blind})
    n = PROFILES["quick"].rounds
    assert rec.cases[0].conditions == CaseConditions(n, 1.0 * n, None, None, None, None,
                                                     None, None)
    c = rec.conditions
    assert (c.others_cores, c.others_cores_max, c.steal_share) == (None, None, None)
    assert c.disturbed == [] and c.cases == 2


def test_a_runner_that_measures_no_process_leaves_no_conditions():
    rec = run_with({"A": None, "B": None})
    assert [c.conditions for c in rec.cases] == [None, None]
    assert "conditions" not in rec.as_dict()["cases"][0]
    assert rec.conditions.cases == 0 and rec.conditions.disturbed == []


def test_flagged_cases_are_counted_with_the_worst_and_failed_ones_left_out():
    cases = [Case(f"v{i}", None, {"n": i}, conditions=CaseConditions.of([stats(cpu=cpu)]))
             for i, cpu in enumerate((0.5, 0.3, 0.9, 1.0))]
    cases.append(Case("crashed", None, error="killed by SIGSEGV",
                      conditions=CaseConditions.of([stats(cpu=0.1)])))
    run = RunConditions.of(cases, 0.1, 0.2)
    assert run.cases == 4
    assert run.disturbed == ["2 of 4 cases off-CPU more than 25% of their wall time "
                             "(at most 70%)"]


def test_conditions_round_trip_and_old_records_read_without_them():
    rec = run_with({"A": stats(others=1.0), "B": stats(cpu=0.6)})
    d = rec.as_dict()
    assert d["conditions"]["disturbed"] and "others_cores" in d["cases"][0]["conditions"]
    back = RunRecord.from_dict(json.loads(json.dumps(d)))
    assert back.conditions == rec.conditions
    assert [c.conditions for c in back.cases] == [c.conditions for c in rec.cases]
    assert back.as_dict() == d
    old = {k: v for k, v in d.items() if k != "conditions"}
    old["cases"] = [{k: v for k, v in c.items() if k != "conditions"} for c in d["cases"]]
    was = RunRecord.from_dict(old)
    assert was.conditions is None and all(c.conditions is None for c in was.cases)
    assert was.as_dict() == old
