"""The ninja driver: one generated build.ninja for a set of (target, config) pairs.

Each output lives in build/obj/<hash>/, the hash covering the compiler banner, flags,
defines and the content of every source and header, so identical inputs are never built
twice and a changed input never reuses a stale binary. Profile-guided builds are two-phase
inside the same ninja file: instrumented build -> training run -> optimised build.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cpulab.build.config import BuildConfig
from cpulab.build.target import Target
from cpulab.build.toolchain import find_toolchain
from cpulab.build.turns import build_turn
from cpulab.files import write_whole
from cpulab.paths import HARNESS_DIR, build_dir

BASE_CFLAGS = ("-std=gnu11", "-g", "-Wall")
BASE_CXXFLAGS = ("-std=c++17", "-g", "-Wall")


class BuildError(RuntimeError):
    """A build failed; the message carries the compiler's own words."""


@dataclass(frozen=True)
class Artifact:
    target: Target
    config: BuildConfig
    path: Path
    key: str
    error: str | None = None  # set when this pair failed to build

    @property
    def ok(self) -> bool:
        return self.error is None and self.path.exists()


def _key(target: Target, config: BuildConfig) -> str:
    h = hashlib.sha256()
    parts = [
        config.toolchain.banner, config.toolchain.cc, *config.flags, f"pgo={config.pgo}",
        *target.defines, *target.cflags_for(config.toolchain.family), *target.ldflags,
        *target.libs,
        f"shared={target.shared}", *target.pgo_args, *BASE_CFLAGS, target.name,
    ]
    for p in parts:
        h.update(p.encode() + b"\0")
    for f in target.dep_files():
        h.update(str(f).encode() + b"\0")
        h.update(f.read_bytes())
    return h.hexdigest()[:20]


def _q(s: str | Path) -> str:
    """Quote for a ninja command line (shell-quoted, `$` escaped for ninja)."""
    return shlex.quote(str(s)).replace("$", "$$")


def _compile_cmd(target: Target, config: BuildConfig, out: str, extra: Iterable[str]) -> str:
    tc = config.toolchain
    cxx = any(str(s).endswith((".cc", ".cpp")) for s in target.sources)
    driver = tc.cxx if cxx else tc.cc
    flags = [
        *(BASE_CXXFLAGS if cxx else BASE_CFLAGS), *config.flags, *extra,
        *target.cflags_for(tc.family),
        f"-I{HARNESS_DIR}", *(f"-I{d}" for d in target.include_dirs),
        *(f"-D{d}" for d in target.defines),
    ]
    if target.shared:
        flags += ["-fPIC", "-shared"]
    srcs = [str(Path(s).resolve()) for s in target.sources]
    link = [*target.ldflags, *(f"-l{lib}" for lib in target.libs)]
    # Write to a temporary name, then rename: concurrent builders never see half a file.
    tmp = f"{out}.tmp$$$$"
    return (
        " ".join(_q(a) for a in [driver, *flags, "-MMD", "-MF", f"{out}.d", *srcs, "-o"])
        + f" {tmp} " + " ".join(_q(a) for a in link) + f" && mv -f {tmp} {out}"
    )


def _pgo_edges(target: Target, config: BuildConfig, d: Path, out: Path) -> list[str]:
    """Instrumented build, training run, profile-using build (gcc and clang differ)."""
    gen_dir, use_dir = d / "gen", d
    gen_out = gen_dir / "out" / target.name
    args = " ".join(_q(a) for a in target.pgo_args)
    tc = config.toolchain
    lines = []
    if tc.family == "gcc":
        # gcc names its .gcda files after the output path relative to the working
        # directory; building both phases as out/<name> from sibling folders makes the
        # training profile land where the second phase looks for it.
        gen = _compile_cmd(target, config, f"out/{target.name}",
                           ["-fprofile-generate", "-fprofile-update=single"])
        use = _compile_cmd(target, config, f"out/{target.name}", ["-fprofile-use",
                           "-Wno-missing-profile"])
        lines += [
            f"build {gen_out}: run_in {target.sources[0]}\n  dir = {gen_dir}\n  cmd = {gen}",
            f"build {gen_dir}/trained: run_in {gen_out}\n  dir = {gen_dir}\n"
            f"  cmd = rm -f out/*.gcda && ./out/{target.name} {args} >/dev/null && "
            f"mkdir -p {use_dir}/out && cp out/*.gcda {use_dir}/out/ && touch trained",
            f"build {out}: run_in {gen_dir}/trained\n  dir = {use_dir}\n  cmd = {use}",
        ]
    else:
        profdata = tc.tool("llvm-profdata")
        if not profdata:
            raise BuildError(f"{tc.name}: llvm-profdata not found; profile-guided build impossible")
        prof = gen_dir / "merged.profdata"
        gen = _compile_cmd(target, config, str(gen_out), ["-fprofile-instr-generate"])
        use = _compile_cmd(target, config, str(out), [f"-fprofile-instr-use={prof}"])
        lines += [
            f"build {gen_out}: run_in {target.sources[0]}\n  dir = {gen_dir}\n  cmd = {gen}",
            f"build {prof}: run_in {gen_out}\n  dir = {gen_dir}\n"
            f"  cmd = rm -f *.profraw && LLVM_PROFILE_FILE={gen_dir}/%p.profraw {gen_out} "
            f"{args} >/dev/null && {profdata} merge -o {prof} *.profraw",
            f"build {out}: run_in {prof}\n  dir = {use_dir}\n  cmd = {use}",
        ]
    return lines


def build(
    pairs: Iterable[tuple[Target, BuildConfig]],
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    waiting: Callable[[], None] | None = None,
) -> list[Artifact]:
    """Build every pair; a pair that fails comes back with `error` set, the others built.
    `progress(done, total)` counts the binaries that were out of date: (0, total) once
    before anything is built, then one call per binary ninja finishes (built or failed;
    a profile-guided one when its optimised build ends, not at its two steps before).
    Another process building in the same folder is waited for (turns.py), `waiting()`
    called once when that begins; what it built is then found, not built again."""
    arts = _artifacts(list(pairs))
    if all(a.path.exists() for a in arts):
        return _build(arts, jobs, progress)
    with build_turn(waiting=waiting):
        return _build(arts, jobs, progress)


def _artifacts(pairs: list[tuple[Target, BuildConfig]]) -> list[Artifact]:
    """Where each pair's output lives (built or not): build/obj/<key>/out/<name>."""
    root = build_dir() / "obj"
    arts = []
    for target, config in pairs:
        key = _key(target, config)
        name = f"lib{target.name}.so" if target.shared else target.name
        arts.append(Artifact(target, config, root / key / "out" / name, key))
    return arts


def _build(
    arts: list[Artifact],
    jobs: int | None,
    progress: Callable[[int, int], None] | None,
) -> list[Artifact]:
    """build()'s work, in this process's turn: the missing outputs, by one ninja."""
    root = build_dir()
    edges: list[str] = []
    todo: set[str] = set()  # the binaries to build, as ninja names them when done
    for art in arts:
        target, config, out = art.target, art.config, art.path
        d = out.parent.parent
        if out.exists():
            continue
        (d / "out").mkdir(parents=True, exist_ok=True)
        todo.add(str(out))
        if config.pgo:
            (d / "gen" / "out").mkdir(parents=True, exist_ok=True)
            edges += _pgo_edges(target, config, d, out)
        else:
            cmd = _compile_cmd(target, config, str(out), [])
            edges.append(f"build {out}: run_in {target.sources[0]}\n  dir = {d}\n  cmd = {cmd}")
    if progress:
        progress(0, len(todo))
    if not edges:
        return arts

    set_key = hashlib.sha256("\n".join(a.key for a in arts).encode()).hexdigest()[:16]
    ndir = root / "ninja" / set_key
    ndir.mkdir(parents=True, exist_ok=True)
    nfile = ndir / "build.ninja"
    text = (
        "# Generated by cpulab.build.ninja; do not edit.\n"
        f"builddir = {ndir}\n"
        "rule run_in\n  command = cd $dir && $cmd\n  description = $out\n\n"
        + "\n\n".join(edges) + "\n"
    )
    write_whole(nfile, text)
    cmd = ["ninja", "-f", str(nfile), "-k", "0", f"-j{jobs or os.cpu_count() or 2}"]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError as e:
        raise BuildError("ninja not found: run `make setup` (Debian package ninja-build)") from e
    log: list[str] = []
    done = 0
    assert proc.stdout
    for line in proc.stdout:
        log.append(line)
        # "[3/7] <description>": an edge finished (a pipe is no smart terminal), and
        # the description is its output path.
        m = re.match(r"\[\d+/\d+\] (.*)", line)
        if m and m.group(1).strip() in todo and progress:
            done += 1
            progress(done, len(todo))
    proc.wait()
    failures = _failures("".join(log))
    result = []
    for a in arts:
        if a.path.exists():
            result.append(a)
        else:
            msg = failures.get(str(a.path)) or _failure_near(failures, a.key) or \
                "not built (a step before it failed)"
            result.append(Artifact(a.target, a.config, a.path, a.key, error=msg))
    return result


def _failures(log: str) -> dict[str, str]:
    """FAILED: <output> blocks of ninja's log, keyed by the output path."""
    out: dict[str, str] = {}
    blocks = re.split(r"^FAILED: ", log, flags=re.M)[1:]
    for b in blocks:
        head, _, rest = b.partition("\n")
        # skip the echoed command line, keep the tool's own message
        msg = rest.split("\n", 1)[1] if "\n" in rest else rest
        msg = re.split(r"^\[\d+/\d+\]|^ninja: ", msg, flags=re.M)[0].strip()
        for o in head.split():
            out[o] = msg[-4000:] or "failed"
    return out


def _failure_near(failures: dict[str, str], key: str) -> str | None:
    for path, msg in failures.items():
        if f"/{key}/" in path:
            return msg
    return None


def build_one(target: Target, config: BuildConfig) -> Path:
    """Build one pair or raise BuildError with the compiler's message."""
    (art,) = build([(target, config)])
    if not art.ok:
        raise BuildError(f"building {target.name} with {config.label} failed:\n{art.error}")
    return art.path


def build_shared(
    name: str,
    sources: Iterable[str | Path],
    *,
    cc: str = "gcc",
    opt: str = "O2",
    cflags: Iterable[str] = (),
    libs: Iterable[str] = (),
    include_dirs: Iterable[str | Path] = (),
    defines: Iterable[str] = (),
) -> Path:
    """Build a shared library (for ctypes in tests and experiments); cached by content."""
    tc = find_toolchain(cc)
    if tc is None:
        raise BuildError(f"compiler {cc!r} not found")
    t = Target(
        name=name, sources=tuple(Path(s) for s in sources), shared=True,
        cflags=tuple(cflags), libs=tuple(libs), defines=tuple(defines),
        include_dirs=tuple(Path(d) for d in include_dirs),
    )
    return build_one(t, BuildConfig(tc, opt))
