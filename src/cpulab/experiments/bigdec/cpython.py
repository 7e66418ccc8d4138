"""CPython's `str(int)` timed from Python: the peer that experiment `bigdec` runs beside
the C kernel.

A program (`python -m cpulab.experiments.bigdec.cpython --bits N`) that speaks the native
harness's JSON lines (native/harness/README.md, schema 1), so that the lab runs it
interleaved with native/kernels/bigdec and reads it with the same parser. The number is
the kernel's own (the same splitmix64 limbs, seed and top bit), the digit limit is lifted
(`sys.set_int_max_str_digits(0)`), and one iteration is one `str(x)`, timed by
`time.perf_counter_ns` (source `clock`). There is no TSC or hardware counter here: the
meta line says so. After every timed call the string is checked (its length against
powers of ten, its last 18 digits against `x % 10**18`) outside the timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

CASE = "cpython"
_MASK = (1 << 64) - 1


def _emit(rec: dict) -> None:
    sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def kernel_number(bits: int, seed: int = 54102) -> int:
    """The number native/kernels/bigdec/bigdec_bench.c converts: splitmix64 limbs, least
    significant first, cut to `bits` bits, the top bit set."""
    state, limbs = seed, []
    for _ in range((bits + 63) // 64):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        limbs.append(z ^ (z >> 31))
    x = int.from_bytes(b"".join(v.to_bytes(8, "little") for v in limbs), "little")
    return (x & ((1 << bits) - 1)) | (1 << (bits - 1))


def _timed(x: int, iters: int) -> tuple[int, str]:
    s = ""
    t0 = time.perf_counter_ns()
    for _ in range(iters):
        s = str(x)
    return time.perf_counter_ns() - t0, s


def _check(x: int, s: str) -> str | None:
    """Why `s` is not the decimal form of x, or None. Cheap against the conversion: a
    power of ten and one remainder, no second conversion."""
    if not s.isdigit() or (len(s) > 1 and s[0] == "0"):
        return "not a plain run of decimal digits"
    if not 10 ** (len(s) - 1) <= x < 10 ** len(s):
        return f"{len(s)} digits, the number has a different count"
    if int(s[-18:]) != x % 10**18:
        return "the last 18 digits differ"
    return None


def _calibrate(x: int, target_ns: float) -> int:
    """The harness's rule: double until one call takes >= target/8, then scale to target."""
    iters = 1
    while True:
        ns, _ = _timed(x, iters)
        if ns >= target_ns / 8 or iters >= 1 << 30:
            return max(1, round(iters * target_ns / max(ns, 1)))
        iters *= 2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bigdec.cpython", description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, required=True)
    ap.add_argument("--seed", type=int, default=54102)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--target-ms", type=float, default=50.0)
    ap.add_argument("--iters", type=int, default=None)
    args = ap.parse_args(argv)
    if args.bits < 1 or args.bits > 1 << 32:
        _emit({"type": "error", "message": f"--bits {args.bits}: must be in 1 .. 2^32"})
        return 2
    if args.reps < 1 or args.target_ms <= 0 or (args.iters is not None and args.iters < 1):
        _emit({"type": "error", "message": "--reps, --target-ms and --iters must be positive"})
        return 2
    sys.set_int_max_str_digits(0)
    x = kernel_number(args.bits, args.seed)
    _, s = _timed(x, 1)  # warm-up, and the first check
    why = _check(x, s)
    if why:
        _emit({"type": "error", "message": f"str() of a {args.bits}-bit number: {why}"})
        return 1
    iters = args.iters or _calibrate(x, args.target_ms * 1e6)
    no_tsc = "not read from Python (time.perf_counter_ns only)"
    _emit({
        "type": "meta", "schema": 1, "harness": "cpulab.experiments.bigdec.cpython",
        "argv": sys.argv, "target_ms": args.target_ms, "reps": args.reps, "iters": args.iters,
        "pinning": {"pinned": False, "reason": "a Python timer: not pinned"},
        "clock": {"id": "time.perf_counter_ns"}, "tsc": {"available": False, "reason": no_tsc},
        "tsc_reason": no_tsc, "mode": None, "counters": {},
        "params": {"bits": args.bits, "seed": args.seed, "digits": len(s),
                   "python": sys.version.split()[0]},
        "cases": [{"name": CASE, "unit": "conversion", "units_per_iter": 1, "iters": iters,
                   "iters_from": "--iters" if args.iters else "calibration"}],
    })
    for rep in range(args.reps):
        ns, s = _timed(x, iters)
        why = _check(x, s)
        if why:
            _emit({"type": "error", "message": f"case {CASE}: {why}"})
            return 1
        _emit({"type": "rep", "case": CASE, "rep": rep, "iters": iters, "units": iters,
               "unit": "conversion", "ns": ns, "scaled": False, "counters": {}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
