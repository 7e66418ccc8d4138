"""The verdicts of `gorep`: faster than GNU grep and ag on every pattern, within 1.3x of
ripgrep in geometric mean, and S9's names + contents in one run. Pure functions of the
cases; every ratio is of two commands timed interleaved in one run (wall time, clock).
"""

from __future__ import annotations

from cpulab.results import Case, Verdict
from cpulab.results.ratios import format_ratio, geomean_ratio, median_ratio
from cpulab.results.tally import Tally

PROFILE_ABOVE = 1.5
RIPGREP_TARGET = 1.3
SEED = "S9 gives no figures: gorep was written to find names and contents in one command"

Key = tuple[str, str, int]  # corpus, pattern, threads


def groups(cases: list[Case]) -> dict[Key, dict[str, Case]]:
    out: dict[Key, dict[str, Case]] = {}
    for c in cases:
        if not c.error and "time" in c.metrics:
            k = (str(c.params.get("corpus")), str(c.params.get("pattern")),
                 int(c.params.get("threads", 0)))
            out.setdefault(k, {})[c.variant] = c
    return out


def faster_than(cases: list[Case], peer: str, label: str) -> Verdict:
    claim = f"({label}) gorep is faster than {peer} on every pattern, corpus and thread count"
    tally, rows = Tally(), []
    for (corpus, pattern, threads), by in sorted(groups(cases).items()):
        g, p = by.get("gorep"), by.get(peer)
        r = median_ratio(p, g, "time") if g and p else None
        if r is None:
            continue
        tally.add(r)
        rows.append(f"{corpus} {pattern!r} -j{threads}: {peer}/gorep = {format_ratio(r)}")
    if not rows:
        why = sorted({c.error for c in cases if c.error and c.variant == peer})
        return Verdict(claim, "unmeasurable", "; ".join(why[:2]) or f"{peer} not measured",
                       SEED)
    head = (f"gorep faster (95% interval of {peer}/gorep time above 1) in {tally.above} of "
            f"{tally.n}, slower in {tally.below} (wall time, clock): ")
    return Verdict(claim, tally.every(), head + "; ".join(rows), SEED)


def near_ripgrep(cases: list[Case]) -> Verdict:
    claim = (f"(c) gorep's geometric mean time is within {RIPGREP_TARGET}x of ripgrep's, per "
             "corpus and thread count")
    series: dict[tuple[str, int], list] = {}
    for (corpus, _pattern, threads), by in groups(cases).items():
        g, rg = by.get("gorep"), by.get("rg")
        if g and rg:
            series.setdefault((corpus, threads), []).append((g.metrics["time"],
                                                             rg.metrics["time"]))
    if not series:
        return Verdict(claim, "unmeasurable", "ripgrep or gorep not measured", SEED)
    rows, kinds = [], []
    for (corpus, threads), pairs in sorted(series.items()):
        r = geomean_ratio(pairs)
        kinds.append("ok" if r.high <= RIPGREP_TARGET else "no" if r.low > RIPGREP_TARGET
                     else "?")
        rows.append(f"{corpus} -j{threads}, {len(pairs)} patterns: gorep/rg = {format_ratio(r)}")
    kind = ("confirmed" if all(k == "ok" for k in kinds) else
            "refuted" if "no" in kinds else "inconclusive")
    return Verdict(claim, kind, "geometric mean of gorep/rg wall time (clock): " +
                   "; ".join(rows), SEED)


def slow_patterns(cases: list[Case]) -> list[tuple[str, str, int, float]]:
    """(corpus, pattern, threads, gorep/rg) where gorep is over PROFILE_ABOVE x slower."""
    out = []
    for (corpus, pattern, threads), by in sorted(groups(cases).items()):
        g, rg = by.get("gorep"), by.get("rg")
        if g and rg and g.value("time") / rg.value("time") > PROFILE_ABOVE:
            out.append((corpus, pattern, threads, g.value("time") / rg.value("time")))
    return out


def names_and_contents(cases: list[Case]) -> Verdict:
    claim = ("(d) S9's question: names and contents in one gorep run beat find + grep and "
             "rg --files | rg + rg")
    by = {c.variant: c for c in cases if not c.error and c.params.get("pattern") and
          c.variant in ("gorep-names", "find+grep", "rg-files+rg")}
    g = by.get("gorep-names")
    ratios = [(p, median_ratio(by[p], g, "time")) for p in ("find+grep", "rg-files+rg")
              if g and p in by]
    ratios = [(p, r) for p, r in ratios if r]
    if not ratios:
        return Verdict(claim, "unmeasurable", "the name + content commands were not measured",
                       SEED)
    tally = Tally.of(r for _, r in ratios)
    return Verdict(claim, tally.every(), "; ".join(
        f"{p}/gorep wall time = {format_ratio(r)}" for p, r in ratios)
        + " (the outputs differ in form and are not compared)", SEED)


def all_verdicts(cases: list[Case]) -> list[Verdict]:
    return [faster_than(cases, "grep", "a"), faster_than(cases, "ag", "b"),
            near_ripgrep(cases), names_and_contents(cases)]
