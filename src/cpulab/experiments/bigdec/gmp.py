"""The GMP builds that experiment `bigdec` measures mpz_get_str with, beside the Debian
libgmp its benchmark links.

A GMP built for this CPU (native/kernels/mulpre/build_gmp_peer.sh, cached under
build/peers/) converts faster than Debian's generic build at some sizes, so a verdict
against "GMP" takes the fastest present. The benchmark, linked against Debian's libgmp,
dlopens each build's libgmp.so beside it (`--param gmp_builds=LABEL:PATH,...`, case
gmp@LABEL), so that every GMP runs in the same process as bigdec, rep by rep. Nothing is
built here (the default profile of `cpulab run mulpre` builds the host one); a missing
build gets a note.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.build.peer_script import build_command
from cpulab.context import Context
from cpulab.paths import KERNELS

PEER_SCRIPT = KERNELS / "mulpre" / "build_gmp_peer.sh"
GMP_BUILDS = {"host": (), "fat": ("--fat",)}  # label -> build_gmp_peer.sh arguments
GMP = "gmp"  # the benchmark's case; a build's cases become gmp@LABEL


def gmp_libs(ctx: Context) -> dict[str, Path]:
    """label -> the libgmp.so of each GMP build present beside Debian's."""
    found = {}
    for label, args in GMP_BUILDS.items():
        res = ctx.runner.run(["bash", str(PEER_SCRIPT), *args, "--print-path"], timeout=60)
        lines = res.stdout.strip().splitlines()
        if res.failure is None and lines:
            found[label] = Path(lines[-1])
            continue
        ctx.note(f"bigdec: GMP {label} not measured: `{build_command(PEER_SCRIPT, args)}` "
                 "builds it"
                 + (" (so does `cpulab run mulpre`)" if label == "host" else ""))
    return found


def gmp_builds_param(libs: dict[str, Path]) -> tuple[str, ...]:
    """The benchmark's arguments that load the builds (none: no argument)."""
    if not libs:
        return ()
    return ("--param", "gmp_builds=" + ",".join(f"{k}:{v}" for k, v in libs.items()))
