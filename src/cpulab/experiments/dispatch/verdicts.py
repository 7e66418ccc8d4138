"""The claims of `dispatch`, in the lab's one vocabulary (`claims.ClaimSpec`) and judged
by its one judge: tail calls against every other technique, the issue's two speed-up
targets, frameless handlers, and replicated against shared dispatch. Every speed-up is
a geometric mean over the VM programs (`over="program"`, paired by round), on the best
cycle-like figure the cases have, in each build: gcc has no musttail, so only clang
builds carry `tail-pn` and are judged."""

from __future__ import annotations

from cpulab.claims import CYCLES, ClaimSpec, Requirement
from cpulab.experiments.dispatch.names import (
    MUSTTAIL,
    SPEEDUP_VS_REPLICATED,
    SPEEDUP_VS_SWITCH,
    TAIL_CALLS,
    TECHNIQUES,
)

# What tail calls are claimed to beat: every technique but the two musttail forms.
CONTENDERS = tuple(t for t in TECHNIQUES if t not in MUSTTAIL)
TARGET_SEED = "the benchmark target set for this project (not a seed figure)"


def _target(other: str, target: float) -> ClaimSpec:
    return ClaimSpec(
        "faster", TAIL_CALLS, than=other, by=target, metric=CYCLES, over="program",
        seed=TARGET_SEED,
        text=f"(target) `{TAIL_CALLS}` at least {target:.2f}x faster than `{other}`, in "
             "each clang build (the default: -O2), geomean over the programs")


CLAIMS = (
    ClaimSpec(
        "faster", TAIL_CALLS, than=CONTENDERS, metric=CYCLES, over="program",
        seed="S15: close to LuaJIT's hand-written interpreter; S14: over 2x the best previous",
        text=f"(S15) tail calls (`{TAIL_CALLS}`: musttail + preserve_none) give the fastest "
             "C interpreter here: in every build that has them, every other technique is "
             "slower (geomean over the programs)"),
    _target("switch", SPEEDUP_VS_SWITCH),
    _target("goto-replicated", SPEEDUP_VS_REPLICATED),
    # A handler has a frame exactly when it has stack instructions (asm.mix.has_frame
    # counts the same kinds), so one exact figure says both.
    ClaimSpec(
        "at-most", TAIL_CALLS, metric="stack-insns", value=0,
        seed="S14: 'no prologue, epilogue or stack use' in each fast path",
        text="(S14/S15) the tail-call handlers compile without prologue, epilogue or stack "
             "use"),
    # S1's pair exists only where the machine code has it: one shared `jmp *` against a
    # copy per handler (clang folds the copies without its tail-duplication flags).
    ClaimSpec(
        "faster", "goto-replicated", than="goto-shared", metric=CYCLES, over="program",
        builds="most",
        requires=(Requirement("goto-shared", "indirect-sites", "==", 1),
                  Requirement("goto-replicated", "indirect-sites", ">=", 2)),
        seed="S1, Ertl's `direct`: 6.5-6.9 cycles/dispatch shared vs 1.24-3.5 replicated",
        text="(S1) replicated dispatch (a `jmp *` in every handler) beats one shared "
             "dispatch jump: goto-replicated against goto-shared, geomean over the programs"),
)
