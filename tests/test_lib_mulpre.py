"""mulpre: fixed-size multi-precision multiply (native/lib/mulpre), tested four ways.

- The generated assembly is what the generator emits today, and its machine code has,
  per N, exactly N^2 mulx (N(N+1)/2 for squaring), the seed's add/xor/mov mix, and no
  operand that addresses memory through rsp or rbp (no spills).
- The C driver native/lib/mulpre/tests/mulpre_test.c compares every implementation and
  N = 1..9 with GMP's mpn_mul_n / mpn_sqr (edge cases + random; 10^6 random inputs per
  (implementation, N, op) with CPULAB_FULL=1), built with gcc and with clang, and again
  under ASan+UBSan and under valgrind memcheck.
- Through ctypes: the public API against Python's own integers (a second reference),
  dispatch versus /proc/cpuinfo, status codes, aliasing.
- The benchmark kernel builds and runs its cases once the harness header exists.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from capstone import CS_ARCH_X86, CS_MODE_64, CS_OP_MEM, Cs
from capstone import x86_const as X86
from elftools.elf.elffile import ELFFile

from cpulab.build import BuildConfig, Target, build_one, build_shared, find_toolchain
from cpulab.paths import HARNESS_DIR, KERNELS, LIBS

MULPRE = LIBS / "mulpre"
GEN = MULPRE / "gen" / "gen_mulpre_asm.py"
ASM = MULPRE / "src" / "mulpre_asm.S"
DRIVER = MULPRE / "tests" / "mulpre_test.c"
KERNEL = KERNELS / "mulpre" / "mulpre_bench.c"
MAX_N = 9
FULL = bool(os.environ.get("CPULAB_FULL"))
COUNT = 1_000_000 if FULL else 20_000

# mulpre_impl / mulpre_status (include/mulpre.h)
AUTO, PORTABLE, INTRIN, ASM_IMPL = range(4)
IMPLS = {"portable": PORTABLE, "intrin": INTRIN, "asm": ASM_IMPL}
OK, ERR_SIZE, ERR_NULL, ERR_IMPL, ERR_UNAVAILABLE = range(5)
CPU_BMI2, CPU_ADX = 1, 2


def cpu_has_mulx_adx() -> bool:
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags |= set(line.split(":", 1)[1].split())
    return {"bmi2", "adx"} <= flags


def lib_sources() -> list[Path]:
    src = MULPRE / "src"
    return sorted(src.glob("*.c")) + sorted(src.glob("*.S"))


def include_dirs() -> tuple[Path, ...]:
    return (MULPRE / "include", MULPRE / "internal")


def build_driver(cc: str, opt: str = "O2", sanitize: bool = False) -> Path:
    tc = find_toolchain(cc)
    if tc is None:
        pytest.fail(f"compiler {cc} not found (make setup installs gcc and clang-19)")
    san = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-fno-omit-frame-pointer") if sanitize else ()
    target = Target(
        name="mulpre_test" + ("_asan" if sanitize else ""),
        sources=(*lib_sources(), DRIVER),
        include_dirs=include_dirs(),
        cflags=("-Wextra", "-Werror", *san),
        ldflags=san,
        libs=("gmp",),
    )
    return build_one(target, BuildConfig(tc, opt))


def run_driver(exe: Path, *args: str, wrapper: tuple[str, ...] = (),
               timeout: int = 600) -> str:
    proc = subprocess.run([*wrapper, str(exe), *args], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{exe.name} failed ({proc.returncode}):\n" \
        f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def parse_groups(out: str) -> dict[tuple[str, str, int], int]:
    """{(op, impl, n): cases} of the driver's "ok" lines; any FAIL line fails the test."""
    groups = {}
    for line in out.splitlines():
        assert not line.startswith("FAIL"), line
        if line.startswith("ok "):
            _, op, *kv = line.split()
            d = dict(item.split("=", 1) for item in kv)
            groups[(op, d["impl"], int(d["n"]))] = int(d["cases"])
    return groups


def assert_complete(groups: dict, impls: list[str], count: int, alias: bool = True) -> None:
    # 100 uniform patterns + 8 per limb of single/hole inputs: the edge cases of the driver
    for impl in impls:
        for n in range(1, MAX_N + 1):
            for op in ("mul", "sqr"):
                assert groups[(op, impl, n)] == count + 100 + 8 * n, (op, impl, n)
            if alias:
                assert groups[("alias", impl, n)] == 9 * n + 2
    assert ("status", "auto", 0) in groups and ("masked", "auto", 0) in groups


def expected_impls() -> list[str]:
    return ["portable", "intrin", "asm", "auto"] if cpu_has_mulx_adx() else \
        ["portable", "auto"]


# ---- the generated assembly ----------------------------------------------------------


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_mulpre_asm", GEN)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader
    spec.loader.exec_module(mod)
    return mod


def test_generated_asm_is_current():
    gen = load_generator()
    text = ASM.read_text()
    assert text == gen.render(), f"{ASM} is stale: run `{gen.COMMAND}`"
    assert text.startswith(f"# Generated by `{gen.COMMAND}`")


@pytest.fixture(scope="module")
def libso() -> Path:
    return build_shared("mulpre", lib_sources(), cc="gcc", opt="O2",
                        include_dirs=include_dirs())


def function_code(so: Path) -> dict[str, tuple[int, bytes]]:
    """name -> (address, bytes) of every mulpre_asm_* function (hidden: in .symtab)."""
    out = {}
    with so.open("rb") as fh:
        elf = ELFFile(fh)
        text = elf.get_section_by_name(".text")
        base, data = text["sh_addr"], text.data()
        for sym in elf.get_section_by_name(".symtab").iter_symbols():
            if sym.name.startswith("mulpre_asm_") and sym["st_info"]["type"] == "STT_FUNC":
                start = sym["st_value"] - base
                out[sym.name] = (sym["st_value"], data[start:start + sym["st_size"]])
    return out


def instruction_mix(addr: int, code: bytes) -> dict:
    md = Cs(CS_ARCH_X86, CS_MODE_64)
    md.detail = True
    mix = {"mulx": 0, "add": 0, "mov": 0, "xor": 0, "push": 0, "pop": 0, "other": 0,
           "stack_mem": 0, "total": 0}
    stack_regs = {X86.X86_REG_RSP, X86.X86_REG_RBP, X86.X86_REG_ESP, X86.X86_REG_EBP}
    adds = {"add", "adc", "adcx", "adox"}
    for insn in md.disasm(code, addr):
        mix["total"] += 1
        m = insn.mnemonic
        key = "add" if m in adds else m if m in mix else "other"
        mix[key] += 1
        for op in insn.operands:
            if op.type == CS_OP_MEM and (op.mem.base in stack_regs or
                                         op.mem.index in stack_regs):
                mix["stack_mem"] += 1
    assert mix["total"] > 0 and sum(len(i.bytes) for i in md.disasm(code, addr)) == len(code)
    return mix


def test_asm_instruction_mix(libso):
    funcs = function_code(libso)
    assert len(funcs) == 2 * MAX_N, sorted(funcs)
    for n in range(1, MAX_N + 1):
        mix = instruction_mix(*funcs[f"mulpre_asm_mul_{n}"])
        assert mix["mulx"] == n * n, (n, mix)
        assert mix["stack_mem"] == 0, (n, mix)
        # The design's counts (see the generator): N + (N-1)(2N+1) add-type (none at
        # N = 1), N-1 xor, 2N stores + N loads of y[i] + N-1 zeroes + one copy of y.
        assert mix["add"] == (n + (n - 1) * (2 * n + 1) if n > 1 else 0), (n, mix)
        assert mix["xor"] == n - 1, (n, mix)
        assert mix["mov"] == 2 * n + n + (n - 1) + (1 if n > 1 else 0), (n, mix)
        # Callee-saved registers only where N + 6 exceeds the 9 caller-saved ones.
        assert mix["push"] == mix["pop"] == max(0, n + 6 - 9), (n, mix)
        assert mix["other"] == 1, (n, mix)  # ret
        sq = instruction_mix(*funcs[f"mulpre_asm_sqr_{n}"])
        assert sq["mulx"] == n * (n + 1) // 2, (n, sq)
        assert sq["stack_mem"] == 0, (n, sq)
        assert sq["other"] == 1, (n, sq)
    # Seed S11's hand-written N=4: 16 mulx, 31 add-type, 16 mov.
    m4 = instruction_mix(*funcs["mulpre_asm_mul_4"])
    assert (m4["mulx"], m4["add"], m4["mov"]) == (16, 31, 16)


# ---- the differential driver against GMP ---------------------------------------------


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_against_gmp(cc):
    out = run_driver(build_driver(cc), str(COUNT), "7")
    assert out.rstrip().splitlines()[-1].endswith(" 0 failed")
    groups = parse_groups(out)
    assert_complete(groups, expected_impls(), COUNT)
    best = "asm" if cpu_has_mulx_adx() else "portable"
    assert f"best={best}" in out.splitlines()[0]


def test_against_gmp_asan_ubsan():
    exe = build_driver("clang", opt="O1", sanitize=True)
    out = run_driver(exe, "2000", "11")
    assert_complete(parse_groups(out), expected_impls(), 2000)


def test_against_gmp_valgrind():
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        pytest.fail("valgrind not found (Debian package valgrind; make setup installs it)")
    # valgrind's virtual CPU hides ADX from cpuid but executes adcx/adox: --ignore-cpuid
    # runs the asm and intrinsics anyway, so memcheck sees every implementation.
    out = run_driver(build_driver("gcc"), "--ignore-cpuid", "300", "13",
                     wrapper=(valgrind, "-q", "--error-exitcode=99"))
    groups = parse_groups(out)
    impls = ["portable", "intrin", "asm"] if cpu_has_mulx_adx() else ["portable"]
    for impl in impls:
        for n in range(1, MAX_N + 1):
            assert groups[("mul", impl, n)] == 300 + 100 + 8 * n
            assert groups[("sqr", impl, n)] == 300 + 100 + 8 * n


# ---- the public API through ctypes, against Python integers --------------------------


class Lib:
    def __init__(self, path: Path):
        self.c = ctypes.CDLL(str(path))
        u64p = ctypes.POINTER(ctypes.c_uint64)
        self.c.mulpre_mul_with.argtypes = [ctypes.c_int, u64p, u64p, u64p, ctypes.c_size_t]
        self.c.mulpre_sqr_with.argtypes = [ctypes.c_int, u64p, u64p, ctypes.c_size_t]
        self.c.mulpre_mul.argtypes = [u64p, u64p, u64p, ctypes.c_size_t]
        self.c.mulpre_sqr.argtypes = [u64p, u64p, ctypes.c_size_t]
        self.c.mulpre_impl_available.argtypes = [ctypes.c_int]
        self.c.mulpre_impl_available.restype = ctypes.c_bool
        self.c.mulpre_impl_name.argtypes = [ctypes.c_int]
        self.c.mulpre_impl_name.restype = ctypes.c_char_p
        self.c.mulpre_status_str.restype = ctypes.c_char_p
        self.c.mulpre_mul_fn_get.argtypes = [ctypes.c_int, ctypes.c_size_t]
        self.c.mulpre_mul_fn_get.restype = ctypes.c_void_p
        self.c.mulpre_cpu_features.restype = ctypes.c_uint
        self.c.mulpre_cpu_features_limit.argtypes = [ctypes.c_uint]


@pytest.fixture(scope="module")
def lib(libso) -> Lib:
    return Lib(libso)


def limbs(v: int, n: int) -> list[int]:
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]


def value(a) -> int:
    return sum(int(x) << (64 * i) for i, x in enumerate(a))


def interesting(rng: random.Random, n: int) -> int:
    kind = rng.randrange(4)
    if kind == 0:
        return rng.getrandbits(64 * n)
    if kind == 1:
        return 2 ** (64 * n) - 1 - rng.getrandbits(rng.randrange(1, 64 * n))
    if kind == 2:
        return 1 << rng.randrange(64 * n)
    return value([rng.choice([0, 1, 2**64 - 1, 2**63]) for _ in range(n)])


def test_dispatch_follows_cpuinfo(lib):
    has = cpu_has_mulx_adx()
    assert lib.c.mulpre_impl_best() == (ASM_IMPL if has else PORTABLE)
    assert lib.c.mulpre_impl_available(ASM_IMPL) == has
    assert lib.c.mulpre_impl_available(INTRIN) == has
    assert lib.c.mulpre_impl_available(PORTABLE)
    assert (lib.c.mulpre_cpu_features() == (CPU_BMI2 | CPU_ADX)) == has
    names = [lib.c.mulpre_impl_name(i).decode() for i in range(4)]
    assert names == ["auto", "portable", "intrin", "asm"]


def test_against_python_ints(lib):
    rng = random.Random(5)
    for impl in [AUTO, *IMPLS.values()]:
        if not lib.c.mulpre_impl_available(impl):
            continue
        for n in range(1, MAX_N + 1):
            for _ in range(150):
                xv, yv = interesting(rng, n), interesting(rng, n)
                x = (ctypes.c_uint64 * n)(*limbs(xv, n))
                y = (ctypes.c_uint64 * n)(*limbs(yv, n))
                z = (ctypes.c_uint64 * (2 * n))()
                assert lib.c.mulpre_mul_with(impl, z, x, y, n) == OK
                assert value(z) == xv * yv, (impl, n, hex(xv), hex(yv))
                assert lib.c.mulpre_sqr_with(impl, z, x, n) == OK
                assert value(z) == xv * xv, (impl, n, hex(xv))


def test_aliasing_any_overlap(lib):
    """z may overlap x or y in the checked API: every offset gives the true product."""
    rng = random.Random(9)
    for impl in [PORTABLE, INTRIN, ASM_IMPL]:
        if not lib.c.mulpre_impl_available(impl):
            continue
        for n in (1, 4, 9):
            for off in range(-2 * n, n + 1):
                buf = (ctypes.c_uint64 * (6 * n))(*[rng.getrandbits(64) for _ in range(6 * n)])
                base = 3 * n  # x (or y) lives at buf[3n : 4n]; z at buf[3n + off]
                src = ctypes.cast(ctypes.byref(buf, 8 * base), ctypes.POINTER(ctypes.c_uint64))
                z = ctypes.cast(ctypes.byref(buf, 8 * (base + off)),
                                ctypes.POINTER(ctypes.c_uint64))
                sv = value(buf[base:base + n])
                other_v = rng.getrandbits(64 * n)
                other = (ctypes.c_uint64 * n)(*limbs(other_v, n))
                assert lib.c.mulpre_mul_with(impl, z, src, other, n) == OK
                assert value(buf[base + off:base + off + 2 * n]) == sv * other_v, (impl, n, off)
                sv = value(buf[base:base + n])
                assert lib.c.mulpre_mul_with(impl, z, other, src, n) == OK
                assert value(buf[base + off:base + off + 2 * n]) == sv * other_v, (impl, n, off)
                sv = value(buf[base:base + n])
                assert lib.c.mulpre_sqr_with(impl, z, src, n) == OK
                assert value(buf[base + off:base + off + 2 * n]) == sv * sv, (impl, n, off)


def test_status_codes_leave_z_alone(lib):
    x = (ctypes.c_uint64 * 10)(*range(1, 11))
    z = (ctypes.c_uint64 * 20)(*([0x7777] * 20))
    assert lib.c.mulpre_mul(z, x, x, 0) == ERR_SIZE
    assert lib.c.mulpre_mul(z, x, x, MAX_N + 1) == ERR_SIZE
    assert lib.c.mulpre_sqr(z, x, 10) == ERR_SIZE
    assert lib.c.mulpre_mul_with(4, z, x, x, 2) == ERR_IMPL
    assert lib.c.mulpre_mul_with(-1, z, x, x, 2) == ERR_IMPL
    assert lib.c.mulpre_mul(None, x, x, 2) == ERR_NULL
    assert lib.c.mulpre_sqr(z, None, 2) == ERR_NULL
    assert list(z) == [0x7777] * 20
    assert lib.c.mulpre_mul_fn_get(PORTABLE, 0) is None
    assert lib.c.mulpre_mul_fn_get(PORTABLE, 10) is None
    assert lib.c.mulpre_mul_fn_get(PORTABLE, 9)
    for st in range(5):
        assert lib.c.mulpre_status_str(st)
    assert b"1..9" in lib.c.mulpre_status_str(ERR_SIZE)


def test_masked_cpu_falls_back(lib):
    """With BMI2/ADX masked off the fast paths refuse cleanly and AUTO still works."""
    x = (ctypes.c_uint64 * 4)(*[2**64 - 1] * 4)
    z = (ctypes.c_uint64 * 8)(*([5] * 8))
    lib.c.mulpre_cpu_features_limit(CPU_BMI2)  # ADX missing: neither fast path may run
    try:
        assert lib.c.mulpre_impl_best() == PORTABLE
        assert lib.c.mulpre_mul_with(ASM_IMPL, z, x, x, 4) == ERR_UNAVAILABLE
        assert lib.c.mulpre_mul_with(INTRIN, z, x, x, 4) == ERR_UNAVAILABLE
        assert lib.c.mulpre_mul_fn_get(ASM_IMPL, 4) is None
        assert list(z) == [5] * 8
        assert lib.c.mulpre_mul(z, x, x, 4) == OK
        assert value(z) == (2**256 - 1) ** 2
    finally:
        lib.c.mulpre_cpu_features_limit(0xFFFFFFFF)
    assert lib.c.mulpre_impl_best() == (ASM_IMPL if cpu_has_mulx_adx() else PORTABLE)


# ---- the benchmark kernel ------------------------------------------------------------


def test_bench_kernel_runs():
    if not (HARNESS_DIR / "cpulab_harness.h").exists():
        pytest.skip("native/harness/cpulab_harness.h not written yet")
    tc = find_toolchain("gcc")
    exe = build_one(Target(name="mulpre_bench", sources=(KERNEL, *lib_sources()),
                           include_dirs=include_dirs(), libs=("gmp", "dl")),
                    BuildConfig(tc, "O2"))
    proc = subprocess.run([str(exe), "--iters", "1000", "--reps", "2", "--cpu", "-1",
                           "--no-pmu", "--param", "n=3-4"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    reps = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    cases = {r["case"] for r in reps if r.get("type") == "rep"}
    want = {f"{p}/N={n}" for p in ("portable", "mulpre_mul", "gmp_mul_n", "gmp_sqr")
            for n in (3, 4)}
    if cpu_has_mulx_adx():
        want |= {f"{p}/N={n}" for p in ("intrin", "asm", "asm_sqr") for n in (3, 4)}
    assert cases == want
    assert all(r["unit"] == "call" and r["iters"] == 1000 for r in reps
               if r.get("type") == "rep")
    assert "mpn_mul_basecase" in proc.stderr
