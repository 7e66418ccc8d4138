"""Ctrl-C (or SIGTERM) in the middle of a run: exit status 130 and a database without
half a run."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest


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
