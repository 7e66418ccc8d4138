"""A generated C project for timing no-op builds (S13): the same tree built by GNU make
(non-recursive, and recursive the autotools way), by ninja, and by CMake with its "Unix
Makefiles" and its "Ninja" generators.

`generate(root, targets)` writes `targets` C files in directories of FILES_PER_DIR, each
including a project-wide header, its own directory's header and the next directory's (so
that a header change fans out across directories, and every object has three header
dependencies recorded in its depfile). Every directory becomes a static library; `main.c`
links them all into `prog`. Three build descriptions of the same graph:

  Makefile      one make, every rule in one file, depfiles included (`-include *.d`)
  Makefile.rec  the autotools shape: a shell loop runs one make per directory (`sub.mk`),
                then one more for the link; make and make-recursive share their outputs
  build.ninja   ninja, `deps = gcc`; its outputs live under ninja/ (ninja keeps its own
                log of commands, so it cannot adopt what make built)
  CMakeLists.txt  one per directory (a static library) and one at the top (`prog`), as a
                CMake user writes them; `cmake_build` configures it in cmake-make/ or
                cmake-ninja/ (cmake_project.py) and builds it there

`noop_argv(tool)` is the command line of a no-op rebuild; `outputs_state()` snapshots the
outputs' modification times, so a "no-op" that rebuilt anything is caught.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cpulab.experiments.spawn import cmake_project

HAND_WRITTEN = ("make", "make-recursive", "ninja")
TOOLS = (*HAND_WRITTEN, *cmake_project.GENERATORS)
FILES_PER_DIR = 100
CFLAGS = "-O0 -g0"  # compile cost does not matter here: only the no-op rebuild is timed


class TreeError(RuntimeError):
    """The tree could not be generated or its first build failed."""


@dataclass(frozen=True)
class Tree:
    root: Path
    targets: int
    dirs: tuple[str, ...]
    cc: str
    make: str | None
    ninja: str | None

    def noop_argv(self, tool: str) -> list[str]:
        """The command line of a no-op rebuild by `tool` (absolute program path first)."""
        if tool == "ninja":
            if not self.ninja:
                raise TreeError("ninja not found on PATH")
            return [self.ninja, "-C", str(self.root), "-f", "build.ninja"]
        if not self.make:
            raise TreeError("make not found on PATH")
        makefile = {"make": "Makefile", "make-recursive": "Makefile.rec"}[tool]
        return [self.make, "-s", "-C", str(self.root), "-f", makefile]

    def first_build_argv(self, tool: str, jobs: int) -> list[str]:
        return [*self.noop_argv(tool), f"-j{jobs}"]

    def outputs(self, tool: str) -> list[Path]:
        base = self.root / "ninja" if tool == "ninja" else self.root
        objs = [base / d / f"{stem}.o" for d in self.dirs for stem in _stems(self, d)]
        libs = [base / d / "lib.a" for d in self.dirs]
        return [*objs, *libs, base / "main.o", base / "prog"]

    def outputs_state(self, tool: str) -> dict[str, int]:
        """output path -> mtime in ns; a missing output is an error."""
        state = {}
        for p in self.outputs(tool):
            try:
                state[str(p)] = p.stat().st_mtime_ns
            except FileNotFoundError as e:
                raise TreeError(f"{tool}: output {p} is missing after the build") from e
        return state


def _stems(tree: Tree, d: str) -> list[str]:
    i = tree.dirs.index(d)
    first = i * FILES_PER_DIR
    return [f"f{n:05d}" for n in range(first, min(first + FILES_PER_DIR, tree.targets))]


def generate(root: Path, targets: int, cc: str | None = None) -> Tree:
    """Write the sources and the three build descriptions for `targets` C files."""
    if targets < 1:
        raise ValueError(f"targets must be at least 1, not {targets}")
    cc = cc or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise TreeError("no C compiler (cc or gcc) on PATH")
    ndirs = -(-targets // FILES_PER_DIR)
    dirs = tuple(f"d{k:03d}" for k in range(ndirs))
    tree = Tree(root, targets, dirs, cc, shutil.which("make"), shutil.which("ninja"))
    (root / "include").mkdir(parents=True, exist_ok=True)
    (root / "include" / "project.h").write_text(
        "#ifndef PROJECT_H\n#define PROJECT_H\n#define PROJECT_BIAS 1\n#endif\n")
    mains = []
    for k, d in enumerate(dirs):
        (root / d).mkdir(exist_ok=True)
        nxt = dirs[(k + 1) % ndirs]
        (root / d / f"{d}.h").write_text(
            f"#ifndef {d.upper()}_H\n#define {d.upper()}_H\n"
            + "".join(f"int {s}(int x);\n" for s in _stems(tree, d)) + "#endif\n")
        for s in _stems(tree, d):
            (root / d / f"{s}.c").write_text(
                f'#include "project.h"\n#include "{d}.h"\n#include "../{nxt}/{nxt}.h"\n'
                f"int {s}(int x) {{ return x + PROJECT_BIAS; }}\n")
        mains.append(f'#include "{d}/{d}.h"\n')
        first = _stems(tree, d)[0]
        mains.append(f"static int (*const use_{d})(int) = {first};\n")
    calls = " + ".join(f"use_{d}(0)" for d in dirs)
    (root / "main.c").write_text("".join(mains) + f"int main(void) {{ return {calls} != "
                                 f"{ndirs}; }}\n")
    (root / "Makefile").write_text(_makefile(tree))
    (root / "Makefile.rec").write_text(_makefile_recursive(tree))
    for d in dirs:
        (root / d / "sub.mk").write_text(_submake(tree, d))
    (root / "link.mk").write_text(_link_make(tree))
    (root / "build.ninja").write_text(_ninja(tree))
    (root / "CMakeLists.txt").write_text(_cmake_top(tree))
    for d in dirs:
        (root / d / "CMakeLists.txt").write_text(
            f"add_library({d} STATIC {' '.join(f'{s}.c' for s in _stems(tree, d))})\n")
    return tree


def _cmake_top(tree: Tree) -> str:
    return ("cmake_minimum_required(VERSION 3.13)\nproject(noop C)\n"
            "include_directories(include)\n"
            + "".join(f"add_subdirectory({d})\n" for d in tree.dirs)
            + f"add_executable(prog main.c)\ntarget_link_libraries(prog {' '.join(tree.dirs)})\n")


def cmake_build(tree: Tree, tool: str, jobs: int, timeout: float) -> cmake_project.CMakeBuild:
    """Configure the tree with `tool`'s generator in root/<tool>/ and build it there, with
    the compiler and flags of the hand-written builds; raises TreeError."""
    try:
        b = cmake_project.configure(
            tool, tree.root, tree.root / tool,
            (f"CMAKE_C_COMPILER={tree.cc}", f"CMAKE_C_FLAGS={CFLAGS}", "CMAKE_BUILD_TYPE="),
            clean_env(), timeout)
        cmake_project.build(b, jobs, clean_env(), timeout)
    except cmake_project.CMakeError as e:
        raise TreeError(str(e)) from e
    objects = sum(p.suffix == ".o" for p in b.outputs())
    if objects != tree.targets + 1:
        raise TreeError(f"{tool}: {objects} objects built, not {tree.targets + 1}")
    return b


def _compile_rule() -> str:
    return ("%.o: %.c\n"
            "\t$(CC) $(CFLAGS) -Iinclude -MMD -MP -c $< -o $@\n")


def _header(tree: Tree) -> str:
    return f"CC := {tree.cc}\nCFLAGS := {CFLAGS}\n.SUFFIXES:\n"


def _objs(tree: Tree, d: str, base: str = "") -> str:
    return " ".join(f"{base}{d}/{s}.o" for s in _stems(tree, d))


def _makefile(tree: Tree) -> str:
    libs = " ".join(f"{d}/lib.a" for d in tree.dirs)
    out = [_header(tree), f"all: prog\nprog: main.o {libs}\n\t$(CC) -o $@ main.o {libs}\n"]
    for d in tree.dirs:
        out.append(f"{d}/lib.a: {_objs(tree, d)}\n\tar rcs $@ $^\n")
    out.append(_compile_rule())
    out.append("-include main.d " + " ".join(f"$(wildcard {d}/*.d)" for d in tree.dirs)
               + "\n")
    return "\n".join(out)


def _submake(tree: Tree, d: str) -> str:
    return (f"{_header(tree)}all: {d}/lib.a\n{d}/lib.a: {_objs(tree, d)}\n\tar rcs $@ $^\n"
            f"{_compile_rule()}-include $(wildcard {d}/*.d)\n")


def _link_make(tree: Tree) -> str:
    libs = " ".join(f"{d}/lib.a" for d in tree.dirs)
    return (f"{_header(tree)}all: prog\nprog: main.o {libs}\n\t$(CC) -o $@ main.o {libs}\n"
            f"{_compile_rule()}-include main.d\n")


def _makefile_recursive(tree: Tree) -> str:
    # As automake writes it: one shell runs the loop, one make per directory.
    return (f"SUBDIRS := {' '.join(tree.dirs)}\nall:\n"
            "\t@for d in $(SUBDIRS); do $(MAKE) -s -f $$d/sub.mk || exit 1; done\n"
            "\t@$(MAKE) -s -f link.mk\n.PHONY: all\n")


def _ninja(tree: Tree) -> str:
    out = [
        f"cc = {tree.cc}\ncflags = {CFLAGS}\n",
        "rule cc\n  command = $cc $cflags -Iinclude -MMD -MF $out.d -c $in -o $out\n"
        "  depfile = $out.d\n  deps = gcc\n",
        "rule ar\n  command = rm -f $out && ar rcs $out $in\n",
        "rule link\n  command = $cc -o $out $in\n",
    ]
    for d in tree.dirs:
        for s in _stems(tree, d):
            out.append(f"build ninja/{d}/{s}.o: cc {d}/{s}.c\n")
        out.append(f"build ninja/{d}/lib.a: ar {_objs(tree, d, 'ninja/')}\n")
    out.append("build ninja/main.o: cc main.c\n")
    libs = " ".join(f"ninja/{d}/lib.a" for d in tree.dirs)
    out.append(f"build ninja/prog: link ninja/main.o {libs}\ndefault ninja/prog\n")
    return "".join(out)


def clean_env() -> dict[str, str]:
    """The environment without make's jobserver and level (when the lab runs under make)."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS",
                                                             "MAKELEVEL")}


def first_build(tree: Tree, tool: str, jobs: int, timeout: float) -> None:
    """Build `tool`'s outputs from scratch; raises TreeError with the tool's own words."""
    try:
        p = subprocess.run(tree.first_build_argv(tool, jobs), capture_output=True, text=True,
                           timeout=timeout, env=clean_env())
    except subprocess.TimeoutExpired as e:
        raise TreeError(f"{tool}: the first build took over {timeout:.0f} s") from e
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-3:]
        raise TreeError(f"{tool}: the first build failed (exit {p.returncode}): "
                        + " | ".join(tail))
