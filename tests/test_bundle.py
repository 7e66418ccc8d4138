"""Result bundles: export and import round trip, idempotence, refusal of newer schemas,
and corrupt or truncated files rejected whole with the database unchanged."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from cpulab import cli
from cpulab.measure.metrics import Metric
from cpulab.results import (
    SCHEMA,
    VERDICTS,
    Case,
    CaseConditions,
    Evidence,
    EvidenceTable,
    RunConditions,
    RunRecord,
    SeedTable,
    Verdict,
)
from cpulab.store import BUNDLE_SCHEMA, BundleError, Store, read_bundle, write_bundle
from cpulab.store.bundle import _digest
from cpulab.store.bundle_schema import bundle_fault, bundle_schema

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}
DATA = Path(__file__).parent / "data"
LAYOUT1_DB = DATA / "store" / "results-layout1.db"
# Bundles written by earlier versions of schema 1, kept as they were written.
OLD_BUNDLES = sorted((DATA / "bundles").glob("*.json*"))


def _rec(experiment: str, t: float) -> RunRecord:
    return RunRecord(
        experiment=experiment, seed_row="S1", title="t", profile="quick",
        started=f"2026-11-23T10:00:{int(t):02d}+00:00", duration_s=1.0,
        machine={"cpu": {"model_name": "X"}}, machine_key="k1", lab_revision="r1",
        builds=[B], cases=[Case("a", B, {"n": 1}, {"tsc": Metric.of([t, t * 1.1, t * 0.9],
                                                                     "ticks/x", "tsc")})],
        verdicts=[Verdict("c", "confirmed", "e")])


def _db_state(path: Path) -> list:
    with Store(path) as s:
        return [(r["id"], r["experiment"]) for r in s.runs()]


@pytest.mark.parametrize("name", ["b.json", "b.json.gz"])
def test_round_trip_keeps_every_figure(tmp_path, name):
    recs = [_rec("threading", 1), _rec("mulpre", 2)]
    path = write_bundle(tmp_path / name, recs)
    assert (path.read_bytes()[:2] == b"\x1f\x8b") == name.endswith(".gz")
    back = read_bundle(path)
    assert [r.as_dict() for r in back] == [r.as_dict() for r in recs]
    assert back[0].cases[0].metrics["tsc"].values == recs[0].cases[0].metrics["tsc"].values
    assert not list(tmp_path.glob(".*tmp"))


def test_export_then_import_twice_adds_once(tmp_path, capsys):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    with Store(src) as s:
        ids = [s.add(_rec("threading", 1)), s.add(_rec("mulpre", 2))]
    bundle = tmp_path / "lab.json.gz"
    assert cli.main(["export", "--all", "-o", str(bundle), "--origin", "host-a",
                     "--db", str(src)]) == 0
    assert "exported 2 run(s) of mulpre, threading" in capsys.readouterr().out
    assert cli.main(["import", str(bundle), "--db", str(dst), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["bundles"][0]
    assert len(first["added"]) == 2 and first["present"] == []
    assert cli.main(["import", str(bundle), "--db", str(dst), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)["bundles"][0]
    assert again["added"] == [] and sorted(again["present"]) == sorted(first["added"])
    with Store(dst) as d, Store(src) as s:
        assert len(list(d.runs())) == 2
        for i, j in zip(ids, sorted(first["added"]), strict=True):
            mine, theirs = s.get(i), d.get(j)
            assert theirs.origin == "host-a" and mine.origin is None
            assert {**theirs.as_dict(), "id": None, "origin": None} == \
                   {**mine.as_dict(), "id": None, "origin": None}


def test_export_by_experiment_and_nothing_named_is_an_error(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        s.add(_rec("threading", 1))
        s.add(_rec("threading", 2))
        s.add(_rec("mulpre", 3))
    assert cli.main(["export", "threading", "-o", str(tmp_path / "t.json"), "--db", str(db)]) == 0
    assert [r.started[-8:] for r in read_bundle(tmp_path / "t.json")] == ["02+00:00"]
    assert cli.main(["export", "-o", str(tmp_path / "x.json"), "--db", str(db)]) == 2
    assert "--latest or --all" in capsys.readouterr().err
    assert cli.main(["export", "--latest", "-o", str(tmp_path / "l.json"),
                     "--db", str(db)]) == 0
    assert sorted(r.experiment for r in read_bundle(tmp_path / "l.json")) == ["mulpre",
                                                                              "threading"]


def test_bundles_compare_and_report_without_a_database(tmp_path, capsys):
    # Runs that came as files need no database here, and reading them creates none.
    a = write_bundle(tmp_path / "a.json", [_rec("threading", 1)])
    b = write_bundle(tmp_path / "b.json.gz", [_rec("threading", 2)])
    db = tmp_path / "none" / "r.db"
    assert cli.main(["compare", str(a), f"{b}:gcc", "--db", str(db), "--json"]) == 0
    (c,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert (c["old"], c["new"]) == ("a.json#1", "b.json.gz#1:gcc")
    assert cli.main(["report", str(a), str(b), "-o", str(tmp_path / "r.html"),
                     "--db", str(db)]) == 0
    assert (tmp_path / "r.html").is_file() and not db.parent.exists()


def test_export_into_a_missing_folder_is_refused_and_writes_nothing(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        s.add(_rec("threading", 1))
    target = tmp_path / "nonexistent" / "dir" / "x.json"
    assert cli.main(["export", "--all", "-o", str(target), "--db", str(db)]) == 1
    assert f"no such folder: {target.parent}" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.db"]


def _write_raw(path: Path, bundle: dict, compress: bool = False) -> Path:
    data = json.dumps(bundle).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def _bundle_dict(tmp_path) -> dict:
    path = write_bundle(tmp_path / "ok.json", [_rec("threading", 1), _rec("mulpre", 2)])
    return json.loads(path.read_text())


def test_newer_schema_is_refused_with_the_versions(tmp_path, capsys):
    d = _bundle_dict(tmp_path)
    d["bundle_schema"] = BUNDLE_SCHEMA + 1
    path = _write_raw(tmp_path / "new.json", d)
    with pytest.raises(BundleError, match=f"bundle schema {BUNDLE_SCHEMA + 1} .* newer "
                                          "cpulab.*upgrade cpulab"):
        read_bundle(path)
    db = tmp_path / "r.db"
    assert cli.main(["import", str(path), "--db", str(db)]) == 1
    assert "newer cpulab" in capsys.readouterr().err
    assert _db_state(db) == []
    d = _bundle_dict(tmp_path)
    d["record_schema"] = d["record_schema"] + 1  # records newer than this cpulab reads
    with pytest.raises(BundleError, match="newer cpulab"):
        read_bundle(_write_raw(tmp_path / "rec.json", d))
    d["record_schema"] = "two"
    with pytest.raises(BundleError, match="not a number"):
        read_bundle(_write_raw(tmp_path / "rec2.json", d))


def _corruptions(tmp_path) -> list[tuple[str, Path]]:
    good = write_bundle(tmp_path / "good.json.gz", [_rec("threading", 1), _rec("mulpre", 2)])
    raw = good.read_bytes()
    plain = gzip.decompress(raw)
    d = json.loads(plain)
    edited = json.loads(plain)
    edited["runs"][1]["cases"][0]["metrics"]["tsc"]["median"] = 0.5  # checksum breaks
    missing = json.loads(plain)
    del missing["runs"][1]["machine_key"]
    missing["sha256"] = _digest(missing["runs"])
    out = [("truncated gzip", tmp_path / "t1.json.gz"), ("truncated JSON", tmp_path / "t2.json"),
           ("edited figure", tmp_path / "e.json"), ("record missing a field", tmp_path / "m.json"),
           ("not a bundle", tmp_path / "n.json"), ("garbage", tmp_path / "g.bin")]
    out[0][1].write_bytes(raw[: len(raw) * 2 // 3])
    out[1][1].write_bytes(plain[: len(plain) - 40])
    _write_raw(out[2][1], edited)
    _write_raw(out[3][1], missing)
    _write_raw(out[4][1], {"runs": d["runs"]})
    out[5][1].write_bytes(b"\x1f\x8b\x08garbage")
    return out


def test_a_corrupt_bundle_is_rejected_whole_and_the_database_is_unchanged(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        s.add(_rec("threading", 9))
    before = _db_state(db)
    good = write_bundle(tmp_path / "fine.json", [_rec("alloc", 3)])
    for what, path in _corruptions(tmp_path):
        with pytest.raises(BundleError, match=str(path.name)):
            read_bundle(path)
        # with a good bundle before it on the same command line: nothing of either
        assert cli.main(["import", str(good), str(path), "--db", str(db)]) == 1, what
        assert path.name in capsys.readouterr().err, what
        assert _db_state(db) == before, what


def test_a_migrated_database_exports_and_reimports_as_the_same_runs(tmp_path, capsys):
    db = tmp_path / "old.db"
    shutil.copy(LAYOUT1_DB, db)
    bundle = tmp_path / "old.json.gz"
    assert cli.main(["export", "--all", "-o", str(bundle), "--db", str(db)]) == 0
    assert "migrated, layout 1 -> 2" in capsys.readouterr().err
    assert cli.main(["import", str(bundle), "--db", str(db), "--json"]) == 0
    (b,) = json.loads(capsys.readouterr().out)["bundles"]
    assert b["added"] == [] and sorted(b["present"]) == [1, 2]


# The checks of a bundle's content, after its checksum: a bundle can be whole and still
# not hold records that show and compare can read.

def _resummed(tmp_path, name: str, edit) -> Path:
    """A bundle of two runs, edited by `edit` and summed again, as a tool that writes
    bundles wrongly would leave it: the checksum holds, the content does not."""
    d = _bundle_dict(tmp_path)
    edit(d)
    d["sha256"] = _digest(d["runs"])
    return _write_raw(tmp_path / name, d)


def _refused_and_nothing_imported(tmp_path, capsys, path: Path, message: str) -> None:
    """`message` from the reader and from `cpulab import`, which stores nothing of it
    nor of a good bundle named with it."""
    with pytest.raises(BundleError) as e:
        read_bundle(path)
    assert str(e.value).startswith(f"{path}: ") and "\n" not in str(e.value)
    assert message in str(e.value)
    db = tmp_path / "r.db"
    with Store(db) as s:
        s.add(_rec("threading", 9))
    before = _db_state(db)
    good = write_bundle(tmp_path / "good.json", [_rec("alloc", 3)])
    assert cli.main(["import", str(good), str(path), "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"cpulab import: {path}: ") and message in err
    assert _db_state(db) == before


def test_a_figure_that_is_not_a_number_is_refused_with_its_path(tmp_path, capsys):
    # It was imported, and show and compare then failed with a traceback.
    path = _resummed(tmp_path, "fast.json", lambda d: d["runs"][1]["cases"][0]["metrics"][
        "tsc"].__setitem__("median", "fast"))
    _refused_and_nothing_imported(
        tmp_path, capsys, path, "runs[1].cases[0].metrics.tsc.median: 'fast' is not of type "
        "'number'; nothing was imported")
    # compare and report, given the file, read it the same way and say the same
    for argv in (["compare", str(path), str(path)],
                 ["report", str(path), "-o", str(tmp_path / "r.html")]):
        assert cli.main([*argv, "--db", str(tmp_path / "none.db")]) == 1
        assert "runs[1].cases[0].metrics.tsc.median" in capsys.readouterr().err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("found, message", [
    (0, "bundle schema 0: this cpulab reads 1"),
    (-1, "bundle schema -1: this cpulab reads 1"),
    (True, "bundle_schema True is not a number"),
])
def test_a_bundle_schema_older_than_any_cpulab_wrote_is_refused(tmp_path, capsys, found,
                                                                message):
    d = _bundle_dict(tmp_path)
    d["bundle_schema"] = found
    _refused_and_nothing_imported(tmp_path, capsys, _write_raw(tmp_path / "old.json", d),
                                  message)


def test_a_bundle_without_its_schema_or_record_schema_0_is_refused(tmp_path, capsys):
    d = _bundle_dict(tmp_path)
    del d["bundle_schema"]
    _refused_and_nothing_imported(tmp_path, capsys, _write_raw(tmp_path / "none.json", d),
                                  "no bundle_schema field")
    d = _bundle_dict(tmp_path)
    d["record_schema"] = 0
    _refused_and_nothing_imported(tmp_path, capsys, _write_raw(tmp_path / "r0.json", d),
                                  "record schema 0: this cpulab reads 1")


def test_a_bundle_without_sha256_is_not_called_a_mismatch(tmp_path, capsys):
    d = _bundle_dict(tmp_path)
    del d["sha256"]
    path = _write_raw(tmp_path / "cut.json", d)
    _refused_and_nothing_imported(tmp_path, capsys, path,
                                  "no sha256 field: not a cpulab bundle, or cut short")
    with pytest.raises(BundleError) as e:
        read_bundle(path)
    assert "do not match" not in str(e.value)


def test_the_checks_go_in_order_from_the_file_to_its_figures(tmp_path):
    # Each fault is reported by the first check that can see it, whatever follows.
    def bad_figure(d):
        d["runs"][0]["cases"][0]["metrics"]["tsc"]["median"] = "fast"

    d = _bundle_dict(tmp_path)
    bad_figure(d)  # the checksum no longer holds either
    with pytest.raises(BundleError, match="do not match the bundle's sha256"):
        read_bundle(_write_raw(tmp_path / "a.json", d))
    del d["sha256"]
    with pytest.raises(BundleError, match="no sha256 field"):
        read_bundle(_write_raw(tmp_path / "b.json", d))
    d["bundle_schema"] = 0
    with pytest.raises(BundleError, match="bundle schema 0"):
        read_bundle(_write_raw(tmp_path / "c.json", d))


def _tags(d, tags, values: bool = True):
    """Tag the first case's figures with `tags` (and take the figures away, if not
    `values`)."""
    m = d["runs"][0]["cases"][0]["metrics"]["tsc"]
    m["processes"] = tags
    if not values:
        del m["values"]


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["runs"][0]["verdicts"][0].__setitem__("verdict", "probably"),
     "runs[0].verdicts[0].verdict: 'probably' is not one of ['confirmed', 'refuted', "
     "'inconclusive', 'unmeasurable']"),
    (lambda d: d["runs"][1]["cases"][0]["metrics"]["tsc"].__setitem__("n", -3),
     "runs[1].cases[0].metrics.tsc.n: -3 is less than the minimum of 1"),
    (lambda d: d["runs"][0]["cases"][0]["metrics"]["tsc"].__setitem__("mad", -0.1),
     "runs[0].cases[0].metrics.tsc.mad: -0.1 is less than the minimum of 0"),
    (lambda d: _tags(d, [0, 1]),
     "runs[0].cases[0].metrics.tsc.processes: 2 process tags for 3 values (one per figure)"),
    (lambda d: _tags(d, [0, 1, -2]),
     "runs[0].cases[0].metrics.tsc.processes[2]: -2 is less than the minimum of 0"),
    (lambda d: _tags(d, [0, 1, 2], values=False),
     "runs[0].cases[0].metrics.tsc: 'values' is a dependency of 'processes'"),
    (lambda d: d["runs"][0]["cases"][0]["metrics"]["tsc"].pop("unit"),
     "runs[0].cases[0].metrics.tsc: 'unit' is a required property"),
    (lambda d: d["runs"][0]["cases"][0]["metrics"]["tsc"].__setitem__("median_ns", 1.0),
     "runs[0].cases[0].metrics.tsc: Additional properties are not allowed ('median_ns'"),
    (lambda d: d["runs"][1].pop("cases"), "runs[1]: 'cases' is a required property"),
    (lambda d: d["runs"][0]["cases"][0].__setitem__("build", "gcc-12 -O2"),
     "runs[0].cases[0].build: 'gcc-12 -O2' is not of type 'object', 'null'"),
    (lambda d: d["runs"][0].__setitem__("status", "partial"),
     "runs[0].status: 'partial' is not one of ['complete', 'failed']"),
    (lambda d: d["runs"][0].__setitem__("duration_s", -1.0),
     "runs[0].duration_s: -1.0 is less than the minimum of 0"),
    (lambda d: d["runs"].__setitem__(1, ["not", "a", "record", "at", "all"]),
     "runs[1]: ['not', 'a', 'record', 'at', ...] is not of type 'object'"),
], ids=["verdict kind", "negative count", "negative spread", "untagged figures",
        "negative process", "tags without figures", "no unit", "unknown metric field",
        "no cases", "build as text", "status", "negative duration", "run as a list"])
def test_a_record_the_schema_refuses_is_named_by_its_path(tmp_path, edit, message):
    with pytest.raises(BundleError) as e:
        read_bundle(_resummed(tmp_path, "bad.json", edit))
    assert message in str(e.value)


def test_of_several_faults_the_line_names_one_and_counts_the_others(tmp_path):
    def three(d):
        d["runs"][0]["verdicts"][0]["verdict"] = "probably"
        d["runs"][1]["cases"][0]["metrics"]["tsc"]["n"] = -3
        d["runs"][1]["title"] = 7

    with pytest.raises(BundleError) as e:
        read_bundle(_resummed(tmp_path, "three.json", three))
    # the shallowest first: a field of the run before a figure of one of its cases
    assert "runs[1].title: 7 is not of type 'string' (and 2 more)" in str(e.value)


def _every_field() -> RunRecord:
    """A run with every optional field of record schema 1 present, in each of its forms:
    figures tagged by process and exact ones, a failed case built by nothing, a Go
    build, conditions of the run and of a case, every verdict kind, tables and facts."""
    go = {"compiler": "go", "compiler_version": "go1.22.2", "flags": "", "pgo": False}
    tagged = Metric.of([2.0, 2.2, 1.9, 2.1, 2.0, 2.4], "ns/op", "clock", [0, 0, 1, 1, 2, 2])
    cases = [
        Case("direct", B, {"n": 64, "mode": "lat", "ratio": 0.5, "warm": True},
             {"time": tagged, "throughput": tagged.derive(lambda v: 1 / v, "GB/s"),
              "instructions (callgrind)": Metric.exact(4.0, "instructions/op", "callgrind")},
             {"cycles": {"source": "pmu", "reason": "no PMU in this VM"}},
             conditions=CaseConditions(3, 0.25, -0.4, 0.0, 0.03, 0.31, -0.002, None)),
        Case("gorep", go, {}, {"time": Metric.of([5.0, 5.5], "ns/op", "clock")}),
        Case("ripgrep", None, {"n": 64}, error="not installed: rg"),
    ]
    return RunRecord(
        experiment="threading", seed_row="own", title="every field", profile="default",
        started="2026-11-27T09:00:00+00:00", duration_s=12.5,
        machine={"cpu": {"model_name": "X", "flags": ["adx"]}}, machine_key="k2",
        lab_revision="r2", builds=[B, go], cases=cases,
        verdicts=[Verdict(f"claim {k}", k, "why", seed="the seed's figure" if i else None)
                  for i, k in enumerate(VERDICTS)],
        seed_tables=[SeedTable("seed", ["a", "b"], [["1", "2"]])],
        evidence=Evidence([EvidenceTable("mix", ["fn", "div"], [["f", "0"]])],
                          {"exponent": 1.48, "handlers": {"gcc": ["op_add"]}}),
        notes=["experiment raised: boom"], status="failed", origin="host-b",
        conditions=RunConditions(0.4, 1.3, cases=1, others_cores=0.03, others_cores_max=0.31,
                                 steal_share=None, disturbed=[]))


def test_a_run_with_every_field_round_trips_through_export_and_import(tmp_path, capsys):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    with Store(src) as s:
        rid = s.add(_every_field())
    bundle = tmp_path / "all.json.gz"
    assert cli.main(["export", str(rid), "-o", str(bundle), "--db", str(src)]) == 0
    assert "exported 1 run(s)" in capsys.readouterr().out
    (back,) = read_bundle(bundle)
    assert back.as_dict() == {**_every_field().as_dict(), "id": rid}
    assert back.cases[0].metrics["time"].processes == (0, 0, 1, 1, 2, 2)
    assert cli.main(["import", str(bundle), "--db", str(dst), "--json"]) == 0
    (added,) = json.loads(capsys.readouterr().out)["bundles"][0]["added"]
    with Store(dst) as d:
        assert {**d.get(added).as_dict(), "id": None} == {**back.as_dict(), "id": None}


def _layout1_bundle(tmp_path) -> Path:
    db = tmp_path / "old.db"
    shutil.copy(LAYOUT1_DB, db)
    with Store(db) as s:  # migrated to this layout; the records are as they were stored
        return write_bundle(tmp_path / "layout1.json", [s.get(i) for i in s.ids()])


def test_every_record_in_tests_data_follows_the_schema(tmp_path):
    # Records of a store written before bundles existed, and bundles of earlier versions
    # of schema 1: the schema must not refuse what cpulab once wrote.
    assert OLD_BUNDLES, "tests/data/bundles holds no bundle"
    for path in [_layout1_bundle(tmp_path), *OLD_BUNDLES]:
        data = path.read_bytes()
        bundle = json.loads(gzip.decompress(data) if path.suffix == ".gz" else data)
        assert bundle_fault(bundle) is None, path.name
        assert read_bundle(path), path.name
    layout1 = json.loads(_layout1_bundle(tmp_path).read_text())["runs"]
    assert {r["experiment"] for r in layout1} == {"alloc", "overflow"}
    assert not any("conditions" in r or "origin" in r for r in layout1)  # older shapes


def test_the_schema_file_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(bundle_schema())
    assert bundle_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_the_schema_says_what_the_code_writes():
    # The schema is written by hand: a field or verdict kind added to the result model
    # without it would be refused in every bundle that carries it.
    s, defs = bundle_schema(), bundle_schema()["$defs"]
    assert s["properties"]["bundle_schema"] == {"const": BUNDLE_SCHEMA}
    assert s["properties"]["record_schema"] == {"const": SCHEMA}
    assert defs["record"]["properties"]["schema"] == {"const": SCHEMA}
    assert defs["verdict"]["properties"]["verdict"]["enum"] == list(VERDICTS)
    assert set(defs["record"]["properties"]) == set(_every_field().as_dict())
    assert set(defs["case"]["properties"]) == set(_every_field().cases[0].as_dict()) | {
        "error"}
    assert set(defs["metric"]["properties"]) == _fields(Metric)
    assert set(defs["verdict"]["properties"]) == _fields(Verdict)
    assert set(defs["case_conditions"]["properties"]) == _fields(CaseConditions)
    assert set(defs["run_conditions"]["properties"]) == _fields(RunConditions)
    assert set(defs["table"]["properties"]) == _fields(SeedTable)
