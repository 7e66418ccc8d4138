"""`cpulab run --cmd ... --export-markdown/--export-csv FILE`: hyperfine's tables of the
commands, each format one serializer, checked against snapshots of made-up results."""

from __future__ import annotations

import json

import pytest

from cpulab import cli
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio, geomean
from cpulab.report.export import (
    SERIALIZERS,
    CommandSummary,
    ExportError,
    command_summaries,
    write_export,
)
from cpulab.results import Case, RunRecord

ROWS = [
    CommandSummary("gzip -{level} -c big.txt", {"level": 1}, 149_809_800.0, 2_104_000.0,
                   149_500_000.0, 147_020_000.0, 153_900_000.0,
                   Ratio(1.52, 1.49, 1.55, 10, 10)),
    CommandSummary("cat big.txt", {"level": 1}, 98_600_000.0, 1_000_000.0, 98_350_000.0,
                   97_000_000.0, 101_250_000.0, Ratio(1.0, 1.0, 1.0, 10, 10)),
]


def test_markdown_snapshot():
    assert SERIALIZERS["markdown"](ROWS) == (
        "| Command | level | Mean [ms] | Median [ms] | Min [ms] | Max [ms] | Relative |\n"
        "| :--- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        "| `gzip -{level} -c big.txt` | 1 | 149.81 ± 2.10 | 149.50 | 147.02 | 153.90 | "
        "1.520x [1.490, 1.550] |\n"
        "| `cat big.txt` | 1 | 98.60 ± 1.00 | 98.35 | 97.00 | 101.25 | 1.000x |\n")


def test_csv_snapshot():
    assert SERIALIZERS["csv"](ROWS) == (
        "command,mean,stddev,median,min,max,parameter_level,relative,relative_low,"
        "relative_high\n"
        "gzip -{level} -c big.txt,0.1498098,0.002104,0.1495,0.14702,0.1539,1,1.52,1.49,1.55\n"
        "cat big.txt,0.0986,0.001,0.09835,0.097,0.10125,1,1.0,1.0,1.0\n")


def test_markdown_keeps_pipes_and_backticks_inside_their_cell():
    row = CommandSummary("grep -c 'a|b' `ls`", {}, 2e9, 0.0, 2e9, 2e9, 2e9,
                         Ratio(1.0, 1.0, 1.0, 1, 1))
    line = SERIALIZERS["markdown"]([row]).splitlines()[2]
    # CommonMark strips one space from each end of a code span that starts or ends with `
    assert line.startswith("| `` grep -c 'a\\|b' `ls` `` | 2 ± 0 |")
    assert "Mean [s]" in SERIALIZERS["markdown"]([row])


def _case(command: str, n: int, times: list[float]) -> Case:
    return Case(command, None, {"n": n}, {"time": Metric.of(times, "ns/run", "clock")})


def _record(*cases: Case) -> RunRecord:
    return RunRecord(experiment="cmd", seed_row="own", title="t", profile="quick",
                     started="2026-11-23T10:00:00+00:00", duration_s=1.0, machine={},
                     machine_key="k", lab_revision="abc", builds=[], cases=list(cases),
                     verdicts=[])


def test_each_command_against_the_fastest_with_its_parameters():
    rec = _record(_case("a {n}", 1, [30.0, 33.0, 36.0]), _case("b {n}", 1, [10.0, 11.0, 12.0]),
                  _case("a {n}", 2, [5.0, 6.0, 7.0]), _case("b {n}", 2, [20.0, 22.0, 24.0]),
                  Case("c {n}", None, {"n": 1}, error="exit status 1"))
    rows = command_summaries(rec)
    assert [(r.command, r.params["n"]) for r in rows] == \
        [("a {n}", 1), ("b {n}", 1), ("a {n}", 2), ("b {n}", 2)]  # no row for c: failed
    # each timed run is a process: the ratio of the runs' geometric means
    b2_over_a2 = geomean([20.0, 22.0, 24.0]) / geomean([5.0, 6.0, 7.0])
    assert [r.relative.value for r in rows] == pytest.approx([
        geomean([30.0, 33.0, 36.0]) / geomean([10.0, 11.0, 12.0]), 1.0, 1.0, b2_over_a2])
    assert rows[1].relative == Ratio(1.0, 1.0, 1.0, 3, 3)  # the fastest: exactly 1
    a1 = rows[0]
    assert (a1.mean_ns, a1.stddev_ns, a1.median_ns, a1.min_ns, a1.max_ns) == \
        (33.0, 3.0, 33.0, 30.0, 36.0)


def test_one_command_swept_is_compared_across_its_parameters():
    rows = command_summaries(_record(_case("sleep {n}", 1, [10.0, 10.0]),
                                     _case("sleep {n}", 2, [20.0, 20.0])))
    assert [r.relative.value for r in rows] == pytest.approx([1.0, 2.0])


def test_an_export_is_written_whole_into_a_folder_that_exists(tmp_path):
    target = tmp_path / "t.md"
    target.write_text("old")
    write_export(target, "new\n")
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.md"]  # no temporary left
    with pytest.raises(ExportError, match="no such folder"):
        write_export(tmp_path / "missing" / "t.csv", "x")
    assert not (tmp_path / "missing").exists()


def test_run_exports_both_tables_and_refuses_a_missing_folder_before_running(tmp_path, capsys):
    db = tmp_path / "r.db"
    rc = cli.main(["run", "--cmd", "true", "--quick", "--db", str(db),
                   "--export-csv", str(tmp_path / "no" / "t.csv")])
    err = capsys.readouterr().err
    assert rc == 2 and "--export-csv" in err and "no such folder" in err
    assert not db.exists()  # nothing was run
    md, csv = tmp_path / "t.md", tmp_path / "t.csv"
    rc = cli.main(["run", "--cmd", "true", "--cmd", "sleep 0", "--quick", "--db", str(db),
                   "--json", "--export-markdown", str(md), "--export-csv", str(csv)])
    out = capsys.readouterr().out
    assert rc == 0
    assert md.read_text().splitlines()[0].startswith("| Command | Mean [")
    lines = csv.read_text().splitlines()
    assert len(lines) == 3 and {ln.split(",")[0] for ln in lines[1:]} == {"true", "sleep 0"}
    assert len(json.loads(out)["runs"][0]["cases"]) == 2
    rc = cli.main(["run", "threading", "--export-csv", str(csv)])
    assert rc == 2 and "--export-csv goes with --cmd" in capsys.readouterr().err
