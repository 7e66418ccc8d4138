"""The runtime constant divider, native/lib/rtdiv (seed row S4).

All checks run in the C driver native/lib/rtdiv/tests/rtdiv_check.c, which compares
every verb (div, div_bf, rem, rem_bf, divisible) with the CPU's own division:
- exhaustively over all 2^32 numerators of u32 and s32: by each vector batch path the
  CPU has for a few divisors of every kind (~2 s per divisor and path on 2 cores), by
  the scalar verbs for one divisor of each of their sequences (~6 s each: the 32-bit
  kind verbs' 64-bit multiply-high does not vectorise) and, with CPULAB_FULL=1, for
  many more;
- on edge and random divisors and numerators for all four types;
- every batch path the CPU supports (portable, AVX2, AVX-512) against hardware division,
  for every length up to 100 and a long one, arrays at every offset from a vector
  boundary, in place and not, and arrays that end where an unreadable page begins;
- error statuses (divisor 0, NULL) leave everything unchanged.
A build with RTDIV_CHECK_INJECT corrupts one result: the driver must catch it, which
shows that the checks can fail.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cpulab.asm import disassemble, find_functions, instruction_mix
from cpulab.build import BuildConfig, Target, build_one, find_toolchain, library
from cpulab.paths import KERNELS

RTDIV = library("rtdiv")
DRIVER = RTDIV.root / "tests" / "rtdiv_check.c"
LOOPS = RTDIV.root / "tests" / "rtdiv_loops.c"
FULL = bool(os.environ.get("CPULAB_FULL"))

# every kind among them: shift (1), add (7), mul (10, 2^32 - 1), pre (10^9, 14); signed: neg
# (-7, -2^31), add (7), shift (1024), mul with the divisor's sign in the magic (-10^9),
# mul at the edge of the test (3: MIN / 3 is exact only with equality)
U32_DIVISORS = ["1", "7", "10", "0xFFFFFFFF", "1000000000", "14"]
S32_DIVISORS = ["-7", "-2147483648", "7", "1024", "-1000000000", "3"]
# The scalar verbs of u32's mul, add and pre kinds are one sequence (the multiply-high by
# `wide`), and so are s32's mul and add: by them, the default set takes one divisor per
# sequence and its edges; the full set the rest, and the long lists: every divisor up to
# 16 but the powers of two below it, whose shift the default set's 1024 and the full
# set's 16 already take (each costs ~6-8 s on 2 cores).
U32_SCALAR = ["1", "7", "0xFFFFFFFF"]
S32_SCALAR = ["-7", "-2147483648", "1024", "3"]
SMALL_SHIFTS = (2, 4, 8)
U32_FULL = [str(d) for d in range(2, 17) if d != 7 and d not in SMALL_SHIFTS] + [
    "25", "100", "125", "641", "1000", "6700417", "1000000000", "0x7FFFFFFF", "0x80000000",
    "0x80000001", "0xFFFFFFFE", "2863311531", "3435973837", "123456789"]
S32_FULL = [str(d) for d in range(-16, 17)
            if d not in (0, -7, 3) and abs(d) not in SMALL_SHIFTS] + [
    "641", "-641", "1000000000", "-1000000000", "2147483647", "-2147483647"]


def _driver(cc: str, opt: str, *defines: str) -> Path:
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    # -march=native lets the exhaustive mode vectorise its fast pass (~3x); the verbs
    # are the same C either way.
    t = RTDIV.target(f"rtdiv_check{'_inject' if defines else ''}", (DRIVER,),
                     cflags=("-march=native",), libs=("pthread",), defines=defines)
    return build_one(t, BuildConfig(tc, opt))


def run(exe: Path, *args: str, timeout: int = 600) -> tuple[int, list[dict]]:
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


@pytest.fixture(scope="module")
def fast() -> Path:
    """The exhaustive driver: clang vectorises its loops (gcc 12 not the u32 add kind's)."""
    return _driver("clang", "O3")


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O0", "O2"])
def test_random_and_edge_all_types(cc, opt):
    exe = _driver(cc, opt)
    ndiv, nnum = (20000, 4000) if FULL else (1500, 1500)
    rc, lines = run(exe, "random", "20240607", str(ndiv), str(nnum))
    assert rc == 0, lines
    assert {x["int"] for x in lines} == {"u32", "u64", "s32", "s64"}
    for x in lines:
        assert x["ok"] is True, x
        assert x["checked"] > ndiv * nnum // 2


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_batch_paths_match_hardware_division(cc):
    exe = _driver(cc, "O2")
    rc, lines = run(exe, "batch", "7")
    assert rc == 0, lines
    supported = {x["isa"] for x in lines if x["supported"]}
    assert "portable" in supported
    for x in lines:
        if x["supported"]:
            assert x["ok"] is True and x["checked"] > 1000000, x
    # on a CPU that has them, the vector paths must have run (not been skipped)
    for isa in ("avx2", "avx512"):
        assert (isa in supported) == _isa_available(isa), isa


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_status_and_unchanged_on_error(cc):
    rc, lines = run(_driver(cc, "O2"), "status")
    assert rc == 0 and lines[0]["ok"] is True, lines


# rtdiv_<T>_kind: the sequence each divisor takes, as a compiler picks it for a constant
KINDS = {
    "u32": {"1": "shift", "1024": "shift", "3": "mul", "10": "mul", "7": "add",
            "1000000000": "pre", "641": "add"},
    "u64": {"1": "shift", "1024": "shift", "3": "mul", "10": "mul", "7": "add",
            "1000000000": "pre"},
    "s32": {"1": "shift", "1024": "shift", "7": "add", "3": "mul", "1000000000": "mul",
            "-7": "neg", "-3": "neg", "-1": "neg", "-1024": "neg", "-1000000000": "mul"},
    "s64": {"1": "shift", "1024": "shift", "7": "mul", "-7": "mul", "3": "mul", "-3": "neg",
            "-1": "neg", "-1024": "neg", "1000000000": "mul", "-1000000000": "mul"},
}


def test_kinds_and_sizes(fast):
    divisors = sorted({d for table in KINDS.values() for d in table}, key=int)
    rc, lines = run(fast, "kinds", *divisors)
    assert rc == 0, lines
    got = {(x["int"], str(x["d"])): x["kind"] for x in lines if x["type"] == "kind"}
    for t, table in KINDS.items():
        for d, kind in table.items():
            assert got[(t, d)] == kind, (t, d)
    # the size the header states: one cache line at most
    sizes = {x["int"]: x["bytes"] for x in lines if x["type"] == "size"}
    assert sizes == {"u32": 40, "u64": 64, "s32": 40, "s64": 64}


def _vector_paths() -> list[str]:
    """The vector batch paths the exhaustive mode must take on this CPU."""
    return [isa for isa in ("avx2", "avx512") if _isa_available(isa)]


@pytest.mark.parametrize("kind,scalar,batch", [("u32", U32_SCALAR, U32_DIVISORS),
                                               ("s32", S32_SCALAR, S32_DIVISORS)])
def test_exhaustive(fast, kind, scalar, batch):
    rc, lines = run(fast, "exhaustive", kind, "--scalar", *scalar)
    assert rc == 0, lines
    assert [(x["d"], x["path"]) for x in lines] == [(d, "scalar") for d in scalar]
    assert all(x["ok"] and x["checked"] == 2**32 for x in lines), lines
    rc, lines = run(fast, "exhaustive", kind, "--batch", *batch)
    assert rc == 0, lines
    assert [(x["d"], x["path"]) for x in lines] == [(d, p) for d in batch
                                                    for p in _vector_paths()]
    assert all(x["ok"] and x["checked"] == 2**32 for x in lines), lines


@pytest.mark.full
@pytest.mark.parametrize("kind,divisors", [("u32", U32_FULL), ("s32", S32_FULL)])
def test_exhaustive_full(fast, kind, divisors):
    """The long lists by the scalar verbs: the vector paths, checked over every numerator
    for the default set's divisors above, would triple this test's time."""
    rc, lines = run(fast, "exhaustive", kind, "--scalar", *divisors, timeout=3600)
    assert rc == 0, [x for x in lines if not x.get("ok", True)]
    assert [(x["d"], x["path"]) for x in lines] == [(str(d), "scalar") for d in divisors]


def test_checker_catches_a_wrong_result():
    """The injected error (numerator 123456789 off by one) is found, named, and fails."""
    exe = _driver("clang", "O3", "RTDIV_CHECK_INJECT=1")
    rc, lines = run(exe, "exhaustive", "u32", "--scalar", "641")
    assert rc == 1
    bad = [x for x in lines if x["type"] == "mismatch"]
    assert bad and bad[0]["n"] == "123456789" and bad[0]["verb"] == "div"
    assert bad[0]["want"] == str(123456789 // 641)
    rc, lines = run(exe, "random", "1", "5", "5")
    assert rc == 1
    assert any(x["type"] == "mismatch" and x["n"] == "123456789" for x in lines)


# the signed conditional jumps: a branch on the numerator's sign (the loops count unsigned)
SIGN_JUMPS = {"js", "jns", "jl", "jge", "jg", "jle"}


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O2", "O3"])
def test_loops_a_program_writes(cc, opt):
    """What the compiler makes of the inline verbs in a program's own loops (x86-64-v2:
    SSE4.1's pmuldq for signed lanes): gcc -O3 and clang vectorise the 32-bit branchfree
    verbs, the header's answer for a loop the compiler should vectorise; and the signed
    power of two never branches on the numerator's sign, which gcc 12 did at -O3 in a
    loop storing its quotients (a mispredicted jump on every other random numerator)."""
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    t = RTDIV.target("rtdiv_loops", (LOOPS,), cflags=("-march=x86-64-v2",))
    exe = build_one(t, BuildConfig(tc, opt))
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    fns = {f.name: f for f in find_functions(exe, ["loop_*"])}
    if (cc, opt) != ("gcc", "O2"):  # gcc 12's -O2 vectorises only the "very cheap"
        for name in ("loop_u32_div_bf", "loop_u32_rem_bf", "loop_s32_div_bf",
                     "loop_s32_rem_bf"):
            mnemonics = {i.mnemonic for i in disassemble(fns[name])}
            assert {"pmuludq", "pmuldq", "vpmuludq", "vpmuldq"} & mnemonics, (name, mnemonics)
    for name in ("loop_s32_div_shift", "loop_s32_rem_shift", "loop_s64_div_shift",
                 "loop_s64_rem_shift"):
        jumps = [i.mnemonic for i in disassemble(fns[name]) if i.mnemonic in SIGN_JUMPS]
        assert not jumps, (name, jumps)


def test_unknown_mode_is_a_usage_error(fast):
    p = subprocess.run([str(fast), "nonsense"], capture_output=True, text=True)
    assert p.returncode == 2 and "usage" in p.stderr


# ---- the benchmark kernels of native/kernels/divide (seed row S4) ----

KDIR = KERNELS / "divide"
TYPES = ["u32", "u64", "s32", "s64"]


def _kernel(name: str, cc: str, opt: str = "O2", defines: tuple[str, ...] = ()) -> Path:
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    label = name + "".join("_" + d.replace("=", "") for d in defines)
    if name == "divide_bench":
        t = RTDIV.target(label, (KDIR / "divide_bench.c",), defines=defines)
    else:
        t = Target(label, (KDIR / "quo_bench.c", KDIR / "quo_seed.c"), defines=defines)
    return build_one(t, BuildConfig(tc, opt))


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("const", ["7", "1", "3", "1024", "1000000000"])
def test_divide_kernel_runs_and_verifies(cc, const):
    exe = _kernel("divide_bench", cc, defines=(f"DIVIDE_CONST={const}",))
    for t in TYPES:
        for op in ("div", "rem"):
            rc, lines = run(exe, "--iters", "40", "--reps", "1", "--no-pmu",
                            "--param", f"type={t}", "--param", f"op={op}")
            assert rc == 0, (t, op, lines[-1])
            names = [c["name"] for c in lines[0]["cases"]]
            assert {"tput_hw", "tput_const", "tput_rtdiv", "tput_rtdiv_bf", "tput_rtdiv_batch",
                    "tput_libdivide", "lat_hw", "lat_const", "lat_rtdiv",
                    "lat_rtdiv_bf"} <= set(names)
            assert ("tput_fastmod" in names) == (op == "rem" and t != "s64")
            # libdivide has no branchfree unsigned divider for 1
            assert ("tput_libdivide_bf" in names) == (const != "1" or t.startswith("s"))
            assert len([x for x in lines if x["type"] == "rep"]) == len(names)


def test_divide_kernel_batch_paths():
    exe = _kernel("divide_bench", "gcc")
    for isa in ("portable", "avx2", "avx512"):
        if not _isa_available(isa):
            continue
        rc, lines = run(exe, "--iters", "20", "--reps", "1", "--param", f"isa={isa}",
                        "--param", "type=s32", "--case", "tput_rtdiv_batch")
        assert rc == 0, (isa, lines[-1])


def _isa_available(isa: str) -> bool:
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return {"portable": True, "avx2": " avx2 " in flags,
            "avx512": " avx512f " in flags and " avx512dq " in flags}[isa]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_divide_kernel_catches_a_wrong_quotient(cc):
    exe = _kernel("divide_bench", cc, defines=("DIVIDE_BREAK",))
    rc, lines = run(exe, "--iters", "200", "--reps", "1", "--param", "type=u32",
                    "--case", "tput_rtdiv")
    assert rc == 1 and lines[-1]["type"] == "error" and "tput_rtdiv" in lines[-1]["message"]


def test_divide_kernel_rejects_bad_params():
    exe = _kernel("divide_bench", "gcc")
    for bad in ("type=u16", "op=mod", "n=1000", "bits=70", "isa=neon"):
        rc, lines = run(exe, "--iters", "1", "--param", bad)
        assert rc == 2 and lines[-1]["type"] == "error", bad


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_quo_kernel_runs_and_verifies(cc):
    exe = _kernel("quo_bench", cc)
    for pct in ("0", "50", "100"):
        rc, lines = run(exe, "--iters", "20", "--reps", "1", "--no-pmu",
                        "--param", f"exact_pct={pct}")
        assert rc == 0, lines[-1]
        assert [c["name"] for c in lines[0]["cases"]] == [
            "tput_mul", "tput_mod", "tput_inverse", "lat_mul", "lat_mod", "lat_inverse"]
    rc, lines = run(_kernel("quo_bench", cc, defines=("QUO_BREAK",)), "--iters", "2")
    assert rc == 1 and lines[-1]["type"] == "error"


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_quo_has_no_division_instruction(cc):
    """S4: with b = 10^9 known, every variant divides by multiplying (no `div`)."""
    fns = {f.name: instruction_mix(f) for f in find_functions(
        _kernel("quo_bench", cc), ["quo_mul_check", "quo_mod_check", "quo_inverse_check"])}
    assert len(fns) == 3
    for name, mix in fns.items():
        assert mix["div"] == 0 and mix["mul"] >= 1, name
