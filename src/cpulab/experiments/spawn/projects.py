"""The projects whose no-op rebuild the `spawn` experiment times, each built once by each
of its build systems, ready for the rebuild:

  the generated C project (noop_build.py), one per size: the flat Makefile (the control),
      the autotools-style recursive make, hand-written ninja, and CMake's "Unix Makefiles"
      and "Ninja" generators over its CMakeLists.txt
  native/, the lab's own CMake project (its libraries, and with the default profile their
      tests too): CMake's "Unix Makefiles" and "Ninja" generators

A build system that cannot build a project leaves the reason under its (project, tool)
key, and the others go on.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cpulab.experiments.spawn import cmake_project, noop_build
from cpulab.paths import NATIVE

NATIVE_PROJECT = "native"
NATIVE_TOOLS = tuple(cmake_project.GENERATORS)


@dataclass(frozen=True)
class Rebuild:
    """One build system's finished build of one project."""
    argv: list[str]  # the no-op rebuild, absolute program path first
    outputs_state: Callable[[], dict[str, int]]  # output path -> mtime in ns


def project_params(project: str) -> dict:
    """A project key ("1000", "native") as its cases' params."""
    return {"project": project} if project == NATIVE_PROJECT else {"targets": int(project)}


def project_label(project: str) -> str:
    return "native/" if project == NATIVE_PROJECT else f"{int(project):,} objects"


def project_tools(project: str) -> tuple[str, ...]:
    return NATIVE_TOOLS if project == NATIVE_PROJECT else noop_build.TOOLS


def prepare(tmp: Path, sizes: tuple[int, ...], quick: bool, timeout: float,
            phase: Callable[[str], None]) -> tuple[dict[tuple[str, str], Rebuild],
                                                   dict[tuple[str, str], str]]:
    """Build every project with each of its build systems under `tmp`: (project, tool) ->
    Rebuild, and (project, tool) -> why it could not be built."""
    jobs = os.cpu_count() or 2
    rebuilds: dict[tuple[str, str], Rebuild] = {}
    errors: dict[tuple[str, str], str] = {}
    for n in sizes:
        key = str(n)
        phase(f"generating a {n:,}-object project; building it with make, ninja and CMake")
        try:
            tree = noop_build.generate(tmp / f"t{n}", n)
        except noop_build.TreeError as e:
            errors.update({(key, t): str(e) for t in noop_build.TOOLS})
            continue
        # make and make-recursive share one build (the same outputs, two descriptions)
        for first, tools in (("make", ("make", "make-recursive")), ("ninja", ("ninja",))):
            try:
                noop_build.first_build(tree, first, jobs, timeout)
            except noop_build.TreeError as e:
                errors.update({(key, t): str(e) for t in tools})
                continue
            for t in tools:
                rebuilds[(key, t)] = Rebuild(tree.noop_argv(t),
                                             functools.partial(tree.outputs_state, t))
        for t in cmake_project.GENERATORS:
            try:
                b = noop_build.cmake_build(tree, t, jobs, timeout)
            except noop_build.TreeError as e:
                errors[(key, t)] = str(e)
                continue
            rebuilds[(key, t)] = Rebuild(b.noop_argv(), b.outputs_state)
    # Tests are most of native/'s targets; the quick profile builds its libraries only.
    defines = ("BUILD_TESTING=OFF",) if quick else ()
    for t in NATIVE_TOOLS:
        phase(f"building native/ with {t} ({cmake_project.GENERATORS[t]})")
        try:
            b = cmake_project.configure(t, NATIVE, tmp / f"native-{t}", defines,
                                        noop_build.clean_env(), timeout)
            cmake_project.build(b, jobs, noop_build.clean_env(), timeout)
        except cmake_project.CMakeError as e:
            errors[(NATIVE_PROJECT, t)] = str(e)
            continue
        rebuilds[(NATIVE_PROJECT, t)] = Rebuild(b.noop_argv(), b.outputs_state)
    return rebuilds, errors
