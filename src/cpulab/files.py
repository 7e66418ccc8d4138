"""Files written whole.

A reader of the lab's outputs (a report, a bundle, a built program, a data file another
test process is about to read) must never see half a file: one that is being written, or
one a failed or interrupted write left. Each is written under a temporary name of the
writer's own (two processes may make the same file at once) in the same folder, then
renamed over the real name, which a rename does in one step.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def written_whole(path: Path) -> Iterator[Path]:
    """The temporary path to write `path`'s content to; renamed to `path` when the block
    ends, removed if it raises. Its name ends in .tmp, not in `path`'s suffix, so that
    no reader that lists a folder by suffix takes it for one of its files."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_whole(path: Path, data: bytes | str) -> Path:
    """Write `data` (str as UTF-8) to `path` whole."""
    with written_whole(path) as tmp:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
    return Path(path)
