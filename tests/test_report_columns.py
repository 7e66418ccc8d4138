"""One format per column of figures (report/columns.py), in the terminal tables of
`run`/`show` and in the HTML report: digits grouped, spreads in the figure's notation."""

from __future__ import annotations

from rich.console import Console

from cpulab.measure.metrics import Metric
from cpulab.report.columns import column_format
from cpulab.report.html import _cases_table
from cpulab.report.terminal import cases_table
from cpulab.results import Case, RunRecord


def _metric(median: float, mad: float, unit: str = "ns/op") -> Metric:
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
    cells = [[c["text"] for c in row[3:]] for row in html["rows"]]
    assert cells == [["491,962 ±1,300", "64.50 ±0.74"], ["399,500 ±53,000", "140.50 ±1.50"]]
