"""The results database: round trip, listing, refusal of foreign schemas, atomic writes."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cpulab.measure.metrics import Metric
from cpulab.results import (
    SCHEMA,
    Case,
    CaseConditions,
    Evidence,
    EvidenceTable,
    RunConditions,
    RunRecord,
    SeedTable,
    Verdict,
)
from cpulab.store import LAYOUT, NoDatabase, Store, StoreError


def _record(experiment="threading", **kw) -> RunRecord:
    cases = [
        Case("direct", {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O1",
                        "pgo": False}, {},
             {"time": Metric.of([1.0, 1.1, 0.9], "ns/dispatch", "clock"),
              "instructions (callgrind)": Metric.exact(4.0, "instructions/dispatch",
                                                       "callgrind")},
             {"cycles": {"source": "pmu", "reason": "no PMU"}}),
        Case("switch", None, {"n": 3}, error="killed by SIGSEGV"),
    ]
    return RunRecord(**{
        "experiment": experiment, "seed_row": "S1", "title": "t", "profile": "quick",
        "started": "2026-11-23T10:00:00+00:00", "duration_s": 1.5,
        "machine": {"cpu": {"vendor": "AuthenticAMD"}}, "machine_key": "abc",
        "lab_revision": "deadbeef", "builds": [], "cases": cases,
        "verdicts": [Verdict("claim", "unmeasurable", "no PMU", seed="6.9 cycles")],
        "seed_tables": [SeedTable("seed", ["a"], [["1"]])], "notes": ["a note"], **kw})


def test_round_trip(tmp_path):
    with Store(tmp_path / "r.db") as s:
        rid = s.add(_record())
        back = s.get(rid)
    assert back.as_dict() == {**_record().as_dict(), "id": rid}
    assert back.cases[0].metrics["time"].values == (1.0, 1.1, 0.9)
    assert back.cases[0].unavailable["cycles"]["reason"] == "no PMU"  # absent, not 0
    assert "cycles" not in back.cases[0].metrics


def test_evidence_round_trips_as_tables_and_facts(tmp_path):
    table = EvidenceTable("mix", ["function", "mulx"], [["mul4", "16"], ["mul8", "64"]])
    facts = {"handlers-with-frame": {"clang-19 -O2": {"tail": ["vm_tail_ADD"]}}}
    with Store(tmp_path / "r.db") as s:
        back = s.get(s.add(_record(evidence=Evidence([table], facts))))
    assert back.evidence == Evidence([table], facts)
    assert type(back.evidence.tables[0]) is EvidenceTable
    assert type(back.seed_tables[0]) is SeedTable


def test_evidence_keeps_schema_1_layout():
    # Written before evidence had a type: the facts by name, the tables under "tables".
    stored = {"growth": [{"method": "bigdec", "exponent": 1.48}],
              "tables": [{"title": "growth", "columns": ["method", "k"],
                          "rows": [["bigdec", "1.480"]]}]}
    ev = Evidence.from_dict(stored)
    assert ev.tables == [EvidenceTable("growth", ["method", "k"], [["bigdec", "1.480"]])]
    assert ev.facts == {"growth": [{"method": "bigdec", "exponent": 1.48}]}
    assert ev.as_dict() == stored
    assert Evidence.from_dict({}) == Evidence() and Evidence().as_dict() == {}
    with pytest.raises(ValueError, match="tables"):
        Evidence(facts={"tables": []})


def test_the_conditions_of_a_disturbed_run_round_trip(tmp_path):
    rec = _record(conditions=RunConditions(
        0.4, 1.3, cases=1, others_cores=0.9, others_cores_max=1.1, steal_share=None,
        disturbed=["others used 0.90 cores on average while measuring"]))
    rec.cases[0].conditions = CaseConditions(2, 0.8, 0.45, 0.0, 0.9, 1.1, 0.72, None)
    with Store(tmp_path / "r.db") as s:
        back = s.get(s.add(rec))
    assert back.conditions == rec.conditions
    assert back.cases[0].conditions == rec.cases[0].conditions
    assert back.cases[0].conditions.steal_share is None  # unavailable stays unavailable
    assert back.cases[1].conditions is None  # the failed case was measured by nothing


def test_listing_newest_first_and_filtered(tmp_path):
    with Store(tmp_path / "r.db") as s:
        a = s.add(_record())
        b = s.add(_record("mulpre"))
        rows = list(s.runs())
        assert [r["id"] for r in rows] == [b, a]
        assert rows[1]["cases"] == 2 and rows[1]["verdicts"] == ["unmeasurable"]
        assert [r["id"] for r in s.runs("threading")] == [a]


def test_cases_and_verdicts_are_queryable_with_sql(tmp_path):
    with Store(tmp_path / "r.db") as s:
        s.add(_record())
    db = sqlite3.connect(tmp_path / "r.db")
    rows = db.execute("SELECT variant, compiler, flags, error FROM cases").fetchall()
    assert rows == [("direct", "gcc-12", "-O1", None), ("switch", None, None,
                                                       "killed by SIGSEGV")]
    (metrics,) = db.execute("SELECT metrics FROM cases WHERE variant='direct'").fetchone()
    assert json.loads(metrics)["time"]["source"] == "clock"


def test_unknown_id_is_a_clear_error(tmp_path):
    with Store(tmp_path / "r.db") as s, pytest.raises(StoreError, match="no run with id 7"):
        s.get(7)


def test_only_create_makes_a_database(tmp_path):
    path = tmp_path / "dir with spaces" / "r#1.db"
    with pytest.raises(NoDatabase, match=f"no results database at {path}"):
        Store(path, create=False)
    assert list(tmp_path.iterdir()) == []
    with Store(path) as s:
        s.add(_record())
    with Store(path, create=False) as s:  # an existing one opens for reading
        assert [r["experiment"] for r in s.runs()] == ["threading"]


def test_foreign_schema_is_refused(tmp_path):
    path = tmp_path / "r.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value='999' WHERE key='schema'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="schema 999"):
        Store(path)


def test_a_failed_insert_leaves_nothing_behind(tmp_path):
    rec = _record()
    rec.verdicts.append(Verdict("x", "confirmed", "y"))
    rec.verdicts[-1].claim = None  # NOT NULL: the last statement of the transaction fails
    with Store(tmp_path / "r.db") as s:
        with pytest.raises(StoreError):
            s.add(rec)
        assert list(s.runs()) == []
        assert s._db.execute("SELECT count(*) FROM cases").fetchone() == (0,)


def test_record_schema_is_checked():
    d = _record().as_dict()
    assert d["schema"] == SCHEMA
    with pytest.raises(ValueError, match="schema"):
        RunRecord.from_dict({**d, "schema": SCHEMA + 1})


def test_the_same_run_is_stored_once(tmp_path):
    with Store(tmp_path / "r.db") as s:
        a = s.add(_record())
        again = _record()
        assert s.add(again) == a and again.id == a
        other = s.add(_record(duration_s=2.5))
        assert other != a
        assert len(list(s.runs())) == 2


def test_origin_is_kept_and_not_part_of_the_identity(tmp_path):
    with Store(tmp_path / "r.db") as s:
        a = s.add(_record(origin="host-a"))
        assert s.get(a).origin == "host-a"
        assert s.add(_record(origin="host-b")) == a  # the same run under another name
        assert s.ids(machine="host-a") == [a] and s.ids(machine="abc") == [a]
        assert s.ids(machine="host-b") == [] and s.ids("mulpre") == []


def test_add_all_is_all_or_nothing(tmp_path):
    bad = _record(duration_s=9.0)
    bad.verdicts[0].claim = None  # NOT NULL fails on the last run's last statement
    with Store(tmp_path / "r.db") as s:
        kept = s.add(_record())
        with pytest.raises(StoreError, match="none was stored"):
            s.add_all([_record("mulpre"), bad])
        assert [r["id"] for r in s.runs()] == [kept]
        done = s.add_all([_record("mulpre"), _record()])
        assert len(done.added) == 1 and done.present == [kept]


LAYOUT1_DB = Path(__file__).parent / "data" / "store" / "results-layout1.db"


def test_a_database_of_layout_1_is_migrated_on_open(tmp_path):
    # A copy of a database that cpulab wrote before bundles (layout 1: no uid, no
    # origin, meta holds the record schema only), with two real quick runs in it.
    path = tmp_path / "old.db"
    shutil.copy(LAYOUT1_DB, path)
    raw = sqlite3.connect(path)
    before = raw.execute("SELECT id, record FROM runs ORDER BY id").fetchall()
    assert "uid" not in [c[1] for c in raw.execute("PRAGMA table_info(runs)")]
    raw.close()
    with Store(path) as s:
        assert s.migrations == ["layout 1 -> 2: runs get their content hash (uid) and origin"]
        assert [r["experiment"] for r in s.runs()] == ["overflow", "alloc"]
        for rid, rec in before:
            back = s.get(rid)
            assert back.as_dict() == json.loads(rec)  # nothing lost or changed
            assert s.add(back) == rid  # the migrated uid is the record's own
    with Store(path) as s:
        assert s.migrations == []  # migrated once
    raw = sqlite3.connect(path)
    assert dict(raw.execute("SELECT key, value FROM meta")) == {"schema": str(SCHEMA),
                                                              "layout": str(LAYOUT)}
    uids = [u for (u,) in raw.execute("SELECT uid FROM runs")]
    assert len(set(uids)) == 2 and all(len(u) == 32 for u in uids)


def test_a_newer_layout_is_refused(tmp_path):
    path = tmp_path / "r.db"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value=? WHERE key='layout'", (str(LAYOUT + 1),))
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=f"layout {LAYOUT + 1} was written by a newer"):
        Store(path)
