"""The results database: one SQLite file, a row per experiment run plus its cases and
verdicts, each run written in one transaction.

The whole record is kept as JSON (so nothing is lost to the table layout), and the
cases and verdicts are also spread into their own tables so that plain SQL can query
them (`sqlite3 results.db "select * from verdicts"`). A run is inserted in a single
transaction: a Ctrl-C or a crash mid-write leaves the database as it was before. Each
run has a content hash (`uid`), so storing or importing the same run twice keeps one.
The tables' layout and its migrations are `layout.py`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from cpulab.paths import data_dir
from cpulab.results import SCHEMA, RunRecord
from cpulab.store.layout import LayoutError, ensure, record_uid


class StoreError(RuntimeError):
    """The database cannot be opened or read (the message names the file)."""


class NoDatabase(StoreError):
    """A database that was only to be read does not exist (nothing was created)."""


def default_path() -> Path:
    return data_dir() / "results.db"


@dataclass(frozen=True)
class Imported:
    """What an import did: the ids of the runs it added and of those already present."""

    added: list[int]
    present: list[int]


class Store:
    def __init__(self, path: Path | str | None = None, *, create: bool = True):
        """Open the database at `path` (default_path()); with create=False only one that
        exists: a missing file is NoDatabase, and neither it nor its folder is made."""
        self.path = Path(path) if path else default_path()
        self.migrations: list[str] = []  # what opening did to an older layout
        if not create and not self.path.is_file():
            raise NoDatabase(f"no results database at {self.path}")
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path)
            else:  # mode=rw: a file removed since the check above is not made again
                self._db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw",
                                           uri=True)
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("BEGIN IMMEDIATE")  # the tables and any migration: all or none
            try:
                self.migrations = ensure(self._db, SCHEMA)
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row[0] != str(SCHEMA):
                    raise StoreError(f"{self.path}: database schema {row[0]}, this cpulab "
                                     f"writes {SCHEMA}; use another --db")
            except BaseException:
                self._db.rollback()
                raise
            self._db.commit()
        except LayoutError as e:
            raise StoreError(f"{self.path}: {e}; use another --db or a newer cpulab") from e
        except (sqlite3.Error, OSError) as e:
            raise StoreError(f"{self.path}: cannot open the results database: {e}") from e

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, rec: RunRecord) -> int:
        """Insert one run (all or nothing); returns its id and sets `rec.id`. A run that is
        stored already (the same content) is not stored again: its id is returned."""
        try:
            with self._db:  # one transaction
                self._insert(rec)
        except sqlite3.Error as e:
            rec.id = None
            raise StoreError(f"{self.path}: cannot store the run: {e}") from e
        return rec.id

    def add_all(self, records: Iterable[RunRecord]) -> Imported:
        """Insert many runs in one transaction (an import): all of them or, on any error,
        none. Runs already stored are counted as present, not stored twice."""
        added, present = [], []
        try:
            with self._db:
                for rec in records:
                    (added if self._insert(rec) else present).append(rec.id)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot store the runs, none was stored: {e}") from e
        return Imported(added, present)

    def _insert(self, rec: RunRecord) -> bool:
        """Inside a transaction: insert `rec` unless its uid is present; sets rec.id and
        says whether it was new."""
        d = rec.as_dict()
        uid = record_uid(d)
        row = self._db.execute("SELECT id FROM runs WHERE uid=?", (uid,)).fetchone()
        if row:
            rec.id = int(row[0])
            return False
        self._db.execute("INSERT OR IGNORE INTO machines VALUES (?, ?)",
                         (rec.machine_key, json.dumps(rec.machine)))
        cur = self._db.execute(
            "INSERT INTO runs (experiment, seed_row, started, duration_s, profile, status, "
            "machine_key, lab_revision, record, uid, origin) VALUES (?,?,?,?,?,?,?,?,'',?,?)",
            (rec.experiment, rec.seed_row, rec.started, rec.duration_s, rec.profile,
             rec.status, rec.machine_key, rec.lab_revision, uid, rec.origin))
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
        return True

    def id_of(self, rec: RunRecord) -> int | None:
        """The id under which `rec`'s run is stored, or None: after a Ctrl-C during `add`,
        whether its transaction was committed."""
        row = self._db.execute("SELECT id FROM runs WHERE uid=?",
                               (record_uid(rec.as_dict()),)).fetchone()
        return int(row[0]) if row else None

    def get(self, run_id: int) -> RunRecord:
        row = self._db.execute("SELECT record, origin FROM runs WHERE id=?",
                               (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no run with id {run_id} (see `cpulab runs`)")
        rec = RunRecord.from_dict(json.loads(row[0]))
        rec.id, rec.origin = run_id, row[1]
        return rec

    def ids(self, experiment: str | None = None, machine: str | None = None) -> list[int]:
        """Run ids, oldest first, of one experiment and/or one machine (a prefix of its
        fingerprint key, or an origin name)."""
        sql, args = "SELECT id FROM runs WHERE 1", []
        if experiment:
            sql += " AND experiment=?"
            args.append(experiment)
        if machine:
            sql += " AND (machine_key LIKE ? || '%' OR origin=?)"
            args += [machine, machine]
        return [r[0] for r in self._db.execute(sql + " ORDER BY started, id", args)]

    def latest(self) -> list[int]:
        """The newest run of each experiment on each machine (and origin), in the order
        they were first stored: what `cpulab report --latest` shows."""
        sql = ("SELECT max(id) FROM runs GROUP BY experiment, machine_key, "
               "coalesce(origin, '') ORDER BY min(id)")
        return [r[0] for r in self._db.execute(sql)]

    def runs(self, experiment: str | None = None, limit: int | None = None) -> Iterator[dict]:
        """Summaries, newest first: id, experiment, started, profile, status, verdict counts."""
        sql = ("SELECT r.id, r.experiment, r.seed_row, r.started, r.duration_s, r.profile, "
               "r.status, r.machine_key, r.lab_revision, r.origin, "
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
            for (rid, exp, row, started, dur, profile, status, mkey, rev, origin, ncases,
                 verdicts) in cur:
                yield {"id": rid, "experiment": exp, "seed_row": row, "started": started,
                       "duration_s": dur, "profile": profile, "status": status,
                       "machine_key": mkey, "lab_revision": rev, "origin": origin,
                       "cases": ncases, "verdicts": verdicts.split(",") if verdicts else []}
