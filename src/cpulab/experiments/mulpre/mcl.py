"""mcl, the strongest peer of experiment `mulpre`: herumi's hand-written mulx/adox/adcx
code (`mclb_mul_fastN`), the code that seed S11's hand asm is.

native/kernels/mulpre/build_mcl_peer.sh builds it once from the source that the crates.io
crate mcl_rust 1.2.0 carries and caches it under build/peers/mcl; the default profile
builds it, --quick uses it once it exists. The benchmark loads it with
`--param mcl_peer=PATH` (cases mcl/N=k).
"""

from __future__ import annotations

from pathlib import Path

from cpulab.context import Context
from cpulab.paths import KERNELS, ROOT

MCL_SCRIPT = KERNELS / "mulpre" / "build_mcl_peer.sh"
MCL = "mcl"  # the benchmark's case prefix
MCL_NAME = "mcl (mclb_mul_fastN, crates.io mcl_rust 1.2.0)"
# The crate comes through cargo on a first build; assembling one file takes seconds.
MCL_BUILD_TIMEOUT_S = 600


def mcl_peer(ctx: Context) -> Path | None:
    """mcl's shared library, built now in the default profile; None, with a note, when it
    cannot be had."""
    build_now = not ctx.profile.quick
    if build_now:
        ctx.reporter.phase("building the mcl peer (once; cached)")
    res = ctx.runner.run(["bash", str(MCL_SCRIPT), *(() if build_now else ("--print-path",))],
                         timeout=MCL_BUILD_TIMEOUT_S)
    lines = res.stdout.strip().splitlines()
    if res.failure is None and lines:
        return Path(lines[-1])
    why = (res.stderr.strip().splitlines() or [res.failure or "no output"])[-1]
    hint = "" if build_now else \
        f" (`{MCL_SCRIPT.relative_to(ROOT)}` builds it, and so does the default profile)"
    ctx.note(f"peer {MCL} not measured: {why}{hint}")
    return None
