"""The bytecode VM, native/lib/vm (seed row S1, S15), under every dispatch technique.

Through ctypes on the library built with gcc-12 and clang-19 (the musttail techniques
exist only with clang):
- every shipped program meets every `.expect` line under every technique, and all
  techniques return the same bits for the same run;
- each instruction's semantics, fast path and slow path together, against a Python
  model of it on edge values (int32 limits, -0.0, inf, NaN, nil), per technique;
- run-time errors give the same status and source line under every technique;
- the assembler rejects bad text with the line and a message naming the fault, and its
  verifier rejects reads of unwritten registers and paths off a function's end;
- instruction counts: exact for fib (a recurrence), equal to the dispatch-trace length of
  every technique, the same on every run; the traces of all techniques name the same
  handlers in the same order;
- the machine code: one `jmp *` in goto-shared, one per handler exit in goto-replicated,
  no prologue, epilogue or stack use in the tail-pn handlers (S14's claim);
- callgrind: instructions per VM instruction of each technique are the same on two runs;
- vmrun and the benchmark kernel (one technique per binary) end to end.
"""

from __future__ import annotations

import ctypes
import json
import math
import re
import shutil
import struct
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from cpulab.build import BuildConfig, BuildError, build_one, find_toolchain, library
from cpulab.paths import HARNESS_DIR, KERNELS

LIB = library("vm")
VM = LIB.root
PROGRAMS = VM / "programs"
PROGRAM_NAMES = ("fib", "sieve", "nbody", "loops", "fannkuch")
TECHNIQUES = ("switch", "goto-shared", "goto-replicated", "call", "tail", "tail-pn",
              "trampoline")
MUSTTAIL = ("tail", "tail-pn")
REPLICATED = ("goto-replicated", "tail", "tail-pn")
COMPILERS = ("gcc", "clang")

OK, SYNTAX, TYPE, INDEX, DIVZERO, STACK, HEAP, ARGS, RANGE, UNAVAILABLE = (
    0, 1, 3, 4, 5, 6, 7, 8, 9, 10)
NIL = 0xFFFB << 48
INT_TAG = 0xFFF90000 << 32
TAG_MIN = 0xFFF9 << 48


def as_int(i: int) -> int:
    return INT_TAG | (i & 0xFFFFFFFF)


def as_float(d: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def is_float(v: int) -> bool:
    return v < TAG_MIN


def float_of(v: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", v))[0]


# ---- the library through ctypes -------------------------------------------------------


class Diag(ctypes.Structure):
    _fields_ = [("line", ctypes.c_int), ("message", ctypes.c_char * 240)]


class Result(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("value", ctypes.c_uint64), ("line", ctypes.c_int),
                ("trace_len", ctypes.c_uint64)]


class Limits(ctypes.Structure):
    _fields_ = [("stack_values", ctypes.c_size_t), ("frames", ctypes.c_size_t),
                ("heap_bytes", ctypes.c_size_t)]


class AsmError(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


class VmLib:
    """One build of libvm: assemble, run, count, trace."""

    def __init__(self, path: Path) -> None:
        lib = self.lib = ctypes.CDLL(str(path))
        vp, u64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)
        lib.vm_program_assemble.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                            ctypes.POINTER(vp), ctypes.POINTER(Diag)]
        lib.vm_program_free.argtypes = [vp]
        lib.vm_program_expect_count.argtypes = [vp]
        lib.vm_program_expect_count.restype = ctypes.c_size_t
        lib.vm_program_expect_get.argtypes = [vp, ctypes.c_size_t, ctypes.POINTER(u64p),
                                              ctypes.POINTER(ctypes.c_size_t), u64p]
        lib.vm_program_bench_args.argtypes = [vp, ctypes.POINTER(u64p),
                                              ctypes.POINTER(ctypes.c_size_t)]
        lib.vm_machine_new.argtypes = [ctypes.POINTER(Limits)]
        lib.vm_machine_new.restype = vp
        lib.vm_machine_free.argtypes = [vp]
        lib.vm_machine_run.argtypes = [vp, vp, ctypes.c_int, u64p, ctypes.c_size_t,
                                       ctypes.POINTER(Result)]
        lib.vm_machine_count.argtypes = [vp, vp, u64p, ctypes.c_size_t, ctypes.POINTER(Result)]
        lib.vm_machine_set_trace.argtypes = [vp, ctypes.POINTER(ctypes.c_uint32), ctypes.c_size_t]
        lib.vm_technique_available.argtypes = [ctypes.c_int]
        lib.vm_technique_available.restype = ctypes.c_bool
        lib.vm_technique_name.argtypes = [ctypes.c_int]
        lib.vm_technique_name.restype = ctypes.c_char_p
        lib.vm_trace_built.restype = ctypes.c_bool
        lib.vm_opcode_name.restype = ctypes.c_char_p
        lib.vm_opcode_signature.restype = ctypes.c_char_p
        lib.vm_value_format.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
        lib.vm_value_parse.argtypes = [ctypes.c_char_p, u64p]
        self.machine = lib.vm_machine_new(None)
        assert self.machine
        names = [lib.vm_technique_name(t).decode() for t in range(len(TECHNIQUES))]
        assert names == list(TECHNIQUES)

    def available(self, tech: str) -> bool:
        return bool(self.lib.vm_technique_available(TECHNIQUES.index(tech)))

    def techniques(self) -> list[str]:
        return [t for t in TECHNIQUES if self.available(t)]

    def assemble(self, text: str) -> int:
        p, d = ctypes.c_void_p(), Diag()
        data = text.encode()
        st = self.lib.vm_program_assemble(data, len(data), ctypes.byref(p), ctypes.byref(d))
        if st != OK:
            assert not p.value
            raise AsmError(d.line, d.message.decode())
        return p.value

    def free(self, prog: int) -> None:
        self.lib.vm_program_free(prog)

    def expects(self, prog: int) -> list[tuple[list[int], int]]:
        out = []
        for i in range(self.lib.vm_program_expect_count(prog)):
            a, n, r = ctypes.POINTER(ctypes.c_uint64)(), ctypes.c_size_t(), ctypes.c_uint64()
            assert self.lib.vm_program_expect_get(prog, i, ctypes.byref(a), ctypes.byref(n),
                                                  ctypes.byref(r)) == OK
            out.append(([a[k] for k in range(n.value)], r.value))
        return out

    def bench_args(self, prog: int) -> list[int]:
        a, n = ctypes.POINTER(ctypes.c_uint64)(), ctypes.c_size_t()
        assert self.lib.vm_program_bench_args(prog, ctypes.byref(a), ctypes.byref(n)) == OK
        return [a[k] for k in range(n.value)]

    def run(self, prog: int, tech: str, args: list[int], machine=None) -> Result:
        arr = (ctypes.c_uint64 * max(1, len(args)))(*args)
        r = Result()
        st = self.lib.vm_machine_run(machine or self.machine, prog, TECHNIQUES.index(tech),
                                     arr, len(args), ctypes.byref(r))
        assert st == r.status
        return r

    def count(self, prog: int, args: list[int]) -> Result:
        arr = (ctypes.c_uint64 * max(1, len(args)))(*args)
        r = Result()
        self.lib.vm_machine_count(self.machine, prog, arr, len(args), ctypes.byref(r))
        return r

    def trace(self, prog: int, tech: str, args: list[int], cap: int) -> tuple[Result, np.ndarray]:
        buf = np.zeros(cap, dtype=np.uint32)
        ptr = buf.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32))
        assert self.lib.vm_machine_set_trace(self.machine, ptr, cap) == OK
        try:
            r = self.run(prog, tech, args)
        finally:
            self.lib.vm_machine_set_trace(self.machine, None, 0)
        return r, buf[: min(cap, r.trace_len)]

    def format(self, v: int) -> str:
        buf = ctypes.create_string_buffer(64)
        self.lib.vm_value_format(v, buf, 64)
        return buf.value.decode()


def _toolchain(cc: str):
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    return tc


@cache
def vmlib(cc: str, trace: bool = False) -> VmLib:
    _toolchain(cc)
    path = LIB.build_shared(cc, "O2", defines=["VM_TRACE=1"] if trace else [],
                            suffix="_trace" if trace else "")
    return VmLib(path)


@cache
def program(cc: str, name: str, trace: bool = False) -> int:
    return vmlib(cc, trace).assemble((PROGRAMS / f"{name}.vmasm").read_text())


def same_value(a: int, b: int) -> bool:
    return a == b or (is_float(a) and is_float(b) and math.isnan(float_of(a))
                      and math.isnan(float_of(b)))


# ---- programs ----------------------------------------------------------------------------


def test_techniques_built_per_compiler():
    assert vmlib("gcc").techniques() == [t for t in TECHNIQUES if t not in MUSTTAIL]
    assert vmlib("clang").techniques() == list(TECHNIQUES)
    # a technique the build lacks is an error status, not a crash
    prog = program("gcc", "fib")
    assert vmlib("gcc").run(prog, "tail-pn", [as_int(5)]).status == UNAVAILABLE


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("name", PROGRAM_NAMES)
def test_program_expectations_every_technique(cc, name):
    lib = vmlib(cc)
    prog = program(cc, name)
    expects = lib.expects(prog)
    assert len(expects) >= 3
    for args, want in expects:
        results = {}
        for tech in lib.techniques():
            r = lib.run(prog, tech, args)
            assert r.status == OK, (tech, args, r.status, r.line)
            results[tech] = r.value
        assert set(results.values()) == {want}, (
            name, [lib.format(a) for a in args], lib.format(want),
            {t: lib.format(v) for t, v in results.items()})


def _fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _nbody_reference(n: int) -> float:
    """The benchmark in Python, each operation in the program's order (math.sqrt)."""
    x = [0.0, 4.841431442464721, 8.34336671824458, 12.894369562139131, 15.379697114850917]
    y = [0.0, -1.1603200440274284, 4.124798564124305, -15.111151401698631, -25.919314609987964]
    z = [0.0, -0.10362204447112311, -0.4035234171143214, -0.22330757889265573,
         0.17925877295037118]
    vx = [0.0, 0.606326392995832, -1.0107743461787924, 1.0827910064415354, 0.979090732243898]
    vy = [0.0, 2.81198684491626, 1.8256623712304119, 0.8687130181696082, 0.5946989986476762]
    vz = [0.0, -0.02521836165988763, 0.008415761376584154, -0.010832637401363636,
          -0.034755955504078104]
    m = [39.47841760435743, 0.03769367487038949, 0.011286326131968767,
         0.0017237240570597112, 0.0020336868699246304]
    px = py = pz = 0.0
    for i in range(5):
        px += vx[i] * m[i]
        py += vy[i] * m[i]
        pz += vz[i] * m[i]
    vx[0], vy[0], vz[0] = -px / m[0], -py / m[0], -pz / m[0]
    dt = 0.01
    for _ in range(n):
        for i in range(5):
            vxi, vyi, vzi = vx[i], vy[i], vz[i]
            for j in range(i + 1, 5):
                dx, dy, dz = x[i] - x[j], y[i] - y[j], z[i] - z[j]
                d2 = dx * dx + dy * dy + dz * dz
                mag = dt / (d2 * math.sqrt(d2))
                vxi -= dx * m[j] * mag
                vyi -= dy * m[j] * mag
                vzi -= dz * m[j] * mag
                vx[j] += dx * m[i] * mag
                vy[j] += dy * m[i] * mag
                vz[j] += dz * m[i] * mag
            vx[i], vy[i], vz[i] = vxi, vyi, vzi
        for i in range(5):
            x[i] += dt * vx[i]
            y[i] += dt * vy[i]
            z[i] += dt * vz[i]
    e = 0.0
    for i in range(5):
        e += 0.5 * m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i])
        for j in range(i + 1, 5):
            dx, dy, dz = x[i] - x[j], y[i] - y[j], z[i] - z[j]
            e -= (m[i] * m[j]) / math.sqrt(dx * dx + dy * dy + dz * dz)
    return e


def _loops_reference(n: int) -> int:
    acc = 0
    for i in range(n):
        for j in range(n):
            acc = (acc * 31 + ((i * j) ^ ((i + j) << 2))) % 1000003
    return acc


def _sieve_reference(n: int) -> int:
    if n < 3:
        return 0
    flags = bytearray([1]) * n
    flags[0] = flags[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if flags[i]:
            flags[i * i::i] = bytes(len(range(i * i, n, i)))
    return sum(flags)


def test_expectations_match_independent_references():
    """The .expect lines are not copied from the VM: Python computes them too."""
    lib = vmlib("gcc")
    refs = {"fib": lambda n: _fib(n), "sieve": _sieve_reference, "loops": _loops_reference}
    for name, ref in refs.items():
        for args, want in lib.expects(program("gcc", name)):
            assert want == as_int(ref(args[0] & 0xFFFFFFFF)), (name, args)
    for args, want in lib.expects(program("gcc", "nbody")):
        assert want == as_float(_nbody_reference(args[0] & 0xFFFFFFFF))
    # the benchmark game's published digits
    assert f"{_nbody_reference(1000):.9f}" == "-0.169087605"


# ---- instruction semantics: fast and slow paths -------------------------------------------

I32_MIN, I32_MAX = -(2 ** 31), 2 ** 31 - 1
INTS = [0, 1, -1, 2, 3, -7, 7, 31, 32, 33, -32, -33, 46341, 65536, I32_MAX, I32_MIN, I32_MIN + 1]
FLOATS = [0.0, -0.0, 1.5, -2.5, 3.0, 1e300, -1e-300, math.inf, -math.inf, math.nan]
VALUES = [("i", v) for v in INTS] + [("f", v) for v in FLOATS] + [("nil", None)]


def encode(v) -> int:
    kind, x = v
    return as_int(x) if kind == "i" else as_float(x) if kind == "f" else NIL


def _fnum(v) -> float:
    return float(v[1])


def _int_result(r: int):
    return ("ok", as_int(r)) if I32_MIN <= r <= I32_MAX else ("ok", as_float(float(r)))


def _f(d) -> tuple[str, int]:
    return ("ok", as_float(float(d)))


def _num(v) -> bool:
    return v[0] in ("i", "f")


def model_binary(op: str, a, b):
    """("ok", bits) or ("err", status): the VM's semantics, written independently."""
    with np.errstate(all="ignore"):
        if op in ("add", "sub", "mul"):
            if not (_num(a) and _num(b)):
                return ("err", TYPE)
            if a[0] == b[0] == "i":
                return _int_result({"add": a[1] + b[1], "sub": a[1] - b[1],
                                    "mul": a[1] * b[1]}[op])
            x, y = np.float64(_fnum(a)), np.float64(_fnum(b))
            return _f({"add": x + y, "sub": x - y, "mul": x * y}[op])
        if op == "div":
            if not (_num(a) and _num(b)):
                return ("err", TYPE)
            return _f(np.float64(_fnum(a)) / np.float64(_fnum(b)))
        if op in ("idiv", "mod"):
            if not (_num(a) and _num(b)):
                return ("err", TYPE)
            if a[0] == b[0] == "i":
                if b[1] == 0:
                    return ("err", DIVZERO)
                return _int_result(a[1] // b[1] if op == "idiv" else a[1] % b[1])
            x, y = np.float64(_fnum(a)), np.float64(_fnum(b))
            if op == "idiv":
                return _f(np.floor(x / y))
            m = np.fmod(x, y)
            if m != 0 and ((m < 0) != (y < 0)):
                m += y
            return _f(m)
        if op in ("band", "bor", "bxor", "shl", "shr"):
            if not (a[0] == b[0] == "i"):
                return ("err", TYPE)
            x, n = a[1] & 0xFFFFFFFF, b[1]
            if op in ("band", "bor", "bxor"):
                r = {"band": x & (n & 0xFFFFFFFF), "bor": x | (n & 0xFFFFFFFF),
                     "bxor": x ^ (n & 0xFFFFFFFF)}[op]
            else:
                left = op == "shl"
                if n < 0:
                    left, n = not left, -n
                r = 0 if n >= 32 else ((x << n) if left else (x >> n)) & 0xFFFFFFFF
            return ("ok", as_int(r - (1 << 32) if r >= 2 ** 31 else r))
        if op in ("jlt", "jle", "jeq", "jne"):
            if _num(a) and _num(b):
                x, y = _fnum(a), _fnum(b)
                t = {"jlt": x < y, "jle": x <= y, "jeq": x == y, "jne": x != y}[op]
            elif op in ("jeq", "jne"):
                same = encode(a) == encode(b)
                t = same if op == "jeq" else not same
            else:
                return ("err", TYPE)
            return ("ok", as_int(int(t)))
    raise AssertionError(op)


def model_unary(op: str, a):
    with np.errstate(all="ignore"):
        if not _num(a):
            return ("err", TYPE)
        if op == "neg":
            return _int_result(-a[1]) if a[0] == "i" else _f(-np.float64(a[1]))
        if op == "sqrt":
            return _f(np.sqrt(np.float64(_fnum(a))))
        if op == "tofloat":
            return _f(_fnum(a))
        if op == "toint":
            if a[0] == "i":
                return ("ok", as_int(a[1]))
            d = a[1]
            if not (-2147483649.0 < d < 2147483648.0):
                return ("err", RANGE)
            return ("ok", as_int(int(d)))
    raise AssertionError(op)


BINARY = ("add", "sub", "mul", "div", "idiv", "mod", "band", "bor", "bxor", "shl", "shr")
COMPARE = ("jlt", "jle", "jeq", "jne")
UNARY = ("neg", "sqrt", "tofloat", "toint")


def _op_program(op: str) -> str:
    if op in COMPARE:
        return (f".func main 2\n  {op} r0, r1, yes\n  loadi r2, 0\n  ret r2\n"
                "yes:\n  loadi r2, 1\n  ret r2\n.end\n")
    if op in UNARY:
        return f".func main 1\n  {op} r1, r0\n  ret r1\n.end\n"
    return f".func main 2\n  {op} r2, r0, r1\n  ret r2\n.end\n"


@pytest.mark.parametrize("cc", COMPILERS)
def test_instruction_semantics_every_technique(cc):
    lib = vmlib(cc)
    techs = lib.techniques()
    checked = 0
    for op in BINARY + COMPARE + UNARY:
        prog = lib.assemble(_op_program(op))
        cases = [(a,) for a in VALUES] if op in UNARY else [(a, b) for a in VALUES
                                                            for b in VALUES]
        for vals in cases:
            want = model_unary(op, vals[0]) if op in UNARY else model_binary(op, *vals)
            args = [encode(v) for v in vals]
            got = {}
            for tech in techs:
                r = lib.run(prog, tech, args)
                got[tech] = ("ok", r.value) if r.status == OK else ("err", r.status)
            first = got[techs[0]]
            # every technique: the same status and the same bits, NaNs included
            assert all(g == first for g in got.values()), (op, vals, got)
            assert first[0] == want[0] and (
                first[1] == want[1] if want[0] == "err" else same_value(first[1], want[1])
            ), (op, vals, lib.format(first[1]) if first[0] == "ok" else first, want)
            checked += 1
        lib.free(prog)
    assert checked > 4000


def test_addvn_constant_paths():
    """ADDVN / SUBVN / MULVN take K from the constant table: int and float constants."""
    lib = vmlib("clang")
    for op, k in [("addvn", "5"), ("subvn", "2.5"), ("mulvn", "-3"), ("addvn", "2147483647")]:
        prog = lib.assemble(f".func main 1\n  {op} r1, r0, {k}\n  ret r1\n.end\n")
        kv = ("i", int(k)) if re.fullmatch(r"-?\d+", k) else ("f", float(k))
        for a in VALUES:
            want = model_binary(op[:3], a, kv)
            for tech in lib.techniques():
                r = lib.run(prog, tech, [encode(a)])
                got = ("ok", r.value) if r.status == OK else ("err", r.status)
                assert got[0] == want[0], (op, k, a, tech)
                if want[0] == "ok":
                    assert same_value(got[1], want[1]), (op, k, a, tech)
        lib.free(prog)


# ---- run-time errors ---------------------------------------------------------------------

ERRORS = [
    ("type", ".func main 0\n loadi r0, 1\n newarr r1, r0, r0\n add r2, r1, r0\n ret r2\n.end",
     TYPE, 4),
    ("index", ".func main 0\n loadi r0, 3\n newarr r1, r0, r0\n geti r2, r1, r0\n ret r2\n.end",
     INDEX, 4),
    ("negative index", ".func main 0\n loadi r0, 3\n newarr r1, r0, r0\n loadi r3, -1\n"
     " seti r1, r3, r0\n ret r0\n.end", INDEX, 5),
    ("divzero", ".func main 0\n loadi r0, 7\n loadi r1, 0\n mod r2, r0, r1\n ret r2\n.end",
     DIVZERO, 4),
    ("stack", ".func main 0\n loadi r0, 0\n call r0, down\n ret r0\n.end\n"
     ".func down 1\n call r0, down\n ret r0\n.end", STACK, 7),
    ("heap", ".func main 0\n loadi r0, 100000000\n newarr r1, r0, r0\n ret r0\n.end", HEAP, 3),
    ("negative length", ".func main 0\n loadi r0, -1\n newarr r1, r0, r0\n ret r0\n.end",
     RANGE, 3),
    ("toint range", ".func main 0\n loadk r0, 3e9\n toint r1, r0\n ret r1\n.end", RANGE, 3),
    ("compare nil", ".func main 0\n loadnil r0\n loadi r1, 0\n jlt r0, r1, x\n ret r1\n"
     "x:\n ret r1\n.end", TYPE, 4),
    ("len of int", ".func main 0\n loadi r0, 0\n len r1, r0\n ret r1\n.end", TYPE, 3),
]


@pytest.mark.parametrize("cc", COMPILERS)
@pytest.mark.parametrize("name,text,status,line", ERRORS, ids=[e[0] for e in ERRORS])
def test_runtime_errors_every_technique(cc, name, text, status, line):
    lib = vmlib(cc)
    prog = lib.assemble(text)
    for tech in lib.techniques():
        r = lib.run(prog, tech, [])
        assert (r.status, r.line) == (status, line), (tech, r.status, r.line)
    # the machine is still usable afterwards
    fib = program(cc, "fib")
    assert lib.run(fib, lib.techniques()[-1], [as_int(10)]).value == as_int(55)
    lib.free(prog)


def test_wrong_argument_count():
    lib = vmlib("gcc")
    r = lib.run(program("gcc", "fib"), "switch", [])
    assert r.status == ARGS


def test_heap_is_reset_between_runs():
    """A run may allocate up to the limit every time: the heap does not leak across runs."""
    lib = vmlib("gcc")
    limits = Limits(0, 0, 4 << 20)
    m = lib.lib.vm_machine_new(ctypes.byref(limits))
    prog = lib.assemble(".func main 1\n newarr r1, r0, r0\n len r2, r1\n ret r2\n.end")
    try:
        for _ in range(50):
            assert lib.run(prog, "switch", [as_int(400_000)], machine=m).value == as_int(400_000)
        assert lib.run(prog, "switch", [as_int(600_000)], machine=m).status == HEAP
    finally:
        lib.lib.vm_machine_free(m)
        lib.free(prog)


# ---- the assembler -------------------------------------------------------------------------

GOOD = ".func main 0\n  loadi r0, 1\n  ret r0\n.end\n"

ASM_ERRORS = [
    ("unknown instruction", ".func main 0\n  lodi r0, 1\n  ret r0\n.end", 2,
     "unknown instruction 'lodi'"),
    ("operand count", ".func main 0\n  add r0, r1\n  ret r0\n.end", 2,
     "'add' takes 3 operands (register, register, register), got 2"),
    ("bad register", ".func main 0\n  loadi r256, 1\n  ret r0\n.end", 2,
     "expected a register (r0..r255), got 'r256'"),
    ("register for immediate", ".func main 0\n  loadi r0, r1\n  ret r0\n.end", 2,
     "expected an integer"),
    ("int out of range", ".func main 0\n  loadi r0, 2147483648\n  ret r0\n.end", 2,
     "expected an integer in int32 range"),
    ("bad number", ".func main 0\n  loadk r0, 1.5x\n  ret r0\n.end", 2, "expected a number"),
    ("unknown label", ".func main 0\n  jmp nowhere\n.end", 2,
     "unknown label 'nowhere' in function 'main'"),
    ("duplicate label", ".func main 0\na:\n  loadi r0, 1\na:\n  ret r0\n.end", 4,
     "label 'a' already defined on line 2"),
    ("unknown function", ".func main 0\n  loadi r0, 1\n  call r0, nope\n  ret r0\n.end", 3,
     "unknown function 'nope'"),
    ("outside function", "  loadi r0, 1\n", 1, "outside a function"),
    ("missing end", "; a program\n.func main 0\n  loadi r0, 1\n  ret r0\n", 2,
     "function 'main' has no .end"),
    ("nested func", ".func main 0\n  loadi r0, 1\n.func f 0\n", 3, "missing .end"),
    ("duplicate func", GOOD + ".func main 0\n  ret r0\n.end\n", 5,
     "function 'main' already defined on line 1"),
    ("no main", ".func f 0\n  loadi r0, 1\n  ret r0\n.end", 0, "no function named 'main'"),
    ("read before write", ".func main 0\n  loadi r0, 1\n  add r1, r0, r2\n  ret r1\n.end", 3,
     "r2 is read before it is written"),
    ("read on one path", ".func main 1\n  loadi r1, 0\n  jlt r0, r1, skip\n  loadi r2, 5\n"
     "skip:\n  ret r2\n.end", 6, "r2 is read before it is written"),
    ("clobbered by call", ".func main 0\n  loadi r0, 1\n  loadi r1, 2\n  call r0, f\n"
     "  ret r1\n.end\n.func f 1\n  ret r0\n.end", 5, "r1 is read before it is written"),
    ("call args unset", ".func main 0\n  call r0, f\n  ret r0\n.end\n.func f 2\n  ret r1\n.end",
     2, "r0 is read before"),
    ("falls off end", ".func main 0\n  loadi r0, 1\n.end", 2,
     "execution can run past the end of the function"),
    ("label at end", ".func main 0\n  loadi r0, 1\n  jmp out\n  ret r0\nout:\n.end", 3,
     "marks the end of function 'main'"),
    ("expect arity", GOOD + ".expect 1 2 -> 3\n", 5, ".expect gives 2 arguments, main takes 0"),
    ("expect syntax", GOOD + ".expect 1 2\n", 5, ".expect wants ARG... -> RESULT"),
    ("unknown directive", ".fun main 0\n", 1, "unknown directive '.fun'"),
    ("bad param count", ".func main 300\n", 1, "parameter count must be 0..255"),
    ("empty function", ".func main 0\n.end", 2, "function 'main' is empty"),
    ("second bench", GOOD + ".bench\n.bench\n", 6, "second .bench"),
]


@pytest.mark.parametrize("name,text,line,message", ASM_ERRORS, ids=[e[0] for e in ASM_ERRORS])
def test_assembler_errors(name, text, line, message):
    lib = vmlib("gcc")
    with pytest.raises(AsmError) as e:
        lib.assemble(text)
    assert e.value.line == line
    assert message in e.value.message, e.value.message
    if line:
        assert e.value.message.startswith(f"line {line}: ")


def test_assembler_accepts_syntax_variants():
    lib = vmlib("gcc")
    text = ("# comments either way\n.func main 1 ; n\n"
            "  LOADI r1 3        ; mnemonics in any case, commas optional\n"
            "top: addvn r0, r0, 0.5\n  SUBVN r1,r1,1\n  loadi r2, 0\n"
            "  jlt r2, r1, top\n  ret r0\n.end\n.expect 1 -> 2.5\n.bench 0x10\n")
    prog = lib.assemble(text)
    assert lib.bench_args(prog) == [as_int(16)]
    [(args, want)] = lib.expects(prog)
    assert lib.run(prog, "switch", args).value == want == as_float(2.5)
    lib.free(prog)


def test_opcode_list_and_bodies_agree():
    """One description: the list in opcodes.h, one body per name in insns.def, same order."""
    listed = re.findall(r"X\((\w+), \"([WRCIKLF]*)\"", (VM / "internal" / "opcodes.h").read_text())
    bodies = re.findall(r"^VM_INSN\((\w+)\)", (VM / "internal" / "insns.def").read_text(), re.M)
    assert [n for n, _ in listed] == bodies
    lib = vmlib("gcc")
    n = lib.lib.vm_opcode_count()
    assert [lib.lib.vm_opcode_name(i).decode() for i in range(n)] == bodies
    assert [lib.lib.vm_opcode_signature(i).decode() for i in range(n)] == [s for _, s in listed]
    assert lib.lib.vm_opcode_name(n) is None


# ---- counts and traces --------------------------------------------------------------------


def _fib_count(n: int) -> int:
    """VM instructions of main(n): main's call and ret, plus the calls of fib."""
    c = [3, 3]  # loadi, jlt, ret
    for k in range(2, n + 1):
        c.append(8 + c[k - 1] + c[k - 2])  # loadi jlt subvn call subvn call add ret
    return 2 + c[n]


@pytest.mark.parametrize("cc", COMPILERS)
def test_counts_exact_and_deterministic(cc):
    lib = vmlib(cc)
    fib = program(cc, "fib")
    for n in (0, 1, 2, 10, 20):
        r = lib.count(fib, [as_int(n)])
        assert r.status == OK and r.value == as_int(_fib(n))
        assert r.trace_len == _fib_count(n)
    for name in PROGRAM_NAMES:
        prog = program(cc, name)
        args = lib.bench_args(prog)
        a, b = lib.count(prog, args), lib.count(prog, args)
        assert a.status == OK and a.trace_len == b.trace_len and a.value == b.value
        assert 200_000 < a.trace_len < 20_000_000, (name, a.trace_len)
        # plain runs report no count
        assert lib.run(prog, "switch", args).trace_len == 0


@pytest.mark.parametrize("cc", COMPILERS)
def test_traces_every_technique(cc):
    """All techniques dispatch to the same handlers in the same order; the sites follow
    the technique's design; the trace length is the exact instruction count."""
    lib = vmlib(cc, trace=True)
    assert lib.lib.vm_trace_built() and not vmlib(cc).lib.vm_trace_built()
    n_ops = lib.lib.vm_opcode_count()
    for name in PROGRAM_NAMES:
        prog = program(cc, name, trace=True)
        args = [as_int(10)] if name != "fannkuch" else [as_int(5)]
        count = lib.count(prog, args).trace_len
        ops0 = None
        for tech in lib.techniques():
            r, rec = lib.trace(prog, tech, args, cap=count + 16)
            assert r.status == OK and r.trace_len == count == len(rec), (name, tech)
            ops, sites = rec & 0xFF, rec >> 8
            if ops0 is None:
                ops0 = ops
            assert np.array_equal(ops, ops0), (name, tech)
            assert ops.max() < n_ops
            if tech in REPLICATED:
                assert sites[0] == 0xFFFF  # entry
                body = sites[1:]
                slow = body == 0xFFFE
                exit_kind, op = (body[~slow] - 1) // 256, (body[~slow] - 1) % 256
                assert exit_kind.max() <= 3
                # the site is the handler that dispatched: the previous record's target
                prev = ops[:-1][~slow]
                assert np.array_equal(op, prev), (name, tech)
            else:
                assert not sites.any(), (name, tech)
    # a buffer smaller than the run: truncated, the count still exact
    prog = program(cc, "fib", trace=True)
    r, rec = lib.trace(prog, "switch", [as_int(15)], cap=100)
    assert len(rec) == 100 and r.trace_len == _fib_count(15)
    # the default build has no trace
    assert vmlib(cc).lib.vm_machine_set_trace(vmlib(cc).machine, None, 0) == UNAVAILABLE


def test_trace_feeds_the_model():
    """VM traces through the predictor model: replicated sites help a last-target
    predictor on every program (S1's shape on real programs, source `model`)."""
    from cpulab.model import last_target, simulate_vm_trace

    lib = vmlib("clang", trace=True)
    for name in PROGRAM_NAMES:
        prog = program("clang", name, trace=True)
        args = lib.bench_args(prog)
        count = lib.count(prog, args).trace_len
        rates = {}
        for tech in ("switch", "tail-pn"):
            _, rec = lib.trace(prog, tech, args, cap=count)
            rates[tech] = simulate_vm_trace(rec, last_target()).miss_rate
        assert rates["tail-pn"] < rates["switch"], (name, rates)


# ---- machine code ---------------------------------------------------------------------------


def _functions(binary: Path) -> dict[str, list[str]]:
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(binary)],
                         capture_output=True, text=True, check=True).stdout
    funcs: dict[str, list[str]] = {}
    cur = None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
        elif cur is not None and "\t" in line:
            cur.append(line.split("\t", 1)[1].strip())
    return funcs


def _indirect_jumps(code: list[str]) -> int:
    return sum(1 for i in code if re.match(r"jmpq?\s+\*", i))


@pytest.mark.needs("objdump")
@pytest.mark.parametrize("cc", COMPILERS)
def test_dispatch_sites_in_machine_code(cc):
    funcs = _functions(Path(vmlib(cc).lib._name))
    n_ops = vmlib(cc).lib.vm_opcode_count()
    assert _indirect_jumps(funcs["vm_exec_goto_shared"]) == 1
    assert _indirect_jumps(funcs["vm_exec_goto_replicated"]) >= n_ops
    if cc == "clang":
        handlers = {k: v for k, v in funcs.items() if re.fullmatch(r"vm_op_[A-Z]+", k)}
        assert len(handlers) == n_ops
        for name, code in handlers.items():
            # S14/S15: a handler is its work and a jump; no frame, no stack, no call
            # (only RET returns: when main returns, the chain ends)
            bad = [i for i in code if re.match(r"(push|pop|call)\b", i) or "%rsp" in i
                   or (re.match(r"ret\b", i) and name != "vm_op_RET")]
            assert not bad, (name, bad)
            # and ends in a dispatch, or (NEWARR) a jump to the fallback handler
            assert _indirect_jumps(code) >= 1 or any(
                re.match(r"jmpq?\s+[0-9a-f]+ <vm_op__slow>", i) for i in code), name
        # with the C convention the six state registers leave too few scratch ones:
        # some handlers save a callee-saved register (the preserve_none difference)
        tail = {k: v for k, v in funcs.items() if re.fullmatch(r"vm_tail_[A-Z]+", k)}
        assert any(any(i.startswith("push") for i in code) for code in tail.values())


# ---- callgrind ------------------------------------------------------------------------------


@cache
def vmrun(cc: str, trace: bool = False) -> Path:
    tc = _toolchain(cc)
    # DWARF 4: valgrind 3.19 (Debian 12) gives up on clang 19's DWARF 5
    t = LIB.target("vmrun", (VM / "tools" / "vmrun.c",), cflags=("-gdwarf-4",),
                   defines=("VM_TRACE=1",) if trace else ())
    return build_one(t, BuildConfig(tc, "O2"))


def _callgrind_ir(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "cg.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        "--collect-atstart=no", "--toggle-collect=vm_machine_run", *argv],
                       capture_output=True, text=True, check=True, timeout=300)
        m = re.search(r"^summary: (\d+)", out.read_text(), re.M) or re.search(
            r"^totals: (\d+)", out.read_text(), re.M)
        assert m
        return int(m.group(1))


@pytest.mark.needs("valgrind")
def test_callgrind_instructions_per_vm_instruction_deterministic():
    exe = vmrun("clang")
    fib = PROGRAMS / "fib.vmasm"
    vm_insns = _fib_count(12)
    per = {}
    for tech in TECHNIQUES:
        argv = [str(exe), "-t", tech, str(fib), "12"]
        a, b = _callgrind_ir(argv), _callgrind_ir(argv)
        assert a == b, (tech, a, b)
        per[tech] = a / vm_insns
        assert 3 < per[tech] < 60, (tech, per[tech])
    # the call-threaded loop executes more instructions per dispatch than the tail calls
    assert per["call"] > per["tail-pn"]


@cache
def _fuzzer() -> Path | None:
    tc = _toolchain("clang")
    t = LIB.target("fuzz_assemble", (VM / "tools" / "fuzz_assemble.c",),
                   cflags=("-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all"))
    try:
        return build_one(t, BuildConfig(tc, "O1"))
    except BuildError as e:  # no libFuzzer runtime (Debian: libclang-rt-19-dev)
        if "fuzzer" in str(e) or "clang_rt" in str(e):
            return None
        raise


def test_assembler_fuzz_smoke():
    """libFuzzer + ASan + UBSan on the assembler and verifier, from the shipped programs:
    every input gives OK or a syntax error naming a line of the text, without a fault."""
    exe = _fuzzer()
    if exe is None:
        pytest.skip("clang cannot link -fsanitize=fuzzer here")
    with tempfile.TemporaryDirectory() as d:
        for prog in PROGRAMS.glob("*.vmasm"):
            shutil.copy(prog, d)
        p = subprocess.run([str(exe), "-runs=40000", "-seed=1", "-max_len=4096", d],
                           capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Done 40000 runs" in p.stderr


# ---- vmrun and the benchmark kernel --------------------------------------------------------


def test_vmrun_tool():
    exe = vmrun("gcc")
    p = subprocess.run([str(exe), "--check", str(PROGRAMS / "sieve.vmasm")],
                       capture_output=True, text=True)
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0 and len(lines) == 8 and all(x["ok"] for x in lines)
    p = subprocess.run([str(exe), "-t", "goto-replicated", "--count",
                        str(PROGRAMS / "fib.vmasm"), "15"], capture_output=True, text=True)
    out = json.loads(p.stdout)
    assert out["result"] == "610" and out["insns"] == _fib_count(15)
    assert out["technique"] == "goto-replicated" and out["status"] == "ok"
    with tempfile.NamedTemporaryFile("w", suffix=".vmasm") as f:
        f.write(".func main 0\n  bogus r0\n.end\n")
        f.flush()
        p = subprocess.run([str(exe), f.name], capture_output=True, text=True)
        assert p.returncode == 2 and "line 2: unknown instruction 'bogus'" in p.stderr
        f.seek(0)
        f.write(".func main 0\n  loadi r0, 0\n  idiv r1, r0, r0\n  ret r1\n.end\n")
        f.truncate()
        f.flush()
        p = subprocess.run([str(exe), f.name], capture_output=True, text=True)
        out = json.loads(p.stdout)
        assert p.returncode == 1 and out["status"] == "division by zero" and out["line"] == 3
    p = subprocess.run([str(exe), "-t", "tail-pn", str(PROGRAMS / "fib.vmasm")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "not in this build" in p.stderr


def test_vmrun_trace_file():
    """The file --trace writes is the dispatch trace, record for record."""
    exe = vmrun("clang", trace=True)
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "t.bin"
        p = subprocess.run([str(exe), "-t", "tail-pn", "--trace", str(f),
                            str(PROGRAMS / "fannkuch.vmasm"), "5"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        rec = np.fromfile(f, dtype="<u4")
    lib = vmlib("clang", trace=True)
    prog = program("clang", "fannkuch", trace=True)
    r, want = lib.trace(prog, "tail-pn", [as_int(5)], cap=1 << 20)
    assert json.loads(p.stdout)["dispatches"] == r.trace_len == len(rec)
    assert np.array_equal(rec, want)
    p = subprocess.run([str(vmrun("gcc")), "--trace", "/dev/null", str(PROGRAMS / "fib.vmasm")],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "VM_TRACE=1" in p.stderr


def _kernel(cc: str, tech: str) -> Path:
    tc = _toolchain(cc)
    macro = tech.upper().replace("-", "_")
    t = LIB.target(f"dispatch-{tech}", (KERNELS / "dispatch" / "dispatch.c",),
                   defines=("VM_ONLY=1", f"VM_ONLY_{macro}=1", f'VM_PROGRAMS_DIR="{PROGRAMS}"'))
    return build_one(t, BuildConfig(tc, "O2"))


@pytest.mark.skipif(not (HARNESS_DIR / "cpulab_harness.h").exists(), reason="no harness")
@pytest.mark.parametrize("cc,tech", [("gcc", "trampoline"), ("clang", "tail-pn")])
def test_dispatch_kernel(cc, tech):
    exe = _kernel(cc, tech)
    funcs = _functions(exe)
    # one technique per binary: the others are not in it
    assert "vm_exec_switch" not in funcs and "vm_exec_counted" in funcs
    p = subprocess.run([str(exe), "--iters", "1", "--reps", "1", "--no-pmu", "--cpu", "-1",
                        "--param", "fib=15"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    reps = [json.loads(x) for x in p.stdout.splitlines()]
    reps = {r["case"]: r for r in reps if r["type"] == "rep"}
    assert set(reps) == set(PROGRAM_NAMES)
    assert all(r["unit"] == "vminsn" and r["iters"] == 1 for r in reps.values())
    assert reps["fib"]["units"] == _fib_count(15)
    lib = vmlib(cc)
    for name in PROGRAM_NAMES[1:]:
        prog = program(cc, name)
        assert reps[name]["units"] == lib.count(prog, lib.bench_args(prog)).trace_len
    # a build with every technique needs to be told which
    t = LIB.target("dispatch-all", (KERNELS / "dispatch" / "dispatch.c",),
                   defines=(f'VM_PROGRAMS_DIR="{PROGRAMS}"',))
    exe = build_one(t, BuildConfig(_toolchain("gcc"), "O2"))
    p = subprocess.run([str(exe), "--iters", "1", "--reps", "1", "--no-pmu"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--param technique=NAME" in p.stdout + p.stderr


@pytest.mark.parametrize("cc", COMPILERS)
def test_bench_arguments_agree_every_technique(cc):
    """The benchmark's own runs: every technique returns the counting loop's bits."""
    lib = vmlib(cc)
    for name in PROGRAM_NAMES:
        prog = program(cc, name)
        args = lib.bench_args(prog)
        want = lib.count(prog, args).value
        for tech in lib.techniques():
            assert lib.run(prog, tech, args).value == want, (name, tech)
