"""Where the lab finds its sources and keeps its build output and results."""

from __future__ import annotations

import os
from pathlib import Path

# src/cpulab/paths.py -> repository root
ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "native"
HARNESS_DIR = NATIVE / "harness"
KERNELS = NATIVE / "kernels"
LIBS = NATIVE / "lib"
GO_MODULE = ROOT / "gorep"  # the Go module: gorep and the Go benchmarks


def build_dir() -> Path:
    """Build output: $CPULAB_BUILD_DIR, else build/ in the checkout."""
    return Path(os.environ.get("CPULAB_BUILD_DIR", ROOT / "build"))


def data_dir() -> Path:
    """The results database's folder: $XDG_DATA_HOME/cpulab (~/.local/share/cpulab)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cpulab"


def cache_dir() -> Path:
    """What can be computed again, kept to save time: $XDG_CACHE_HOME/cpulab
    (~/.cache/cpulab)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cpulab"
