"""`best-faster`: the fastest of a family of variants (`variant` and `family`) against
the fastest of `than`, in each set, with its 95% interval over processes: "read() with a
suitable buffer beats every mmap flavour" names no one buffer in advance, and "C beats
Go" takes the fastest C build. The family member chosen is the one whose speed-up over
its strongest peer is largest, and the evidence names both.

- Sets: the build and parameters, as for `faster`; `across_builds` makes the set the
  parameters alone, every build's case of a variant a candidate of its own (the
  fastest build), named with its build. Cases compared across builds must have been
  measured in the same processes' rounds (interleaved) to be paired by round.
- `builds`: "every" or "most" set must reach `by`, as for `faster`, or "some": one set
  that reaches it confirms, and every set falling short refutes (a rebuttal of "X is
  faster in general" needs one place where it is not).
"""

from __future__ import annotations

from cpulab.claims.cases import missing, tally_verdict
from cpulab.claims.spec import CYCLES, ClaimSpec
from cpulab.measure import stats
from cpulab.measure.stats import Ratio
from cpulab.results import Case, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio
from cpulab.results.tally import Tally


def _set_of(claim: ClaimSpec, c: Case) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted(c.params.items()))
    if claim.across_builds:
        return params or "every build"
    return f"{c.build_label}, {params}" if params else c.build_label


def _name(claim: ClaimSpec, c: Case) -> str:
    return f"{c.variant} ({c.build_label})" if claim.across_builds else c.variant


def _speedup(claim: ClaimSpec, mine: Case, peer: Case) -> tuple[str, Ratio] | None:
    metric = cycle_metric(mine, peer) if claim.metric == CYCLES else claim.metric
    if metric not in mine.metrics or metric not in peer.metrics:
        return None
    a, b = mine.metrics[metric], peer.metrics[metric]
    return metric, stats.ratio(a.sample, b.sample) if a.higher_is_better else \
        stats.ratio(b.sample, a.sample)


def _best(claim: ClaimSpec, mine: list[Case], peers: list[Case]
          ) -> tuple[Case, Case, str, Ratio] | None:
    """(the family's case, its strongest peer, metric, speed-up): the member that leads
    the fastest peer by most."""
    found = []
    for a in mine:
        against = [(b, s) for b in peers if (s := _speedup(claim, a, b))]
        if against:
            b, (metric, r) = min(against, key=lambda f: f[1][1].value)
            found.append((a, b, metric, r))
    return max(found, key=lambda f: f[3].value) if found else None


def best_claim(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    family, peers = {claim.variant, *claim.family}, set(claim.peers)
    sets: dict[str, tuple[list[Case], list[Case]]] = {}
    for c in cases:
        if not c.error and (c.variant in family or c.variant in peers):
            mine, theirs = sets.setdefault(_set_of(claim, c), ([], []))
            (mine if c.variant in family else theirs).append(c)
    tally, rows = Tally(), []
    for where, (mine, theirs) in sets.items():
        best = _best(claim, mine, theirs)
        if best is None:
            continue
        a, b, metric, r = best
        tally.add(r, claim.by)
        shown = f"{metric} " if claim.metric == CYCLES else ""
        rows.append(f"{where}: {_name(claim, a)} over {_name(claim, b)} {shown}"
                    f"{format_ratio(r)}")
    if not tally.n:
        wanted = "tsc" if claim.metric == CYCLES else claim.metric
        why = ""
        for v in (claim.variant, *claim.family, *claim.peers):
            why = missing(cases, v, wanted)
            if not why.startswith("no case"):
                break
        return Verdict(claim.text, "unmeasurable", why if why and not why.startswith(
            "no case") else f"no set has a case of {' or '.join(sorted(family))} and of "
            f"{' or '.join(claim.peers)} with {wanted}")
    return Verdict(claim.text, _verdict(tally, claim.builds), _head(claim, tally) + "; "
                   + "; ".join(rows))


def _verdict(tally: Tally, builds: str):
    if builds != "some":
        return tally_verdict(tally, builds)
    if tally.above:
        return "confirmed"
    return "refuted" if tally.below == tally.n else "inconclusive"


def _head(claim: ClaimSpec, tally: Tally) -> str:
    metric = ("cycles: PMU, else TSC ticks, else time" if claim.metric == CYCLES
              else claim.metric)
    side = " or ".join((claim.variant, *claim.family))
    builds = ", the fastest build" if claim.across_builds else ""
    head = (f"the fastest of {side} over the fastest of {' or '.join(claim.peers)} "
            f"({metric}{builds}; target {claim.by:g}x, in {claim.builds} set): reached in "
            f"{tally.above} of {tally.n}, short in {tally.below}")
    if tally.no_interval:
        head += f", {tally.no_interval} without an interval (too few processes)"
    return head
