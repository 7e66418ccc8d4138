"""What the Go compiler's assembly listing (`go build -gcflags=-S`) shows of a function:
the calls into the runtime's allocator, and the extra zeroing and copying S7 found in
Go 1.2.2's code (`REP; STOSQ` re-zeroing, `REP; MOVSQ` copies from a zero template, and
the Duff's-device forms `DUFFZERO` and `DUFFCOPY` later compilers used for them). Pure
functions of the listing text, source `asm`.
"""

from __future__ import annotations

import re

# What is counted, and the instruction text (Go assembler syntax) that counts as it.
FEATURES = {
    "allocator calls": re.compile(r"\bCALL\s+runtime\.(newobject|mallocgc|new)\(SB\)"),
    "REP STOSQ": re.compile(r"\bSTOS[BQ]\b"),
    "REP MOVSQ": re.compile(r"\bMOVS[BQ]\b"),
    "DUFFZERO": re.compile(r"\bDUFFZERO\b"),
    "DUFFCOPY": re.compile(r"\bDUFFCOPY\b"),
    "vector zero stores": re.compile(r"\bMOV(UPS|OU|DQU)\s+X15,"),
    "instructions": re.compile(r"^\s+0x[0-9a-f]+ \d+ \([^)]*\)\s+(?!TEXT|FUNCDATA|PCDATA)\S"),
}
ZEROING = ("REP STOSQ", "DUFFZERO")
COPYING = ("REP MOVSQ", "DUFFCOPY")


def functions(listing: str, package: str) -> dict[str, str]:
    """Function name (without the package path) -> its listing, for `package`'s own."""
    out: dict[str, str] = {}
    current = None
    for line in listing.splitlines():
        m = re.match(rf"^{re.escape(package)}\.(\w+) STEXT", line)
        if m:
            current = m.group(1)
            out[current] = ""
        elif current and line.startswith(("\t", " ")):
            out[current] += line + "\n"
        elif not line.startswith(("\t", " ")):
            current = None
    return out


def features(body: str) -> dict[str, int]:
    """How often each feature occurs in one function's listing (`rel` relocation lines
    are not instructions)."""
    lines = [ln for ln in body.splitlines() if not ln.strip().startswith("rel ")]
    return {name: sum(1 for ln in lines if rx.search(ln)) for name, rx in FEATURES.items()}
