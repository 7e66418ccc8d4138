"""Read the output of `go test -bench` (a test binary run with -test.bench, -test.benchmem
and -test.count) as a harness program's output, so that Go benchmarks run interleaved
through the same schedule and become the same metrics.

Each line `BenchmarkNewSmall-2  10152240  119.4 ns/op  64 B/op  1 allocs/op` is one
repetition of case NewSmall: `iters` = b.N, unit "op", `ns` = ns/op x b.N (the clock
figure Go measured), and B/op and allocs/op as counters of source `runtime` (the Go
runtime's own allocation statistics), per op like every counter. There is no TSC
figure: the testing package does not read one.
"""

from __future__ import annotations

import re

from cpulab.measure.kernel_output import KernelOutput, KernelOutputError, Rep

_LINE = re.compile(r"^Benchmark(?P<name>\S+?)(?:-(?P<procs>\d+))?\s+(?P<n>\d+)\s+"
                   r"(?P<rest>.*\bns/op.*)$")
_FIGURE = re.compile(r"([0-9.eE+-]+) (\S+)")
_COUNTERS = {"B/op": "bytes", "allocs/op": "allocs"}
TSC_REASON = "go test -bench measures time with the clock only; it reads no TSC"


def parse_gobench(text: str) -> KernelOutput:
    """The repetitions of every benchmark line; raises KernelOutputError when there are
    none or a FAIL line says a benchmark failed."""
    out = KernelOutput(meta={})
    procs = None
    counts: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith(("--- FAIL", "FAIL")):
            raise KernelOutputError(f"line {lineno}: {line.strip()}")
        m = _LINE.match(line.strip())
        if not m:
            continue
        figures = {unit: float(v) for v, unit in _FIGURE.findall(m["rest"])}
        n = int(m["n"])
        if n <= 0 or "ns/op" not in figures:
            raise KernelOutputError(f"line {lineno}: a benchmark line without b.N or ns/op")
        procs = m["procs"] or procs
        name = m["name"]
        out.reps.append(Rep(
            case=name, rep=counts.get(name, 0), iters=n, units=float(n), unit="op",
            ns=figures["ns/op"] * n, tsc=None,
            counters={c: figures[u] * n for u, c in _COUNTERS.items() if u in figures}))
        counts[name] = counts.get(name, 0) + 1
    if not out.reps:
        raise KernelOutputError("no benchmark line (Benchmark... N ... ns/op)")
    present = {c for r in out.reps for c in r.counters}
    out.meta = {
        "type": "meta", "schema": 1, "harness": "go test -bench",
        "gomaxprocs": int(procs) if procs else 1,
        "tsc_reason": TSC_REASON,
        "counters": {c: {"available": True, "source": "runtime", "unit": c}
                     for c in _COUNTERS.values() if c in present}
        | {c: {"available": False, "source": "runtime",
               "reason": "not reported: run with -test.benchmem"}
           for c in _COUNTERS.values() if c not in present},
    }
    return out
