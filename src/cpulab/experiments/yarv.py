"""Experiment `yarv` (seed row S2): cost per VM instruction of the seed's own interpreter.

S2 joined perf's samples of CRuby with the binary's line table and the interpreter's
source, where insns.def delimits each YARV instruction, and ranked opt_aref, opt_minus and
opt_newarray_min first. This experiment does the same with `cpulab opprof` on CRuby 3.1's
miniruby, built with -O2 -g from Debian's ruby3.1 source package
(native/kernels/opprof/build_cruby_peer.sh, once, cached under build/peers/; the default
profile builds it, --quick uses it only if it exists). The workload
(tests/data/opprof/yarv_hot.rb) is a loop made of those three instructions and the
loop's own bookkeeping, so the seed's ranking is a claim about where their costs lie.

Each round profiles the workload twice: by each instruction's own samples (the seed's
method) and with callees charged to the calling instruction (`--inclusive`, perf's call
chains). The figure per instruction is its share of all samples, in percent, one value
per round; perf's event is the PMU's cycles where it counts them, else cpu-clock.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.build import Target
from cpulab.build.peer_script import build_hint, peer_path
from cpulab.context import Context
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import Metric
from cpulab.opprof.errors import OpprofError
from cpulab.opprof.run import Options, profile_command
from cpulab.paths import KERNELS, ROOT
from cpulab.results import Case, Evidence, SeedTable, Verdict
from cpulab.results.ratios import format_ratio, median_ratio

BUILD_SCRIPT = KERNELS / "opprof" / "build_cruby_peer.sh"
WORKLOAD = ROOT / "tests" / "data" / "opprof" / "yarv_hot.rb"
BUILD_TIMEOUT_S = 3600
ITERATIONS = {"quick": 1_000_000, "default": 3_000_000}
FREQ = {"self": 10_000, "inclusive": 3_000}  # perf -F: call chains cost more per sample
MODES = ("self", "inclusive")
SEED_HOT = ("opt_aref", "opt_minus", "opt_newarray_min")
SEED_SHARES = {"opt_aref": 17.75, "opt_minus": 13.45, "opt_newarray_min": 11.16}
SEED = "S2: opt_aref 17.75%, opt_minus 13.45%, opt_newarray_min 11.16% (perf + insns.def)"


class Yarv(Experiment):
    name = "yarv"
    seed_row = "S2"
    title = "Cost per YARV instruction of CRuby 3.1, by perf samples and insns.def"
    summary = (
        "S2 ranked CRuby's VM instructions by perf samples joined with the line table and "
        "insns.def: opt_aref, opt_minus, opt_newarray_min first. Profiles a loop of those "
        "instructions on miniruby built -O2 -g from Debian's ruby3.1 source, by each "
        "instruction's own samples and with callees charged to their caller (--inclusive)."
    )
    compilers = ()  # the interpreter is built by its own script, not by the build matrix
    table_metrics = ("share",)

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable("S2: cost per YARV instruction (perf report, Ruby)",
                          ["instruction", "share of samples"],
                          [[n, f"{s}%"] for n, s in SEED_SHARES.items()])]

    def targets(self) -> dict[str, Target]:
        return {}

    def variants(self) -> list[str]:
        return list(SEED_HOT)

    def run(self, ctx: Context) -> list[Case]:
        miniruby = _miniruby(ctx)
        if isinstance(miniruby, str):
            return [Case("miniruby", None, error=miniruby)]
        n = ITERATIONS["quick" if ctx.profile.quick else "default"]
        # per mode, one {instruction: % of samples} per profile that succeeded
        profiles: dict[str, list[dict[str, float]]] = {m: [] for m in MODES}
        sources: dict[str, str] = {}
        errors: list[Case] = []
        rounds = ctx.profile.rounds
        ctx.reporter.phase(f"profiling miniruby, {rounds} rounds of {len(MODES)} modes",
                           total=rounds * len(MODES))
        for _ in range(rounds):
            for mode in MODES:
                opts = Options(freq=FREQ[mode], inclusive=mode == "inclusive")
                try:
                    prof = profile_command([str(miniruby), str(WORKLOAD), str(n)], opts)
                except OpprofError as e:
                    errors.append(Case("profile", None, {"mode": mode}, error=str(e)))
                    continue
                finally:
                    ctx.reporter.advance()
                if prof.mapping.mode != "markers":
                    ctx.note(f"{mode}: instructions mapped by {prof.mapping.mode}, not by "
                             f"insns.def: {prof.mapping.reason}")
                ctx.note(f"{mode}: perf event {prof.event.name} ({prof.event.source})")
                # samples of the PMU's cycles, or of the kernel's cpu-clock timer
                sources[mode] = "pmu" if prof.event.source == "pmu" else "sw"
                profiles[mode].append({r.name: 100 * r.share for r in prof.result.instructions})
        cases = []
        for mode, shares in profiles.items():
            names = dict.fromkeys(name for one in shares for name in one)
            for name in names:
                # an instruction absent from a profile had no sample in it: 0% there
                values = [one.get(name, 0.0) for one in shares]
                cases.append(Case(name, None, {"mode": mode},
                                  {"share": Metric.of(values, "% of samples", sources[mode])}))
        return cases + errors[:len(MODES)]

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        return [_top_three(cases, "self", "(a) by each instruction's own samples, the seed's "
                           "hot three (opt_aref, opt_minus, opt_newarray_min) are the three "
                           "hottest instructions of a loop made of them"),
                _first(cases),
                _top_three(cases, "inclusive", "(c) with callees charged to the instruction "
                           "that called them (--inclusive), the seed's hot three are the "
                           "three hottest")]


def _miniruby(ctx: Context) -> Path | str:
    """miniruby's path, built unless --quick; else why there is none."""
    build_now = not ctx.profile.quick
    path = peer_path(ctx, BUILD_SCRIPT, build_now=build_now, timeout=BUILD_TIMEOUT_S,
                     phase="building CRuby 3.1's miniruby (once; cached; minutes)")
    if isinstance(path, Path):
        return path
    why = path + ("" if build_now else build_hint(BUILD_SCRIPT))
    ctx.note(f"miniruby not measured: {why}")
    return why


def _ranked(cases: list[Case], mode: str) -> list[Case]:
    """The instructions of one mode, hottest first by median share."""
    rows = [c for c in cases if not c.error and c.params.get("mode") == mode
            and "share" in c.metrics]
    return sorted(rows, key=lambda c: -c.metrics["share"].median)


def _describe(ranked: list[Case], k: int = 5) -> str:
    return "; ".join(f"{i + 1}. {c.variant} {c.metrics['share'].median:.1f}%"
                     for i, c in enumerate(ranked[:k]))


def _unmeasurable(claim: str, cases: list[Case]) -> Verdict:
    errors = sorted({c.error for c in cases if c.error})
    return Verdict(claim, "unmeasurable", "; ".join(errors[:2]) or "no profile", SEED)


def _top_three(cases: list[Case], mode: str, claim: str) -> Verdict:
    ranked = _ranked(cases, mode)
    if not ranked:
        return _unmeasurable(claim, cases)
    top = {c.variant for c in ranked[:3]}
    ranks = {c.variant: i + 1 for i, c in enumerate(ranked)}
    where = ", ".join(f"{n} #{ranks.get(n, '-')}" for n in SEED_HOT)
    verdict = "confirmed" if top == set(SEED_HOT) else "refuted"
    return Verdict(claim, verdict, f"ranks: {where}. Hottest (median share of all samples, "
                   f"{ranked[0].metrics['share'].n} rounds): {_describe(ranked)}", SEED)


def _first(cases: list[Case]) -> Verdict:
    claim = ("(b) opt_aref is the hottest instruction by its own samples (seed: 17.75%, "
             "ahead of opt_minus's 13.45%)")
    ranked = _ranked(cases, "self")
    aref = next((c for c in ranked if c.variant == "opt_aref"), None)
    others = [c for c in ranked if c.variant != "opt_aref"]
    if aref is None or not others:
        return _unmeasurable(claim, cases)
    r = median_ratio(aref, others[0], "share")
    if r is None:
        return _unmeasurable(claim, cases)
    verdict = "confirmed" if r.low > 1 else "refuted" if r.high < 1 else "inconclusive"
    return Verdict(claim, verdict, f"opt_aref {aref.metrics['share'].median:.1f}% of samples, "
                   f"{format_ratio(r)} the share of the next, {others[0].variant} "
                   f"({others[0].metrics['share'].median:.1f}%)", SEED)


EXPERIMENT = Yarv()
