"""The data `gzwrap` re-wraps, and their gzip files, made once and kept under the build
folder (keyed by kind, size and this file's recipe version).

- text: this machine's man pages, inflated and concatenated in path order (the issue's
  /usr/share/dict where a words list is installed comes first), repeated to the size;
  a repeat is far beyond deflate's 32 KiB window, so it compresses like fresh text;
- binary: the shared libraries of /usr/lib/<multiarch>, concatenated in path order;
- random: bytes from a seeded generator (deflate stores them: the inflater mostly copies).

Each is compressed once with zlib level 6 into a gzip member with no optional header
fields (what `gzip -6 -n` writes, OS 255): the input of every case. Text is also
compressed by bgzip (level 6: many members of at most 64 KiB of data each, the layout of
genomics files and `pigz -i`), for the multi-member re-wrap.
"""

from __future__ import annotations

import gzip
import random
import shutil
import subprocess
import sysconfig
import zlib
from collections.abc import Iterator
from pathlib import Path

from cpulab.files import written_whole
from cpulab.paths import build_dir

RECIPE = 1  # bump when the way data are made changes: old files are then not reused
KINDS = ("text", "binary", "random")
MiB = 1 << 20
GiB = 1 << 30
PIECE = 4 * MiB


def folder() -> Path:
    return build_dir() / "gzwrap-data"


def _text_pieces() -> Iterator[bytes]:
    dicts = sorted(Path("/usr/share/dict").glob("*")) if Path("/usr/share/dict").is_dir() else []
    for p in dicts:
        if p.is_file():
            yield p.read_bytes()
    for p in sorted(Path("/usr/share/man").rglob("*.gz")):
        try:
            yield gzip.decompress(p.read_bytes())
        except (OSError, EOFError, zlib.error):
            continue


def _binary_pieces() -> Iterator[bytes]:
    arch = sysconfig.get_config_var("MULTIARCH") or ""
    for p in sorted(Path("/usr/lib", arch).glob("*.so*")):
        if p.is_file() and not p.is_symlink():
            try:
                yield p.read_bytes()
            except OSError:
                continue


def _stream(kind: str, size: int) -> Iterator[bytes]:
    """`size` bytes of `kind`, in pieces."""
    left = size
    if kind == "random":
        rnd = random.Random(6)
        while left:
            n = min(PIECE, left)
            yield rnd.randbytes(n)
            left -= n
        return
    source = _text_pieces if kind == "text" else _binary_pieces
    while left:
        got = 0
        for piece in source():
            piece = piece[:left]
            yield piece
            left -= len(piece)
            got += len(piece)
            if not left:
                return
        if got == 0:
            raise RuntimeError(f"no {kind} data on this machine "
                               f"({'man pages' if kind == 'text' else 'shared libraries'})")


def describe(kind: str) -> str:
    return {"text": "man pages (inflated, concatenated)",
            "binary": "shared libraries of /usr/lib, concatenated",
            "random": "seeded random bytes"}[kind]


def gzip_file(kind: str, size: int) -> Path:
    """The gzip member of `size` bytes of `kind` (made once, then reused)."""
    path = folder() / f"{kind}-{size}-r{RECIPE}.gz"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    comp = zlib.compressobj(6, zlib.DEFLATED, -15)
    crc, n = 0, 0
    # another process may make it too
    with written_whole(path) as tmp, tmp.open("wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")
        for piece in _stream(kind, size):
            crc = zlib.crc32(piece, crc)
            n += len(piece)
            f.write(comp.compress(piece))
        f.write(comp.flush())
        f.write(crc.to_bytes(4, "little") + (n & 0xFFFFFFFF).to_bytes(4, "little"))
    return path


def bgzip_file(kind: str, size: int) -> Path | str:
    """The same data as `gzip_file(kind, size)` in bgzip's members (made once); or why
    there is none (bgzip, from Debian's tabix, missing or failing)."""
    path = folder() / f"{kind}-{size}-r{RECIPE}.bgz"
    if path.exists():
        return path
    bgzip = shutil.which("bgzip")
    if bgzip is None:
        return "bgzip is not installed (Debian: tabix)"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with written_whole(path) as tmp, tmp.open("wb") as out:  # another may make it too
            p = subprocess.Popen([bgzip, "-l", "6", "-c"], stdin=subprocess.PIPE, stdout=out)
            assert p.stdin is not None
            for piece in _stream(kind, size):
                p.stdin.write(piece)
            p.stdin.close()
            if p.wait() != 0:
                raise OSError(f"bgzip failed with status {p.returncode}")
    except OSError as e:
        return str(e)
    return path
