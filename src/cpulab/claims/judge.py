"""The one judge: a claim (`claims.spec`) and a run's cases in, a verdict out, by the
same rules for a built-in experiment and a user's described one. Pure functions of the
cases and the machine-code facts, so they are tested with made-up cases; the intervals
are the process-level ones of `measure.stats`.

- `faster`: the speed-up of `variant` over `than` (than/variant for a cost per unit,
  variant/than for a rate) in each build and parameter set, its 95% interval weighed
  against `by` by `results.tally` ("every": confirmed when every interval reaches it,
  refuted when any falls short; "most": by majority).
- `no-instruction`: the count of an instruction category (`cpulab asm`'s) or mnemonic in
  the variant's hot functions, per build; exact, so one build with it refutes.
- `at-most` / `at-least`: the variant's median against a bound, with its interval
  (`stats.ratio_to`); an exact figure (callgrind, asm) is compared as it is.

A claim with `where` is judged on the cases whose parameters it names alone; a run
with none of them (a `--quick` run sweeps fewer values) makes it `unmeasurable`, saying
which values the run had. A metric a case lacks (no PMU, no valgrind, a failed build)
makes the claim `unmeasurable` with the reason the case gives, never a comparison with
zero.
"""

from __future__ import annotations

from cpulab.asm import CATEGORIES
from cpulab.claims.spec import CYCLES, ClaimSpec, where_text
from cpulab.measure import stats
from cpulab.results import Case, Evidence, Verdict
from cpulab.results.ratios import cycle_metric, format_ratio, median_ratio
from cpulab.results.tally import Tally

# The evidence fact holding each variant's machine-code counts per build:
# {variant: {build label: {"counts": {category or mnemonic: n}, "functions": [...]}
#                         | {"error": why}}}
ASM_FACT = "hot-code"
# Mnemonics are kept beside the categories under this prefix ("=cmovne").
MNEMONIC = "="


def count_of(counts: dict[str, int], instruction: str) -> int:
    """A category of `cpulab asm` (jcc, div, spills) as counted, else the instructions
    whose mnemonic starts with it (`cmov` counts cmovne, cmovl, ...)."""
    if instruction in CATEGORIES:
        return counts.get(instruction, 0)
    return sum(n for k, n in counts.items()
               if k.startswith(MNEMONIC) and k[len(MNEMONIC):].startswith(instruction))


def judge(claim: ClaimSpec, cases: list[Case], evidence: Evidence) -> Verdict:
    """The verdict on `claim` from the run's cases and evidence, the seed's figure beside."""
    v = _judge(claim, cases, evidence)
    v.seed = claim.seed
    return v


def _judge(claim: ClaimSpec, cases: list[Case], evidence: Evidence) -> Verdict:
    if claim.kind == "no-instruction":
        return _no_instruction(claim, evidence.facts.get(ASM_FACT, {}))
    chosen = [c for c in cases if claim.applies_to(c.params)]
    if claim.where and not chosen:
        had = "; ".join(f"{k}={', '.join(sorted({str(c.params.get(k)) for c in cases}))}"
                        for k in claim.where) if cases else "none"
        return Verdict(claim.text, "unmeasurable", f"no case of this run has "
                       f"{where_text(claim.where)} (the claim's `where`); its cases have: "
                       f"{had}")
    if claim.kind == "faster":
        return _faster(claim, chosen)
    return _bound(claim, chosen)


def _group(case: Case) -> tuple[str, str]:
    """What a comparison pairs cases by: the build and the parameters."""
    params = ", ".join(f"{k}={v}" for k, v in sorted(case.params.items()))
    return case.build_label, params


def _where(group: tuple[str, str]) -> str:
    return f"{group[0]}, {group[1]}" if group[1] else group[0]


def _missing(cases: list[Case], variant: str, metric: str) -> str:
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


def _verdict(tally: Tally, builds: str):
    return tally.every() if builds == "every" else tally.majority()


def _faster(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    assert claim.than is not None
    mine = {_group(c): c for c in cases if c.variant == claim.variant and not c.error}
    peer = {_group(c): c for c in cases if c.variant == claim.than and not c.error}
    tally, rows = Tally(), []
    for g, a in mine.items():
        b = peer.get(g)
        metric = cycle_metric(a, b) if b is not None and claim.metric == CYCLES \
            else claim.metric
        if b is None or metric not in a.metrics or metric not in b.metrics:
            continue
        higher = a.metrics[metric].higher_is_better
        r = median_ratio(a, b, metric) if higher else median_ratio(b, a, metric)
        if r is None:
            continue
        tally.add(r, claim.by)
        shown = f"{metric} " if claim.metric == CYCLES else ""
        rows.append(f"{_where(g)}: {shown}{format_ratio(r)}")
    if not tally.n:
        wanted = "tsc" if claim.metric == CYCLES else claim.metric
        why = _missing(cases, claim.variant, wanted)
        if why.startswith("no case"):
            why = _missing(cases, claim.than, wanted)
        return Verdict(claim.text, "unmeasurable", why)
    metric_text = ("cycles: PMU, else TSC ticks, else time" if claim.metric == CYCLES
                   else claim.metric)
    head = (f"{claim.variant} over {claim.than} ({metric_text}; target {claim.by:g}x): "
            f"reached in {tally.above} of {tally.n}, short in {tally.below}")
    if tally.no_interval:
        head += f", {tally.no_interval} without an interval (too few processes)"
    return Verdict(claim.text, _verdict(tally, claim.builds), head + "; " + "; ".join(rows))


def _no_instruction(claim: ClaimSpec, hot_code: dict) -> Verdict:
    ins = claim.instruction or ""
    per_build = hot_code.get(claim.variant, {})
    rows, found, read = [], 0, 0
    errors = []
    for label, facts in per_build.items():
        if "error" in facts:
            errors.append(f"{label}: {facts['error']}")
            continue
        read += 1
        n = count_of(facts["counts"], ins)
        found += n > 0
        rows.append(f"{label}: {n} in {', '.join(facts['functions'])}")
    if not read:
        why = "; ".join(errors) or f"no build of {claim.variant} was read"
        return Verdict(claim.text, "unmeasurable", f"no machine code: {why}")
    kind = "refuted" if found else "confirmed"
    head = f"`{ins}` in {found} of {read} builds (source asm)"
    return Verdict(claim.text, kind, head + ": " + "; ".join(rows + errors))


def _bound(claim: ClaimSpec, cases: list[Case]) -> Verdict:
    assert claim.value is not None
    at_most = claim.kind == "at-most"
    tally, rows = Tally(), []
    for c in cases:
        if c.variant != claim.variant or c.error or claim.metric not in c.metrics:
            continue
        m = c.metrics[claim.metric]
        if claim.value > 0:  # the level's 95% interval over processes, in its own unit
            r = stats.ratio_to(m.sample, claim.value)
            lo, hi = r.low * claim.value, r.high * claim.value
        else:
            lo, hi = min(m.sample.values), max(m.sample.values)
        tally.n += 1
        tally.above += hi <= claim.value if at_most else lo >= claim.value
        tally.below += lo > claim.value if at_most else hi < claim.value
        rows.append(f"{_where(_group(c))}: {m.median:.4g} {m.unit}"
                    + ("" if lo == hi else f" [{lo:.4g}, {hi:.4g}]" if hi < float("inf")
                       else f" [no interval: {r.why}]"))
    if not tally.n:
        return Verdict(claim.text, "unmeasurable",
                       _missing(cases, claim.variant, claim.metric))
    word = "at most" if at_most else "at least"
    head = (f"{claim.metric} of {claim.variant} {word} {claim.value:g} in {tally.above} "
            f"of {tally.n} (95% interval), past it in {tally.below}")
    return Verdict(claim.text, _verdict(tally, claim.builds), head + "; " + "; ".join(rows))
