"""VM instruction by function name: one function per instruction.

Tail-call interpreters (and call-threaded ones) give every instruction its own
function: `op_add`, `op_jmp`, ... A sample belongs to the innermost frame whose function
is a handler, so a handler inlined into another (a direct `return op_next(...)` that
the compiler inlined) still counts as itself. This needs no source and no line table:
without DWARF, perf's own symbol name (from the ELF symbol table) serves.

Which functions are handlers is a name pattern; the default knows the common prefixes,
and `--functions REGEX` names others.
"""

from __future__ import annotations

import re

from cpulab.opprof.regions import Attribution
from cpulab.opprof.symbolize import Frame

DEFAULT_HANDLER_PATTERN = r"^(?:op|OP|insn|INSN|handler|Handler|bc|BC|vmop|VMOP)_\w+$"


class FunctionMapper:
    def __init__(self, pattern: str = DEFAULT_HANDLER_PATTERN) -> None:
        self.pattern = pattern
        self._rx = re.compile(pattern)

    def is_handler(self, name: str) -> bool:
        return bool(name) and bool(self._rx.search(name))

    def attribute(self, frames: list[Frame], perf_sym: str) -> Attribution:
        for f in reversed(frames):
            if self.is_handler(f.function):
                return Attribution("insn", f.function, f)
        if not frames:
            # perf prints local symbols as `name` and, for clones, `name.cold` etc.
            base = perf_sym.split(".", 1)[0]
            if self.is_handler(base):
                return Attribution("insn", base, None)
        return Attribution("rest", "")
