"""Big integer to decimal, native/lib/bigdec (seed row S5).

- Differential against GMP's mpz_get_str (C driver native/lib/bigdec/tests/bigdec_check.c,
  linked with -lgmp) on random sizes and shapes, edge values (0, single limbs, 10^k - 1,
  10^k, 10^k + 1, 2^(64k) - 1, 2^(64k)) and the signed form; gcc and clang builds.
- Differential against CPython's str(int) through ctypes.
- The same driver under clang's AddressSanitizer and UndefinedBehaviorSanitizer, and
  in four threads at once under its ThreadSanitizer.
- Buffer sizes: bigdec_digits_max is exact (checked against integer arithmetic).
- Statuses: NULL, short buffer; nothing written on error.
- Machine code: the basecase and digit emission hold no division instruction.
- The seed's kernel (native/kernels/bigdec): builds with gcc and clang, verifies its
  output, and its two S5 loops hold two `div` and one `div` respectively.
Sizes are small by default; CPULAB_FULL=1 runs up to 10^5 limbs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import random
import subprocess
import sys
from decimal import Decimal, getcontext
from pathlib import Path

import pytest

from cpulab.asm import disassemble, find_functions, instruction_mix
from cpulab.build import BuildConfig, build_one, find_toolchain, library
from cpulab.paths import KERNELS
from peer_support import peer

BIGDEC = library("bigdec")
DIR = BIGDEC.root
FULL = bool(os.environ.get("CPULAB_FULL"))


def _driver(cc: str, opt: str = "O2", cflags: tuple[str, ...] = (), name: str = "bigdec_check"):
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    t = BIGDEC.target(name, (DIR / "tests" / "bigdec_check.c",), cflags=cflags, ldflags=cflags,
                      libs=("gmp", "m"))
    return build_one(t, BuildConfig(tc, opt))


def run(exe: Path, *args: str, timeout: int = 900, env: dict | None = None):
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})})
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()], p.stderr


# ---- against GMP ----

@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_status_and_untouched_buffer(cc):
    rc, lines, _ = run(_driver(cc), "status")
    assert rc == 0 and lines == [{"type": "status", "ok": True, "bad": 0}]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_edge_values_against_gmp(cc):
    rc, lines, _ = run(_driver(cc), "edge", "30000" if FULL else "4000")
    assert rc == 0, lines[:5]
    assert lines[-1]["ok"] is True and lines[-1]["checked"] > 3000


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_random_against_gmp(cc):
    exe = _driver(cc)
    # basecase sizes, then sizes through one to several divide-and-conquer levels
    for mode, seed, lo, hi, count in [("random", 1, 1, 48, 5000),
                                      ("random", 2, 40, 2000, 1000 if FULL else 300),
                                      ("random", 3, 2000, 20000, 100 if FULL else 12),
                                      ("tree-random", 16, 2000, 20000, 40 if FULL else 8)]:
        rc, lines, _ = run(exe, mode, str(seed), str(lo), str(hi), str(count))
        assert rc == 0, lines[:5]
        assert lines[-1] == {"type": "random", "checked": count, "ok": True}


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_block_edges_against_gmp(cc):
    """Digits that change at a block edge of the scaled remainder tree (bigdec_srt.c),
    which approximates, taking parts from 19 * 2^11 digits here (`tree-`): 9s above the
    edge and 0...0c below, random digits above and 9...9 or 0...0c below. Without the
    leaf's boundary check these convert wrongly, and neither the random shapes nor the edge
    values catch it (a precision lost outright, a leaf keeping 3/4 of the limbs it needs or
    a fraction with its low 8 limbs cleared, the random shapes catch as well)."""
    rc, lines, _ = run(_driver(cc), "tree-boundary", "9", "80000",
                       "400000" if FULL else "160000", "5" if FULL else "2")
    assert rc == 0, lines[:5]
    assert lines[-1]["type"] == "boundary" and lines[-1]["ok"] is True


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_cold_conversions_against_gmp(cc):
    """Every conversion the first since the cache was released: splits divide by the
    power's odd part (divide and conquer, schoolbook below 20 limbs), except by a power
    of at least 3000 limbs that the conversion splits by at least 6 times (numbers from
    ~24,000 limbs): Barrett's, with the inverse built on first use. Edge values, random
    shapes on both sides of that switch, and digits that change at block edges
    (19 * 2^j digits from the bottom, where the odd part's remainder meets x's low
    bits). A remainder missing bit 0 of x's limb at the 2^w split, or an estimate of
    B - 2 where it should be B - 1, fails here."""
    exe = _driver(cc)
    for args in (["cold-edge", "3000"], ["cold-random", "11", "60", "1200", "300"],
                 ["cold-random", "12", "1200", "9000", "16"],
                 ["cold-random", "17", "24000", "40000", "3"],
                 ["cold-boundary", "13", "2000", "40000", "6"]):
        rc, lines, _ = run(exe, *args)
        assert rc == 0, (args, lines[:5])
        assert lines[-1]["ok"] is True


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_multiplication_against_gmp(cc):
    """The internal product (schoolbook rows, Karatsuba from 32 limbs, Toom-3 from 100,
    the NTT where its transform is cheaper, from ~4096 limbs) against mpn_mul, balanced
    and not, on random, all-ones, sparse and mixed limbs: every path, its thresholds and
    the sizes around them; and the division and the inverse built on it."""
    exe = _driver(cc)
    for seed, lo, hi, count in [(1, 1, 120, 3000), (2, 90, 700, 400 if FULL else 120),
                                (3, 1400, 5000, 40 if FULL else 8),
                                (6, 7000, 24000, 20 if FULL else 10)]:
        rc, lines, _ = run(exe, "mul", str(seed), str(lo), str(hi), str(count))
        assert rc == 0, lines[:5]
        assert lines[-1] == {"type": "mul", "checked": count, "ok": True}
    # the divide-and-conquer division against mpn_tdiv_qr, either side of its 20-limb
    # threshold, quotients from one limb to three divisors long
    for seed, lo, hi, count in [(14, 2, 160, 3000), (15, 100, 3000, 120 if FULL else 40)]:
        rc, lines, _ = run(exe, "divrem", str(seed), str(lo), str(hi), str(count))
        assert rc == 0, lines[:5]
        assert lines[-1] == {"type": "divrem", "checked": count, "ok": True}
    # the shifts (two limbs a step in SSE2) against mpn_lshift/rshift: every count and
    # length to 40 limbs, in place and overlapping as the division uses them
    rc, lines, _ = run(exe, "shift", "16", "1", "40", "6")
    assert rc == 0, lines[:5]
    assert lines[-1] == {"type": "shift", "checked": 40 * 63 * 6 * 10, "ok": True}
    # the Newton inverse against floor(B^2n / d), through the sizes where d y_h is taken
    # cyclically (n from 5462 to 8190 limbs: 2^13 >= n + 2, n + n/2 > 2^13)
    for seed, lo, hi, count in [(5, 1, 200, 300), (6, 200, 3000, 30),
                                (7, 5500, 8190, 8 if FULL else 3)]:
        rc, lines, _ = run(exe, "invert", str(seed), str(lo), str(hi), str(count))
        assert rc == 0, lines[:5]
        assert lines[-1]["type"] == "invert" and lines[-1]["ok"] is True
    # the cyclic product modulo B^L - 1 that Barrett's division takes q d from, L = 2^2..2^14
    rc, lines, _ = run(exe, "mulmod", "4", "2", "14", "200" if FULL else "60")
    assert rc == 0, lines[:5]
    assert lines[-1]["type"] == "mulmod" and lines[-1]["ok"] is True


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the first twelve primes as bases: exact below 3.3e24."""
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    if n < 2 or any(n % b == 0 for b in bases):
        return n in bases
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime_factors(n: int) -> set[int]:
    out, f = set(), 2
    while f * f <= n:
        while n % f == 0:
            out.add(f)
            n //= f
        f += 1
    return out | ({n} if n > 1 else set())


def _ntt_prime_sets() -> dict[str, list[tuple[int, int]]]:
    """Each set's primes and generators as its source declares them: the arrays
    bigdec__<which>_p (UINT64_C constants) and bigdec__<which>_g."""
    import re

    def initialiser(text: str, name: str) -> str:
        return text.split(f"{name}[BIGDEC__NTT_PRIMES] =")[1].split(";")[0]

    sets = {}
    for which, file in (("scalar", "bigdec_ntt.c"), ("ifma", "bigdec_ntt_ifma.c")):
        text = (DIR / "src" / file).read_text()
        primes = re.findall(r"UINT64_C\((0x[0-9a-f]+)\)", initialiser(text, f"bigdec__{which}_p"))
        gens = re.findall(r"\d+", initialiser(text, f"bigdec__{which}_g"))
        sets[which] = [(int(p, 16), int(g)) for p, g in zip(primes, gens, strict=True)]
    return sets


@pytest.mark.parametrize("which", ["scalar", "ifma"])
def test_ntt_primes(which):
    """Each NTT prime set as the transforms rely on it: three primes in falling order
    (Garner's step), each with 2^20-th roots of unity (transforms up to 2^20 points) and
    a generator of its multiplicative group (the roots are its powers), their product
    above a cyclic coefficient's bound 2 L (2^64 - 1)^2 at L = 2^20; 4p below the word
    (2^64, and 2^52 for the IFMA lanes) for the lazy butterflies."""
    primes = _ntt_prime_sets()[which]
    assert len(primes) == 3
    assert [p for p, _ in primes] == sorted((p for p, _ in primes), reverse=True)
    for p, g in primes:
        assert _is_prime(p), hex(p)
        assert (p - 1) % (1 << 20) == 0, hex(p)
        assert all(pow(g, (p - 1) // q, p) != 1 for q in _prime_factors(p - 1)), (hex(p), g)
        assert 4 * p < 1 << (52 if which == "ifma" else 64)  # the lazy butterflies' room
    a, b, c = (p for p, _ in primes)
    assert a * b * c > 2 * (1 << 20) * ((1 << 64) - 1) ** 2


@pytest.mark.parametrize(("limbs", "scalar", "ifma"), [(1024, 40, 40), (4000, 40, 112)])
def test_cold_conversion_builds_no_power_beyond_its_top_split(limbs, scalar, ifma):
    """A first conversion built one power of ten (and its inverse) more than the top
    split uses: at 1024 limbs 10^(19 * 2^11), 2020 limbs, where 10^(19 * 2^10) splits.
    What the cache holds after a cold conversion (glibc's count of bytes in use; the
    NTT's twiddle tables, which outlive the cache, grown beforehand), in bytes per limb
    of x: 22.7 at 1024 limbs, and at 4000 limbs 24.1 with the scalar transforms, 95.9
    with the IFMA ones (whose inverses and kept transforms pay from a few hundred limbs,
    bigdec_conv.h). A level too many adds at least its power twice over (as built and
    shifted): 32 bytes per limb."""
    for exe in (_driver("gcc"), _scalar_driver()):
        rc, lines, _ = run(exe, "cache", str(limbs))
        assert rc == 0 and lines[-1]["ok"] is True
        held = lines[-1]["held_bytes"]
        per_limb = ifma if lines[-1]["ntt_fast"] else scalar
        assert 8 * limbs < held < per_limb * limbs, (exe.name, held)


@pytest.mark.full
def test_random_against_gmp_huge():
    rc, lines, _ = run(_driver("gcc"), "random", "4", "20000", "100000", "12", timeout=3600)
    assert rc == 0 and lines[-1]["ok"] is True, lines[:5]


def test_portable_paths_against_gmp():
    """The C paths that an x86-64 machine with BMI2 and ADX never takes: the schoolbook
    rows of bigdec_mul.c and bigdec_mpn.c, the C sums and shifts, built with -DBIGDEC_NO_ASM
    (as on any other machine) and checked like the rest."""
    exe = _driver("gcc", cflags=("-DBIGDEC_NO_ASM",), name="bigdec_check_portable")
    for args in (["random", "21", "1", "3000", "200"], ["mul", "21", "1", "2000", "300"],
                 ["divrem", "21", "2", "400", "500"], ["cold-random", "21", "60", "2500", "40"],
                 ["shift", "21", "1", "12", "2"]):
        rc, lines, _ = run(exe, *args)
        assert rc == 0, (args, lines[:5])
        assert lines[-1]["ok"] is True


def _scalar_driver():
    return _driver("gcc", cflags=("-DBIGDEC_NO_IFMA",), name="bigdec_check_scalar_ntt")


def test_scalar_transforms_against_gmp():
    """The scalar NTT (three primes below 2^63, Montgomery form) and the choices made for
    it, which a CPU with AVX-512 IFMA never takes: built with -DBIGDEC_NO_IFMA and
    checked like the rest, through products long enough for the transforms and
    conversions that divide with them."""
    exe = _scalar_driver()
    for args in (["mul", "22", "7000", "20000", "4"], ["mulmod", "22", "2", "14", "30"],
                 ["random", "22", "5000", "40000", "4"],
                 ["cold-random", "22", "20000", "30000", "2"]):
        rc, lines, _ = run(exe, *args)
        assert rc == 0, (args, lines[:5])
        assert lines[-1]["ok"] is True


@pytest.mark.parametrize("cflags", [(), ("-DBIGDEC_NO_IFMA",)], ids=["ifma", "scalar"])
def test_threads_under_thread_sanitizer(cflags):
    """Conversions in four threads at once, under clang's ThreadSanitizer: the powers, their
    inverses and kept transforms and the NTT's twiddle tables are built and grown while
    other threads read them. Twiddle tables reallocated to grow (as they once were) give a
    data race report here in two runs of three; with either transform path."""
    flags = ("-fsanitize=thread", "-g", *cflags)
    name = "bigdec_check_tsan" + ("_scalar" if cflags else "")
    exe = _driver("clang", "O1", flags, name=name)
    for seed in ("1", "2", "3"):
        rc, lines, err = run(exe, "threads", seed, "100", "20000", "6",
                             env={"TSAN_OPTIONS": "halt_on_error=1"})
        assert rc == 0 and "ThreadSanitizer" not in err, err[-3000:]
        assert lines[-1]["type"] == "threads" and lines[-1]["ok"] is True


def test_sanitizers_address_undefined():
    flags = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all",
             "-fno-omit-frame-pointer")
    exe = _driver("clang", "O1", flags, name="bigdec_check_asan")
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
    for args in (["status"], ["edge", "1500"], ["random", "9", "1", "3000", "150"],
                 ["mul", "9", "1", "2000", "200"], ["mulmod", "9", "2", "12", "40"],
                 ["divrem", "9", "2", "400", "300"],
                 ["invert", "9", "1", "3000", "40"], ["random", "10", "3000", "9000", "4"],
                 ["tree-boundary", "9", "80000", "80000", "1"],
                 ["tree-random", "9", "2000", "4000", "2"],
                 ["cold-random", "9", "60", "2500", "60"]):
        rc, lines, err = run(exe, *args, env=env)
        assert rc == 0, (args, err[-3000:])
        assert "runtime error" not in err and "AddressSanitizer" not in err, err[-3000:]
        assert lines[-1]["ok"] is True


# ---- against CPython, through ctypes ----

@pytest.fixture(scope="module")
def lib():
    so = BIGDEC.build_shared()
    lib = ctypes.CDLL(str(so))
    lib.bigdec_size.restype = ctypes.c_size_t
    lib.bigdec_size.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    lib.bigdec_size_signed.restype = ctypes.c_size_t
    lib.bigdec_size_signed.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)
    lib.bigdec_digits_max.restype = ctypes.c_uint64
    lib.bigdec_digits_max.argtypes = (ctypes.c_uint64,)
    lib.bigdec_write.restype = ctypes.c_int
    lib.bigdec_write.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                                 ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t))
    lib.bigdec_write_signed.restype = ctypes.c_int
    lib.bigdec_write_signed.argtypes = (ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int,
                                        ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_size_t))
    return lib


def limbs_of(x: int, extra: int = 0):
    n = (x.bit_length() + 63) // 64 + extra
    return (ctypes.c_uint64 * max(n, 1)).from_buffer_copy(x.to_bytes(8 * max(n, 1), "little")), n


def to_str(lib, x: int) -> str:
    mag, neg = abs(x), x < 0
    arr, n = limbs_of(mag, extra=random.randint(0, 1))
    size = lib.bigdec_size_signed(int(neg), arr, n)
    buf = ctypes.create_string_buffer(size)
    length = ctypes.c_size_t()
    st = lib.bigdec_write_signed(buf, size, int(neg), arr, n, ctypes.byref(length))
    assert st == 0
    assert length.value == len(buf.value)
    return buf.value.decode()


def test_random_against_cpython(lib):
    sys.set_int_max_str_digits(0)
    rnd = random.Random(5)
    hi = 30000 if FULL else 3000
    for i in range(600 if FULL else 300):
        limbs = max(1, int(hi ** rnd.random()))
        x = rnd.getrandbits(64 * limbs)
        if i % 5 == 1:
            x = 10 ** max(0, int(limbs * 19.27) - rnd.randint(0, 30)) - rnd.randint(0, 1)
        if i % 3 == 0:
            x = -x
        assert to_str(lib, x) == str(x), (i, limbs)


def test_block_edges_against_cpython(lib):
    """(10^a - 1) 10^b + c and its neighbours with b on the scaled remainder tree's
    block edges (multiples of 19 * 2^8 digits) in a number of 1,400,000 digits, whose
    lower 1,245,184 digits go through the tree (from 19 * 2^15 digits), converted twice:
    the first conversion at a size divides, the second goes through the tree. The
    expected digits are known by construction (CPython's str() is quadratic there)."""
    digits = 1_400_000
    for b in (4864, 311296, 622592, 622592 + 4864):
        base = (10 ** (digits - b) - 1) * 10 ** b
        for c in (0, 1, 10 ** (b - 25), -1):
            want = ("9" * (digits - b) + str(c).zfill(b) if c >= 0
                    else "9" * (digits - b - 1) + "8" + "9" * b)
            for _ in range(2):
                assert to_str(lib, base + c) == want, (b, c)


def test_edge_values_against_cpython(lib):
    sys.set_int_max_str_digits(0)
    values = [0, 1, 9, 10, 2**63, 2**64 - 1, 10**19 - 1, 10**19, 10**19 + 1]
    values += [10**k + d for k in range(0, 1300, 7) for d in (-1, 0, 1)]
    values += [2 ** (64 * k) - 1 for k in range(1, 120)]
    for v in values:
        assert to_str(lib, v) == str(v)
        assert to_str(lib, -v) == str(-v)


def test_one_limb_values_against_cpython(lib):
    """A single limb is written at once (no division pass): every digit count, the powers
    of ten and their neighbours, and random values of every bit length."""
    rnd = random.Random(11)
    values = [10**k + d for k in range(0, 20) for d in (-1, 0, 1)]
    values += [rnd.getrandbits(b) | 1 << (b - 1) for b in range(1, 65) for _ in range(200)]
    for v in values:
        assert 0 <= v < 2**64
        assert to_str(lib, v) == str(v)


def test_digits_max_is_exact(lib):
    getcontext().prec = 60
    log2 = Decimal(2).log10()

    def exact(bits: int) -> int:  # floor(bits log10 2) + 1, with a 60-digit log10(2)
        return int(bits * log2) + 1 if bits else 1

    rnd = random.Random(3)
    # every small bit length, the denominators of log10(2)'s continued fraction (where
    # bits log10 2 comes closest to an integer) and their neighbours, and random ones
    cf_denominators = [3, 10, 93, 196, 485, 2136, 13301, 28738, 42039, 70777, 254370,
                       325147, 6757309, 14089765, 20847074, 34936839, 55783913]
    probe = list(range(0, 20000)) + [d * m + e for d in cf_denominators
                                     for m in (1, 2, 3, 1000) for e in (-1, 0, 1)]
    probe += [rnd.randrange(1 << 50) for _ in range(20000)]
    for b in probe:
        assert lib.bigdec_digits_max(b) == exact(b), b
    # and it is the digit count of the largest number of that length
    for b in range(1, 3000, 7):
        assert lib.bigdec_digits_max(b) == len(str(2**b - 1))


# ---- machine code ----

def test_no_division_instruction_in_the_conversion():
    so = BIGDEC.build_shared()
    fns = find_functions(so, ["bigdec__basecase", "bigdec__chunk_fixed", "bigdec__u64"])
    assert {f.name for f in fns} == {"bigdec__basecase", "bigdec__chunk_fixed", "bigdec__u64"}
    for f in fns:
        mix = instruction_mix(f)
        assert mix["div"] == 0, f.name
        assert mix["mul"] > 0, f.name


# ---- the seed's kernel ----

KDIR = KERNELS / "bigdec"


def _kernel(cc: str, opt: str = "O2", defines: tuple[str, ...] = ()) -> Path:
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    t = BIGDEC.target("bigdec_kernel" + ("_broken" if defines else ""),
                      (KDIR / "bigdec_bench.c", KDIR / "big2str_seed.c"),
                      libs=("gmp", "dl"), defines=defines)
    return build_one(t, BuildConfig(tc, opt))


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_kernel_runs_and_verifies(cc):
    exe = _kernel(cc)
    rc, lines, err = run(exe, "--iters", "3", "--reps", "1", "--no-pmu")
    assert rc == 0, (lines, err)
    cases = [c["name"] for c in lines[0]["cases"]]
    assert cases == ["seed_twodiv", "seed_fused", "bigdec", "gmp", "bigdec_cold"]
    reps = [x for x in lines if x["type"] == "rep"]
    assert [r["case"] for r in reps] == cases and all(r["unit"] == "conversion" for r in reps)
    for bits in ("64", "5000", "200000"):
        rc, lines, err = run(exe, "--iters", "1", "--reps", "1", "--no-pmu",
                             "--param", f"bits={bits}", "--case", "bigdec", "--case", "gmp",
                             "--case", "bigdec_cold")
        assert rc == 0, (bits, lines, err)


def _peer_case_agrees(exe: Path, param: str, case: str, banner: str, sizes) -> None:
    """A peer's case, given its library by `param`, runs beside GMP's and its digits pass
    the check against GMP's after every call (a wrong digit fails the run)."""
    for bits in sizes:
        rc, lines, err = run(exe, "--iters", "2", "--reps", "1", "--no-pmu",
                             "--param", f"bits={bits}", "--param", param,
                             "--case", "gmp", "--case", case)
        assert rc == 0, (bits, lines, err)
        assert [c["name"] for c in lines[0]["cases"]] == ["gmp", case]
        assert banner in err


@pytest.mark.full
def test_kernel_s_flint_case_agrees_with_gmp():
    """The flint case exists only when given the library; its digits are checked against
    GMP's after every call, as every case's, at sizes where FLINT takes each path."""
    exe = _kernel("gcc")
    flint = peer(KDIR / "build_flint_peer.sh", timeout=600)
    _peer_case_agrees(exe, f"flint={flint}", "flint", "bigdec_bench: flint 3.",
                      ("64", "1000", "5000", "200000"))
    rc, lines, _ = run(exe, "--iters", "1", "--param", "flint=/nonexistent/libflint.so")
    assert rc != 0 and "flint" in lines[-1]["message"]


def test_kernel_s_gmp_build_cases():
    """A GMP build named in gmp_builds becomes the case gmp@LABEL, checked against
    Debian's GMP after every call; here Debian's own library plays the build (the real
    ones, built for this CPU, are the experiment's)."""
    exe = _kernel("gcc")
    debian = ctypes.util.find_library("gmp")
    if debian is None:
        pytest.skip("no libgmp found")
    _peer_case_agrees(exe, f"gmp_builds=deb:{debian}", "gmp@deb",
                      "bigdec_bench: gmp@deb is GMP 6.", ("64", "5000"))
    for spec, why in (("deb", "LABEL:PATH"), ("deb:/nonexistent/libgmp.so", "cannot load"),
                      ("x" * 40 + f":{debian}", "longer than")):
        rc, lines, err = run(exe, "--iters", "1", "--param", f"gmp_builds={spec}")
        assert rc != 0 and why in err, (spec, err)


def test_kernel_catches_wrong_digits():
    exe = _kernel("gcc", defines=("BIGDEC_BENCH_BREAK",))
    rc, lines, _ = run(exe, "--iters", "2", "--reps", "1", "--case", "bigdec")
    assert rc == 1 and lines[-1]["type"] == "error" and "bigdec" in lines[-1]["message"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_kernel_rejects_a_bad_size(cc):
    rc, lines, _ = run(_kernel(cc), "--iters", "1", "--param", "bits=0")
    assert rc != 0 and lines[-1]["type"] == "error"


def _div64(fn) -> int:
    """64-bit divisions in a function: clang also emits a 32-bit `div` beside each one,
    taken when both operands fit 32 bits (a tuning for CPUs with a slow 64-bit divide);
    that is one division with two code paths, so only the 64-bit form is counted."""
    n = 0
    for insn in disassemble(fn):
        if insn.mnemonic in ("div", "idiv"):
            op = insn.op_str
            wide = "qword" in op or (op.startswith("r") and not op.endswith(("d", "w", "b")))
            n += wide
    return n


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O2", "O3"])
def test_seed_loops_division_count(cc, opt):
    """S5: the loop that reads the base through a pointer after each char store divides
    twice per digit; computing the remainder into a temporary first lets one `div` do."""
    exe = _kernel(cc, opt)
    fns = {f.name: f for f in find_functions(exe, ["big2str_*_loop", "big2str_*_top"])}
    assert _div64(fns["big2str_twodiv_loop"]) == 2
    assert _div64(fns["big2str_fused_loop"]) == 1
    assert _div64(fns["big2str_twodiv_top"]) == 2
    assert _div64(fns["big2str_fused_top"]) == 1
