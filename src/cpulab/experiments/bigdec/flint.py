"""FLINT, a peer of experiment `bigdec` beside GMP: fmpz_get_str of FLINT 3, whose
conversion to decimal is its own subquadratic code, not GMP's mpz_get_str.

native/kernels/bigdec/build_flint_peer.sh takes FLINT's shared library from the PyPI
wheel python-flint 0.9.0 (FLINT 3.6.0, its GMP and MPFR beside it) once per machine and
keeps it under build/peers/flint; the default profile fetches it, --quick uses it once
it exists. The benchmark dlopens it (`--param flint=PATH`, case `flint`) and checks
its digits against GMP's like every other case's.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.build.peer_script import build_hint, peer_path
from cpulab.context import Context
from cpulab.paths import KERNELS

FLINT_SCRIPT = KERNELS / "bigdec" / "build_flint_peer.sh"
FLINT = "flint"  # the benchmark's case
FLINT_NAME = "FLINT 3's fmpz_get_str (PyPI python-flint 0.9.0)"
# pip downloads the 10 MB wheel on a first call; unpacking it takes a second.
FLINT_FETCH_TIMEOUT_S = 300


def flint_peer(ctx: Context) -> Path | None:
    """FLINT's shared library, fetched now in the default profile; None, with a note,
    when it cannot be had."""
    fetch_now = not ctx.profile.quick
    path = peer_path(ctx, FLINT_SCRIPT, build_now=fetch_now, timeout=FLINT_FETCH_TIMEOUT_S,
                     phase="fetching the FLINT peer (once; cached)")
    if isinstance(path, Path):
        return path
    ctx.note(f"bigdec: peer {FLINT} not measured: {path}"
             + ("" if fetch_now else build_hint(FLINT_SCRIPT)))
    return None
