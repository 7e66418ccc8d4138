"""The CMake trees of native/CMakeLists.txt the tests build once and share: the default
tree (tests/test_native_build.py) and the ASan+UBSan tree, whose libFuzzer targets the
fuzz tests run too (tests/test_lib_pbdyn_fuzz.py), so the sanitizer build is paid once."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cpulab.build import Toolchain
from cpulab.build.turns import build_turn
from cpulab.paths import NATIVE, build_dir


def run(*argv: str | Path, env: dict | None = None, timeout: int = 600) -> str:
    p = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                       timeout=timeout, env={**os.environ, **(env or {})})
    if p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} exited {p.returncode}:\n"
                    f"{p.stdout[-4000:]}\n{p.stderr[-4000:]}")
    return p.stdout


def configure_and_build(name: str, *options: str) -> Path:
    """build/cmake/`name`, configured and built; by one test worker at a time (another
    then finds it built)."""
    tree = build_dir() / "cmake" / name
    with build_turn(f"cmake-{name}"):
        run("cmake", "-S", NATIVE, "-B", tree, "-G", "Ninja", *options)
        run("cmake", "--build", tree)
    return tree


def asan_tree(clang: Toolchain) -> Path:
    """Every library and test under ASan and UBSan, built by clang (with the libFuzzer
    targets of the parsers)."""
    return configure_and_build("asan", "-DCPULAB_SANITIZE=ON", f"-DCMAKE_C_COMPILER={clang.cc}")


def asan_binary(clang: Toolchain, lib: str, name: str) -> Path:
    """A test program of library `lib` from the ASan+UBSan tree; the test is skipped
    when CMake did not register it (pbdyn's need protoc)."""
    exe = asan_tree(clang) / "lib" / lib / name
    if not exe.is_file():
        pytest.skip(f"{name} not built (CMake registers it only with its tools found)")
    return exe
