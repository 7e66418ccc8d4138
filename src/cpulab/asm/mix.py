"""Classify instructions into the categories the seeds argue with, and count them."""

from __future__ import annotations

from collections import Counter

from cpulab.asm.disasm import Function, Insn, disassemble

CATEGORIES = (
    "instructions", "loads", "stores", "mov", "add", "mul", "div", "xor-zero",
    "jmp-direct", "jcc", "jmp-indirect", "call-direct", "call-indirect", "ret",
    "push", "pop", "spills", "reloads", "stack-adjust",
)

_ADD = {"add", "adc", "adcx", "adox", "sub", "sbb", "inc", "dec", "neg"}
_MUL = {"mul", "imul", "mulx"}
_DIV = {"div", "idiv"}


def _is_mov(m: str) -> bool:
    """Integer register moves (the seeds' `mov` count); vector moves are not counted."""
    return m in ("mov", "movabs", "movzx", "movsx", "movsxd") or m.startswith("cmov")


def classify(insn: Insn, frame_pointer: bool) -> list[str]:
    """The categories one instruction belongs to (several may apply)."""
    m = insn.mnemonic
    cats: list[str] = []
    mem = [o for o in insn.operands if o.kind == "mem"]
    if m not in ("lea", "nop") and not m.startswith("prefetch"):
        if any(o.read for o in mem):
            cats.append("loads")
        if any(o.write for o in mem):
            cats.append("stores")
    if _is_mov(m):
        cats.append("mov")
    if m in _ADD:
        cats.append("add")
    if m in _MUL:
        cats.append("mul")
    if m in _DIV:
        cats.append("div")
    if m in ("xor", "pxor", "vpxor", "xorps") and len(insn.operands) == 2 and \
            insn.operands[0].kind == "reg" and insn.operands[0].reg == insn.operands[1].reg:
        cats.append("xor-zero")
    if m == "jmp":
        cats.append("jmp-direct" if insn.operands and insn.operands[0].kind == "imm"
                    else "jmp-indirect")
    elif m.startswith("j"):
        cats.append("jcc")
    if m == "call":
        cats.append("call-direct" if insn.operands and insn.operands[0].kind == "imm"
                    else "call-indirect")
    if m in ("ret", "retq"):
        cats.append("ret")
    if m == "push":
        cats.append("push")
    if m == "pop":
        cats.append("pop")
    stack_bases = {"rsp"} | ({"rbp"} if frame_pointer else set())
    if mem and mem[0].base in stack_bases and m not in ("push", "pop", "call", "ret", "lea"):
        reg_src = any(o.kind == "reg" for o in insn.operands)
        if mem[0].write and reg_src:
            cats.append("spills")
        elif mem[0].read and m.startswith("mov"):
            cats.append("reloads")
    if any(o.kind == "reg" and o.reg == "rsp" and o.write for o in insn.operands) and \
            m in ("sub", "add", "and", "lea"):
        cats.append("stack-adjust")
    return cats


def _uses_frame_pointer(insns: list[Insn]) -> bool:
    """True when the function sets up rbp as a frame pointer (mov rbp, rsp)."""
    return any(i.mnemonic == "mov" and i.op_str.replace(" ", "") == "rbp,rsp"
               for i in insns[:8])


def instruction_mix(fn: Function) -> dict[str, int]:
    insns = disassemble(fn)
    fp = _uses_frame_pointer(insns)
    c: Counter[str] = Counter()
    c["instructions"] = len(insns)
    for i in insns:
        c.update(classify(i, fp))
    return {k: c.get(k, 0) for k in CATEGORIES}


def has_frame(mix: dict[str, int]) -> bool:
    """A prologue/epilogue or any stack traffic: what S14/S15 say a handler must not have."""
    return any(mix[k] for k in ("push", "pop", "spills", "reloads", "stack-adjust"))
