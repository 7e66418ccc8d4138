"""A private MariaDB server: Debian's `mariadbd` on a data directory of its own, on a unix
socket with networking off, run as the invoking user, stopped and removed however the
caller ends (normally, on an exception, on Ctrl-C, or when this process dies).

    with MariaDB.start(folder) as db:
        db.query("SELECT UNCOMPRESS(LOAD_FILE(%s))", db.file("x.my"))

Statements go through the `mariadb` command-line client. Blobs never cross the client:
the server reads them with LOAD_FILE() and writes them with SELECT ... INTO DUMPFILE, in
`files/`, the one folder its secure_file_priv allows. `plugins/` is its plugin_dir (for
CREATE FUNCTION ... SONAME).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SERVER, INSTALL, CLIENT = "mariadbd", "mariadb-install-db", "mariadb"
MAX_PACKET = "512M"  # blobs of 64 MiB and their COMPRESS()/hex forms fit easily
PR_SET_PDEATHSIG = 1


class MariaDBError(RuntimeError):
    """The server could not be set up or started, or a statement failed."""


def missing() -> str | None:
    """Why no server can be started here, or None."""
    for tool in (SERVER, INSTALL, CLIENT):
        if not _which(tool):
            return f"{tool} not found (Debian packages mariadb-server and mariadb-client)"
    return None


def _which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin")


def _die_with_parent() -> None:
    """In the child: be sent SIGTERM when the process that started us dies."""
    with contextlib.suppress(OSError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


@dataclass
class MariaDB:
    root: Path
    process: subprocess.Popen

    @property
    def socket(self) -> Path:
        return self.root / "sock"

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def plugins(self) -> Path:
        return self.root / "plugins"

    def file(self, name: str) -> Path:
        return self.files / name

    @classmethod
    @contextlib.contextmanager
    def start(cls, parent: Path | None = None, timeout: float = 60) -> Iterator[MariaDB]:
        why = missing()
        if why:
            raise MariaDBError(why)
        root = Path(tempfile.mkdtemp(prefix="mariadb-", dir=parent))
        db = None
        try:
            for sub in ("files", "plugins"):
                (root / sub).mkdir()
            user = ["--user=root"] if os.geteuid() == 0 else []  # mariadbd refuses root
            p = subprocess.run(
                [_which(INSTALL), "--no-defaults", f"--datadir={root / 'data'}",
                 "--auth-root-authentication-method=normal", "--skip-test-db",
                 "--skip-name-resolve", *user],
                capture_output=True, text=True, timeout=timeout)
            if p.returncode != 0:
                raise MariaDBError(f"{INSTALL} exited {p.returncode}: {p.stderr[-2000:]}")
            proc = subprocess.Popen(
                [_which(SERVER), "--no-defaults", f"--datadir={root / 'data'}",
                 f"--socket={root / 'sock'}", "--skip-networking",
                 f"--pid-file={root / 'pid'}", f"--log-error={root / 'error.log'}",
                 f"--plugin-dir={root / 'plugins'}", f"--secure-file-priv={root / 'files'}",
                 f"--max-allowed-packet={MAX_PACKET}", "--innodb-buffer-pool-size=64M",
                 "--skip-log-bin", *user],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
            db = cls(root, proc)
            db._wait_ready(timeout)
            yield db
        finally:
            if db is not None:
                db._stop()
            shutil.rmtree(root, ignore_errors=True)

    def _wait_ready(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise MariaDBError(f"{SERVER} exited {self.process.returncode}: "
                                   f"{self._log_tail()}")
            if self.socket.exists():
                with contextlib.suppress(MariaDBError):
                    self.query("SELECT 1")
                    return
            time.sleep(0.1)
        raise MariaDBError(f"{SERVER} not ready after {timeout:.0f} s: {self._log_tail()}")

    def _log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return (self.root / "error.log").read_text(errors="replace")[-2000:]
        return "(no error log)"

    def _stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # mariadbd shuts down cleanly on TERM
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def query(self, sql: str, database: str = "") -> list[list[str]]:
        """Run `sql` (one or more statements); the last result's rows, tab-separated fields
        ('NULL' for NULL)."""
        argv = [_which(CLIENT), "--no-defaults", f"--socket={self.socket}", "--user=root",
                "--batch", "--skip-column-names", "--raw", f"--max-allowed-packet={MAX_PACKET}"]
        if database:
            argv.append(f"--database={database}")
        p = subprocess.run([*argv, "-e", sql], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise MariaDBError(f"{sql[:200]!r}: {p.stderr.strip()}")
        return [line.split("\t") for line in p.stdout.splitlines()]

    def version(self) -> str:
        return self.query("SELECT VERSION()")[0][0]
