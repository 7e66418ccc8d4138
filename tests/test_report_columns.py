"""One format per column of figures (results/columns.py), in the terminal tables of
`run`/`show` and in the HTML report: digits grouped, spreads in the figure's notation."""

from __future__ import annotations

from rich.console import Console

from cpulab.measure.metrics import Metric
from cpulab.report.html import _cases_table
from cpulab.report.terminal import cases_table
from cpulab.results import Case, RunRecord
from cpulab.results.columns import column_format


def _metric(median: float, mad: float, unit: str = "faults/op") -> Metric:
    return Metric(median, mad, 5, unit, "clock", median - mad, median + mad)


def _record(*cases: Case) -> RunRecord:
    return RunRecord(experiment="x", seed_row="own", title="t", profile="quick",
                     started="2026-11-23T10:00:00+00:00", duration_s=1.0, machine={},
                     machine_key="k", lab_revision="abc", builds=[], cases=list(cases),
                     verdicts=[])


def test_a_column_takes_its_decimals_from_its_smallest_figure():
    assert column_format([1.234, 12.5, 15.3]).decimals == 3
    assert [column_format([1.234, 15.3]).figure(v) for v in (1.234, 15.3)] == \
        ["1.234", "15.300"]
    assert column_format([149.8]).decimals == 1
    assert column_format([1.52, 3.0]).decimals == 3
    assert column_format([64.5, 140.5]).figure(140.5) == "140.50"
    assert column_format([3, 7, 399500]).figure(399500) == "399,500"  # whole: grouped
    assert column_format([2.5e6, 491962.5]).figure(2.5e6) == "2,500,000"
    assert column_format([1e-9, 5.0]).decimals == 6  # at most: the larger stay readable
    assert column_format([]).decimals == 0
    assert column_format([float("nan"), 2.5]).decimals == 3


def test_the_spread_is_written_like_its_figure():
    # Was `491,962 ±1.3e+03`, and `399500` ungrouped in the next column.
    fmt = column_format([491962.0, 12345.0])
    assert fmt.metric(_metric(491962.0, 1300.0)) == "491,962 ±1,300"
    assert column_format([0.5, 2.25]).metric(_metric(2.25, 0.0123)) == "2.2500 ±0.0123"
    assert column_format([7.0]).metric(Metric.exact(7, "sites", "asm")) == "7"


def test_run_and_show_tables_share_one_format_per_column():
    rec = _record(Case("a", None, {}, {"cpu": _metric(491962.0, 1300.0),
                                       "faults": _metric(64.5, 0.74)}),
                  Case("b", None, {}, {"cpu": _metric(399500.0, 53000.0),
                                       "faults": _metric(140.5, 1.5)}))
    table, _ = cases_table(rec)
    con = Console(record=True, width=200, color_system=None)
    con.print(table)
    text = con.export_text()
    for cell in ("491,962 ±1,300", "399,500 ±53,000", "64.50 ±0.74", "140.50 ±1.50"):
        assert cell in text, cell
    assert "e+" not in text and "399500" not in text
    html = _cases_table(rec, None)
    first = html["numeric_from"]  # no params column: no case has parameters
    cells = [[c["text"] for c in row[first:]] for row in html["rows"]]
    assert cells == [["491,962 ±1,300", "64.50 ±0.74"], ["399,500 ±53,000", "140.50 ±1.50"]]


def test_times_in_nanoseconds_take_the_unit_their_column_needs():
    # A whole command's 149,809,800 ns/run.
    fmt = column_format([149_809_800.0, 3_243_823.0], "ns/run")
    assert (fmt.unit, fmt.figure(149_809_800.0), fmt.figure(3_243_823.0)) == \
        ("ms/run", "149.810", "3.244")
    assert column_format([149_809_800.0], "ns").with_unit(149_809_800.0) == "149.8 ms"
    assert column_format([1_523_000_000.0], "ns").with_unit(1_523_000_000.0) == "1.523 s"
    assert column_format([2_500.0, 999_000.0], "ns/op").unit == "µs/op"
    assert column_format([1.234, 5e6], "ns/op").unit == "ns/op"  # the smallest decides
    assert column_format([5e9], "cycles/run").unit == "cycles/run"  # not a time
    assert column_format([0.0, 2e6], "ns").unit == "ms"  # a zero is no figure to scale by


def test_the_cases_table_states_the_unit_its_figures_are_in():
    rec = _record(Case("sleep 0.15", None, {}, {"time": _metric(155_590_471.0, 5_700_000.0,
                                                                 "ns/run")}),
                  Case("true", None, {}, {"time": _metric(3_243_823.0, 1_700_000.0,
                                                          "ns/run")}))
    table, _ = cases_table(rec)
    con = Console(record=True, width=200, color_system=None)
    con.print(table)
    text = con.export_text()
    assert "ms/run [clock]" in text and "ns/run" not in text
    assert "155.590 ±5.700" in text and "3.244 ±1.700" in text
    html = _cases_table(rec, None)
    first = html["numeric_from"]
    assert html["columns"][first] == "time ms/run [clock]"
    assert html["rows"][0][first] == {"text": "155.590 ±5.700", "sort": 155_590_471.0,
                                      "cls": ""}
