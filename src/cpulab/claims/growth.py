"""`growth`: how a cost grows with a size. The exponent k of metric ~ c * over^k,
fitted by least squares on log axes (`stats.loglog_slope`) to the variant's medians at
each value of the parameter `over`, per build and remaining parameters; at least three
values are needed for a fit with a standard error.

The claim is that k lies below `value` ("subquadratic": below 2): a set reaches it
where k plus two standard errors lies below, falls short where k less two does not;
between, it decides nothing. The spread is that of the points about the fitted line
(one median per size, each over the processes that measured it), the only one a fit
of a few sizes has.

A parameter that moves with `over` (the bits beside the digits of one number) names
the same size: it is no set of its own.
"""

from __future__ import annotations

from cpulab.claims.cases import missing, tally_verdict, where_of
from cpulab.claims.spec import ClaimSpec
from cpulab.measure.stats import loglog_slope
from cpulab.results import Case, Verdict
from cpulab.results.tally import Tally

MIN_SIZES = 3  # points for a fitted line with a standard error
SPREAD = 2.0  # standard errors either side: about a 95% interval


def _sizes_of(cases: list[Case], over: str) -> set[str]:
    """The parameters besides `over` that take one value at each of its values."""
    seen: dict[str, dict[str, set[str]]] = {}
    for c in cases:
        for k, v in c.params.items():
            if k != over:
                seen.setdefault(k, {}).setdefault(str(c.params.get(over)), set()).add(str(v))
    return {k for k, at in seen.items() if all(len(vs) == 1 for vs in at.values())}


def fit_series(claim: ClaimSpec, cases: list[Case]
               ) -> dict[tuple[str, str], dict[float, float]]:
    """build and remaining parameters -> {value of `over`: the variant's median}."""
    assert claim.over is not None
    mine = [c for c in cases if c.variant == claim.variant and not c.error
            and claim.metric in c.metrics and claim.over in c.params]
    same = _sizes_of(mine, claim.over) | {claim.over}
    out: dict[tuple[str, str], dict[float, float]] = {}
    for c in mine:
        rest = ", ".join(f"{k}={v}" for k, v in sorted(c.params.items()) if k not in same)
        out.setdefault((c.build_label, rest), {})[float(c.params[claim.over])] = \
            c.metrics[claim.metric].median
    return out


def growth(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    assert claim.value is not None and claim.over is not None
    tally, rows, short = Tally(), [], []
    for g, pts in fit_series(claim, cases).items():
        if len(pts) < MIN_SIZES:
            short.append(f"{where_of(g)} ({len(pts)})")
            continue
        xs = sorted(pts)
        k, se = loglog_slope(xs, [pts[x] for x in xs])
        tally.n += 1
        tally.above += k + SPREAD * se < claim.value
        tally.below += k - SPREAD * se >= claim.value
        rows.append(f"{where_of(g)}: k = {k:.3f} ± {se:.3f} ({claim.over} {xs[0]:,.0f} .. "
                    f"{xs[-1]:,.0f}, {len(xs)} values)")
    tail = (f"; fewer than {MIN_SIZES} values of {claim.over}: {', '.join(short)}"
            if short else "")
    if not tally.n:
        why = (missing(cases, claim.variant, claim.metric) if not short else
               f"no build has {MIN_SIZES} values of {claim.over} to fit")
        return Verdict(claim.text, "unmeasurable", why + tail)
    head = (f"exponent of {claim.metric} against {claim.over} of {claim.variant} "
            f"(k ± {SPREAD:g} s.e.) below {claim.value:g} in {tally.above} of {tally.n}, "
            f"not below in {tally.below}")
    return Verdict(claim.text, tally_verdict(tally, claim.builds),
                   head + "; " + "; ".join(rows) + tail)
