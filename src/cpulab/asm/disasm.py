"""ELF function lookup (pyelftools) and x86-64 decoding (capstone)."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

import capstone
from capstone import x86 as csx86
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile


class DisasmError(RuntimeError):
    pass


@dataclass(frozen=True)
class Function:
    name: str
    address: int
    size: int
    code: bytes


@dataclass(frozen=True)
class Operand:
    kind: str  # "reg" | "imm" | "mem"
    reg: str | None = None  # for reg
    base: str | None = None  # for mem
    index: str | None = None
    disp: int = 0
    read: bool = False
    write: bool = False


@dataclass(frozen=True)
class Insn:
    address: int
    mnemonic: str
    op_str: str
    operands: tuple[Operand, ...]
    groups: frozenset[str]

    def __str__(self) -> str:
        return f"{self.address:#x}: {self.mnemonic} {self.op_str}".rstrip()


def find_functions(binary: str | Path, patterns: list[str]) -> list[Function]:
    """Functions whose names match any glob in `patterns`, in address order."""
    try:
        with open(binary, "rb") as f:
            elf = ELFFile(f)
            if elf["e_machine"] != "EM_X86_64":
                raise DisasmError(f"{binary}: {elf['e_machine']} is not x86-64; "
                                  "only x86-64 disassembly is supported")
            symtab = elf.get_section_by_name(".symtab")
            if symtab is None:
                raise DisasmError(f"{binary}: no symbol table (stripped binary?)")
            found: dict[int, Function] = {}
            for sym in symtab.iter_symbols():
                if sym["st_info"]["type"] != "STT_FUNC" or sym["st_size"] == 0:
                    continue
                if not any(fnmatch.fnmatchcase(sym.name, p) for p in patterns):
                    continue
                sec = elf.get_section(sym["st_shndx"])
                off = sym["st_value"] - sec["sh_addr"] + sec["sh_offset"]
                f.seek(off)
                found[sym["st_value"]] = Function(sym.name, sym["st_value"], sym["st_size"],
                                                  f.read(sym["st_size"]))
    except (OSError, ELFError) as e:
        raise DisasmError(f"{binary}: cannot read ELF: {e}") from e
    return [found[a] for a in sorted(found)]


_CS: capstone.Cs | None = None


def _cs() -> capstone.Cs:
    global _CS
    if _CS is None:
        _CS = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
        _CS.detail = True
    return _CS


def disassemble(fn: Function) -> list[Insn]:
    cs = _cs()
    out = []
    for i in cs.disasm(fn.code, fn.address):
        ops = []
        for op in i.operands:
            acc = getattr(op, "access", 0)
            read, write = bool(acc & capstone.CS_AC_READ), bool(acc & capstone.CS_AC_WRITE)
            if op.type == csx86.X86_OP_REG:
                ops.append(Operand("reg", reg=i.reg_name(op.reg), read=read, write=write))
            elif op.type == csx86.X86_OP_IMM:
                ops.append(Operand("imm", disp=op.imm))
            elif op.type == csx86.X86_OP_MEM:
                m = op.mem
                ops.append(Operand(
                    "mem", base=i.reg_name(m.base) if m.base else None,
                    index=i.reg_name(m.index) if m.index else None, disp=m.disp,
                    read=read, write=write,
                ))
        groups = frozenset(i.group_name(g) for g in i.groups)
        out.append(Insn(i.address, i.mnemonic, i.op_str, tuple(ops), groups))
    return out
