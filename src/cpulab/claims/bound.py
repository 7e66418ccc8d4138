"""`at-most` / `at-least`: the variant's median against a bound, with its 95% interval
over processes (`stats.ratio_to`); an exact figure (callgrind, asm) is compared as it
is, and so is one with a figure at or below zero (no ratio: the range of its process
figures stands for the interval, from 3 processes). A build and parameter set that fails
a precondition (`requires`: the dispatch has one shared jump) is skipped and listed,
not judged."""

from __future__ import annotations

from cpulab.claims.cases import group_of, missing, sets_of, tally_verdict, unmet, where_of
from cpulab.claims.spec import ClaimSpec
from cpulab.measure import stats
from cpulab.results import Case, Verdict
from cpulab.results.tally import Tally


def bound(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    assert claim.value is not None
    at_most = claim.kind == "at-most"
    tally, rows, skipped = Tally(), [], {}
    sets = sets_of(claim, cases)
    for c in cases:
        if c.variant != claim.variant or c.error or claim.metric not in c.metrics:
            continue
        failed = unmet(claim, sets[group_of(c)])
        if failed:
            skipped[where_of(group_of(c))] = "; ".join(failed)
            continue
        m = c.metrics[claim.metric]
        positive = all(v > 0 for v in m.sample.by_process().values())
        if claim.value > 0 and positive:  # the 95% interval over processes, in its unit
            r = stats.ratio_to(m.sample, claim.value)
            lo, hi = r.low * claim.value, r.high * claim.value
        elif m.sample.exact or len(m.sample.by_process()) >= stats.MIN_PROCESSES:
            lo, hi = min(m.sample.values), max(m.sample.values)
        else:  # too few processes for a range to stand for an interval: no decision
            r = stats.Ratio(m.median, 0.0, float("inf"), m.n, 1,
                            f"{len(m.sample.by_process())} processes, "
                            f"{stats.MIN_PROCESSES} needed")
            lo, hi = -float("inf"), float("inf")
        tally.n += 1
        tally.above += hi <= claim.value if at_most else lo >= claim.value
        tally.below += lo > claim.value if at_most else hi < claim.value
        rows.append(f"{where_of(group_of(c))}: {m.median:.4g} {m.unit}"
                    + ("" if lo == hi else f" [{lo:.4g}, {hi:.4g}]" if hi < float("inf")
                       else f" [no interval: {r.why}]"))
    tail = ("; not judged, a precondition fails: " + ", ".join(
        f"{g} ({why})" for g, why in skipped.items())) if skipped else ""
    if not tally.n:
        return Verdict(claim.text, "unmeasurable",
                       missing(cases, claim.variant, claim.metric) + tail)
    word = "at most" if at_most else "at least"
    head = (f"{claim.metric} of {claim.variant} {word} {claim.value:g} in {tally.above} "
            f"of {tally.n} (95% interval), past it in {tally.below}")
    return Verdict(claim.text, tally_verdict(tally, claim.builds),
                   head + "; " + "; ".join(rows) + tail)
