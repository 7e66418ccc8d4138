"""The results database: one SQLite file, a row per experiment run plus its cases and
verdicts, each run written in one transaction.

The whole record is kept as JSON (so nothing is lost to the table layout), and the
cases and verdicts are also spread into their own tables so that plain SQL can query
them (`sqlite3 results.db "select * from verdicts"`). A run is inserted in a single
transaction: a Ctrl-C or a crash mid-write leaves the database as it was before.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

from cpulab.paths import data_dir
from cpulab.results import SCHEMA, RunRecord

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS machines (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    experiment TEXT NOT NULL,
    seed_row TEXT NOT NULL,
    started TEXT NOT NULL,
    duration_s REAL NOT NULL,
    profile TEXT NOT NULL,
    status TEXT NOT NULL,
    machine_key TEXT NOT NULL REFERENCES machines(key),
    lab_revision TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS cases (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    variant TEXT NOT NULL,
    compiler TEXT,
    flags TEXT,
    pgo INTEGER,
    params TEXT NOT NULL,
    metrics TEXT NOT NULL,
    error TEXT
);
CREATE TABLE IF NOT EXISTS verdicts (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    claim TEXT NOT NULL,
    verdict TEXT NOT NULL,
    evidence TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs(experiment, started);
"""


class StoreError(RuntimeError):
    """The database cannot be opened or read (the message names the file)."""


def default_path() -> Path:
    return data_dir() / "results.db"


class Store:
    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path)
            self._db.execute("PRAGMA foreign_keys = ON")
            with self._db:
                self._db.executescript(_DDL)
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None:
                    self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
                elif row[0] != str(SCHEMA):
                    raise StoreError(f"{self.path}: database schema {row[0]}, this cpulab "
                                     f"writes {SCHEMA}; use another --db")
        except (sqlite3.Error, OSError) as e:
            raise StoreError(f"{self.path}: cannot open the results database: {e}") from e

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, rec: RunRecord) -> int:
        """Insert one run (all or nothing); returns its id and sets `rec.id`."""
        try:
            with self._db:  # one transaction
                self._db.execute("INSERT OR IGNORE INTO machines VALUES (?, ?)",
                                 (rec.machine_key, json.dumps(rec.machine)))
                cur = self._db.execute(
                    "INSERT INTO runs (experiment, seed_row, started, duration_s, profile, "
                    "status, machine_key, lab_revision, record) VALUES (?,?,?,?,?,?,?,?,'')",
                    (rec.experiment, rec.seed_row, rec.started, rec.duration_s, rec.profile,
                     rec.status, rec.machine_key, rec.lab_revision))
                rec.id = int(cur.lastrowid)
                self._db.execute("UPDATE runs SET record=? WHERE id=?",
                                 (json.dumps(rec.as_dict()), rec.id))
                self._db.executemany(
                    "INSERT INTO cases VALUES (?,?,?,?,?,?,?,?)",
                    [(rec.id, c.variant, (c.build or {}).get("compiler"),
                      (c.build or {}).get("flags"), int(bool((c.build or {}).get("pgo"))),
                      json.dumps(c.params), json.dumps(c.as_dict()["metrics"]), c.error)
                     for c in rec.cases])
                self._db.executemany(
                    "INSERT INTO verdicts VALUES (?,?,?,?)",
                    [(rec.id, v.claim, v.verdict, v.evidence) for v in rec.verdicts])
        except sqlite3.Error as e:
            rec.id = None
            raise StoreError(f"{self.path}: cannot store the run: {e}") from e
        return rec.id

    def get(self, run_id: int) -> RunRecord:
        row = self._db.execute("SELECT record FROM runs WHERE id=?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no run with id {run_id} (see `cpulab runs`)")
        return RunRecord.from_dict(json.loads(row[0]))

    def runs(self, experiment: str | None = None, limit: int | None = None) -> Iterator[dict]:
        """Summaries, newest first: id, experiment, started, profile, status, verdict counts."""
        sql = ("SELECT r.id, r.experiment, r.seed_row, r.started, r.duration_s, r.profile, "
               "r.status, r.machine_key, r.lab_revision, "
               "(SELECT count(*) FROM cases c WHERE c.run_id=r.id), "
               "(SELECT group_concat(verdict, ',') FROM verdicts v WHERE v.run_id=r.id) "
               "FROM runs r")
        args: list = []
        if experiment:
            sql += " WHERE r.experiment=?"
            args.append(experiment)
        sql += " ORDER BY r.id DESC"
        if limit:
            sql += " LIMIT ?"
            args.append(limit)
        with closing(self._db.execute(sql, args)) as cur:
            for (rid, exp, row, started, dur, profile, status, mkey, rev, ncases,
                 verdicts) in cur:
                yield {"id": rid, "experiment": exp, "seed_row": row, "started": started,
                       "duration_s": dur, "profile": profile, "status": status,
                       "machine_key": mkey, "lab_revision": rev, "cases": ncases,
                       "verdicts": verdicts.split(",") if verdicts else []}
