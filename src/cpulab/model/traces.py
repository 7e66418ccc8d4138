"""Branch traces for the models: Ertl's `direct` program and the VM's dispatch records."""

from __future__ import annotations

import numpy as np

# Anton Ertl's `direct` benchmark (S1): 10 dispatches per iteration; `loop` jumps back.
ERTL_DIRECT_PROGRAM = ("next1", "next2", "next1", "next3", "next1", "next4", "next1",
                       "next5", "next1", "loop")
_OPS = ("next1", "next2", "next3", "next4", "next5", "loop")


def ertl_direct_trace(iterations: int, shared: bool) -> tuple[np.ndarray, np.ndarray]:
    """(sites, targets) of `iterations` runs of the program.

    Each instruction's dispatch jumps to the next instruction's handler (target = its
    opcode). With `shared`, every dispatch is one jump site (0: a switch, or gcc 4.8's
    shared `jmp *`); otherwise each handler has its own (site = 1 + the dispatching
    handler's opcode: true direct threading). A last-target predictor then misses every
    dispatch with one site (consecutive targets always differ) and 5 of 10 with one per
    handler (only next1's jump changes target: next2, next3, next4, next5, loop).
    """
    ops = np.array([_OPS.index(o) for o in ERTL_DIRECT_PROGRAM], dtype=np.uint32)
    cur = np.tile(ops, iterations)
    targets = np.roll(cur, -1)
    sites = np.zeros_like(cur) if shared else cur + 1
    return sites, targets


def split_vm_trace(records) -> tuple[np.ndarray, np.ndarray]:
    """(sites, opcodes) of VM dispatch records (see VM_TRACE_* in vm.h)."""
    r = np.asarray(records, dtype=np.uint32)
    return (r >> 8) & 0xFFFF, r & 0xFF
