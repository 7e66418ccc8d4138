"""The terminal report: what a reader must see (units, sources, n/a with reasons, the
seed's table, evidence, verdicts), rendered from a fixed record into a fixed width."""

from __future__ import annotations

from rich.console import Console

from cpulab.comparison import Comparison, Row
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.report import render_comparison, render_record, render_runs
from cpulab.results import Case, Evidence, EvidenceTable, RunRecord, SeedTable, Verdict


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
                0.002),
            Row("switch", "gcc-12 -O1", "", 2.0, 1.0, Ratio(0.5, 0.4, 0.6, 3, 3), "slower")]
    comparison = Comparison("throughput", True, rows, {"direct": (rows[0].ratio, "faster")},
                            ["machine: A vs B"], ["different profiles (quick vs default)"])
    con = Console(record=True, width=160, color_system="standard", force_terminal=True)
    render_comparison(f"#{rec.id}", "#10", rec.experiment, comparison, con)
    text = con.export_text(styles=True)
    assert "threading: #10 against #9, throughput (ratio new/old of medians, 95% interval; " \
           "higher is faster)" in text
    assert "\x1b[32m1.500x [1.400, 1.600]" in text  # green: more throughput
    assert "\x1b[31m0.500x [0.400, 0.600]" in text  # red
    assert "compared: machine: A vs B" in text and "0.002" in text
    assert "WARNING, forced: different profiles" in text
    assert "1 faster, 1 slower, 0 the same beyond noise" in text
