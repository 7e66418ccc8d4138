"""Peers that a script of the lab builds (upb, protobuf's conformance runner, CPython,
CRuby: native/kernels/peer_cache.sh keeps them once per machine). Building one takes
minutes, so the tests build a missing peer only with CPULAB_FULL=1; by default a test
takes the build this machine has and is skipped, naming the command, when there is none."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest

from cpulab.build.turns import build_turn
from cpulab.paths import ROOT


def peer(script: Path, *args: str, timeout: float = 3600) -> Path:
    """The path the script prints for its peer: built now with CPULAB_FULL=1, else
    looked up (the test skipped when there is none). A build takes its turn: a second
    worker that needs the same peer (protobuf's conformance runner, for two tests) waits
    for the first and finds it built, rather than building it again on the same cores."""
    build = bool(os.environ.get("CPULAB_FULL"))
    turn = build_turn(f"peer-{script.stem}") if build else contextlib.nullcontext()
    with turn:
        r = subprocess.run(["bash", str(script), *args, *(() if build else ("--print-path",))],
                           capture_output=True, text=True, timeout=timeout)
    command = " ".join((str(script.relative_to(ROOT)), *args))
    if r.returncode != 0 and not build:
        pytest.skip(f"no peer built yet ({command}, or CPULAB_FULL=1, builds it): "
                    f"{(r.stderr.strip().splitlines() or ['?'])[-1]}")
    assert r.returncode == 0, f"{command}:\n{r.stderr[-3000:]}"
    return Path(r.stdout.strip().splitlines()[-1])
