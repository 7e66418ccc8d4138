"""Claims in one vocabulary for every experiment, and the one judge of them."""

from cpulab.claims.judge import judge
from cpulab.claims.machine_code import ASM_FACT, MNEMONIC, count_of
from cpulab.claims.spec import CLAIM_KINDS, CYCLES, ClaimSpec, Requirement, where_text

__all__ = ["ASM_FACT", "CLAIM_KINDS", "CYCLES", "MNEMONIC", "ClaimSpec", "Requirement",
           "count_of", "judge", "where_text"]
