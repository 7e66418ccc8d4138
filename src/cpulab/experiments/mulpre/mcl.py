"""mcl, the strongest peer of experiment `mulpre`: herumi's hand-written mulx/adox/adcx
code (`mclb_mul_fastN`), the code that seed S11's hand asm is.

native/kernels/mulpre/build_mcl_peer.sh builds it once from the source that the crates.io
crate mcl_rust 1.2.0 carries and caches it under build/peers/mcl; the default profile
builds it, --quick uses it once it exists. The benchmark loads it with
`--param mcl_peer=PATH` (cases mcl/N=k).
"""

from __future__ import annotations

from pathlib import Path

from cpulab.build.peer_script import build_hint, peer_path
from cpulab.context import Context
from cpulab.paths import KERNELS

MCL_SCRIPT = KERNELS / "mulpre" / "build_mcl_peer.sh"
MCL = "mcl"  # the benchmark's case prefix
MCL_NAME = "mcl (mclb_mul_fastN, crates.io mcl_rust 1.2.0)"
# The crate comes through cargo on a first build; assembling one file takes seconds.
MCL_BUILD_TIMEOUT_S = 600


def mcl_peer(ctx: Context) -> Path | None:
    """mcl's shared library, built now in the default profile; None, with a note, when it
    cannot be had."""
    build_now = not ctx.profile.quick
    path = peer_path(ctx, MCL_SCRIPT, build_now=build_now, timeout=MCL_BUILD_TIMEOUT_S,
                     phase="building the mcl peer (once; cached)")
    if isinstance(path, Path):
        return path
    ctx.note(f"peer {MCL} not measured: {path}"
             + ("" if build_now else build_hint(MCL_SCRIPT)))
    return None
