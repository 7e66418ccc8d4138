"""`cpulab opprof` on a CPython that nobody here wrote: the image's pyenv 3.11.7, whose
libpython3.11.so carries DWARF but whose sources are gone, so the instructions are
found by its computed-goto labels (`TARGET_LOAD_FAST:`).

The script is a float loop whose bytecode `dis` lists; the opcodes it cannot execute
(no family of its bytecode: no generator, no closure) must take no more than a small
share of the VM's samples each. The interpreter's start-up runs other bytecode for a
few milliseconds, and the compiler merges tail code between handlers, so "never" is a
bound, not zero.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from cpulab.opprof import Options
from cpulab.opprof.binary import Binary
from cpulab.opprof.run import profile_command

DATA = Path(__file__).parent / "data" / "opprof"
PYTHON = Path.home() / ".pyenv" / "versions" / "3.11.7" / "bin" / "python3.11"
LIBPYTHON = PYTHON.parent.parent / "lib" / "libpython3.11.so.1.0"
ITERATIONS = "6000000"  # ~1 s
NEVER_MAX = 0.03  # of the VM's samples, for each opcode the script cannot execute


def _problem() -> str | None:
    if not PYTHON.is_file() or not LIBPYTHON.is_file():
        return f"no {PYTHON} with {LIBPYTHON.name} (pyenv's CPython 3.11.7)"
    b = Binary(LIBPYTHON)
    try:
        if not b.has_debug_info:
            return f"{LIBPYTHON} has no DWARF"
    finally:
        b.close()
    if not shutil.which("perf"):
        return "perf is not installed (Debian package linux-perf)"
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["perf", "record", "-e", "cpu-clock", "-o", f"{d}/p.data", "--",
                            "true"], capture_output=True, text=True)
    return None if r.returncode == 0 else f"perf cannot sample here: {r.stderr[-300:]}"


PROBLEM = _problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")


@pytest.fixture(scope="module")
def opcodes() -> dict:
    r = subprocess.run([str(PYTHON), str(DATA / "cpython_opcodes.py"),
                        str(DATA / "float_loop.py")],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.fixture(scope="module", params=[True, False], ids=["flow", "no-flow"])
def profile(request):
    return profile_command([str(PYTHON), "-S", str(DATA / "float_loop.py"), ITERATIONS],
                           Options(event="cpu-clock", flow=request.param))


def _shares(prof) -> dict[str, float]:
    return {r.name: r.share_vm for r in prof.result.instructions}


def test_only_opcodes_are_listed_without_their_label_prefix(profile, opcodes):
    assert profile.mapping.mode in ("label", "markers"), profile.mapping.reason
    listed = {r.name for r in profile.result.instructions}
    assert listed, "no instruction found"
    # no TARGET_ prefix, no resume_frame or error label listed as an instruction
    assert listed <= set(opcodes["opnames"]), listed - set(opcodes["opnames"])


def test_the_loop_bytecode_ranks_first(profile, opcodes):
    res = profile.result
    assert res.vm_samples > 200, f"too few samples in the VM ({res.vm_samples})"
    top = [r.name for r in res.instructions[:4]]
    assert set(top) <= set(opcodes["executable"]), top
    assert {"BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT"} & set(top), top


def test_opcodes_never_executed_get_at_most_a_small_share(profile, opcodes):
    shares = _shares(profile)
    never = {n: s for n, s in shares.items() if n not in opcodes["executable"]}
    # gcc merges RETURN_VALUE's tail with it: a function returns here, none generates
    assert "RETURN_GENERATOR" not in opcodes["executable"]
    assert {n: s for n, s in never.items() if s > NEVER_MAX} == {}, sorted(
        never.items(), key=lambda kv: -kv[1])[:8]


def test_inclusive_charges_float_allocation_to_the_float_operations(opcodes):
    # without call chains, PyFloat_FromDouble and float_dealloc (about half the samples)
    # are the rest of the process; with them, they belong to the instruction that called
    prof = profile_command([str(PYTHON), "-S", str(DATA / "float_loop.py"), ITERATIONS],
                           Options(event="cpu-clock", freq=3000, inclusive=True))
    res = prof.result
    assert prof.mapping.inclusive
    assert res.vm_samples >= 0.9 * res.total, (res.vm_samples, res.total)
    top = [r.name for r in res.instructions[:3]]
    assert {"BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT"} <= set(top), top
    assert "PyFloat_FromDouble" not in {r.symbol for r in res.rest}
