"""The files that `fileread` reads: known content, so that every pass's checksum is checked.

Word i (0-based, 64-bit little-endian) is (i + 1) * FACTOR mod 2^64. Every word differs,
so a pass that skips or repeats a chunk gets a wrong sum, and the sum of n words has a
closed form, FACTOR * n(n+1)/2 mod 2^64, which the kernel is given as --param sum.
A folder of many small files (`write_many`) is one such file cut into pieces: file k holds
words k*n .. (k+1)*n-1, so a file read twice or skipped changes the sum as well.
The files live in a scratch folder of the build directory (a real file system, where
/tmp may be tmpfs: there the page cache is the file and cannot be evicted).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

FACTOR = 0x9E3779B97F4A7C15  # 2^64 / the golden ratio, odd: i -> i * FACTOR is a bijection
WORD = 8
_CHUNK_WORDS = 1 << 21  # 16 MiB per write: bounded memory for a 1 GiB file


def expected_sum(size: int) -> int:
    """The sum of the file's 64-bit words, modulo 2^64."""
    if size <= 0 or size % WORD:
        raise ValueError(f"a test file is a positive multiple of {WORD} bytes, not {size}")
    n = size // WORD
    return FACTOR * (n * (n + 1) // 2) % (1 << 64)


def words(start: int, stop: int) -> np.ndarray:
    """Words start .. stop-1 of any test file (the content does not depend on its size)."""
    i = np.arange(start + 1, stop + 1, dtype=np.uint64)
    return (i * np.uint64(FACTOR)).astype("<u8")  # uint64 products wrap modulo 2^64


def write(path: Path, size: int) -> int:
    """Write a test file of `size` bytes; returns its expected sum. The file is synced:
    the kernel cannot evict dirty pages, and a cold read must find none."""
    total = expected_sum(size)
    n = size // WORD
    with open(path, "wb") as f:
        for start in range(0, n, _CHUNK_WORDS):
            f.write(words(start, min(n, start + _CHUNK_WORDS)).tobytes())
        f.flush()
        os.fsync(f.fileno())
    return total


def write_many(folder: Path, files: int, size: int) -> int:
    """Write files 0.bin .. <files-1>.bin of `size` bytes each into `folder` (created);
    returns the expected sum of all their words. One sync for all (an fsync per file
    costs more than the writing): a cold read must find no dirty page."""
    expected_sum(size)  # each file, too, is whole words
    if files < 1:
        raise ValueError(f"a folder of test files holds at least one, not {files}")
    total = expected_sum(files * size)
    n = size // WORD
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(files):
        (folder / f"{k}.bin").write_bytes(words(k * n, (k + 1) * n).tobytes())
    os.sync()
    return total


@contextmanager
def scratch_dir(parent: Path) -> Iterator[Path]:
    """A folder for this run's test files under `parent`, removed on exit, on an error and
    on Ctrl-C. Folders named for a process that no longer runs (one killed outright, which
    no `finally` survives) are removed first."""
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob("run-*"):
        pid = stale.name.split("-")[1]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stale, ignore_errors=True)
    path = Path(tempfile.mkdtemp(prefix=f"run-{os.getpid()}-", dir=parent))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: it exists
    return True
