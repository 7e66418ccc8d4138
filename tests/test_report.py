"""The terminal report: what a reader must see (units, sources, n/a with reasons, the
seed's table, evidence, verdicts), rendered from a fixed record into a fixed width."""

from __future__ import annotations

from rich.console import Console

from cpulab.comparison import Comparison, Row
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.report import render_comparison, render_record, render_runs
from cpulab.results import (
    Case,
    CaseConditions,
    Evidence,
    EvidenceTable,
    RunConditions,
    RunRecord,
    SeedTable,
    Verdict,
)


def _record() -> RunRecord:
    build = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O1", "pgo": True}
    cases = [
        Case("direct", build, {}, {"tsc": Metric.of([1.2, 1.25, 1.22], "ticks/dispatch", "tsc"),
                                   "sites": Metric.exact(7, "sites", "asm")},
             {"cycles": {"source": "pmu", "reason": "perf_event_open(cycles): ENOENT"}}),
        Case("switch", build, {}, error="killed by SIGSEGV\ncore dumped"),
    ]
    return RunRecord(
        experiment="threading", seed_row="S1", title="dispatch", profile="quick",
        started="2026-11-23T10:00:00+00:00", duration_s=3.25, machine={}, machine_key="k",
        lab_revision="abc123", builds=[build], cases=cases,
        verdicts=[Verdict("(a) [claim] with brackets", "refuted", "ratio 0.9x", "seed: 6.9")],
        seed_tables=[SeedTable("Ertl on Ivy Bridge", ["CPU", "cycles"], [["IVB", "689 M"]])],
        evidence=Evidence([EvidenceTable("model", ["p", "rate"], [["ittage", "0.00%"]])]),
        notes=["compiler 'clang' not found"], status="complete", id=9)


def test_the_report_says_everything_a_reader_needs():
    con = Console(record=True, width=140, color_system=None)
    render_record(_record(), con, table_metrics=("tsc", "cycles", "sites"), where="/x/r.db")
    text = con.export_text()
    for needle in ("threading (S1): dispatch", "run #9", "the seed: Ertl on Ivy Bridge",
                   "689 M", "ticks/dispatch [tsc]", "1.220 ±0.030", "sites [asm]", "7",
                   "cycles", "[pmu]", "n/a", "cycles: n/a, perf_event_open(cycles): ENOENT",
                   "failed", "killed by SIGSEGV", "evidence: model", "ittage",
                   "(a) [claim] with brackets", "refuted", "seed: 6.9",
                   "note: compiler 'clang' not found", "stored in /x/r.db", "-O1 +pgo"):
        assert needle in text, needle
    assert "core dumped" not in text  # one line per failure in the table's notes


def test_a_disturbed_run_warns_above_its_verdicts_and_marks_its_cases():
    rec = _record()
    rec.cases[0].conditions = CaseConditions(2, 0.5, 0.4, 0.0, 0.9, 1.1, 0.45, 0.0)
    rec.conditions = RunConditions(0.4, 1.3, 1, 0.9, 1.1, 0.0, disturbed=[
        "others used 0.90 cores on average while measuring",
        "1 of 1 cases off-CPU more than 25% of their wall time (at most 40%)"])
    con = Console(record=True, width=200, color_system=None)
    render_record(rec, con)
    text = con.export_text()
    warning = ("measured on a disturbed machine: others used 0.90 cores on average while "
               "measuring; 1 of 1 cases off-CPU more than 25% of their wall time (at "
               "most 40%). Verdicts may be off.")
    assert warning in text
    assert text.index(warning) < text.index("verdicts\n")
    assert "direct !" in text
    assert "! direct gcc-12 -O1 +pgo: off-CPU 40% of its wall time" in text
    assert "others used 0.90 cores on average, at most 1.10; steal 0.0%; load average " \
        "0.40 at the start, 1.30 at the end" in text


def test_a_quiet_run_says_how_quiet_and_warns_of_nothing():
    rec = _record()
    rec.conditions = RunConditions(None, None, 1, 0.03, 0.05, None)
    con = Console(record=True, width=200, color_system=None)
    render_record(rec, con)
    text = con.export_text()
    assert "disturbed" not in text and " !" not in text
    assert "others used 0.03 cores on average, at most 0.05; steal n/a; load average n/a" \
        in text


def test_runs_table_counts_verdicts():
    con = Console(record=True, width=140, color_system=None)
    render_runs([{"id": 3, "experiment": "threading", "seed_row": "S1", "started": "t",
                  "profile": "quick", "status": "complete", "cases": 48,
                  "verdicts": ["confirmed", "refuted", "confirmed"], "lab_revision": "abc"}],
                con)
    text = con.export_text()
    assert "2 confirmed, 1 refuted" in text and "48" in text


def test_comparison_colours_a_change_by_the_metric_direction():
    rec = _record()
    rows = [Row("direct", "gcc-12 -O1", "", 2.0, 3.0, Ratio(1.5, 1.4, 1.6, 6, 6), "faster",
                0.001, 0.002),
            Row("switch", "gcc-12 -O1", "", 2.0, 1.0, Ratio(0.5, 0.4, 0.6, 3, 3), "slower")]
    comparison = Comparison("throughput", True, rows, {"direct": (rows[0].ratio, "faster")},
                            ["machine: A vs B"], ["different profiles (quick vs default)"])
    con = Console(record=True, width=160, color_system="standard", force_terminal=True)
    render_comparison(f"#{rec.id}", "#10", rec.experiment, comparison, con)
    text = con.export_text(styles=True)
    assert "threading: #10 against #9, throughput (ratio new/old, 95% interval over " \
           "processes; higher is faster)" in text
    assert "\x1b[32m1.500x [1.400, 1.600]" in text  # green: more throughput
    assert "\x1b[31m0.500x [0.400, 0.600]" in text  # red
    assert "compared: machine: A vs B" in text and "0.002" in text
    assert "WARNING, forced: different profiles" in text
    assert "1 faster, 1 slower, 0 the same (q: Welch" in text
