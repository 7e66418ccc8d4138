"""Code that several VM instructions reach: the compiler's merged tails, found from the
machine code.

Attribution by source line assumes that every machine instruction belongs to the line
that DWARF gives it. Compilers break that assumption on purpose: gcc's cross-jumping
(on at -O2) merges identical instruction tails, so the `vmfetch(); goto *disptab[op]`
that ends each of Lua's 83 handlers exists in a few copies only, each carrying the line
of one arbitrary handler. Counting those samples by line would credit, say, OP_TFORLOOP
with 13% of a script that never runs a generic `for` (measured on Lua 5.4.8, gcc 12 -O2).

So within each interpreter function we follow the control flow of the machine code
(capstone, x86-64): every machine instruction gets the set of VM instructions whose
code can reach it by direct jumps and fall-through, never through an indirect jump
(that is dispatch: it chooses the next instruction). Where the entries are known
(computed goto: the DWARF labels that the dispatch table points to, `L_OP_ADD` for Lua's
`vmcase(OP_ADD)`), reach starts at them and lines are not needed; otherwise (a switch)
it starts from the code each instruction's lines own, and dispatch code (lines outside
every instruction) passes nothing on, since a switch's loop head is every case's
successor. A sample then counts for a VM instruction only where that set is the
instruction alone; code with no line of its own (line 0)
that one instruction alone reaches is credited to it; code that several reach is
shared, and aggregate.py splits its samples.

Machine code that is not x86-64 is left to the line table (no refinement).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

DISPATCH_OWNER = "\0dispatch"  # owner of code outside every instruction region
MAX_FUNCTION_BYTES = 4 << 20


@dataclass(frozen=True)
class Insn:
    addr: int
    size: int
    kind: str  # seq, pad (alignment nop), jump (unconditional), cjump, ijump (indirect),
    # call, end
    target: int | None = None


_ENDS = {"ret", "retf", "iret", "iretq", "ud2", "hlt", "int3", "sysret"}


def decode_x86_64(code: bytes, base: int) -> list[Insn]:
    from capstone import CS_ARCH_X86, CS_MODE_64, Cs

    md = Cs(CS_ARCH_X86, CS_MODE_64)
    out: list[Insn] = []
    pos = 0
    while pos < len(code):
        last = pos
        for addr, size, mnem, ops in md.disasm_lite(code[pos:], base + pos):
            out.append(_classify(addr, size, mnem, ops))
            last = addr + size - base
        pos = last if last > pos else pos + 1  # skip a byte capstone cannot decode
    return out


def _classify(addr: int, size: int, mnem: str, ops: str) -> Insn:
    m = mnem.split()[-1] if mnem.startswith(("bnd ", "notrack ")) else mnem
    if m in _ENDS or m.startswith("ret"):
        return Insn(addr, size, "end")
    if m.startswith("j") or m.startswith("loop"):
        target = _imm(ops)
        if target is None:
            return Insn(addr, size, "ijump")
        return Insn(addr, size, "jump" if m == "jmp" else "cjump", target)
    if m == "call":
        return Insn(addr, size, "call")
    if "nop" in m or (m == "xchg" and ops.replace(" ", "") == "ax,ax"):
        return Insn(addr, size, "pad")
    return Insn(addr, size, "seq")


def _imm(ops: str) -> int | None:
    ops = ops.strip()
    try:
        return int(ops, 16) if ops.startswith("0x") else int(ops)
    except ValueError:
        return None


def _successors(insns: list[Insn], same_owner: Callable[[int, int], bool]
                ) -> dict[int, list[int]]:
    by_addr = {i.addr for i in insns}
    succ: dict[int, list[int]] = {}
    for k, i in enumerate(insns):
        nxt = insns[k + 1].addr if k + 1 < len(insns) else None
        s = []
        if i.kind in ("jump", "cjump") and i.target in by_addr:
            s.append(i.target)
        fall = i.kind in ("seq", "pad", "cjump") or (
            # a call returns to the code of the same handler; a different owner after a
            # call means the callee does not return (luaG_runerror) and the next bytes
            # belong to someone else
            i.kind == "call" and nxt is not None and same_owner(i.addr, nxt))
        if fall and nxt is not None and nxt == i.addr + i.size:
            s.append(nxt)
        succ[i.addr] = s
    return succ


def _propagate(succ: dict[int, list[int]], reach: dict[int, set[str]],
               blocked: Callable[[int], bool]) -> dict[int, frozenset[str]]:
    work = [a for a, r in reach.items() if r]
    while work:
        a = work.pop()
        if blocked(a):
            continue
        for b in succ[a]:
            if not reach[a] <= reach[b]:
                reach[b] |= reach[a]
                work.append(b)
    return {a: frozenset(r) for a, r in reach.items()}


def reach_sets(insns: list[Insn], owner: Callable[[int], str | None]
               ) -> dict[int, frozenset[str]]:
    """For each machine instruction, the VM instructions whose code reaches it, starting
    from the code that each instruction's lines own (switch interpreters, whose entries
    are not labelled).

    owner(addr) is the VM instruction of the address by its line, DISPATCH_OWNER for the
    interpreter's own code, None where the line says nothing (line 0). Dispatch code
    passes nothing on: a switch's loop head is every case's successor.
    """
    own = {i.addr: owner(i.addr) for i in insns}
    succ = _successors(insns, lambda a, b: own[a] == own[b])
    # alignment padding after a jump is never executed: it carries a line, but must not
    # lead its owner into the next handler's code (gcc aligns loop heads with nops)
    reach = {i.addr: ({own[i.addr]} if own[i.addr] not in (None, DISPATCH_OWNER)
                      and i.kind != "pad" else set()) for i in insns}
    return _propagate(succ, reach, lambda a: own[a] == DISPATCH_OWNER)


def reach_from_entries(insns: list[Insn], entries: dict[int, str],
                       owner: Callable[[int], str | None]) -> dict[int, frozenset[str]]:
    """For each machine instruction, the VM instructions whose entry (the address of the
    label that the dispatch table jumps to) reaches it without an indirect jump.

    With entries known, lines decide nothing on reachable code: gcc's scheduling mixes
    the lines of merged code even inside one handler's straight-line code."""
    own = {i.addr: owner(i.addr) for i in insns}
    succ = _successors(insns, lambda a, b: own[a] == own[b])
    reach: dict[int, set[str]] = {i.addr: set() for i in insns}
    for a, name in entries.items():
        if a in reach:
            reach[a].add(name)
    return _propagate(succ, reach, lambda a: False)


def refine(owner: str | None, reach: frozenset[str] | None, by_entry: bool
           ) -> frozenset[str]:
    """The VM instructions one address may belong to: one (exclusive code), several
    (shared code), or none (the interpreter's own code)."""
    by_line = frozenset() if owner in (None, DISPATCH_OWNER) else frozenset({owner})
    if reach is None:  # not analysed: trust the line
        return by_line
    if by_entry:
        return reach or by_line  # code no entry reaches: behind an indirect jump
    if owner == DISPATCH_OWNER:
        return frozenset()
    return reach


def analyse(ranges: Iterable[tuple[int, int]], read: Callable[[int, int], bytes | None],
            owner: Callable[[int], str | None], machine: str,
            entries: dict[int, str] | None = None) -> dict[int, frozenset[str]] | None:
    """Reach sets of a function given by its address ranges, from the entries where
    known (at least two), else from the lines' owners; None if not analysable."""
    if machine != "EM_X86_64":
        return None
    insns: list[Insn] = []
    for lo, hi in sorted(ranges):
        if hi - lo > MAX_FUNCTION_BYTES:
            return None
        code = read(lo, hi - lo)
        if code is None:
            return None
        insns += decode_x86_64(code, lo)
    if entries and len(entries) >= 2:
        return reach_from_entries(insns, entries, owner)
    return reach_sets(insns, owner)
