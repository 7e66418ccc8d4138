"""What the test modules share: the skips for missing tools, the long runs kept for
CPULAB_FULL=1, and the fixtures of toolchains and scratch results databases.

Two sets of tests (CI runs `make test`, then `CPULAB_FULL=1 make test PYTEST_ARGS="-m full"`):

  default     every experiment's logic, its kernels, the libraries against their peers,
              one real `cpulab run alloc --quick` end to end; the other experiments' quick
              runs replayed from recorded kernel output (tests/replay.py); ~3 minutes on
              2 cores once the kernels and the peers are built
  full        `@pytest.mark.full` as well: each experiment's real quick run end to end,
              fleets over ssh, the README walk-through, builds of peers and interpreters
              from source (peer_support.py), the exhaustive checks; ~5 minutes more with
              the peers built. CPULAB_FULL=1 also raises the counts of the differential
              and fuzz tests that read it (pb's, rtdiv's, bigdec's, mulpre's)

`make test` runs the tests in one worker process per CPU (pytest-xdist; a module's
fixtures are made in each worker that runs its tests): what two workers build or write
under build/ is built by one while the other waits (cpulab/build/turns.py), or written
under a name of its own and renamed.

Markers (registered in pyproject.toml):

  @pytest.mark.full             runs only with CPULAB_FULL=1
  @pytest.mark.needs("gcc", "cmake", ...)
                                skipped, naming what is missing, unless each is here: a
                                compiler family (gcc, clang, go) as cpulab.build finds it,
                                else a program on PATH
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from cpulab.build import Toolchain, find_toolchain

FULL = bool(os.environ.get("CPULAB_FULL"))
TOOLCHAINS = ("gcc", "clang", "go")


def missing(*tools: str) -> list[str]:
    """The tools of `tools` that this machine lacks."""
    return [t for t in tools
            if (find_toolchain(t) if t in TOOLCHAINS else shutil.which(t)) is None]


def pytest_collection_modifyitems(config, items):
    skip_full = pytest.mark.skip(reason="a long real run: CPULAB_FULL=1 runs it")
    for item in items:
        if not FULL and item.get_closest_marker("full"):
            item.add_marker(skip_full)
        for mark in item.iter_markers("needs"):
            if lacking := missing(*mark.args):
                item.add_marker(pytest.mark.skip(reason=f"{', '.join(lacking)} not installed"))


def _toolchain(family: str) -> Toolchain:
    tc = find_toolchain(family)
    if tc is None:
        pytest.skip(f"{family} not installed")
    return tc


@pytest.fixture(scope="session")
def gcc() -> Toolchain:
    """gcc as the lab builds with it (skips without one)."""
    return _toolchain("gcc")


@pytest.fixture(scope="session")
def clang() -> Toolchain:
    """clang as the lab builds with it (skips without one)."""
    return _toolchain("clang")


@pytest.fixture
def results_db(tmp_path) -> Path:
    """A results database of the test's own (created by the first run stored)."""
    return tmp_path / "results.db"
