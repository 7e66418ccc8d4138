"""What every kind of claim reads from a run's cases: the groups a comparison pairs
cases by (build and parameters), where a figure is missing and why, and how a tally of
groups becomes a verdict."""

from __future__ import annotations

from cpulab.claims.spec import ClaimSpec
from cpulab.results import Case
from cpulab.results.tally import Tally

Group = tuple[str, str]  # build label, parameters as text


def group_of(case: Case, without: str | None = None) -> Group:
    """What a comparison pairs cases by: the build and the parameters (less `without`,
    a parameter the comparison averages over)."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(case.params.items()) if k != without)
    return case.build_label, params


# The build part of a set whose build is chosen inside it (`fastest_build`).
ANY_BUILD = "fastest builds"


def sets_of(claim: ClaimSpec, cases: list[Case]) -> dict[Group, dict[str, list[Case]]]:
    """The build and parameter sets a claim is judged in (less `over`; the parameters
    alone with `fastest_build`) -> variant -> its measured cases there, for the variants
    the claim names (its own, its family, its peers, its preconditions')."""
    wanted = {claim.variant, *claim.family, *claim.peers,
              *(r.variant for r in claim.requires)}
    out: dict[Group, dict[str, list[Case]]] = {}
    for c in cases:
        if c.variant in wanted and not c.error:
            g = group_of(c, claim.over)
            if claim.fastest_build:
                g = (ANY_BUILD, g[1])
            out.setdefault(g, {}).setdefault(c.variant, []).append(c)
    return out


def where_of(group: Group) -> str:
    if group[0] == "-" and group[1]:  # built by no build of the lab's (a peer, a tool)
        return group[1]
    return f"{group[0]}, {group[1]}" if group[1] else group[0]


def missing(cases: list[Case], variant: str, metric: str) -> str:
    """Why no case of the variant has the metric: the first reason a case gives."""
    for c in cases:
        if c.variant != variant:
            continue
        if c.error:
            return f"{variant} {c.build_label}: {c.error.splitlines()[0]}"
        if metric in c.unavailable:
            u = c.unavailable[metric]
            return f"{metric} unavailable ({u.get('source', '?')}): {u.get('reason', '?')}"
    return f"no case of {variant} has {metric}"


def tally_verdict(tally: Tally, builds: str):
    """"every" build and parameter set must reach the target, "most" of them, or "some"
    (one that reaches it confirms, every one falling short refutes)."""
    return {"every": tally.every, "most": tally.majority, "some": tally.some}[builds]()


def unmet(claim: ClaimSpec, by_variant: dict[str, list[Case]]) -> list[str]:
    """The preconditions (`requires`) a build and parameter set fails, as the reader
    sees them."""
    out = []
    for req in claim.requires:
        for c in by_variant.get(req.variant, []) or [None]:
            figure = c.value(req.metric) if c is not None else None
            if not req.holds(figure):
                out.append(f"{req} ({'not measured' if figure is None else f'{figure:g}'})")
                break
    return out
