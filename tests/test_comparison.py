"""`cpulab compare`: matching cases of two runs, ratios, their direction, the listed
differences, and the JSON a script reads."""

from __future__ import annotations

import copy
import json
import math

import pytest

from cpulab import cli
from cpulab.comparability import differences
from cpulab.comparison import ComparisonError, change, compare
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import Ratio
from cpulab.results import Case, RunRecord
from cpulab.store import Store

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}


def _run(rid, ticks: dict[str, float], unit: str = "ticks/x", metric: str = "tsc",
         **kw) -> RunRecord:
    cases = [Case(v, B, {}, {metric: Metric.of([t, t * 1.01, t * 0.99], unit, "tsc")})
             for v, t in ticks.items()]
    base = dict(experiment="threading", seed_row="S1", title="t", profile="quick",
                started="s", duration_s=1.0,
                machine={"cpu": {"model_name": "A", "microcode": "1"}, "kernel": {}},
                machine_key="m1", lab_revision="r1", builds=[B], cases=cases, verdicts=[],
                id=rid)
    base.update(kw)
    return RunRecord(**base)


def test_ratios_of_matching_cases():
    rows = compare(_run(1, {"direct": 2.0, "switch": 4.0}),
                   _run(2, {"direct": 1.0, "switch": 4.0, "call": 3.0}), "tsc").rows
    by = {r.variant: r for r in rows}
    assert set(by) == {"direct", "switch"}  # `call` has nothing to compare with
    assert by["direct"].ratio.value == pytest.approx(0.5)
    assert by["direct"].ratio.low < 0.5 < by["direct"].ratio.high
    assert by["switch"].ratio.value == pytest.approx(1.0)


def test_a_change_is_read_by_the_metric_direction():
    # Half the ticks is better; half the throughput is worse; the same figure is the same.
    ticks = compare(_run(1, {"a": 2.0, "b": 4.0}), _run(2, {"a": 1.0, "b": 4.0}), "tsc")
    assert not ticks.higher_is_better
    assert [r.change for r in ticks.rows] == ["faster", "same"]
    gbs = compare(_run(1, {"a": 2.0, "b": 4.0}, "GB/s (10^9 B/s)", "throughput"),
                  _run(2, {"a": 1.0, "b": 8.0}, "GB/s (10^9 B/s)", "throughput"),
                  "throughput")
    assert gbs.higher_is_better
    assert [r.change for r in gbs.rows] == ["slower", "faster"]


@pytest.mark.parametrize("unit, higher", [
    ("GB/s", True), ("GB/s (10^9 B/s)", True), ("instructions/cycle", True),
    ("ns/dispatch", False), ("ticks/byte", False), ("misses/dispatch", False), ("%", False),
])
def test_direction_comes_from_the_unit(unit, higher):
    assert Metric.exact(1.0, unit, "clock").higher_is_better is higher


@pytest.mark.parametrize("r, higher, q, expected", [
    (Ratio(1.10, 1.05, 1.15, 5, 5), False, 0.01, "slower"),
    (Ratio(1.10, 1.05, 1.15, 5, 5), True, 0.01, "faster"),
    (Ratio(0.90, 0.85, 0.95, 5, 5), False, 0.01, "faster"),
    (Ratio(1.10, 0.95, 1.25, 5, 5), False, 0.3, "same"),  # not significant
    (Ratio(1.02, 1.01, 1.03, 5, 5), True, 0.001, "same"),  # within the noise threshold
    (Ratio(1.10, 0.0, math.inf, 2, 2), False, None, "same"),  # too few processes to test
    (Ratio(1.0, 1.0, 1.0, 1, 1), False, None, "same"),  # exact and equal
    (Ratio(1.01, 1.01, 1.01, 1, 1), False, None, "slower"),  # exact: any difference is real
])
def test_change(r, higher, q, expected):
    assert change(r, higher, q) == expected


def test_a_change_must_pass_the_corrected_test_and_the_noise_threshold():
    r = Ratio(0.90, 0.85, 0.95, 5, 5)
    assert change(r, False, q=0.01) == "faster"
    assert change(r, False, q=0.2) == "same"
    assert change(r, False, q=0.01, noise=0.15) == "same"  # 10% is within a 15% threshold


def test_compare_json_gives_numbers_and_the_direction(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        a = s.add(_run(None, {"direct": 2.0}, "GB/s", "throughput"))
        b = s.add(_run(None, {"direct": 3.0}, "GB/s", "throughput"))
    assert cli.main(["compare", str(a), str(b), "--metric", "throughput", "--db", str(db),
                     "--json"]) == 0
    (out,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert (out["old"], out["new"], out["metric"], out["better"]) == (f"#{a}", f"#{b}",
                                                                      "throughput", "higher")
    (row,) = out["cases"]
    assert row["ratio"] == pytest.approx(1.5)
    assert isinstance(row["low"], float) and isinstance(row["high"], float)
    assert row["low"] < 1.5 < row["high"]
    assert row["p"] < 0.01 and row["q"] == pytest.approx(row["p"])  # one case: q = p
    assert (row["old"], row["new"], row["change"]) == (2.0, 3.0, "faster")
    assert out["geomean"]["direct"]["ratio"] == pytest.approx(1.5)
    assert out["summary"] == {"faster": 1, "slower": 0, "same": 0}


def test_other_experiment_or_no_common_case_is_refused():
    with pytest.raises(ComparisonError, match="only runs of one experiment"):
        compare(_run(1, {"direct": 1}), _run(2, {"direct": 1}, experiment="mulpre"), "tsc")
    with pytest.raises(ComparisonError, match="no case"):
        compare(_run(1, {"direct": 1}), _run(2, {"switch": 1}), "tsc")
    with pytest.raises(ComparisonError, match="no case"):
        compare(_run(1, {"direct": 1}), _run(2, {"direct": 1}), "cycles")


def test_differences_are_listed():
    old = _run(1, {"direct": 1})
    assert differences(old, copy.deepcopy(old)) == []
    other_builds = [{**B, "compiler_version": "12.3.0"}]
    new = _run(2, {"direct": 1}, machine_key="m2", profile="default", lab_revision="r2",
               machine={"cpu": {"model_name": "B", "microcode": "2"}, "kernel": {}},
               builds=other_builds)
    d = differences(old, new)
    assert len(d) == 4
    assert d[0].startswith("machine: A (microcode 1") and "vs B (microcode 2" in d[0]
    assert "compiler gcc-12: 12.2.0 vs 12.3.0" in d
    assert "profile: quick vs default" in d and "lab revision: r1 vs r2" in d


def _six(t: float, unit: str = "ticks/x") -> Metric:
    # Six figures per case, as the quick profile gives (3 processes x 2 repetitions).
    return Metric.of([t * f for f in (1.0, 1.01, 0.99, 1.02, 0.98, 1.005)], unit, "tsc",
                     (0, 0, 1, 1, 2, 2))


def _multi(rid, ticks: dict[tuple[str, str], float], **kw) -> RunRecord:
    """Cases by (variant, compiler), each with six figures."""
    cases = [Case(v, {**B, "compiler": cc, "compiler_version": cc[-2:] + ".0"},
                  {"n": 8}, {"tsc": _six(t)})
             for (v, cc), t in ticks.items()]
    return _run(rid, {}, cases=cases, **kw)


def test_u_test_and_geomean_per_variant():
    old = _multi(1, {("a", "gcc-12"): 2.0, ("a", "clang-19"): 4.0, ("b", "gcc-12"): 1.0})
    new = _multi(2, {("a", "gcc-12"): 1.0, ("a", "clang-19"): 2.0, ("b", "gcc-12"): 1.0})
    c = compare(old, new, "tsc")
    by = {(r.variant, r.build): r for r in c.rows}
    assert by[("a", "gcc-12 -O2")].p < 0.01 and by[("a", "gcc-12 -O2")].change == "faster"
    assert by[("b", "gcc-12 -O2")].p > 0.5 and by[("b", "gcc-12 -O2")].change == "same"
    g, ch = c.geomeans["a"]
    assert g.value == pytest.approx(0.5) and g.high < 1 and ch == "faster"
    assert c.geomeans["b"][1] == "same"
    assert c.counts() == {"faster": 2, "slower": 0, "same": 1}


def test_one_runs_compilers_are_paired_by_variant_flags_and_params():
    run = _multi(5, {("a", "gcc-12"): 2.0, ("a", "clang-19"): 3.0, ("b", "gcc-12"): 1.0,
                     ("b", "clang-19"): 1.0})
    c = compare(run, run, "tsc", old_build="gcc", new_build="clang")
    assert [(r.variant, r.build, r.ratio.value) for r in c.rows] == [
        ("a", "-O2", pytest.approx(1.5)), ("b", "-O2", pytest.approx(1.0))]
    assert c.rows[0].change == "slower"
    assert c.differences == ["compiler: gcc-12 12.0 vs clang-19 19.0"]


def test_a_comparison_that_means_little_is_refused_or_forced_with_the_reason():
    old = _multi(1, {("a", "gcc-12"): 2.0})
    new = _multi(2, {("a", "gcc-12"): 2.0}, profile="default")
    with pytest.raises(ComparisonError, match=r"different profiles \(quick vs default\)"
                                              r".*--force"):
        compare(old, new, "tsc")
    forced = compare(old, new, "tsc", force=True)
    assert forced.forced and "different profiles" in forced.forced[0]
    other_params = _run(3, {}, cases=[Case("a", B, {"n": 9}, {"tsc": _six(2.0)})])
    with pytest.raises(ComparisonError, match=r'different experiment parameters.*"n": 8'):
        compare(old, other_params, "tsc")
    more = _run(4, {}, cases=[Case("a", {**B, "compiler_version": "12.0"}, {"n": 8},
                                   {"tsc": Metric.of([2.0, 2.1, 1.9], "ticks/x", "tsc",
                                                     (0, 1, 2))})])
    with pytest.raises(ComparisonError, match=r"repetitions per process \(2 vs 1"):
        compare(old, more, "tsc")
    # More processes, as a profile's precision adds them, compare as they are.
    longer = _run(5, {}, cases=[Case("a", {**B, "compiler_version": "12.0"}, {"n": 8},
                                     {"tsc": Metric.of([2.0] * 10, "ticks/x", "tsc",
                                                       [p for p in range(5) for _ in "ab"])})])
    assert compare(old, longer, "tsc").rows


def _store(tmp_path, *records) -> tuple[str, list[int]]:
    db = tmp_path / "r.db"
    with Store(db) as s:
        return str(db), [s.add(r) for r in records]


def test_fail_on_regression_exits_3_only_beyond_the_threshold(tmp_path, capsys):
    db, (a, b) = _store(tmp_path, _multi(None, {("a", "gcc-12"): 2.0}),
                        _multi(None, {("a", "gcc-12"): 2.4}))  # 20% slower
    assert cli.main(["compare", str(a), str(b), "--db", db, "--fail-on-regression", "10"]) == 3
    assert "regression" in capsys.readouterr().err
    assert cli.main(["compare", str(a), str(b), "--db", db, "--fail-on-regression", "25"]) == 0
    assert cli.main(["compare", str(b), str(a), "--db", db, "--fail-on-regression", "0"]) == 0


def test_cli_compares_several_runs_against_the_first_and_warns_when_forced(tmp_path, capsys):
    db, ids = _store(tmp_path, _multi(None, {("a", "gcc-12"): 2.0}),
                     _multi(None, {("a", "gcc-12"): 1.0}),
                     _multi(None, {("a", "gcc-12"): 2.0}, profile="default"))
    assert cli.main(["compare", *map(str, ids), "--db", db]) == 1
    assert "different profiles" in capsys.readouterr().err
    assert cli.main(["compare", *map(str, ids), "--db", db, "--force", "--json"]) == 0
    cap = capsys.readouterr()
    assert "WARNING" in cap.err and "different profiles" in cap.err
    first, second = json.loads(cap.out)["comparisons"]
    assert (first["old"], first["new"], second["new"]) == (f"#{ids[0]}", f"#{ids[1]}",
                                                          f"#{ids[2]}")
    assert first["cases"][0]["change"] == "faster" and second["forced"]


def test_runs_are_named_by_experiment_machine_compiler_and_bundle(tmp_path, capsys):
    from cpulab.store import write_bundle

    other = _multi(None, {("a", "gcc-12"): 1.0, ("a", "clang-19"): 1.0},
                   machine_key="ffee00", origin="host-b")
    db, (a, b) = _store(tmp_path, _multi(None, {("a", "gcc-12"): 2.0, ("a", "clang-19"): 1.0}),
                        other)
    bundle = write_bundle(tmp_path / "b.json.gz", [other])
    for refs in (["threading@m1", "threading@host-b"], ["threading@m1", "threading@ffee"],
                 [str(a), str(bundle)], ["@m1", "@host-b"]):
        assert cli.main(["compare", *refs, "--db", db, "--json"]) == 0, refs
        (c,) = json.loads(capsys.readouterr().out)["comparisons"]
        assert c["new"].endswith("(host-b)") and c["summary"]["faster"] == 1, refs
        assert "host: this database vs host-b" in c["differences"]
    assert cli.main(["compare", f"{a}:gcc", f"{a}:clang", "--db", db, "--json"]) == 0
    (c,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert (c["old"], c["new"]) == (f"#{a}:gcc", f"#{a}:clang")
    assert c["cases"][0]["ratio"] == pytest.approx(0.5)
    assert cli.main(["compare", "threading@nowhere", str(a), "--db", db]) == 2
    assert "no run of threading on machine 'nowhere'" in capsys.readouterr().err
