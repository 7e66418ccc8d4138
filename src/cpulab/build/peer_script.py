"""Peers that a script of the lab builds once (GMP, mcl, upb, CRuby): each script prints
the peer's path as its last line, builds it unless given --print-path, and says on
standard error why there is none. A build is kept once per machine and recipe in
~/.cache/cpulab/peers/ (native/kernels/peer_cache.sh), where any checkout finds it, and is
reached through build/peers/NAME, a link to it.

The default profile builds a missing peer; --quick only looks for one, so that a first
look costs no minutes of building, and the note says how to build what was missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cpulab.paths import ROOT

if TYPE_CHECKING:
    from cpulab.context import Context


def peer_path(ctx: Context, script: Path, args: Sequence[str] = (), *, build_now: bool,
              timeout: float, phase: str = "") -> Path | str:
    """The peer's path, built now if `build_now`; else why there is none (the script's
    last line on standard error, or how it failed)."""
    if build_now and phase:
        ctx.reporter.phase(phase)
    res = ctx.runner.run(["bash", str(script), *args,
                          *(() if build_now else ("--print-path",))], timeout=timeout)
    lines = res.stdout.strip().splitlines()
    if res.failure is None and lines:
        return Path(lines[-1])
    return (res.stderr.strip().splitlines() or [res.failure or "no output"])[-1]


def build_command(script: Path, args: Sequence[str] = ()) -> str:
    """How a user builds the peer: `native/kernels/mulpre/build_gmp_peer.sh --fat`."""
    return " ".join((str(script.relative_to(ROOT)), *args))


def build_hint(script: Path, args: Sequence[str] = (), *, by_default: bool = True) -> str:
    """The note's tail for a peer --quick did not find."""
    return f" (`{build_command(script, args)}` builds it" + \
        (", and so does the default profile)" if by_default else ")")
