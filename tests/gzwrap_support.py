"""gzwrap as the tests use it: the command built by the lab's build layer from the
library's manifest, an in-process binding (ctypes, through tests/pyshim.c) for the many
small conversions, and reference encoders and decoders from Python's zlib and gzip
modules, which are zlib itself."""

from __future__ import annotations

import ctypes
import functools
import gzip
import subprocess
import zlib
from pathlib import Path

from cpulab.build import BuildConfig, build_one, find_toolchain, library

GZWRAP = library("gzwrap")
FORMATS = ("gzip", "zlib", "deflate", "mysql")
FORMAT_CODE = {"auto": 0, "gzip": 1, "zlib": 2, "deflate": 3, "mysql": 4}
IMPL_CODE = {"auto": 0, "zlib": 1, "isal": 2, "libdeflate": 3}


@functools.cache
def cli() -> Path:
    """The `gzwrap` command, built with gcc -O2 from the manifest (cached by content)."""
    tc = find_toolchain("gcc")
    assert tc is not None
    return build_one(GZWRAP.command_target(), BuildConfig(tc, "O2"))


def run(*args: str | Path, data: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(cli()), *map(str, args)], input=data, capture_output=True,
                          timeout=300)


@functools.cache
def _lib() -> ctypes.CDLL:
    so = GZWRAP.build_shared(extra=[GZWRAP.root / "tests" / "pyshim.c"], suffix="-pyshim")
    lib = ctypes.CDLL(str(so))
    f = lib.gzwrap_pyshim_convert
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t,
                  ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t),
                  ctypes.POINTER(ctypes.c_ulonglong), ctypes.c_char_p, ctypes.c_size_t,
                  ctypes.POINTER(ctypes.c_ulonglong)]
    return lib


class ConvertError(Exception):
    def __init__(self, status: int, offset: int, message: str):
        super().__init__(f"status {status} at byte {offset}: {message}")
        self.status, self.offset, self.message = status, offset, message


def convert(data: bytes, to: str, frm: str = "auto", inflater: str = "auto") -> bytes:
    """Convert in process; raise ConvertError with the library's status and offset."""
    cap = len(data) + len(data) // 4 + 64
    out = ctypes.create_string_buffer(cap)
    out_n, off, members = ctypes.c_size_t(), ctypes.c_ulonglong(), ctypes.c_ulonglong()
    msg = ctypes.create_string_buffer(256)
    st = _lib().gzwrap_pyshim_convert(FORMAT_CODE[frm], FORMAT_CODE[to], IMPL_CODE[inflater],
                                      data, len(data), out, cap, ctypes.byref(out_n),
                                      ctypes.byref(off), msg, 256, ctypes.byref(members))
    if st:
        raise ConvertError(st, off.value, msg.value.decode())
    return out.raw[:out_n.value]


# ---- references: zlib through Python ---------------------------------------------------


def raw_deflate(data: bytes, level: int = 6) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def mysql_compress(data: bytes, level: int = 6) -> bytes:
    """What MariaDB's COMPRESS() gives: '' for '', else the length (30 bits, little-endian),
    zlib's compress(), and '.' when that ends in a space."""
    if not data:
        return b""
    z = zlib.compress(data, level)
    return (len(data) & 0x3FFFFFFF).to_bytes(4, "little") + z + (b"." if z[-1:] == b" " else b"")


def encode(data: bytes, fmt: str, level: int = 6) -> bytes:
    return {"gzip": lambda: gzip.compress(data, level, mtime=0),
            "zlib": lambda: zlib.compress(data, level),
            "deflate": lambda: raw_deflate(data, level),
            "mysql": lambda: mysql_compress(data, level)}[fmt]()


def decode(blob: bytes, fmt: str) -> bytes:
    """zlib's decoders; the whole input must be one stream (several gzip members allowed
    only where `fmt` is gzip-multi)."""
    if fmt == "mysql":
        if not blob:
            return b""
        n = int.from_bytes(blob[:4], "little")
        d = zlib.decompressobj()
        out = d.decompress(blob[4:])
        assert d.eof and d.unused_data in (b"", b"."), d.unused_data[:8]
        assert len(out) & 0x3FFFFFFF == n
        return out
    wbits = {"gzip": 31, "zlib": 15, "deflate": -15}[fmt]
    d = zlib.decompressobj(wbits)
    out = d.decompress(blob) + d.flush()
    assert d.eof and d.unused_data == b"", f"{fmt}: not one stream ({len(d.unused_data)} left)"
    return out


def payload(blob: bytes, fmt: str) -> bytes:
    """The deflate bytes of a single-stream value (the gzip header parsed by flags)."""
    if fmt == "deflate":
        return blob
    if fmt == "zlib":
        return blob[2:-4]
    if fmt == "mysql":
        end = len(blob) - (1 if blob.endswith(b" .") else 0)
        return blob[6:end - 4]
    flg, i = blob[3], 10
    if flg & 4:
        i += 2 + int.from_bytes(blob[i:i + 2], "little")
    for bit in (8, 16):
        if flg & bit:
            i = blob.index(b"\0", i) + 1
    if flg & 2:
        i += 2
    return blob[i:-8]
