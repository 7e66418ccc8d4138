"""`cpulab opprof` on CPython built from the sources of the exact version profiled:
Debian's `python3.11` source package, -O2 -g with computed gotos
(native/kernels/opprof/build_cpython_peer.sh, cached under build/peers/). With the sources
at hand the bytecodes are found by their `TARGET(X)` markers in Python/ceval.c, the path
that pyenv's build (DWARF, no sources) cannot take.

Building CPython takes minutes, so the test runs only with CPULAB_FULL=1. The workload is
tests/data/opprof/float_loop.py, whose bytecode `dis` lists (as in test_opprof_cpython.py).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from cpulab.opprof import Options
from cpulab.opprof.run import profile_command
from cpulab.paths import KERNELS
from peer_support import peer

DATA = Path(__file__).parent / "data" / "opprof"
BUILD_SCRIPT = KERNELS / "opprof" / "build_cpython_peer.sh"
ITERATIONS = "6000000"
NEVER_MAX = 0.03  # of the VM's samples, for each opcode the script cannot execute

pytestmark = [
    pytest.mark.full,
    pytest.mark.needs("perf"),
]


@pytest.fixture(scope="module")
def python() -> Path:
    return peer(BUILD_SCRIPT)


@pytest.fixture(scope="module")
def opcodes(python) -> dict:
    r = subprocess.run([str(python), str(DATA / "cpython_opcodes.py"),
                        str(DATA / "float_loop.py")], capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def profile(python):
    return profile_command([str(python), "-S", str(DATA / "float_loop.py"), ITERATIONS],
                           Options(event="cpu-clock"))


def test_bytecodes_found_by_their_target_markers_in_ceval(profile, opcodes):
    assert profile.mapping.mode == "markers", profile.mapping.reason
    assert any(Path(p).name == "ceval.c" for p in profile.mapping.sources.values()), \
        profile.mapping.sources
    listed = {r.name for r in profile.result.instructions}
    assert listed and listed <= set(opcodes["opnames"]), listed - set(opcodes["opnames"])


def test_the_loop_bytecode_leads_and_unexecuted_opcodes_stay_small(profile, opcodes):
    res = profile.result
    assert res.vm_samples > 200, f"too few samples in the VM ({res.vm_samples})"
    # this build has neither Debian's PGO nor its LTO: loads, stores and FOR_ITER (which
    # makes the range's ints) weigh as much as the float operations themselves
    top = [r.name for r in res.instructions[:6]]
    assert set(top) <= set(opcodes["executable"]), top
    assert {"BINARY_OP_MULTIPLY_FLOAT", "BINARY_OP_ADD_FLOAT"} <= set(top), top
    never = {r.name: r.share_vm for r in res.instructions
             if r.name not in opcodes["executable"] and r.share_vm > NEVER_MAX}
    assert never == {}, never
