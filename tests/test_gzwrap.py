"""gzwrap (S6), the library and the command, against zlib's own encoders and decoders
(Python's zlib and gzip modules): every format pair, both inflaters, text and random data;
every .gz file under /usr/share; multi-member input from cat, pigz and bgzip; the header
fields; the errors, which name a byte offset and leave no output file; inputs over 4 GiB.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest

from gzwrap_support import (
    FORMATS,
    GZWRAP,
    ConvertError,
    convert,
    decode,
    encode,
    mysql_compress,
    payload,
    run,
)

GZWRAP_FORMAT = 1  # gzwrap_status GZWRAP_ERR_FORMAT
SIZES = (0, 1, 100, 65536, 1 << 20, 3 * (1 << 20) + 7)


def text(n: int, seed: int = 1) -> bytes:
    words = Path(__file__).read_bytes().split()
    rnd = random.Random(seed)
    out = bytearray()
    while len(out) < n:
        out += rnd.choice(words) + (b"\n" if rnd.random() < 0.1 else b" ")
    return bytes(out[:n])


def noise(n: int, seed: int = 2) -> bytes:
    return random.Random(seed).randbytes(n)


@pytest.mark.parametrize("inflater", ["isal", "zlib"])
@pytest.mark.parametrize("kind", ["text", "random"])
def test_every_pair_round_trips_and_keeps_the_deflate_bytes(inflater, kind):
    for n in SIZES:
        data = (text if kind == "text" else noise)(n)
        for src in FORMATS:
            blob = encode(data, src)
            frm = src if src == "deflate" or (src == "mysql" and n == 0) else "auto"
            for dst in FORMATS:
                out = convert(blob, dst, frm, inflater)
                assert decode(out, dst) == data, (src, dst, n)
                if n:
                    assert payload(out, dst) == payload(blob, src), (src, dst, n)
                if src == dst and src != "gzip":
                    assert out == blob


def test_mysql_target_is_what_compress_gives():
    """zlib -> mysql prepends the length and keeps zlib's header and trailer: byte for byte
    what COMPRESS() stores, the '.' after a final space included."""
    rnd = random.Random(5)
    dotted = 0
    for _ in range(400):
        data = rnd.randbytes(rnd.randrange(1, 300))
        want = mysql_compress(data)
        dotted += want.endswith(b" .")
        assert convert(zlib.compress(data), "mysql") == want
        assert convert(want, "zlib", "mysql") == zlib.compress(data)
    assert dotted > 0  # 1 in 256 ends in a space: 400 tries see some
    assert convert(b"", "zlib", "mysql") == zlib.compress(b"")[:2] + b"\x03\x00" + \
        zlib.adler32(b"").to_bytes(4, "big")
    assert convert(gzip.compress(b""), "mysql") == b""


def test_inflaters_give_identical_output():
    data = text(2_000_000) + noise(500_000)
    blob = gzip.compress(data) + gzip.compress(data[:1000])
    for dst in FORMATS:
        assert convert(blob, dst, inflater="isal") == convert(blob, dst, inflater="zlib")


def _usr_share_gz() -> list[Path]:
    return sorted(Path("/usr/share").rglob("*.gz"))


def _zlib_gunzip(blob: bytes) -> bytes:
    """zlib's gzip decoder over every member; ValueError on anything else (trailing bytes,
    truncation, a bad CRC)."""
    out, rest = [], blob
    while True:
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(rest))
        except zlib.error as e:
            raise ValueError(str(e)) from None
        if not d.eof:
            raise ValueError("truncated")
        rest = d.unused_data
        if not rest:
            return b"".join(out)


def test_every_gz_file_under_usr_share():
    """The same answer as zlib's gzip decoder, for each file: the data, or a refusal."""
    files = _usr_share_gz()
    if not files:
        pytest.skip("no .gz files under /usr/share")
    refused, multi, checked = [], 0, 0
    for path in files:
        try:
            blob = path.read_bytes()
        except OSError:
            continue
        try:
            want = _zlib_gunzip(blob)
        except ValueError:
            want = None
        try:
            out = convert(blob, "zlib", "gzip")
        except ConvertError as e:
            assert want is None, f"{path}: zlib decodes it, gzwrap says {e}"
            refused.append(path)
            continue
        assert want is not None, f"{path}: gzwrap accepts what zlib refuses"
        assert decode(out, "zlib") == want, path
        multi += blob.count(b"\x1f\x8b\x08") > 1 and len(want) > 0
        checked += 1
    assert checked > 0.99 * len(files), f"{len(refused)} refused: {refused[:5]}"


def _cat(*parts: bytes) -> bytes:
    return b"".join(parts)


@pytest.mark.parametrize("maker", ["cat", "pigz", "bgzip"])
def test_multi_member_input_becomes_one_stream(maker, tmp_path):
    data = text(700_000, 3) + noise(300_000, 4) + text(200_000, 5)
    if maker == "cat":
        blob = _cat(gzip.compress(data[:1000], 1), gzip.compress(b""),
                    gzip.compress(data[1000:600_000], 9), gzip.compress(data[600_000:], 6))
    else:
        if not shutil.which(maker):
            pytest.skip(f"{maker} not installed")
        src = tmp_path / "d"
        src.write_bytes(data)
        args = {"pigz": ["pigz", "-c", "-i", "-b", "128"], "bgzip": ["bgzip", "-c"]}[maker]
        blob = subprocess.run([*args, str(src)], capture_output=True, check=True).stdout
        if maker == "pigz":  # pigz writes one member: make several
            blob += subprocess.run([*args, str(src)], capture_output=True, check=True).stdout
            data += data
    for dst in FORMATS:
        out = convert(blob, dst)
        assert decode(out, dst) == data, dst  # decode() insists on a single stream
        # no recompression: the output is no longer than the input's deflate bytes plus
        # 5 alignment bytes per member and one wrapper
        assert len(out) <= len(blob) + 32


def test_bgzip_joins_walk_no_block_with_the_bundled_isal(tmp_path):
    """With the ISA-L that stops at block boundaries (built by make setup) the inflater says
    where each member's final block starts: a join walks nothing. Without it, the blocks
    before each member's last are walked."""
    if not shutil.which("bgzip"):
        pytest.skip("bgzip not installed")
    data = text(3_000_000, 7)
    src = tmp_path / "d"
    src.write_bytes(data)
    blob = subprocess.run(["bgzip", "-c", str(src)], capture_output=True, check=True).stdout
    p = run("-v", "--to", "zlib", "-c", data=blob)
    assert p.returncode == 0, p.stderr
    assert zlib.decompress(p.stdout) == data
    walked = int(re.search(rb"(\d+) block\(s\) walked", p.stderr).group(1))
    members = int(re.search(rb"(\d+) member\(s\)", p.stderr).group(1))
    assert members > 40
    if GZWRAP.bundled_present:
        assert walked == 0
    else:
        assert walked > 0


def test_header_fields_kept_for_gzip_and_noted_otherwise(tmp_path):
    # FTEXT FHCRC FEXTRA FNAME FCOMMENT, MTIME, XFL 2, OS 3, built by hand
    hdr = bytearray(b"\x1f\x8b\x08\x1f") + (1_700_000_000).to_bytes(4, "little") + b"\x02\x03"
    hdr += (8).to_bytes(2, "little") + b"AB\x04\x00wxyz" + b"notes.txt\0" + b"a comment\0"
    hdr += (zlib.crc32(hdr) & 0xFFFF).to_bytes(2, "little")
    data = text(5000)
    body = zlib.compress(data, 9)[2:-4]
    blob = bytes(hdr) + body + zlib.crc32(data).to_bytes(4, "little") + \
        len(data).to_bytes(4, "little")
    src = tmp_path / "in.gz"
    src.write_bytes(blob)
    p = run("--to", "gzip", "-o", tmp_path / "same.gz", src)
    assert p.returncode == 0 and p.stderr == b""
    assert (tmp_path / "same.gz").read_bytes() == blob  # every field kept
    p = run("--to", "zlib", "-o", tmp_path / "o.zz", src)
    assert p.returncode == 0
    notes = p.stderr.decode()
    for word in ("FTEXT", "FHCRC", "FEXTRA", "AB", "notes.txt", "a comment", "1700000000",
                 "operating system 3"):
        assert word in notes, (word, notes)
    z = (tmp_path / "o.zz").read_bytes()
    assert z[:2] == b"\x78\xda"  # XFL 2 (best) kept as the zlib level
    assert decode(z, "zlib") == data
    # a second member's fields are noted when the target is one gzip member
    p = run("--to", "gzip", data=blob + gzip.compress(b"x", mtime=5))
    assert p.returncode == 0
    assert "modification time 5" in p.stderr.decode()
    assert decode(p.stdout, "gzip") == data + b"x"


BAD = {
    "magic": (lambda g: b"\x1f\x8c" + g[2:], "byte 0", "1F 8B"),
    "reserved flag": (lambda g: g[:3] + b"\x20" + g[4:], "byte 3", "reserved"),
    "crc": (lambda g: g[:-8] + bytes([g[-8] ^ 1]) + g[-7:], None, "CRC-32"),
    "isize": (lambda g: g[:-4] + bytes([g[-4] ^ 1]) + g[-3:], None, "ISIZE"),
    "trailing": (lambda g: g + b"junk", None, "trailing"),
    "truncated": (lambda g: g[:-1], None, "unexpected end"),
    "corrupt": (lambda g: g[:10] + b"\xff" * 8 + g[18:], None, "corrupt deflate"),
}


@pytest.mark.parametrize("damage", sorted(BAD))
def test_bad_input_one_error_with_offset_and_no_file(damage, tmp_path):
    good = gzip.compress(text(20_000), mtime=0)
    make, where, what = BAD[damage]
    bad = make(good)
    src, dst = tmp_path / "bad.gz", tmp_path / "out.zz"
    src.write_bytes(bad)
    p = run("-o", dst, src)
    err = p.stderr.decode()
    assert p.returncode == 1, err
    assert err.count("\n") == 1 and what in err and "byte " in err, err
    if where:
        assert where in err
    assert not dst.exists()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bad.gz"]  # no temporary left
    # standard output (a pipe, streamed) gets at most a prefix that no decoder accepts
    p = run(data=bad)
    assert p.returncode == 1
    with pytest.raises(zlib.error):
        zlib.decompress(p.stdout)


def test_every_truncation_is_refused():
    blob = gzip.compress(text(3000), mtime=0) + gzip.compress(b"second", mtime=0)
    for cut in range(1, len(blob)):
        try:
            convert(blob[:cut], "zlib", "gzip")
        except ConvertError as e:
            assert e.offset <= cut
            continue
        # the only valid prefix: exactly the first member
        assert cut == len(gzip.compress(text(3000), mtime=0)), cut


def test_cli_pipes_stdin_to_stdout_and_verifies():
    data = text(100_000)
    p = run("--verify", "--to", "mysql", data=gzip.compress(data))
    assert p.returncode == 0, p.stderr
    assert decode(p.stdout, "mysql") == data
    q = run("--verify", "--to", "gzip", "-v", data=p.stdout)
    assert q.returncode == 0 and b"verified" in q.stderr
    assert gzip.decompress(q.stdout) == data
    raw = run("--from", "deflate", "--to", "zlib", data=encode(data, "deflate"))
    assert raw.returncode == 0 and zlib.decompress(raw.stdout) == data


def test_cli_usage_errors_and_help(tmp_path):
    h = run("--help")
    assert h.returncode == 0 and b"Exit status" in h.stdout
    for args in (["--to", "bzip2"], ["--inflater", "libdeflate2"], ["a", "b"], ["--nope"]):
        p = run(*args)
        assert p.returncode == 2 and p.stderr.startswith(b"gzwrap: "), args
    (tmp_path / "x").write_bytes(b"")
    assert run("-o", tmp_path / "x", data=gzip.compress(b"a")).returncode == 2  # exists
    assert run("-f", "-o", tmp_path / "x", data=gzip.compress(b"a")).returncode == 0
    assert run(tmp_path / "missing.gz").returncode == 3
    p = run("--inflater", "libdeflate", data=gzip.compress(b"a"))
    assert p.returncode == 4 and b"streaming" in p.stderr
    assert run(data=b"").returncode == 1  # empty input is no format


def _zeros_gzip(n_mib: int) -> tuple[bytes, int]:
    """A gzip member of n_mib MiB of zeros, built from one flushed chunk repeated, and the
    data's CRC-32 (computed a chunk at a time)."""
    mib = b"\0" * (1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)  # byte-aligned, no history
    end = c.flush()
    crc = 0
    for _ in range(n_mib):
        crc = zlib.crc32(mib, crc)
    n = n_mib << 20
    hdr = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
    return hdr + chunk * n_mib + end + crc.to_bytes(4, "little") + \
        (n & 0xFFFFFFFF).to_bytes(4, "little"), crc


def test_over_4_gib_isize_wraps_and_compress_refuses(tmp_path):
    n_mib = 4 * 1024 + 128  # 4 GiB + 128 MiB of data, ~4.2 MB compressed
    blob, crc = _zeros_gzip(n_mib)
    src = tmp_path / "big.gz"
    src.write_bytes(blob)
    p = run("-v", "--to", "zlib", "-o", tmp_path / "big.zz", src)
    assert p.returncode == 0, p.stderr
    assert f"{n_mib << 20} bytes of data".encode() in p.stderr
    z = (tmp_path / "big.zz").read_bytes()
    adler = 1
    mib = b"\0" * (1 << 20)
    for _ in range(n_mib):
        adler = zlib.adler32(mib, adler)
    assert z[-4:] == adler.to_bytes(4, "big") and z[2:-4] == blob[10:-8]
    m = run("--to", "mysql", "-o", tmp_path / "big.my", src)
    assert m.returncode == 4 and b"COMPRESS() holds at most" in m.stderr
    assert not (tmp_path / "big.my").exists()
    # the ISIZE check works modulo 2^32: a wrong one is caught
    bad = blob[:-4] + ((n_mib << 20) + 1 & 0xFFFFFFFF).to_bytes(4, "little")
    (tmp_path / "bad.gz").write_bytes(bad)
    assert run("-o", tmp_path / "bad.zz", tmp_path / "bad.gz").returncode == 1


def test_mysql_limit_is_30_bits(tmp_path):
    blob, _ = _zeros_gzip(1024)  # exactly 2^30 bytes: one too many for COMPRESS()
    m = run("--to", "mysql", data=blob)
    assert m.returncode == 4 and b"1073741823" in m.stderr
    small, _ = _zeros_gzip(1023)
    ok = run("--to", "mysql", data=small)
    assert ok.returncode == 0 and ok.stdout[:4] == (1023 << 20).to_bytes(4, "little")


def test_ambiguous_first_bytes_are_resolved_or_named():
    # a COMPRESS() value of 40056 bytes starts 78 9C 00 00 78 9C: a zlib header too, but its
    # stored block would have LEN 0x7800 and NLEN 0x..9C: not zlib
    data = text(40056)
    blob = mysql_compress(data)
    assert blob[:2] == b"\x78\x9c"
    assert decode(convert(blob, "gzip"), "gzip") == data
    with pytest.raises(ConvertError) as e:
        convert(b"\x78\x9c\x04\x00\x78\x9c\x01\x02", "gzip")
    assert "say which" in e.value.message


def test_checksum_implementations_agree_with_zlib():
    """What --list-impls offers is what the conversions use; each computes zlib's
    checksums (through a conversion that needs them)."""
    p = run("--list-impls")
    assert p.returncode == 0
    lines = dict(line.split(None, 1) for line in p.stdout.decode().splitlines())
    assert set(lines) == {"inflate", "crc32", "adler32"}
    data = noise(1_000_003)
    for impl in lines["crc32"].split()[1:]:
        q = run("--crc32", impl, "--to", "gzip", data=zlib.compress(data))
        assert q.returncode == 0 and gzip.decompress(q.stdout) == data
    for impl in lines["adler32"].split()[1:]:
        q = run("--adler32", impl, "--to", "zlib", data=gzip.compress(data))
        assert q.returncode == 0 and zlib.decompress(q.stdout) == data


def test_pipe_output_of_a_seek_needing_conversion_still_works():
    """Standard output is spooled, so a pipe still gets COMPRESS() and joined members."""
    data = text(10_000)
    p = run("--to", "mysql", data=gzip.compress(data[:10]) + gzip.compress(data[10:]))
    assert p.returncode == 0 and decode(p.stdout, "mysql") == data
    assert os.environ.get("TMPDIR", "/tmp")
