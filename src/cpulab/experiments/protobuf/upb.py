"""Decode throughput of upb through the PyPI `protobuf` package, timed from Python.

A program (`python -m cpulab.experiments.protobuf.upb --manifest PATH`) that speaks the
native harness's JSON lines (native/harness/README.md, schema 1), so that the lab runs it
interleaved with the C kernel and reads it with the same parser. One iteration is one
`cls.FromString(payload)`: a fresh message (and upb arena) per call, the Python call and
object creation included, timed by `time.perf_counter_ns` (source `clock`). There is no
TSC or hardware counter here: the meta line says so, with the reason.

Case names follow the C kernel's shape: `<payload>/upb-python/FromString/python/fresh`
(the string mode is upb's own choice, not selectable from Python).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

LABEL = "upb-python"
CASE_SUFFIX = f"{LABEL}/FromString/python/fresh"


def _emit(rec: dict) -> None:
    sys.stdout.write(json.dumps(rec, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def _timed(parse, data: bytes, iters: int) -> int:
    t0 = time.perf_counter_ns()
    for _ in range(iters):
        parse(data)
    return time.perf_counter_ns() - t0


def _calibrate(parse, data: bytes, target_ns: float) -> int:
    """The harness's rule: double until one call takes >= target/8, then scale to target."""
    iters = 1
    while True:
        ns = _timed(parse, data, iters)
        if ns >= target_ns / 8 or iters >= 1 << 30:
            return max(1, round(iters * target_ns / max(ns, 1)))
        iters *= 2


def _load(manifest: Path, only: list[str]) -> list[tuple[str, object, bytes]]:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    from cpulab.experiments.protobuf.payloads import read_manifest

    schema, payloads = read_manifest(manifest)
    unknown = [p for p in only if p not in payloads]
    if unknown:
        raise ValueError(f"--payloads: {', '.join(unknown)} not in the manifest "
                         f"({', '.join(payloads)})")
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(schema.read_bytes()).file:
        pool.Add(f)
    out = []
    for name, (type_name, path) in payloads.items():
        if only and name not in only:
            continue
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName(type_name))
        data = path.read_bytes()
        if cls.FromString(data).ByteSize() != len(data):  # a wrong schema or a bad file
            raise ValueError(f"{name}: re-encoded size differs from the payload's")
        out.append((name, cls.FromString, data))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="protobuf.upb", description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--payloads", default="", help="comma-separated (default: all)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--target-ms", type=float, default=50.0)
    ap.add_argument("--iters", type=int, default=None)
    args = ap.parse_args(argv)
    if args.reps < 1 or args.target_ms <= 0 or (args.iters is not None and args.iters < 1):
        _emit({"type": "error", "message": "--reps, --target-ms and --iters must be positive"})
        return 2
    try:
        payloads = _load(args.manifest, [p for p in args.payloads.split(",") if p])
    except (OSError, ValueError) as e:
        _emit({"type": "error", "message": f"{args.manifest}: {e}"})
        return 2
    from google.protobuf import __version__
    from google.protobuf.internal import api_implementation

    cases = []
    for name, parse, data in payloads:
        parse(data)  # warm-up: first touch of the class and the data
        iters = args.iters or _calibrate(parse, data, args.target_ms * 1e6)
        cases.append({"name": f"{name}/{CASE_SUFFIX}", "unit": "byte",
                      "units_per_iter": len(data), "iters": iters,
                      "iters_from": "--iters" if args.iters else "calibration"})
    no_tsc = "not read from Python (time.perf_counter_ns only)"
    _emit({
        "type": "meta", "schema": 1, "harness": "cpulab.experiments.protobuf.upb",
        "argv": sys.argv, "target_ms": args.target_ms, "reps": args.reps, "iters": args.iters,
        "pinning": {"pinned": False, "reason": "a Python timer: not pinned"},
        "clock": {"id": "time.perf_counter_ns"}, "tsc": {"available": False, "reason": no_tsc},
        "tsc_reason": no_tsc, "mode": None, "counters": {},
        "params": {"implementation": api_implementation.Type(), "protobuf": __version__,
                   "python": sys.version.split()[0]},
        "cases": cases,
    })
    for rep in range(args.reps):
        for case, (_, parse, data) in zip(cases, payloads, strict=True):
            ns = _timed(parse, data, case["iters"])
            _emit({"type": "rep", "case": case["name"], "rep": rep, "iters": case["iters"],
                   "units": case["iters"] * len(data), "unit": "byte", "ns": ns,
                   "scaled": False, "counters": {}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
