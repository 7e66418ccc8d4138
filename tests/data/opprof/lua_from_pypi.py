"""Lua 5.4, built with debug information from the C sources in a PyPI source distribution.

`lupa` (Python bindings to Lua) ships Lua's own sources in its sdist under
third-party/lua54/. We fetch that sdist with pip (`pip download --no-binary lupa`),
keep only those .c/.h files under build/opprof/lua54/, and build the stock `lua`
executable from them through cpulab.build (gcc -O2 -g, LUA_USE_LINUX).

Preparing the sdist's metadata runs lupa's setup.py, which builds its bundled LuaJIT
(~80 s) unless LUPA_NO_LUAJIT=true; without build isolation (setuptools and wheel come
with the pip that `uvx` runs) the download takes ~5 s.

Run as a script to fetch and build: `uv run python tests/data/opprof/lua_from_pypi.py`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from cpulab.build import BuildConfig, Target, build_one, find_toolchain
from cpulab.paths import build_dir

LUPA_VERSION = "2.8"  # bundles Lua 5.4.8
SDIST_DIR = f"lupa-{LUPA_VERSION}/third-party/lua54/"
# the stock interpreter: everything but the test library and the one-file build
EXCLUDE = {"ltests.c", "onelua.c", "luac.c"}


class Unavailable(RuntimeError):
    """The sources cannot be had here (no registry, no pip); the message says why."""


def source_dir() -> Path:
    return build_dir() / "opprof" / f"lua54-lupa-{LUPA_VERSION}"


def _pip_commands() -> list[list[str]]:
    cmds = []
    if shutil.which("uvx"):
        cmds.append(["uvx", "--from", "pip", "--with", "setuptools", "--with", "wheel",
                     "pip", "download", "--no-build-isolation"])
    for py in (sys.executable, shutil.which("python3")):
        if py and subprocess.run([py, "-m", "pip", "--version"], capture_output=True,
                                 timeout=60).returncode == 0:
            cmds.append([py, "-m", "pip", "download"])
    return cmds


def fetch() -> Path:
    """The folder of Lua's sources, fetched once; raises Unavailable."""
    dest = source_dir()
    if (dest / "lvm.c").is_file() and (dest / "lua.c").is_file():
        return dest
    cmds = _pip_commands()
    if not cmds:
        raise Unavailable("no pip to fetch lupa's sdist with (neither uvx nor python -m pip)")
    errors = []
    with tempfile.TemporaryDirectory(prefix="cpulab-lupa-") as tmp:
        env = dict(os.environ, LUPA_NO_LUAJIT="true", PIP_DISABLE_PIP_VERSION_CHECK="1")
        for cmd in cmds:
            full = [*cmd, "--no-deps", "--no-binary", "lupa", f"lupa=={LUPA_VERSION}",
                    "-d", tmp]
            try:
                r = subprocess.run(full, capture_output=True, text=True, env=env, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as e:
                errors.append(f"{' '.join(cmd[:3])}: {e}")
                continue
            sdists = list(Path(tmp).glob("lupa-*.tar.gz"))
            if r.returncode == 0 and sdists:
                _extract(sdists[0], dest)
                return dest
            errors.append(f"{' '.join(cmd[:3])}: exit {r.returncode}: "
                          f"{(r.stderr or r.stdout).strip()[-400:]}")
    raise Unavailable("cannot download lupa's sdist from PyPI: " + " | ".join(errors))


def _extract(sdist: Path, dest: Path) -> None:
    tmp = dest.with_name(dest.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    with tarfile.open(sdist) as tf:
        for m in tf.getmembers():
            if not m.name.startswith(SDIST_DIR) or not m.isfile():
                continue
            name = m.name[len(SDIST_DIR):]
            if "/" in name or not name.endswith((".c", ".h")):
                continue
            src = tf.extractfile(m)
            assert src is not None
            (tmp / name).write_bytes(src.read())
    if not (tmp / "lvm.c").is_file():
        raise Unavailable(f"{sdist.name} has no {SDIST_DIR}lvm.c")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def build(cc: str = "gcc", opt: str = "O2", cflags: tuple[str, ...] = ()) -> Path:
    """The `lua` executable with -g (cached by content under build/obj/)."""
    src = fetch()
    tc = find_toolchain(cc)
    if tc is None:
        raise Unavailable(f"compiler {cc} not found")
    sources = tuple(sorted(p for p in src.glob("*.c") if p.name not in EXCLUDE))
    target = Target("lua", sources, defines=("LUA_USE_LINUX",), libs=("m", "dl"),
                    cflags=("-w", *cflags))
    return build_one(target, BuildConfig(tc, opt))


if __name__ == "__main__":
    print(build())
