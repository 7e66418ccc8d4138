"""Compilers the lab can build with: found on PATH, identified by their exact version.
The C compilers build the kernels (ninja.py); the Go toolchain builds the Go module's
benchmarks and gorep (golang.py). Each is recorded in a run's builds the same way."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass

# Candidate executables per family, preferred first. clang-19 brings musttail and
# preserve_none; a plain `clang` is taken only when no versioned one exists.
_CANDIDATES = {
    "gcc": ("gcc-12", "gcc"),
    "clang": ("clang-19", "clang-18", "clang-17", "clang"),
    "go": ("go",),
}


@dataclass(frozen=True)
class Toolchain:
    family: str  # "gcc" | "clang" | "go"
    cc: str  # absolute path of the C driver
    version: str  # e.g. "12.2.0"
    banner: str  # first line of `cc --version`, part of the build hash

    @property
    def name(self) -> str:
        """Short label used in tables and on the command line: gcc-12, clang-19, go-1.26
        (Go's releases are its minor versions)."""
        parts = 2 if self.family == "go" else 1
        return f"{self.family}-{'.'.join(self.version.split('.')[:parts])}"

    @property
    def cxx(self) -> str:
        """The matching C++ driver (g++ / clang++)."""
        return self.cc.replace("clang", "clang++") if self.family == "clang" else \
            self.cc.replace("gcc", "g++")

    def tool(self, name: str) -> str | None:
        """A companion tool of the same release (llvm-profdata for clang-19)."""
        suffix = self.cc.rsplit("-", 1)[1] if "-" in self.cc.rsplit("/", 1)[-1] else ""
        for cand in ((f"{name}-{suffix}",) if suffix else ()) + (name,):
            path = shutil.which(cand)
            if path:
                return path
        return None


def _identify(path: str, family: str) -> Toolchain | None:
    if family == "go":
        return _identify_go(path)
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    banner = out.stdout.splitlines()[0].strip() if out.stdout else ""
    if family == "gcc" and "clang" in banner.lower():  # macOS-style gcc -> clang alias
        return None
    m = re.search(r"(\d+\.\d+(?:\.\d+)?)", banner.split(")")[-1]) or re.search(
        r"version (\d+\.\d+(?:\.\d+)?)", banner
    )
    if not m:
        return None
    return Toolchain(family=family, cc=path, version=m.group(1), banner=banner)


def _identify_go(path: str) -> Toolchain | None:
    """`go version` prints "go version go1.26.8 linux/amd64"."""
    try:
        out = subprocess.run([path, "version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    banner = out.stdout.strip()
    m = re.match(r"go version go(\d+\.\d+(?:\.\d+)?)", banner)
    return Toolchain(family="go", cc=path, version=m.group(1), banner=banner) if m else None


@functools.cache
def find_toolchains() -> dict[str, Toolchain]:
    """Every compiler family present, keyed by family ("gcc", "clang", "go")."""
    found: dict[str, Toolchain] = {}
    for family, names in _CANDIDATES.items():
        for name in names:
            path = shutil.which(name)
            if path and (tc := _identify(path, family)):
                found[family] = tc
                break
    return found


def find_toolchain(spec: str) -> Toolchain | None:
    """Resolve a user's --cc word: a family ("gcc", "go"), a label ("clang-19") or a path."""
    tcs = find_toolchains()
    if spec in tcs:
        return tcs[spec]
    for tc in tcs.values():
        if spec in (tc.name, tc.cc):
            return tc
    path = shutil.which(spec)
    if path:
        name = spec.rsplit("/", 1)[-1]
        family = "go" if name == "go" else "clang" if "clang" in name else "gcc"
        return _identify(path, family)
    return None
