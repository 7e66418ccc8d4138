"""`no-instruction`: the count of an instruction category (`cpulab asm`'s) or mnemonic
in the variant's hot functions, per build. Exact, so one build with it refutes."""

from __future__ import annotations

from cpulab.asm import CATEGORIES
from cpulab.claims.spec import ClaimSpec
from cpulab.results import Verdict

# The evidence fact holding each variant's machine-code counts per build:
# {variant: {build label: {"counts": {category or mnemonic: n}, "functions": [...]}
#                         | {"error": why}}}
ASM_FACT = "hot-code"
# Mnemonics are kept beside the categories under this prefix ("=cmovne").
MNEMONIC = "="


def count_of(counts: dict[str, int], instruction: str) -> int:
    """A category of `cpulab asm` (jcc, div, spills) as counted, else the instructions
    whose mnemonic starts with it (`cmov` counts cmovne, cmovl, ...)."""
    if instruction in CATEGORIES:
        return counts.get(instruction, 0)
    return sum(n for k, n in counts.items()
               if k.startswith(MNEMONIC) and k[len(MNEMONIC):].startswith(instruction))


def no_instruction(claim: ClaimSpec, hot_code: dict) -> Verdict:
    ins = claim.instruction or ""
    per_build = hot_code.get(claim.variant, {})
    rows, found, read = [], 0, 0
    errors = []
    for label, facts in per_build.items():
        if "error" in facts:
            errors.append(f"{label}: {facts['error']}")
            continue
        read += 1
        n = count_of(facts["counts"], ins)
        found += n > 0
        rows.append(f"{label}: {n} in {', '.join(facts['functions'])}")
    if not read:
        why = "; ".join(errors) or f"no build of {claim.variant} was read"
        return Verdict(claim.text, "unmeasurable", f"no machine code: {why}")
    kind = "refuted" if found else "confirmed"
    head = f"`{ins}` in {found} of {read} builds (source asm)"
    return Verdict(claim.text, kind, head + ": " + "; ".join(rows + errors))
