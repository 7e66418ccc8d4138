"""Claims in one vocabulary for every experiment, and the one judge of them."""

from cpulab.claims.judge import ASM_FACT, MNEMONIC, count_of, judge
from cpulab.claims.spec import CLAIM_KINDS, CYCLES, ClaimSpec, where_text

__all__ = ["ASM_FACT", "CLAIM_KINDS", "CYCLES", "MNEMONIC", "ClaimSpec", "count_of", "judge",
           "where_text"]
