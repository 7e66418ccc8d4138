"""The Go programs the lab builds from the module in gorep/: benchmark programs
(`go build`), test binaries for `go test -bench` (`go test -c`), and the compiler's
assembly listing of a package (`go build -gcflags=-S`).

Outputs are cached like the C builds (ninja.py): build/go/<hash>/, the hash covering the
toolchain's banner, the command and the content of every file of the module, so that a
changed source or another Go release never reuses a stale binary. The Go build cache
and the module cache are Go's own (GOCACHE, GOMODCACHE); modules come from the Go module
proxy on the first build, as go.sum pins them.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from cpulab.build.config import BuildConfig
from cpulab.build.ninja import BuildError
from cpulab.files import write_whole, written_whole
from cpulab.paths import GO_MODULE, build_dir

_SUFFIXES = (".go", ".s", ".mod", ".sum")
MODULE_PATH = "cpulab/gorep"


def module_files() -> list[Path]:
    """Every file of the module whose content shapes a build."""
    return sorted(p for p in GO_MODULE.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)


def _key(config: BuildConfig, argv: list[str]) -> str:
    h = hashlib.sha256()
    for part in (config.toolchain.banner, *argv):
        h.update(part.encode() + b"\0")
    for f in module_files():
        h.update(str(f.relative_to(GO_MODULE)).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:20]


def _go(config: BuildConfig, argv: list[str], what: str) -> subprocess.CompletedProcess:
    if config.toolchain.family != "go":
        raise BuildError(f"{what}: {config.label} is not a Go toolchain")
    env = {**os.environ, "GOFLAGS": "-buildvcs=false"}
    try:
        p = subprocess.run([config.toolchain.cc, *argv], cwd=GO_MODULE, capture_output=True,
                           text=True, env=env, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BuildError(f"{what}: {e}") from e
    if p.returncode != 0:
        raise BuildError(f"{what} with {config.label} failed:\n{p.stderr.strip()[-4000:]}")
    return p


def go_build(config: BuildConfig, package: str, *, test: bool = False) -> Path:
    """The program of `package` (a folder of the module, "bench/fanin", "." for gorep),
    or its test binary with `test`; built once per content."""
    name = "gorep" if package == "." else Path(package).name + (".test" if test else "")
    argv = ["test", "-c"] if test else ["build"]
    key = _key(config, [*argv, package])
    out = build_dir() / "go" / key / name
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with written_whole(out) as tmp:
        _go(config, [*argv, "-o", str(tmp), f"./{package}"], f"building {package}")
    return out


def go_listing(config: BuildConfig, package: str) -> str:
    """The compiler's assembly listing of `package` alone (-gcflags=<pkg>=-S), cached."""
    key = _key(config, ["listing", package])
    out = build_dir() / "go" / key / "listing.s"
    if out.exists():
        return out.read_text()
    out.parent.mkdir(parents=True, exist_ok=True)
    # -a: the listing is printed by the compiler, and a package Go's cache already holds
    # is not compiled again.
    p = _go(config, ["build", "-a", f"-gcflags={MODULE_PATH}/{package}=-S", "-o", os.devnull,
                     f"./{package}"], f"listing {package}")
    write_whole(out, p.stderr)
    return p.stderr
