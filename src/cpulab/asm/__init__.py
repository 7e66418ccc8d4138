"""Machine-code evidence: disassemble named functions of a built binary, count what matters.

The seeds argue from listings (a shared `jmp *reg` in S1, spills in S11, one `div` or two
in S5); `instruction_mix` gives the same evidence for this machine's build, using
pyelftools for symbols and capstone for decoding (no hand-written x86 decoder).
"""

from cpulab.asm.disasm import DisasmError, Insn, disassemble, find_functions
from cpulab.asm.mix import CATEGORIES, instruction_mix

__all__ = ["CATEGORIES", "DisasmError", "Insn", "disassemble", "find_functions",
           "instruction_mix"]
