"""The verdicts of `dispatch` (pure functions of the cases): tail calls against every
other technique, the issue's two speed-up targets, frameless handlers, and replicated
against shared dispatch; each ratio a geometric mean over the programs with its
bootstrap interval."""

from __future__ import annotations

from cpulab.experiments.dispatch.names import LAST_TARGET, MUSTTAIL, PROGRAMS, TAIL_CALLS
from cpulab.measure.stats import Ratio
from cpulab.results import Case, Evidence, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, geomean_ratio
from cpulab.results.tally import Tally


def _program(c: Case) -> str | None:
    return c.params.get("program")


def _find(cases: list[Case], variant: str, build_label: str, program: str) -> Case | None:
    return next((c for c in cases if c.variant == variant and c.build_label == build_label
                 and _program(c) == program), None)


def _labels(cases: list[Case], variant: str) -> list[str]:
    """Build labels that have `variant`, in first-seen order."""
    return list(dict.fromkeys(c.build_label for c in cases if c.variant == variant))


def slowdown(cases: list[Case], slow: tuple[str, str], fast: tuple[str, str]) -> Ratio | None:
    """Geometric mean over the programs of time(slow)/time(fast) (> 1: `fast` is faster),
    each side a (variant, build label), with its 95% percentile-bootstrap interval."""
    pairs = []
    for p in PROGRAMS:
        a, b = _find(cases, *slow, p), _find(cases, *fast, p)
        if a is None or b is None:
            continue
        metric = cycle_metric(a, b)
        if metric in a.metrics and metric in b.metrics:
            pairs.append((a.metrics[metric], b.metrics[metric]))
    return geomean_ratio(pairs) if pairs else None


def tail_calls_fastest(cases: list[Case]) -> Verdict:
    claim = (f"(S15) tail calls (`{TAIL_CALLS}`: musttail + preserve_none) give the fastest "
             "C interpreter here: every other technique and build is slower (geomean over "
             "the programs)")
    seed = "S15: close to LuaJIT's hand-written interpreter; S14: over 2x the best previous"
    rows, tally = [], Tally()
    contenders = list(dict.fromkeys((c.variant, c.build_label) for c in cases
                                    if c.variant not in MUSTTAIL))
    for tail_label in _labels(cases, TAIL_CALLS):
        for other in contenders:
            r = slowdown(cases, other, (TAIL_CALLS, tail_label))
            if r is None:
                continue
            tally.add(r)
            rows.append((r.value, f"{other[0]} {other[1]} / {TAIL_CALLS} {tail_label} = "
                                  f"{format_ratio(r)}"))
    if not rows:
        return Verdict(claim, "unmeasurable", f"no build has `{TAIL_CALLS}` next to another "
                       "technique (it needs clang with musttail and preserve_none)", seed)
    rows.sort()
    head = (f"time ratios (other/tail calls, > 1: tail calls faster): clearly faster than "
            f"{tally.above} of {tally.n}, clearly slower than {tally.below}; closest first: ")
    return Verdict(claim, tally.every(), head + "; ".join(t for _, t in rows), seed)


def speedup_target(cases: list[Case], other: str, target: float) -> Verdict:
    claim = (f"(target) `{TAIL_CALLS}` at least {target:.2f}x faster than `{other}`, "
             "clang -O2, geomean over the programs")
    seed = "the benchmark target set for this project (not a seed figure)"
    builds = [lb for lb in _labels(cases, TAIL_CALLS)
              if lb.startswith("clang") and lb.split()[1:] == ["-O2"]]
    rows, tally = [], Tally()
    for lb in builds:
        r = slowdown(cases, (other, lb), (TAIL_CALLS, lb))
        if r is None:
            continue
        tally.add(r, target)
        rows.append(f"{lb}: {other}/{TAIL_CALLS} = {format_ratio(r)}")
    if not rows:
        return Verdict(claim, "unmeasurable", f"no clang -O2 build with both `{TAIL_CALLS}` "
                       f"and `{other}`", seed)
    return Verdict(claim, tally.every(), f"target {target:.2f}x; " + "; ".join(rows), seed)


def handlers_frameless(cases: list[Case], evidence: Evidence) -> Verdict:
    claim = ("(S14/S15) the tail-call handlers compile without prologue, epilogue or stack "
             "use")
    seed = "S14: 'no prologue, epilogue or stack use' in each fast path"
    rows, framed_builds, clean = [], 0, 0
    named = evidence.facts.get("handlers-with-frame", {})
    for tech in MUSTTAIL:
        seen: dict[str, Case] = {}
        for c in cases:
            if c.variant == tech and "handlers-with-frame" in c.metrics:
                seen.setdefault(c.build_label, c)
        for lb, c in seen.items():
            n, total = int(c.value("handlers-with-frame")), int(c.value("handlers"))
            stack = int(c.value("stack-insns"))
            text = (f"{tech} {lb}: {n} of {total} handlers with a frame, {stack} stack "
                    "instructions")
            listed = named.get(lb, {}).get(tech, [])
            if listed:
                text += f" ({', '.join(listed[:6])}{', ...' if len(listed) > 6 else ''})"
            rows.append(text)
            if tech == TAIL_CALLS:
                clean += n == 0 and stack == 0
                framed_builds += n > 0 or stack > 0
    if not clean and not framed_builds:
        return Verdict(claim, "unmeasurable", f"no build of `{TAIL_CALLS}` was disassembled",
                       seed)
    kind = "confirmed" if not framed_builds else "refuted"
    return Verdict(claim, kind, f"judged on `{TAIL_CALLS}` (asm); " + "; ".join(rows), seed)


def replicated_beats_shared(cases: list[Case]) -> Verdict:
    claim = ("(S1) replicated dispatch (a `jmp *` in every handler) beats one shared "
             "dispatch jump: goto-replicated against goto-shared, geomean over the programs")
    seed = "S1, Ertl's `direct`: 6.5-6.9 cycles/dispatch shared vs 1.24-3.5 replicated"
    rows, skipped, tally = [], [], Tally()
    for lb in _labels(cases, "goto-shared"):
        shared = next(c for c in cases if c.variant == "goto-shared" and c.build_label == lb)
        repl = next((c for c in cases if c.variant == "goto-replicated"
                     and c.build_label == lb), None)
        if repl is None:
            continue
        s_sites, r_sites = shared.value("indirect-sites"), repl.value("indirect-sites")
        if s_sites != 1 or (r_sites or 0) < 2:
            skipped.append(f"{lb} (goto-shared has {s_sites} indirect sites, "
                           f"goto-replicated {r_sites})")
            continue
        r = slowdown(cases, ("goto-shared", lb), ("goto-replicated", lb))
        if r is None:
            continue
        tally.add(r)
        rows.append(f"{lb}: shared/replicated = {format_ratio(r)} ({r_sites:.0f} sites)"
                    + _model_rates(cases, lb))
    tail = f"; not compared: {', '.join(skipped)}" if skipped else ""
    if not rows:
        return Verdict(claim, "unmeasurable", "no build with one shared and several "
                       "replicated dispatch jumps" + tail, seed)
    head = (f"replicated clearly faster in {tally.above} of {tally.n} builds, slower in "
            f"{tally.below}: ")
    return Verdict(claim, tally.majority(), head + "; ".join(rows) + tail, seed)


def _model_rates(cases: list[Case], lb: str) -> str:
    """The last-target model's miss rates of both, mean over the programs, for context."""
    rates = {}
    for tech in ("goto-shared", "goto-replicated"):
        vals = [v for c in cases if c.variant == tech and c.build_label == lb
                and (v := c.value(LAST_TARGET)) is not None]
        if vals:
            rates[tech] = sum(vals) / len(vals)
    if len(rates) < 2:
        return ""
    return (f"; last-target model misses {rates['goto-shared']:.1f}% vs "
            f"{rates['goto-replicated']:.1f}% of dispatches")
