"""Exact instruction counts (callgrind) and a modelled branch predictor (--branch-sim).

Startup and calibration cost is removed by differencing: the program runs at two
iteration counts and (count(n2) - count(n1)) / (units(n2) - units(n1)) is the cost of
one unit of work. Callgrind's figures are deterministic for a given binary and input,
which is why tests may assert on them. Its branch simulator is a model (a 16k-entry
2-bit table for conditional branches, a 512-entry last-target table for indirect ones),
not this CPU's predictor: its figures carry the source `model`.

What runs under valgrind is built with DWARF_CFLAGS: valgrind 3.19 (Debian 12) gives up on
the whole process at clang 19's DWARF 5 ("Possibly corrupted debuginfo file").
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from cpulab.measure.metrics import Metric
from cpulab.measure.runner import Runner

DWARF_CFLAGS = ("-gdwarf-4",)


class ValgrindError(RuntimeError):
    pass


def available() -> str | None:
    """None when callgrind can be used, else the reason."""
    return None if shutil.which("valgrind") else "valgrind not installed (run `make setup`)"


def _profile(runner: Runner, argv: Sequence[str], timeout: float,
             collect: str | None) -> str:
    """The text of the callgrind profile of one run of argv."""
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
        return out.read_text()


def _totals(profile: str, collect: str | None) -> dict[str, int]:
    events: list[str] = []
    for line in profile.splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("totals:" if collect else "summary:"):
            values = [int(v) for v in line.split()[1:]]
            # callgrind leaves out trailing zero columns: a missing event counted 0
            return dict(zip(events, values + [0] * (len(events) - len(values)), strict=True))
    raise ValgrindError("callgrind wrote no summary line")


def functions(profile: str) -> dict[str, int]:
    """Each function's own instructions (Ir) in a callgrind profile, its callees' not
    included: what callgrind_annotate --inclusive=no lists, by function rather than by
    source file of inlined code. Recursion levels (`f'2`) are added to their function; a
    function without a symbol is named by its address and object (`0x13e680 in libx.so`).

    The format (valgrind's docs/callgrind-format): `fn=(id) name` starts a function's
    cost lines (a later `fn=(id)` names it again; `cfn=` shares the ids), `ob=` likewise
    its object; a cost line is positions, then events; the cost line after `calls=` is
    a call's inclusive cost, not the caller's own."""
    names: dict[str, str] = {}  # compressed "(id)" -> name, for fn= and cfn=
    objects: dict[str, str] = {}  # the same for ob= and cob=
    out: dict[str, int] = {}
    current, obj, positions, ir, call_cost = None, "", 1, 0, False
    for line in profile.splitlines():
        if line[:1].isdigit() or line[:1] in ("+", "-", "*"):
            if call_cost:
                call_cost = False
            elif current is not None:
                values = line.split()[positions:]
                if len(values) > ir:
                    out[current] = out.get(current, 0) + int(values[ir])
        elif line.startswith(("fn=", "cfn=", "ob=", "cob=")):
            key, _, spec = line.partition("=")
            ref, _, name = spec.partition(" ")
            table = objects if key.endswith("ob") else names
            if name:
                table[ref] = re.sub(r"'\d+$", "", name)
            if key == "ob":
                obj = objects.get(ref, ref)
            elif key == "fn":
                current = names.get(ref, ref)
                if current.startswith("0x"):
                    current = f"0x{int(current, 16):x} in {Path(obj).name}"
        elif line.startswith("calls="):
            call_cost = True
        elif line.startswith("positions:"):
            positions = len(line.split()) - 1
        elif line.startswith("events:"):
            ir = line.split()[1:].index("Ir")
    return out


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
    a = _totals(_profile(runner, argv_for(n1), timeout, collect), collect)
    b = _totals(_profile(runner, argv_for(n2), timeout, collect), collect)
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


def per_unit_functions(
    runner: Runner,
    argv_for: Callable[[int], Sequence[str]],
    iters: tuple[int, int],
    units_per_iter: float,
    timeout: float = 300,
    collect: str | None = None,
) -> dict[str, float]:
    """Each function's own instructions per unit of work, by differencing (`functions`),
    largest first; those with none per unit left out. They add up to per_unit_counts'
    instructions for the same runs."""
    n1, n2 = iters
    a = functions(_profile(runner, argv_for(n1), timeout, collect))
    b = functions(_profile(runner, argv_for(n2), timeout, collect))
    du = (n2 - n1) * units_per_iter
    d = {f: (n - a.get(f, 0)) / du for f, n in b.items()}
    return dict(sorted(((f, v) for f, v in d.items() if v), key=lambda kv: -kv[1]))
