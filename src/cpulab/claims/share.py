"""`share`: the part of the variant's figure that its peer does not account for,
1 - than/variant ("the trap is most of a fault": 1 - populate/fault), in each build and
parameter set, with the 95% interval of the ratio over processes (paired by round),
against `value` (0.5: "most"): reached where the interval lies wholly above it, short
where wholly below.

A share is a result only inside [0, 1], value and interval. Outside it the peer took
longer than the whole (a run saw populate-read at 8,897 ns/page of wall time but 1,301
ns of CPU time, a "share" of -577%): what was measured is time spent off-CPU on a
disturbed machine, not a part of anything. Such a set decides nothing, its figure is
not printed, and the evidence gives each case's wall time against its CPU time
(task-clock), else its processes' off-CPU share, instead.
"""

from __future__ import annotations

import math

from cpulab.claims.cases import missing, sets_of, tally_verdict, unmet, where_of
from cpulab.claims.spec import CYCLES, ClaimSpec
from cpulab.measure.stats import Ratio
from cpulab.results import Case, Verdict
from cpulab.results.conditions import OFF_CPU_SHARE
from cpulab.results.ratios import cycle_metric, median_ratio
from cpulab.results.tally import Tally


def share_of(r: Ratio) -> tuple[float, tuple[float, float] | None]:
    """1 - r from the ratio part/whole: (the share, its interval; None where the ratio
    has none)."""
    usable = r.has_interval and math.isfinite(r.low) and math.isfinite(r.high)
    return 1 - r.value, (1 - r.high, 1 - r.low) if usable else None


def share_text(value: float, interval: tuple[float, float] | None) -> str:
    if interval is None:
        return f"{value:.1%} (no interval)"
    low, high = interval
    return f"{value:.1%}" if low == high else f"{value:.1%} [{low:.1%}, {high:.1%}]"


def is_share(value: float, interval: tuple[float, float] | None) -> bool:
    """Inside [0, 1], value and interval."""
    low, high = interval or (value, value)
    return 0 <= min(low, value) and max(high, value) <= 1


def off_cpu(c: Case) -> str:
    """A case's wall time against its CPU time where the harness counted it
    (task-clock), else its processes' off-CPU share."""
    wall, cpu = c.metrics.get("time"), c.metrics.get("task-clock")
    if wall is not None and cpu is not None and cpu.median > 0:
        off = " (off-CPU)" if 1 - cpu.median / wall.median > OFF_CPU_SHARE else ""
        return (f"{c.variant} wall {wall.median:,.0f} vs CPU {cpu.median:,.0f} "
                f"{wall.unit}{off}")
    k = c.conditions
    if k is not None and k.off_cpu_share is not None:
        return f"{c.variant}'s processes {max(k.off_cpu_share, 0):.0%} off-CPU"
    return f"{c.variant} without a CPU time (task-clock n/a)"


def share(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    assert claim.value is not None and len(claim.peers) == 1
    (peer,) = claim.peers
    tally, rows, skipped, outside = Tally(), [], [], 0
    for g, by in sets_of(claim, cases).items():
        if claim.variant not in by or peer not in by:
            continue
        failed = unmet(claim, by)
        if failed:
            skipped.append(f"{where_of(g)} ({'; '.join(failed)})")
            continue
        whole, rest = by[claim.variant][0], by[peer][0]
        metric = cycle_metric(whole, rest) if claim.metric == CYCLES else claim.metric
        r = median_ratio(rest, whole, metric)
        if r is None:
            continue
        value, interval = share_of(r)
        tally.n += 1
        shown = f"{metric} " if claim.metric == CYCLES else ""
        if not is_share(value, interval):
            outside += 1
            why = (f"{peer} took longer than {claim.variant}" if value < 0 else
                   "its interval reaches outside 0% to 100%")
            rows.append(f"{where_of(g)}: not measurable here ({why}); off-CPU time: "
                        f"{off_cpu(whole)}, {off_cpu(rest)}")
            continue
        tally.no_interval += interval is None
        tally.above += interval is not None and interval[0] > claim.value
        tally.below += interval is not None and interval[1] < claim.value
        rows.append(f"{where_of(g)}: {shown}{share_text(value, interval)}")
    tail = f"; not judged, a precondition fails: {', '.join(skipped)}" if skipped else ""
    if not tally.n:
        wanted = "tsc" if claim.metric == CYCLES else claim.metric
        why = missing(cases, claim.variant, wanted)
        if why.startswith("no case"):
            why = missing(cases, peer, wanted)
        return Verdict(claim.text, "unmeasurable", why + tail)
    metric = ("cycles: PMU, else TSC ticks, else time" if claim.metric == CYCLES
              else claim.metric)
    head = (f"1 - {peer}/{claim.variant} ({metric}) above {claim.value:.0%} in "
            f"{tally.above} of {tally.n} (95% interval), below in {tally.below}")
    if outside:
        head += f", {outside} outside 0% to 100% (no result)"
    if tally.no_interval:
        head += f", {tally.no_interval} without an interval (too few processes)"
    return Verdict(claim.text, tally_verdict(tally, claim.builds),
                   head + "; " + "; ".join(rows) + tail)
