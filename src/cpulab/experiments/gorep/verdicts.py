"""The claims of `gorep`, in the lab's one vocabulary (`claims.ClaimSpec`) and judged by
its one judge: faster than GNU grep and ag on every pattern, within 1.3x of ripgrep in
geometric mean and within 2x in every case, and S9's names + contents in one run
against both pipelines. Every
ratio is of commands timed interleaved in one run; the peers are not built here, so a
set is a corpus, pattern and thread count. Against GNU grep (one thread) and ag the
measure is the wall time a user waits (clock); against ripgrep, which spreads its work
over the same threads, the CPU time of the tool and its threads (getrusage, sw), which
neighbours on a shared machine disturb far less than the wall time.
"""

from __future__ import annotations

from cpulab.claims import ClaimSpec

RIPGREP_TARGET = 1.3
RIPGREP_WORST = 2.0  # no case slower than this
SEED = "S9 gives no figures: gorep was written to find names and contents in one command"


def _faster_than(peer: str, label: str) -> ClaimSpec:
    return ClaimSpec(
        "faster", "gorep", than=peer, metric="time", seed=SEED,
        text=f"({label}) gorep is faster than {peer} on every pattern, corpus and thread "
             "count")


CLAIMS = (
    _faster_than("grep", "a"),
    _faster_than("ag", "b"),
    # One-sided: gorep/rg at most 1.3x, so rg/gorep at least 1/1.3 (gorep faster than
    # ripgrep is inside it too); the geometric mean over the patterns, paired by round.
    ClaimSpec(
        "faster", "gorep", than="rg", by=1 / RIPGREP_TARGET, metric="child-cpu",
        over="pattern", seed=SEED,
        text=f"(c) gorep's geometric mean CPU time is within {RIPGREP_TARGET}x of "
             "ripgrep's, per corpus and thread count"),
    # One-sided too, without `over`: every corpus, pattern and thread count on its own.
    ClaimSpec(
        "faster", "gorep", than="rg", by=1 / RIPGREP_WORST, metric="child-cpu", seed=SEED,
        text=f"(d) gorep's CPU time is within {RIPGREP_WORST:g}x of ripgrep's in every case"),
    # Faster than the faster of the two pipelines: faster than both.
    ClaimSpec(
        "faster", "gorep-names", than=("find+grep", "rg-files+rg"), metric="time", seed=SEED,
        text="(e) S9's question: names and contents in one gorep run beat find + grep and "
             "rg --files | rg + rg"),
)
