"""Exact instruction counts (callgrind) and a modelled branch predictor (--branch-sim).

Startup and calibration cost is removed by differencing: the program runs at two
iteration counts and (count(n2) - count(n1)) / (units(n2) - units(n1)) is the cost of
one unit of work. Callgrind's figures are deterministic for a given binary and input,
which is why tests may assert on them. Its branch simulator is a model (a 16k-entry
2-bit table for conditional branches, a 512-entry last-target table for indirect ones),
not this CPU's predictor: its figures carry the source `model`.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from cpulab.measure.metrics import Metric
from cpulab.measure.runner import Runner


class ValgrindError(RuntimeError):
    pass


def available() -> str | None:
    """None when callgrind can be used, else the reason."""
    return None if shutil.which("valgrind") else "valgrind not installed (run `make setup`)"


def _callgrind_totals(runner: Runner, argv: Sequence[str], timeout: float,
                      collect: str | None) -> dict[str, int]:
    with tempfile.TemporaryDirectory(prefix="cpulab-cg-") as d:
        out = Path(d) / "callgrind.out"
        toggle = [f"--toggle-collect={collect}"] if collect else []
        res = runner.run(
            ["valgrind", "--tool=callgrind", "--branch-sim=yes", *toggle,
             f"--callgrind-out-file={out}", *argv], timeout=timeout,
        )
        if res.failure:
            raise ValgrindError(f"callgrind {' '.join(argv[:1])}: {res.failure}")
        if not out.exists():
            raise ValgrindError(f"callgrind {' '.join(argv[:1])}: wrote no profile")
        events: list[str] = []
        for line in out.read_text().splitlines():
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:" if collect else "summary:"):
                values = [int(v) for v in line.split()[1:]]
                # callgrind leaves out trailing zero columns: a missing event counted 0
                return dict(zip(events, values + [0] * (len(events) - len(values)),
                                strict=True))
    raise ValgrindError("callgrind wrote no summary line")


def per_unit_counts(
    runner: Runner,
    argv_for: Callable[[int], Sequence[str]],
    iters: tuple[int, int],
    units_per_iter: float,
    unit: str,
    timeout: float = 300,
    collect: str | None = None,
) -> dict[str, Metric]:
    """Instructions and modelled branch figures per unit of work, by differencing.

    `collect` names the function whose cost (callees included) is counted, alone
    (callgrind's --toggle-collect): then the figures do not depend on what the rest of
    the program did, such as how many digits its printed timings had."""
    n1, n2 = iters
    a = _callgrind_totals(runner, argv_for(n1), timeout, collect)
    b = _callgrind_totals(runner, argv_for(n2), timeout, collect)
    du = (n2 - n1) * units_per_iter
    d = {k: (b.get(k, 0) - a.get(k, 0)) / du for k in b}
    # Named apart from the PMU's figures so that both can stand side by side in a case.
    out = {"instructions (callgrind)": Metric.exact(d["Ir"], f"instructions/{unit}",
                                                    "callgrind")}
    if "Bi" in d:
        out["indirect-branches (callgrind)"] = Metric.exact(d["Bi"], f"branches/{unit}",
                                                            "callgrind")
        out["indirect-misses (model)"] = Metric.exact(d["Bim"], f"misses/{unit}", "model")
        out["cond-misses (model)"] = Metric.exact(d["Bcm"], f"misses/{unit}", "model")
        total_b = d["Bi"] + d["Bc"]
        if total_b > 0:
            out["branch-miss-rate (model)"] = Metric.exact(
                100 * (d["Bim"] + d["Bcm"]) / total_b, "%", "model")
        if d["Bi"] > 0:
            out["indirect-miss-rate (model)"] = Metric.exact(100 * d["Bim"] / d["Bi"], "%",
                                                             "model")
    return out
