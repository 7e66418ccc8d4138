"""`rank`: the variant, and its `family` after it, hold the first places among all the
variants of a set, ranked by `metric` largest first ("opt_aref is the hottest
instruction", "the seed's three are the three hottest"). The rank of a figure is a
comparison like any other: the weakest member's figure over the strongest other
variant's, with its 95% interval over processes (`stats.ratio`), must reach `by` (1:
ahead). A set whose ratio straddles it decides nothing, and so does one where either
figure is 0 in some process (no ratio: an instruction without a sample in one profile);
a member with no figure where others have one is not ranked (refutes that set); a
member that failed decides nothing.
"""

from __future__ import annotations

from cpulab.claims.cases import group_of, missing, tally_verdict, where_of
from cpulab.claims.spec import ClaimSpec
from cpulab.measure import stats
from cpulab.results import Case, Verdict
from cpulab.results.ratios import format_ratio
from cpulab.results.tally import Tally

SHOWN = 5  # the first places each set's evidence lists


def rank_claim(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    members = (claim.variant, *claim.family)
    sets: dict[tuple[str, str], list[Case]] = {}
    for c in cases:
        sets.setdefault(group_of(c), []).append(c)
    tally, rows = Tally(), []
    for g, here in sets.items():
        ranked = sorted((c for c in here if not c.error and claim.metric in c.metrics),
                        key=lambda c: -c.metrics[claim.metric].median)
        mine = [c for c in ranked if c.variant in members]
        others = [c for c in ranked if c.variant not in members]
        if not others:
            continue
        places = {c.variant: i + 1 for i, c in enumerate(ranked)}
        head = (f"{where_of(g)}: " + ", ".join(f"{m} #{places.get(m, '-')}" for m in members)
                + "; first: " + "; ".join(f"{i + 1}. {c.variant} "
                                          f"{c.metrics[claim.metric].median:.4g}"
                                          for i, c in enumerate(ranked[:SHOWN])))
        if len(mine) == len(members):
            weakest, strongest = mine[-1], others[0]
            try:
                r = stats.ratio(weakest.metrics[claim.metric].sample,
                                strongest.metrics[claim.metric].sample)
            except ValueError:  # a process where one had no figure (0 samples): no ratio
                tally.n += 1
                tally.no_interval += 1
                rows.append(f"{head}; {weakest.variant} over {strongest.variant}: no ratio, "
                            "a figure of 0 in some process")
                continue
            tally.add(r, claim.by)
            rows.append(f"{head}; {weakest.variant} over {strongest.variant}: "
                        f"{format_ratio(r)}")
            continue
        tally.n += 1
        failed = {c.variant for c in here if c.error} & set(members)
        if failed:  # a member that failed decides nothing
            tally.no_interval += 1
            rows.append(f"{head} ({', '.join(sorted(failed))} failed)")
        else:
            tally.below += 1
            rows.append(f"{head} (not ranked: "
                        f"{', '.join(m for m in members if m not in places)})")
    if not tally.n:
        why = missing(cases, claim.variant, claim.metric)
        if why.startswith("no case"):
            failed_case = next((c for c in cases if c.error), None)
            why = (f"{failed_case.variant}: {failed_case.error.splitlines()[0]}"
                   if failed_case and failed_case.error else
                   f"no set has {claim.variant} and another variant with {claim.metric}")
        return Verdict(claim.text, "unmeasurable", why)
    who = " and ".join(members)
    place = "first" if not claim.family else f"the first {len(members)} places"
    head = (f"{who} in {place} by {claim.metric}, largest first (the last of them over the "
            f"next, target {claim.by:g}x): held in {tally.above} of {tally.n}, lost in "
            f"{tally.below}")
    if tally.no_interval:
        head += f", {tally.no_interval} undecided for want of an interval or a figure"
    return Verdict(claim.text, tally_verdict(tally, claim.builds), head + "; "
                   + "; ".join(rows))
