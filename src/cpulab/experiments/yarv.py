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
from cpulab.claims import ClaimSpec
from cpulab.context import Context
from cpulab.experiments.base import Experiment
from cpulab.measure.metrics import Metric
from cpulab.opprof.errors import OpprofError
from cpulab.opprof.run import Options, profile_command
from cpulab.paths import KERNELS, ROOT
from cpulab.results import Case, SeedTable

BUILD_SCRIPT = KERNELS / "opprof" / "build_cruby_peer.sh"
WORKLOAD = ROOT / "tests" / "data" / "opprof" / "yarv_hot.rb"
BUILD_TIMEOUT_S = 3600
ITERATIONS = {"quick": 1_000_000, "default": 3_000_000}
FREQ = {"self": 10_000, "inclusive": 3_000}  # perf -F: call chains cost more per sample
MODES = ("self", "inclusive")
SEED_HOT = ("opt_aref", "opt_minus", "opt_newarray_min")
SEED_SHARES = {"opt_aref": 17.75, "opt_minus": 13.45, "opt_newarray_min": 11.16}
SEED = "S2: opt_aref 17.75%, opt_minus 13.45%, opt_newarray_min 11.16% (perf + insns.def)"


def _top_three(mode: str, text: str) -> ClaimSpec:
    """The seed's three hold the first three places of `mode`'s profile: the least of
    their shares against the largest of any other instruction's."""
    return ClaimSpec("rank", SEED_HOT[0], family=SEED_HOT[1:], metric="share",
                     where={"mode": (mode,)}, seed=SEED, text=text)


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
    claims = (
        _top_three("self", "(a) by each instruction's own samples, the seed's hot three "
                   "(opt_aref, opt_minus, opt_newarray_min) are the three hottest "
                   "instructions of a loop made of them"),
        ClaimSpec("rank", "opt_aref", metric="share", where={"mode": ("self",)}, seed=SEED,
                  text="(b) opt_aref is the hottest instruction by its own samples (seed: "
                       "17.75%, ahead of opt_minus's 13.45%)"),
        _top_three("inclusive", "(c) with callees charged to the instruction that called "
                   "them (--inclusive), the seed's hot three are the three hottest"),
    )

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
        if isinstance(miniruby, str):  # neither mode profiled, for this reason
            return [Case("miniruby", None, {"mode": m}, error=miniruby) for m in MODES]
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
                # an instruction absent from a profile had no sample in it: 0% there;
                # each profile is a process, so two instructions pair by profile
                values = [one.get(name, 0.0) for one in shares]
                cases.append(Case(name, None, {"mode": mode},
                                  {"share": Metric.of(values, "% of samples", sources[mode],
                                                      range(len(values)))}))
        return cases + errors[:len(MODES)]


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


EXPERIMENT = Yarv()
