"""Builders of one build folder take turns.

Two processes of one checkout may build at once: two `cpulab run`s, or the test workers
of `make test`. Outputs are renamed into place, so a reader never sees half a file, but
two ninjas over one build.ninja share its log, and two profile-guided builds of one
target share its training folder. `build_turn()` holds an exclusive lock on a file of
the build folder while it lasts; a second builder waits for it, then finds built what
the first built.
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cpulab.paths import build_dir


@contextmanager
def build_turn(name: str = "build",
               waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold build/.<name>.lock for the block (released when the process dies, too).
    `waiting()` is called once, before waiting, if another process holds it."""
    root = build_dir()
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{name}.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting:
                waiting()
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
