"""The database's table layout and its migrations, versioned apart from the record schema.

The record schema (`cpulab.results.SCHEMA`) is the JSON a run is stored, exported and
compared as; the layout is how this SQLite file holds those records. They change for
different reasons, so `meta` keeps both: `schema` (the records) and `layout` (the tables).
Layout history:
  1: runs, cases, verdicts, machines; `meta` has `schema` only (cpulab before bundles).
  2: runs.uid, the record's content hash, unique, so that importing a bundle twice adds
     nothing; runs.origin, where an imported run was made (a fleet's host name).
A database of an older layout is migrated when it is opened, in one transaction; one of
a newer layout is refused, since this cpulab would not know what it holds.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

LAYOUT = 2

_TABLES = """
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
    record TEXT NOT NULL,
    uid TEXT NOT NULL,
    origin TEXT
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
"""
_INDEXES = """
CREATE INDEX IF NOT EXISTS runs_by_experiment ON runs(experiment, started);
CREATE UNIQUE INDEX IF NOT EXISTS runs_by_uid ON runs(uid);
"""


class LayoutError(RuntimeError):
    """The file's layout is newer than this cpulab, or its migration failed."""


def record_uid(record: dict) -> str:
    """The identity of a run: a hash of its record without the store's own fields (id,
    origin), so that the same run has the same uid in every database it is imported to."""
    content = {k: v for k, v in record.items() if k not in ("id", "origin")}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:32]


def layout_of(db: sqlite3.Connection) -> int | None:
    """The layout of an open database; None for an empty file."""
    has_meta = db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
                          ).fetchone()
    if not has_meta:
        return None
    row = db.execute("SELECT value FROM meta WHERE key='layout'").fetchone()
    return int(row[0]) if row else 1  # layout 1 did not record itself


def ensure(db: sqlite3.Connection, schema: int) -> list[str]:
    """Create or migrate the tables to LAYOUT inside the caller's transaction (begun
    explicitly, so that the DDL is in it too); returns one line per migration step."""
    found = layout_of(db)
    if found is not None and found > LAYOUT:
        raise LayoutError(f"database layout {found} was written by a newer cpulab (this "
                          f"one reads layouts up to {LAYOUT})")
    steps = []
    if found == 1:
        _migrate_1_to_2(db)
        steps.append("layout 1 -> 2: runs get their content hash (uid) and origin")
    _script(db, (_TABLES if found is None else "") + _INDEXES)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('layout', ?)", (str(LAYOUT),))
    if db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() is None:
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(schema),))
    return steps


def _script(db: sqlite3.Connection, sql: str) -> None:
    """Statement by statement: `executescript` would commit the caller's transaction."""
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    db.execute("ALTER TABLE runs ADD COLUMN uid TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE runs ADD COLUMN origin TEXT")
    rows = db.execute("SELECT id, record FROM runs").fetchall()
    db.executemany("UPDATE runs SET uid=? WHERE id=?",
                   [(record_uid(json.loads(rec)), rid) for rid, rec in rows])
