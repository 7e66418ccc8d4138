"""A CMake project configured in its own binary directory by one of CMake's generators, for
timing its no-op rebuild (S13): "Unix Makefiles" (a top make that runs `cmake
--check-build-system` and one make per target, through CMakeFiles/Makefile2) or "Ninja"
(one ninja process that re-checks the build description by itself).

The no-op rebuild runs the generator's own tool in the binary directory (`make -s -C DIR`,
`ninja -C DIR`), as a user types it; `cmake --build` would add one cmake process to both.
What a rebuild must leave alone is every object, archive, shared library and executable
under the binary directory, found by scanning it after the first build (CMake's compiler
probes under CMakeFiles/<version>/ excepted), so the same check serves a generated project
and the lab's own native/ one.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

GENERATORS = {"cmake-make": "Unix Makefiles", "cmake-ninja": "Ninja"}
OUTPUT_SUFFIXES = (".o", ".a", ".so")


class CMakeError(RuntimeError):
    """The project could not be configured or built; the message has CMake's own words."""


@dataclass(frozen=True)
class CMakeBuild:
    tool: str  # a key of GENERATORS
    source: Path
    binary: Path
    program: str  # make or ninja, absolute

    def noop_argv(self) -> list[str]:
        if self.tool == "cmake-ninja":
            return [self.program, "-C", str(self.binary)]
        return [self.program, "-s", "-C", str(self.binary)]

    def outputs(self) -> list[Path]:
        found = []
        for p in sorted(self.binary.rglob("*")):
            parts = p.relative_to(self.binary).parts
            if len(parts) > 2 and parts[0] == "CMakeFiles" and parts[1][:1].isdigit():
                continue  # CMakeFiles/3.25.1/...: the compiler identification programs
            if not p.is_file() or p.is_symlink():
                continue
            if p.suffix in OUTPUT_SUFFIXES or ".so." in p.name or _executable(p):
                found.append(p)
        return found

    def outputs_state(self) -> dict[str, int]:
        """output path -> mtime in ns."""
        return {str(p): p.stat().st_mtime_ns for p in self.outputs()}


def _executable(p: Path) -> bool:
    return p.stat().st_mode & 0o100 != 0 and p.suffix not in (".sh", ".py", ".cmake")


def configure(tool: str, source: Path, binary: Path, defines: Sequence[str] = (),
              env: dict | None = None, timeout: float = 300) -> CMakeBuild:
    """`cmake -S source -B binary -G <generator>` with `-D` defines; raises CMakeError."""
    if tool not in GENERATORS:
        raise ValueError(f"unknown CMake build {tool!r}; known: {', '.join(GENERATORS)}")
    cmake = shutil.which("cmake")
    program = shutil.which("ninja" if tool == "cmake-ninja" else "make")
    if not cmake or not program:
        missing = "cmake" if not cmake else "ninja" if tool == "cmake-ninja" else "make"
        raise CMakeError(f"{tool}: {missing} not found on PATH")
    argv = [cmake, "-S", str(source), "-B", str(binary), "-G", GENERATORS[tool],
            *(f"-D{d}" for d in defines)]
    _check(tool, "configure", argv, env, timeout)
    return CMakeBuild(tool, source, binary, program)


def build(b: CMakeBuild, jobs: int, env: dict | None = None, timeout: float = 300) -> None:
    """The first build, then one no-op: CMake's makefiles consolidate the compilers'
    dependency files on the first run after a build (compiler_depend.make), work that is
    not part of a steady no-op."""
    _check(b.tool, "first build", [*b.noop_argv(), f"-j{jobs}"], env, timeout)
    _check(b.tool, "settling no-op", b.noop_argv(), env, timeout)
    if not b.outputs():
        raise CMakeError(f"{b.tool}: the build left no objects, libraries or programs in "
                         f"{b.binary}")


def _check(tool: str, what: str, argv: list[str], env: dict | None, timeout: float) -> None:
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        raise CMakeError(f"{tool}: the {what} took over {timeout:.0f} s") from e
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-3:]
        raise CMakeError(f"{tool}: the {what} failed (exit {p.returncode}): "
                         + " | ".join(tail))
