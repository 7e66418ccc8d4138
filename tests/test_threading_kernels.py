"""The interpreter-dispatch kernels of native/kernels/threading (seed row S1).

Every technique builds with gcc and clang at -O1 and -O3, runs, and checks its own result
(engine() must execute exactly 10 dispatches per iteration); its hot symbols exist; and
under callgrind its cost per dispatch, (Ir(n2) - Ir(n1)) / (10 * (n2 - n1)), is an exact,
repeatable, positive number of instructions below 20.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from cpulab.build import BuildConfig, Target, build, build_one, find_toolchain
from cpulab.paths import KERNELS

DIR = KERNELS / "threading"
TECHNIQUES = ["direct", "indirect", "switch", "repl-switch", "call", "subroutine"]
HANDLERS = ["op_next1", "op_next2", "op_next3", "op_next4", "op_next5", "op_loop"]
COMPILERS = ["gcc", "clang"]
OPTS = ["O1", "O3"]
VARIANTS = [(t, cc, o) for t in TECHNIQUES for cc in COMPILERS for o in OPTS]


def _target(technique: str, defines: tuple[str, ...] = ()) -> Target:
    return Target(f"threading-{technique}", (DIR / f"{technique}.c",), defines=defines)


@pytest.fixture(scope="module")
def binaries() -> dict[tuple[str, str, str], Path]:
    tcs = {cc: find_toolchain(cc) for cc in COMPILERS}
    missing = [cc for cc, tc in tcs.items() if tc is None]
    if missing:
        pytest.skip(f"compiler not installed: {missing}")
    pairs = [(_target(t), BuildConfig(tcs[cc], o)) for t, cc, o in VARIANTS]
    arts = build(pairs)
    failed = [f"{a.target.name} {a.config.label}: {a.error}" for a in arts if not a.ok]
    assert not failed, "\n".join(failed)
    return {v: a.path for v, a in zip(VARIANTS, arts, strict=True)}


def run(exe: Path, *args: str) -> tuple[int, list[dict]]:
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


def ident(v):
    return "-".join(v)


@pytest.mark.parametrize("variant", VARIANTS, ids=ident)
def test_runs_and_verifies(binaries, variant):
    technique = variant[0]
    rc, lines = run(binaries[variant], "--iters", "1000", "--reps", "2", "--no-pmu")
    assert rc == 0, lines
    assert lines[0]["type"] == "meta"
    assert [c["name"] for c in lines[0]["cases"]] == [technique]
    reps = [x for x in lines if x["type"] == "rep"]
    assert len(reps) == 2
    for r in reps:
        assert (r["case"], r["iters"], r["units"], r["unit"]) == (
            technique, 1000, 10000, "dispatch")


@pytest.mark.parametrize("technique", TECHNIQUES)
def test_list_names_the_technique(binaries, technique):
    rc, lines = run(binaries[(technique, "gcc", "O1")], "--list")
    assert rc == 0
    assert lines == [
        {"type": "case", "name": technique, "unit": "dispatch", "units_per_iter": 10}]


@pytest.mark.parametrize("technique", TECHNIQUES)
def test_wrong_dispatch_count_is_an_error(technique):
    # Built expecting 9 dispatches per iteration: the real 10 must be refused.
    exe = build_one(_target(technique, ("VM_EXPECTED_PER_ITER=9",)),
                    BuildConfig(find_toolchain("gcc"), "O1"))
    rc, lines = run(exe, "--iters", "50", "--reps", "1", "--no-pmu")
    assert rc == 1
    assert lines[-1]["type"] == "error"
    assert "executed 10 dispatches, expected 9" in lines[-1]["message"]


def _functions(exe: Path) -> set[str]:
    with open(exe, "rb") as f:
        symtab = ELFFile(f).get_section_by_name(".symtab")
        return {s.name for s in symtab.iter_symbols() if s["st_info"]["type"] == "STT_FUNC"}


@pytest.mark.parametrize("variant", VARIANTS, ids=ident)
def test_hot_symbols_keep_their_names(binaries, variant):
    funcs = _functions(binaries[variant])
    assert "engine" in funcs
    if variant[0] in ("call", "subroutine"):
        assert set(HANDLERS) <= funcs, sorted(f for f in funcs if f.startswith("op_"))


# ---- callgrind: exact instructions per dispatch ------------------------------------

N1, N2 = 1000, 3000


def _engine_ir(exe: Path, iters: int) -> int:
    """Instructions executed inside engine() and its callees, for the whole run.

    Only engine is counted (--toggle-collect): the harness around it prints timings,
    whose digits, and so whose instruction counts, change from run to run."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "callgrind.out"
        p = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=engine",
             f"--callgrind-out-file={out}", str(exe),
             "--iters", str(iters), "--reps", "1", "--no-pmu", "--cpu", "-1"],
            capture_output=True, text=True, timeout=120,
        )
        assert p.returncode == 0, p.stderr[-2000:]
        for line in out.read_text().splitlines():
            if line.startswith("totals:"):
                return int(line.split()[1])
    raise AssertionError("no totals line in callgrind output")


def _per_dispatch(exe: Path) -> Fraction:
    return Fraction(_engine_ir(exe, N2) - _engine_ir(exe, N1), 10 * (N2 - N1))


# Four valgrind runs per variant (~0.5 s each): by default one build per compiler
# (gcc -O1: the shared dispatch jump; clang -O3), every build with CPULAB_FULL=1.
CALLGRIND_VARIANTS = VARIANTS if os.environ.get("CPULAB_FULL") else [
    (t, cc, o) for t, cc, o in VARIANTS if (cc, o) in (("gcc", "O1"), ("clang", "O3"))]


@pytest.fixture(scope="module")
def callgrind_figures(binaries) -> dict[tuple[str, str, str], tuple[Fraction, Fraction]]:
    if not shutil.which("valgrind"):
        pytest.skip("valgrind not installed")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futs = {v: (pool.submit(_per_dispatch, binaries[v]), pool.submit(_per_dispatch,
                    binaries[v])) for v in CALLGRIND_VARIANTS}
        return {v: (a.result(), b.result()) for v, (a, b) in futs.items()}


@pytest.mark.parametrize("variant", CALLGRIND_VARIANTS, ids=ident)
def test_callgrind_instructions_per_dispatch(callgrind_figures, variant):
    first, second = callgrind_figures[variant]
    assert first == second  # exactly: the dispatch loop has no data-dependent path
    assert 0 < first < 20, float(first)
