"""gzwrap against a real MariaDB (S6): Debian's mariadbd on a private data directory and
unix socket, one server for this module, stopped and removed at the end whatever happens.

- gzip re-wrapped by gzwrap and inserted as a blob gives the original bytes back from
  UNCOMPRESS() and the right UNCOMPRESSED_LENGTH(), 0 B to 64 MiB, text and random;
- COMPRESS() output from the server, converted to gzip, decompresses with `gzip -d`;
- the seed's claim: what SQL string functions can build gives NULL, gzwrap's output the
  data;
- GUNZIP_TO_COMPRESS(), gzwrap as a server UDF, does the conversion inside the database.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.experiments.gzwrap import sqlproof
from cpulab.experiments.gzwrap.mariadb import MariaDB, missing
from gzwrap_support import GZWRAP, run

pytestmark = pytest.mark.skipif(missing() is not None, reason=str(missing()))
MiB = 1 << 20


def text(n: int, seed: int = 1) -> bytes:
    """Words of this file in random order; beyond 1 MiB the first MiB repeats, which is far
    outside deflate's 32 KiB window: it still compresses like text."""
    words = Path(__file__).read_bytes().split()
    rnd = random.Random(seed)
    out = bytearray()
    while len(out) < min(n, MiB):
        out += rnd.choice(words) + (b"\n" if rnd.random() < 0.1 else b" ")
    return bytes((out * (n // MiB + 1))[:n])


def noise(n: int) -> bytes:
    return random.Random(n).randbytes(n)


@pytest.fixture(scope="module")
def db():
    with MariaDB.start() as server:
        server.query("CREATE DATABASE t; CREATE TABLE t.b (id INT PRIMARY KEY, v LONGBLOB)")
        yield server


def md5(b: bytes) -> str:
    return hashlib.md5(b).hexdigest()


CASES = [("text", 0), ("text", 1), ("text", 1000), ("text", MiB), ("text", 64 * MiB),
         ("random", 1000), ("random", MiB), ("random", 64 * MiB)]


def test_gzwrap_output_uncompresses_to_the_original(db):
    for i, (kind, n) in enumerate(CASES):
        data = text(n) if kind == "text" else noise(n)
        p = run("--to", "mysql", data=gzip.compress(data, 1))
        assert p.returncode == 0, p.stderr
        db.file("in.my").write_bytes(p.stdout)
        rows = db.query(
            f"INSERT INTO t.b VALUES ({i}, LOAD_FILE('{db.file('in.my')}'));"
            f"SELECT UNCOMPRESSED_LENGTH(v), LENGTH(u), MD5(u) FROM "
            f"(SELECT v, UNCOMPRESS(v) AS u FROM t.b WHERE id = {i}) AS x")
        assert rows == [[str(n), str(n), md5(data)]], (kind, n)


def test_compress_output_converts_to_gzip_that_gzip_decompresses(db, tmp_path):
    for kind, n in [("text", 0), ("text", 1000), ("text", MiB), ("text", 64 * MiB),
                    ("random", MiB)]:
        data = text(n) if kind == "text" else noise(n)
        db.file("plain").write_bytes(data)
        out = db.file(f"c-{kind}-{n}")
        db.query(f"SELECT COMPRESS(LOAD_FILE('{db.file('plain')}')) INTO DUMPFILE '{out}'")
        blob = out.read_bytes()
        assert (blob == b"") == (n == 0)
        gz = tmp_path / "x.gz"
        p = run("--from", "mysql", "--to", "gzip", "-f", "-o", gz, out)
        assert p.returncode == 0, p.stderr
        d = subprocess.run(["gzip", "-dc", str(gz)], capture_output=True, check=True).stdout
        assert d == data, (kind, n)
        out.unlink()


def test_compress_dot_after_a_final_space(db):
    """COMPRESS() appends '.' when its zlib stream ends in a space (0x20); gzwrap reads
    such a value and writes one the same way."""
    rnd = random.Random(7)
    while True:
        data = rnd.randbytes(40)
        if zlib.compress(data)[-1] == 0x20:
            break
    db.file("dot").write_bytes(data)
    db.query(f"SELECT COMPRESS(LOAD_FILE('{db.file('dot')}')) INTO DUMPFILE '{db.file('dot.my')}'")
    server = db.file("dot.my").read_bytes()
    assert server.endswith(b" .")
    back = run("--to", "gzip", data=server)
    assert back.returncode == 0 and gzip.decompress(back.stdout) == data
    again = run("--to", "mysql", data=back.stdout)
    assert again.returncode == 0 and again.stdout.endswith(b" .")
    assert again.stdout[4:6] != server[4:6] or again.stdout == server


def test_sql_string_functions_cannot_and_gzwrap_can(db):
    data = sqlproof.sample()
    p = run("--to", "mysql", data=gzip.compress(data, mtime=0))
    tried = {a.what: a.result for a in sqlproof.attempts(db, p.stdout, data)}
    truth = "the true Adler-32 (computed outside SQL)"
    assert tried.pop("gzwrap") == "data"
    assert tried.pop(truth) == "data"  # the concatenation was right but for the checksum
    assert set(tried) == set(sqlproof.GUESSES)
    assert all(r == "NULL" for r in tried.values()), tried


@pytest.fixture(scope="module")
def udf(db) -> str:
    tc = find_toolchain("gcc")
    headers = Path("/usr/include/mariadb")
    if tc is None or not (headers / "mysql.h").is_file():
        pytest.skip("gcc or MariaDB Connector/C's mysql.h (libmariadb-dev) missing")
    t = GZWRAP.target("gzwrap_udf", (GZWRAP.root / "mariadb" / "gunzip_to_compress.c",),
                      include_dirs=(headers,), shared=True)
    so = build_one(t, BuildConfig(tc, "O2"))
    shutil.copy(so, db.plugins / "gzwrap_udf.so")
    # the name as created is the symbol looked up; calls are case-insensitive
    db.query("CREATE FUNCTION gunzip_to_compress RETURNS STRING SONAME 'gzwrap_udf.so'")
    return "GUNZIP_TO_COMPRESS"


def test_udf_converts_inside_the_database(db, udf):
    cases = {"text": text(3 * MiB), "random": noise(MiB), "empty": b"",
             "members": b"ab" * 5000}
    blobs = {k: gzip.compress(v) for k, v in cases.items()}
    blobs["members"] = gzip.compress(cases["members"][:7]) + gzip.compress(cases["members"][7:])
    for i, (k, blob) in enumerate(blobs.items()):
        f = db.file(f"u{i}.gz")
        f.write_bytes(blob)
        rows = db.query(
            f"INSERT INTO t.b VALUES ({100 + i}, LOAD_FILE('{f}'));"
            f"SELECT LENGTH(UNCOMPRESS({udf}(v))), MD5(UNCOMPRESS({udf}(v))), "
            f"UNCOMPRESSED_LENGTH({udf}(v)) FROM t.b WHERE id = {100 + i}")
        n = len(cases[k])
        assert rows == [[str(n), md5(cases[k]), str(n)]], k
    # NULL for what is not valid gzip, as UNCOMPRESS() does; and for NULL
    bad = gzip.compress(b"some data")
    rows = db.query(f"SELECT {udf}(X'{bad[:-1].hex()}') IS NULL, "
                    f"{udf}(X'{(bad[:-8] + b'xxxx' + bad[-4:]).hex()}') IS NULL, "
                    f"{udf}('not gzip') IS NULL, {udf}(NULL) IS NULL, "
                    f"{udf}(X'{bad.hex()}') IS NULL")
    assert rows == [["1", "1", "1", "1", "0"]]


def test_the_server_is_stopped_and_removed_even_on_error(tmp_path):
    seen = {}
    with pytest.raises(RuntimeError), MariaDB.start(tmp_path) as server:
        seen["root"], seen["proc"] = server.root, server.process
        assert server.query("SELECT @@skip_networking") == [["1"]]
        raise RuntimeError("a test fails here")
    assert not seen["root"].exists()
    assert seen["proc"].poll() is not None
