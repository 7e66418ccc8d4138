"""The seed's claim (S6) on a real server: SQL string functions cannot turn gzip into
something UNCOMPRESS() accepts, because the zlib trailer needs the Adler-32 of the
uncompressed data, which the gzip stream does not carry and SQL cannot compute without
inflating.

The best that string functions can do with a gzip blob `g` (one member, a 10-byte
header): the COMPRESS() length from the gzip trailer's ISIZE (`SUBSTRING(g, -4)` is
already 4 little-endian bytes), a zlib header `78 9C`, the deflate bytes
(`SUBSTRING(g, 11, LENGTH(g) - 18)`), and four bytes where the Adler-32 goes. Every
candidate that SQL has for those four bytes is tried: the gzip CRC-32 in both byte
orders, the ISIZE, zeros, and the Adler-32 of the *compressed* bytes (all SQL could hash).
Then the same concatenation with the true Adler-32, computed outside SQL: it must work,
which shows that the length, header and payload were right and only the checksum was
missing. And gzwrap's output for the same blob.
"""

from __future__ import annotations

import gzip
import hashlib
import random
import zlib
from dataclasses import dataclass

from cpulab.experiments.gzwrap.mariadb import MariaDB

GUESSES = {
    "gzip CRC-32 (little-endian, as stored)": "SUBSTRING(g, -8, 4)",
    "gzip CRC-32 byte-reversed": "REVERSE(SUBSTRING(g, -8, 4))",
    "gzip ISIZE": "SUBSTRING(g, -4, 4)",
    "zeros": "X'00000000'",
    "CRC32() of the deflate bytes (big-endian)": "UNHEX(LPAD(HEX(CRC32(SUBSTRING(g, 11, "
                                                 "LENGTH(g) - 18))), 8, '0'))",
}


@dataclass
class Attempt:
    what: str
    result: str  # "NULL", or "data" (the original bytes), or "wrong data"


def sample(n: int = 100_000, seed: int = 6) -> bytes:
    rnd = random.Random(seed)
    words = [b"gzip", b"zlib", b"UNCOMPRESS", b"Adler-32", b"CRC-32", b"deflate", b"member"]
    return b" ".join(rnd.choice(words) for _ in range(n // 6))[:n]


def attempts(db: MariaDB, converted: bytes, data: bytes | None = None) -> list[Attempt]:
    """Every SQL-only attempt, the true Adler-32, and gzwrap's `converted` (the gzip blob of
    `data` re-wrapped as COMPRESS() output), each through UNCOMPRESS() on the server."""
    data = data if data is not None else sample()
    g = gzip.compress(data, 6, mtime=0)
    db.file("proof.gz").write_bytes(g)
    db.file("proof.my").write_bytes(converted)
    digest = hashlib.md5(data).hexdigest()
    true_adler = zlib.adler32(data).to_bytes(4, "big").hex()
    exprs = dict(GUESSES)
    exprs["the true Adler-32 (computed outside SQL)"] = f"X'{true_adler}'"
    sql = ["CREATE DATABASE IF NOT EXISTS s6", "USE s6",
           "CREATE OR REPLACE TABLE gz (g LONGBLOB)",
           f"INSERT INTO gz VALUES (LOAD_FILE('{db.file('proof.gz')}'))"]
    parts = []
    for what, tail in exprs.items():
        glued = (f"CONCAT(SUBSTRING(g, -4, 4), X'789C', SUBSTRING(g, 11, LENGTH(g) - 18), "
                 f"{tail})")
        parts.append(f"SELECT '{what}', MD5(UNCOMPRESS({glued})) FROM gz")
    parts.append(f"SELECT 'gzwrap', MD5(UNCOMPRESS(LOAD_FILE('{db.file('proof.my')}')))")
    rows = db.query("; ".join(sql) + "; " + " UNION ALL ".join(parts))
    out = []
    for what, md5 in rows:
        result = "NULL" if md5 == "NULL" else "data" if md5 == digest else "wrong data"
        out.append(Attempt(what, result))
    return out
