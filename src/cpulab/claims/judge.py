"""The one judge: a claim (`claims.spec`) and a run's cases in, a verdict out, by the
same rules for a built-in experiment and a user's described one. Pure functions of the
cases and the machine-code facts, so they are tested with made-up cases; the intervals
are the process-level ones of `measure.stats`. Each kind is judged in its own module:
`ratio` (faster, within), `bound` (at-most, at-least), `machine_code` (no-instruction),
`growth` (growth), `share` (share).

A claim with `where` is judged on the cases whose parameters it names alone; a run
with none of them (a `--quick` run sweeps fewer values) makes it `unmeasurable`, saying
which values the run had. A metric a case lacks (no PMU, no valgrind, a failed build)
makes the claim `unmeasurable` with the reason the case gives, never a comparison with
zero.
"""

from __future__ import annotations

from cpulab.claims.bound import bound
from cpulab.claims.growth import growth
from cpulab.claims.machine_code import ASM_FACT, no_instruction
from cpulab.claims.rank import rank_claim
from cpulab.claims.ratio import ratio_claim
from cpulab.claims.share import share
from cpulab.claims.spec import ClaimSpec, where_text
from cpulab.results import Case, Evidence, Verdict

# kind -> the judge of that kind over the chosen cases
_MEASURED = {"faster": ratio_claim, "within": ratio_claim, "at-most": bound,
             "at-least": bound, "growth": growth, "share": share, "rank": rank_claim}


def judge(claim: ClaimSpec, cases: list[Case], evidence: Evidence) -> Verdict:
    """The verdict on `claim` from the run's cases and evidence, the seed's figure beside."""
    v = _judge(claim, cases, evidence)
    v.seed = claim.seed
    return v


def _judge(claim: ClaimSpec, cases: list[Case], evidence: Evidence) -> Verdict:
    if claim.kind == "no-instruction":
        return no_instruction(claim, evidence.facts.get(ASM_FACT, {}))
    chosen = [c for c in cases if claim.applies_to(c.params)]
    if claim.where and not chosen:
        had = "; ".join(f"{k}={', '.join(sorted({str(c.params.get(k)) for c in cases}))}"
                        for k in claim.where) if cases else "none"
        return Verdict(claim.text, "unmeasurable", f"no case of this run has "
                       f"{where_text(claim.where)} (the claim's `where`); its cases have: "
                       f"{had}")
    verdict = _MEASURED[claim.kind](claim, chosen)
    return _every_value(claim, chosen, verdict) if claim.every_value else verdict


def _every_value(claim: ClaimSpec, chosen: list[Case], v: Verdict) -> Verdict:
    """A claim "at every size" that the run measured at some of its sizes only: what
    was judged is shown, but it confirms nothing; a set short of the target still
    refutes a claim on "every" set."""
    had = {(k, str(c.params.get(k))) for c in chosen if c.variant == claim.variant
           and not c.error for k in claim.where}
    absent = {k: [x for x in vs if (k, x) not in had] for k, vs in claim.where.items()}
    absent = {k: xs for k, xs in absent.items() if xs}
    if not absent or (v.verdict == "refuted" and claim.builds == "every"):
        return v
    return Verdict(claim.text, "unmeasurable", f"the claim needs every value of its "
                   f"`where`; no case of {claim.variant} has {where_text(absent)}; on "
                   f"the rest, {v.verdict}: {v.evidence}")
