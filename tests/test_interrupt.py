"""Ctrl-C (or SIGTERM) in the middle of a run: exit status 130, a database without half
a run, and a message that says which runs were stored and which experiments were not run."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest

from cpulab import cli
from cpulab.commands import run as run_command
from cpulab.results import RunRecord
from cpulab.store import Store


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_while_measuring_stores_nothing_half_done(tmp_path, sig):
    db = tmp_path / "r.db"
    p = subprocess.Popen(
        [sys.executable, "-m", "cpulab.cli", "run", "threading", "--quick", "--cc", "gcc",
         "--opt", "O1", "--no-pgo", "--db", str(db)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = []
    for line in p.stderr:  # phase lines: stderr is not a terminal here
        seen.append(line)
        if "measuring" in line:
            p.send_signal(sig)
            break
    rest = p.stderr.read()
    rc = p.wait(timeout=60)
    assert any("measuring" in s for s in seen), seen
    assert rc == 130, rest
    assert "interrupted during threading" in rest and "Traceback" not in rest
    con = sqlite3.connect(db)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    assert con.execute("SELECT count(*) FROM cases").fetchone() == (0,)


def _measured(exp, profile, sel, reporter=None) -> RunRecord:
    """A run as `run_experiment` returns it, without building or timing anything."""
    return RunRecord(experiment=exp.name, seed_row=exp.seed_row, title=exp.title,
                     profile=profile, started="2026-11-23T10:00:00+00:00", duration_s=1.0,
                     machine={}, machine_key="k1", lab_revision="r1", builds=[], cases=[],
                     verdicts=[])


def _interrupt(*args, **kw):
    raise KeyboardInterrupt


def _run(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(run_command, "_figures", lambda *a: [])
    rc = cli.main(["run", "threading", "alloc", "divide", "--db", str(tmp_path / "r.db")])
    return rc, capsys.readouterr().err


def test_ctrl_c_after_a_run_was_stored_names_it_and_what_was_not_run(tmp_path, capsys,
                                                                     monkeypatch):
    # The Ctrl-C lands while threading's report is printed: its run is stored already.
    # It used to say only "interrupted".
    monkeypatch.setattr(run_command, "run_experiment", _measured)
    monkeypatch.setattr(run_command, "render_record", _interrupt)
    rc, err = _run(capsys, tmp_path, monkeypatch)
    assert rc == 130
    assert "interrupted after run #1 of threading was stored (`cpulab show 1`" in err
    assert "not run: alloc, divide" in err
    with Store(tmp_path / "r.db") as s:
        assert [r["experiment"] for r in s.runs()] == ["threading"]


def test_ctrl_c_while_measuring_names_the_runs_stored_before(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(run_command, "run_experiment", lambda exp, *a, **kw: _interrupt()
                        if exp.name == "alloc" else _measured(exp, *a, **kw))
    monkeypatch.setattr(run_command, "render_record", lambda *a: None)
    rc, err = _run(capsys, tmp_path, monkeypatch)
    assert rc == 130
    assert "interrupted during alloc: it was not stored; stored before it: #1 threading; " \
           "not run: divide" in err
    with Store(tmp_path / "r.db") as s:
        assert [r["experiment"] for r in s.runs()] == ["threading"]
