"""The calloc size-check kernels of native/kernels/overflow (seed row S3).

The kernel builds with gcc and clang at -O2 (and -O3), runs every case with a small
fixed iteration count and verifies its own results (lat: the chain against a 128-bit
reference; tput: sum and overflow count; alloc: every object allocated and zeroed); a
build with a deliberately wrong check must be caught by that verification. In the
machine code, the forced division variants keep a `div`, and the builtin and 128-bit
variants have none (whether the plain C division check keeps its `div` is what the
experiment reports: gcc 12 and clang 19 both turn it into mul + jo).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cpulab.asm import find_functions, instruction_mix
from cpulab.build import BuildConfig, Target, build_one, find_toolchain
from cpulab.paths import KERNELS

DIR = KERNELS / "overflow"
VARIANTS = ["div_forced", "div", "mul_first_forced", "mul_first", "builtin", "u128"]
CASES = [f"{k}_{v}" for k in ("lat", "tput", "alloc") for v in VARIANTS]


def _build(cc: str, opt: str = "O2", defines: tuple[str, ...] = ()) -> Path:
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    t = Target("overflow_bench" + ("_broken" if defines else ""),
               (DIR / "overflow_bench.c", DIR / "size_checks.c"), defines=defines)
    return build_one(t, BuildConfig(tc, opt))


def run(exe: Path, *args: str) -> tuple[int, list[dict]]:
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O2", "O3"])
def test_runs_and_verifies(cc, opt):
    rc, lines = run(_build(cc, opt), "--iters", "3000", "--reps", "2", "--no-pmu")
    assert rc == 0, lines[-1]
    assert [c["name"] for c in lines[0]["cases"]] == CASES
    reps = [x for x in lines if x["type"] == "rep"]
    assert len(reps) == 2 * len(CASES)
    for r in reps:
        want_units = 3000 * 1024 if r["case"].startswith("tput") else 3000
        assert r["units"] == want_units
        assert r["unit"] == ("object" if r["case"].startswith("alloc") else "check")


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_wrong_check_is_caught(cc):
    rc, lines = run(_build(cc, defines=("OVERFLOW_BREAK",)), "--iters", "500", "--reps", "1",
                    "--case", "lat_u128")
    assert rc == 1
    assert lines[-1]["type"] == "error" and "lat_u128" in lines[-1]["message"]
    rc, lines = run(_build(cc, defines=("OVERFLOW_BREAK",)), "--iters", "5", "--reps", "1",
                    "--case", "tput_u128")
    assert rc == 1 and "tput_u128" in lines[-1]["message"]


def test_bad_param_is_a_usage_error():
    rc, lines = run(_build("gcc"), "--iters", "1", "--param", "n=1000")
    assert rc == 2 and lines[-1]["type"] == "error" and "power of two" in lines[-1]["message"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O2", "O3"])
def test_division_in_the_machine_code(cc, opt):
    names = [f"size_check_{v}" for v in VARIANTS]
    # (gcc may add size_check_*.cold parts: the overflow path, with no division)
    fns = {f.name: instruction_mix(f) for f in find_functions(_build(cc, opt), names)}
    assert set(fns) == set(names)
    assert fns["size_check_div_forced"]["div"] >= 1
    assert fns["size_check_mul_first_forced"]["div"] >= 1
    assert fns["size_check_builtin"]["div"] == 0
    assert fns["size_check_u128"]["div"] == 0
    assert fns["size_check_builtin"]["mul"] >= 1 and fns["size_check_u128"]["mul"] >= 1
