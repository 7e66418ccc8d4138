"""`faster` and `within`: the speed-up of `variant` over its peer (than/variant for a
cost per unit, variant/than for a rate), in each build and parameter set, with its 95%
interval over processes.

- Several peers: the one the variant leads by least in that set, the fastest there,
  and the evidence names it; a peer missing from a set is not a comparison.
- `over`: the speed-up is the geometric mean over that parameter's values, paired by
  round (`stats.geomean_ratio`): one figure per build and remaining parameters.
- `family`: the variant's other forms; in each set, the one that leads by most (the
  fastest of them), named in the evidence.
- `requires`: a set where a precondition fails (a shared dispatch with more than one
  indirect jump) is skipped and listed, not judged.
- `fastest_build`: a set is a parameter set alone; the variant's build that leads its
  strongest peer build by most is the one compared (medians factor, so that is the
  fastest against the fastest), and the evidence names both builds.

`faster` weighs each interval against `by` (`results.tally`: "every" set must reach
it, or "most"). `within` asks whether the interval lies inside [1/(1+by), 1+by]:
confirmed when every (or most) interval does, refuted when one (or most) lies wholly
outside.
"""

from __future__ import annotations

from cpulab.claims.cases import ANY_BUILD, missing, sets_of, tally_verdict, unmet, where_of
from cpulab.claims.spec import CYCLES, ClaimSpec
from cpulab.measure.stats import Ratio
from cpulab.results import Case, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, geomean_ratio
from cpulab.results.tally import Tally


def _by_build(claim: ClaimSpec, cases: list[Case]) -> dict[str, list[Case]]:
    """The cases a comparison takes together: one list, or one per build where
    `fastest_build` lets each build stand for the variant."""
    if not claim.fastest_build:
        return {"": cases}
    out: dict[str, list[Case]] = {}
    for c in cases:
        out.setdefault(c.build_label, []).append(c)
    return out


def _named(variant: str, label: str) -> str:
    return f"{variant} ({label})" if label and label != "-" else variant


def _strongest(claim: ClaimSpec, by_variant: dict[str, list[Case]]
               ) -> tuple[str, str, tuple[str, Ratio]] | None:
    """(the form and build compared, the peer it leads by least, (metric, speed-up)) in
    one set: of the variant and its family (and, with `fastest_build`, builds), the one whose
    weakest lead is largest."""
    peers = [(_named(p, label), cs) for p in claim.peers if p in by_variant
             for label, cs in _by_build(claim, by_variant[p]).items()]
    best = None
    for form in (claim.variant, *claim.family):
        for label, mine in _by_build(claim, by_variant.get(form, [])).items():
            found = [(p, s) for p, cs in peers if mine and (s := _speedup(claim, mine, cs))]
            if not found:
                continue
            peer, s = min(found, key=lambda f: f[1][1].value)
            if best is None or s[1].value > best[2][1].value:
                best = (_named(form, label), peer, s)
    return best


def _speedup(claim: ClaimSpec, mine: list[Case], peer: list[Case]) -> tuple[str, Ratio] | None:
    """(metric, the speed-up of `mine` over `peer`), paired by `over` value; None where
    a metric or a pair is missing."""
    key = (lambda c: c.params.get(claim.over)) if claim.over else (lambda c: None)
    theirs = {key(c): c for c in peer}
    pairs = [(a, theirs[key(a)]) for a in mine if key(a) in theirs]
    if not pairs:
        return None
    every = [c for p in pairs for c in p]
    metric = cycle_metric(*every) if claim.metric == CYCLES else claim.metric
    if any(metric not in c.metrics for c in every):
        return None
    higher = pairs[0][0].metrics[metric].higher_is_better
    return metric, geomean_ratio([(a.metrics[metric], b.metrics[metric]) if higher else
                                  (b.metrics[metric], a.metrics[metric]) for a, b in pairs])


def _inside(r: Ratio, tolerance: float) -> tuple[bool, bool]:
    """(the interval lies inside the band, it lies wholly outside it)."""
    lo, hi = 1 / (1 + tolerance), 1 + tolerance
    return (r.has_interval and lo <= r.low and r.high <= hi,
            r.has_interval and (r.high < lo or r.low > hi))


def ratio_claim(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    tally, rows, skipped = Tally(), [], []
    for g, by_variant in sets_of(claim, cases).items():
        if not any(f in by_variant for f in (claim.variant, *claim.family)):
            continue
        failed = unmet(claim, by_variant)
        if failed:
            skipped.append(f"{where_of(g)} ({'; '.join(failed)})")
            continue
        strongest = _strongest(claim, by_variant)
        if strongest is None:
            continue
        mine, peer, (metric, r) = strongest
        if claim.kind == "within":
            inside, outside = _inside(r, claim.by)
            tally.n += 1
            tally.above += inside
            tally.below += outside
            tally.no_interval += not r.has_interval
        else:
            tally.add(r, claim.by)
        shown = f"{metric} " if claim.metric == CYCLES else ""
        against = f" against {peer}" if len(claim.peers) > 1 or claim.fastest_build else ""
        if claim.fastest_build and mine != claim.variant:
            against = f" of {mine}{against}"
        elif claim.family:
            against = f" by {mine}{against}"
        at = (g[1] or "all") if g[0] == ANY_BUILD else where_of(g)
        rows.append(f"{at}: {shown}{format_ratio(r)}{against}")
    tail = f"; not compared, a precondition fails: {', '.join(skipped)}" if skipped else ""
    if not tally.n:
        wanted = "tsc" if claim.metric == CYCLES else claim.metric
        why = missing(cases, claim.variant, wanted)
        if why.startswith("no case"):  # a peer's reason, where one gives one
            why = next((m for p in claim.peers if not (m := missing(cases, p, wanted))
                        .startswith("no case")), why)
        if why.startswith("no case") and any(c.variant == claim.variant for c in cases):
            why = f"no case of {' or '.join(claim.peers)} beside {claim.variant}"
        if skipped:  # the cases were there: the preconditions left nothing to compare
            why = "no set meets the claim's preconditions"
        return Verdict(claim.text, "unmeasurable", why + tail)
    return Verdict(claim.text, tally_verdict(tally, claim.builds), _head(claim, tally)
                   + "; " + "; ".join(rows) + tail)


def _head(claim: ClaimSpec, tally: Tally) -> str:
    metric = ("cycles: PMU, else TSC ticks, else time" if claim.metric == CYCLES
              else claim.metric)
    peers = " or ".join(claim.peers)
    peers = f"the fastest of {peers}" if len(claim.peers) > 1 else peers
    over = f", geometric mean over {claim.over}" if claim.over else ""
    over += ", fastest build of each" if claim.fastest_build else ""
    mine = (f"the fastest of {' or '.join((claim.variant, *claim.family))}" if claim.family
            else claim.variant)
    if claim.kind == "within":
        head = (f"{mine} against {peers} ({metric}{over}; within {claim.by:.0%}): "
                f"inside in {tally.above} of {tally.n}, outside in {tally.below}")
    else:
        head = (f"{mine} over {peers} ({metric}{over}; target {claim.by:.3g}x): "
                f"reached in {tally.above} of {tally.n}, short in {tally.below}")
    if tally.no_interval:
        head += f", {tally.no_interval} without an interval (too few processes)"
    return head
