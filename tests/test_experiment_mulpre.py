"""Experiment `mulpre` (S11): verdicts and tables from fake cases, how the GMP peers are
found (a scripted runner), and its quick run end to end, replayed from recorded kernel
output (for real with CPULAB_FULL=1)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from cpulab import cli
from cpulab.context import PROFILES, Context
from cpulab.experiments import get
from cpulab.experiments.mulpre import experiment as mulpre
from cpulab.experiments.mulpre import gmp as mulpre_gmp
from cpulab.experiments.mulpre import mcl as mulpre_mcl
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import RunResult
from cpulab.results import VERDICTS, Case, Evidence
from replay import replay

EXP = get("mulpre")
GCC = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}
CLANG = {"compiler": "clang-19", "compiler_version": "19.1.7", "flags": "-O2", "pgo": False}
SPREAD = (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)


def timed(variant: str, n: int, ns: float, build: dict | None = GCC,
          spread: Sequence[float] = SPREAD, mode: str = mulpre.THROUGHPUT) -> Case:
    values = [ns * f for f in spread]
    return Case(variant, build, {"N": n, "mode": mode}, {
        "time": Metric.of(values, "ns/call", "clock"),
        "tsc": Metric.of([2.6 * v for v in values], "ticks/call", "tsc")})


def with_mix(case: Case, mulx: int, spills: int = 0, reloads: int = 0) -> Case:
    """The static mix as `_finish` attaches it, from the machine code of a made-up build."""
    n = case.params["N"]
    mix = {"mul": mulx, "mulx": mulx, "add": 2 * mulx, "mov": 4, "xor-zero": 1,
           "spills": spills, "reloads": reloads}
    case.variant = f"{case.variant}/N={n}"
    return mulpre._finish(case, {mulpre._symbol(case.variant.split("/")[0], n): mix})


def verdicts(cases: list[Case]) -> dict:
    """Each claim's verdict by its letter; (d)'s two halves as (d) and (d2)."""
    out: dict = {}
    for v in EXP.verdicts(cases, Evidence()):
        out["(d2)" if v.claim[:3] in out else v.claim[:3]] = v
    return out


def test_the_claims_are_declared_for_the_one_judge():
    kinds = [(c.text[:3], c.kind, c.fastest_build) for c in EXP.claims]
    assert kinds == [("(a)", "faster", True), ("(b)", "faster", True),
                     ("(c)", "faster", True), ("(d)", "at-most", False),
                     ("(d)", "at-most", False), ("(e)", "faster", True),
                     ("(f)", "faster", True), ("(g)", "faster", True),
                     ("(h)", "faster", True), ("(i)", "faster", True)]
    assert all(c.seed for c in EXP.claims)
    assert set(mulpre.GMPS) == {"gmp_mul_n", "gmp_mul_n@host", "gmp_mul_n@fat",
                                "gmp_mul_n@gmpy2"}


# ---- (a) 1.7x faster than GMP at N = 4 and 6 ----------------------------------------


def ecc_cases(gmp4: float, host6: float) -> list[Case]:
    out = []
    for n, host in ((4, 9.0), (6, host6)):
        out += [timed("asm", n, 5.0), timed("gmp_mul_n", n, gmp4 if n == 4 else 12.0, None),
                timed("gmp_mul_n@host", n, host, None)]
    return out


def test_fast_at_ecc_sizes_is_judged_against_the_fastest_gmp():
    v = verdicts(ecc_cases(gmp4=10.0, host6=9.5))["(a)"]
    assert v.verdict == "confirmed" and "reached in 2 of 2" in v.evidence
    # N=4: host 9.0 / 5.0 = 1.8x is the fastest GMP, not Debian's 2.0x; the GMPs have no
    # build, the asm the main one
    assert "N=4, mode=throughput: tsc 1.800x [" in v.evidence
    assert "of asm (gcc-12 -O2) against gmp_mul_n@host;" in v.evidence
    assert v.seed and "2.09x" in v.seed


def test_fast_at_ecc_sizes_refuted_when_one_size_misses():
    v = verdicts(ecc_cases(gmp4=10.0, host6=7.0))["(a)"]  # N=6: 1.4x
    assert v.verdict == "refuted" and "short in 1" in v.evidence
    assert "N=6, mode=throughput: tsc 1.400x [" in v.evidence


def test_fast_at_ecc_sizes_inconclusive_when_the_interval_straddles():
    wide = (0.8, 0.9, 1.0, 1.1, 1.2, 1.0)
    cases = [timed("asm", n, 5.0) for n in (4, 6)] + \
        [timed("gmp_mul_n", n, 8.5, None, wide) for n in (4, 6)]  # 1.7x, +-20%
    assert verdicts(cases)["(a)"].verdict == "inconclusive"


def test_fast_at_ecc_sizes_unmeasurable_without_asm():
    cases = [timed("gmp_mul_n", n, 10.0, None) for n in (4, 6)]
    v = verdicts(cases)["(a)"]
    assert v.verdict == "unmeasurable" and "no case of asm" in v.evidence


# ---- (b) faster than every GMP at every N --------------------------------------------


def every_size(gmp_at_9: float) -> list[Case]:
    out = []
    for n in mulpre.SIZES:
        out += [timed("asm", n, n * n), timed("gmp_mul_n", n, 2 * n * n, None),
                timed("gmp_mul_n@gmpy2", n, gmp_at_9 if n == 9 else 3 * n * n, None)]
    return out


def test_beats_every_gmp_confirmed_and_counted():
    v = verdicts(every_size(gmp_at_9=200.0))["(b)"]
    assert v.verdict == "confirmed" and "reached in 9 of 9, short in 0" in v.evidence


def test_beats_every_gmp_refuted_by_one_slower_size():
    v = verdicts(every_size(gmp_at_9=70.0))["(b)"]  # 70 / 81
    assert v.verdict == "refuted" and "short in 1" in v.evidence
    assert "N=9, mode=throughput: tsc 0.864x [" in v.evidence
    assert v.evidence.endswith("against gmp_mul_n@gmpy2")


# ---- (c) 1.3x faster than the best compiler build at N = 8 ---------------------------


def test_beats_compilers_uses_the_fastest_build_of_either_path():
    cases = [timed("asm", 8, 10.0), timed("portable", 8, 20.0, GCC),
             timed("intrin", 8, 12.0, CLANG), timed("gmp_mul_n", 8, 11.0, None)]
    v = verdicts(cases)["(c)"]
    assert v.verdict == "refuted"  # 1.2x: GMP does not count as a compiler build
    assert "tsc 1.200x [" in v.evidence and "against intrin (clang-19 -O2)" in v.evidence


def test_beats_compilers_confirmed_and_unmeasurable():
    cases = [timed("asm", 8, 10.0), timed("portable", 8, 14.0, CLANG)]
    assert verdicts(cases)["(c)"].verdict == "confirmed"
    v = verdicts(cases[1:])["(c)"]
    assert v.verdict == "unmeasurable" and "no case of asm" in v.evidence


# ---- (d) the asm in registers: N^2 mulx, no spills -----------------------------------


def asm_mixes(**bad: tuple[int, int]) -> list[Case]:
    """asm cases for every N; bad={"N5": (mulx, spills)} breaks one size."""
    return [with_mix(timed("asm", n, 1.0), *bad.get(f"N{n}", (n * n, 0)))
            for n in mulpre.SIZES]


def test_asm_in_registers_confirmed_size_by_size():
    cases = asm_mixes() + [with_mix(timed("portable", 4, 2.0), 16, spills=5, reloads=7)]
    got = verdicts(cases)
    for d, metric in (("(d)", mulpre.MULX_OFF), ("(d2)", mulpre.STACK)):
        v = got[d]
        assert v.verdict == "confirmed", v.evidence
        assert f"{metric} of asm at most 0 in 9 of 9" in v.evidence
        assert "gcc-12 -O2, N=4, mode=throughput: 0 instructions" in v.evidence
    assert "N=4 in every" not in got["(d2)"].evidence  # the compiler's spills are not judged


@pytest.mark.parametrize("bad, which", [({"N5": (25, 1)}, "(d2)"), ({"N9": (80, 0)}, "(d)")])
def test_asm_in_registers_refuted_by_a_spill_or_a_wrong_count(bad, which):
    got = verdicts(asm_mixes(**bad))
    v = got[which]
    n = next(iter(bad))[1:]
    assert v.verdict == "refuted" and f"N={n}, mode=throughput: 1 instructions" in v.evidence
    other = got["(d)" if which == "(d2)" else "(d2)"]
    assert other.verdict == "confirmed"


def test_asm_in_registers_unmeasurable_says_why_the_code_was_not_read():
    c = mulpre._finish(timed("asm/N=4", 4, 1.0), "objdump: not found")
    assert c.unavailable[mulpre.MULX_OFF] == {"source": "asm",
                                              "reason": "objdump: not found"}
    v = verdicts([c])["(d)"]
    assert v.verdict == "unmeasurable" and "objdump: not found" in v.evidence
    assert verdicts([timed("gmp_mul_n", 4, 1.0, None)])["(d2)"].verdict == "unmeasurable"


def test_failed_cases_are_left_out_of_every_verdict():
    broken = Case("asm", GCC, {"N": 4, "mode": "throughput"}, error="killed by SIGSEGV")
    got = EXP.verdicts([broken], Evidence())
    assert all(v.verdict == "unmeasurable" for v in got)
    assert "killed by SIGSEGV" in got[0].evidence


# ---- (e), (f) against mcl, the strongest peer, in every mode --------------------------


def moded(variant: str, n: int, ns: float, mode: str) -> Case:
    return timed(variant, n, ns, GCC if variant in mulpre.ASM_FORMS else None, mode=mode)


def mcl_field(mcl_ns: dict[tuple[str, int], float], gmp_ns: float = 1000.0) -> list[Case]:
    """asm at 10 ns in every (mode, N); mcl at 12 ns unless mcl_ns says otherwise."""
    out = []
    for mode in mulpre.MODES:
        for n in mulpre.SIZES:
            out += [moded("asm", n, 10.0, mode),
                    moded("mcl", n, mcl_ns.get((mode, n), 12.0), mode),
                    moded("gmp_mul_n", n, gmp_ns, mode)]
    return out


def test_as_fast_as_mcl_confirmed_in_every_mode():
    v = verdicts(mcl_field({}))["(e)"]
    assert v.verdict == "confirmed" and "reached in 27 of 27, short in 0" in v.evidence
    assert "N=1, mode=chain_y: tsc 1.200x [" in v.evidence


def test_as_fast_as_mcl_refuted_by_one_chain_and_names_a_faster_gmp():
    cases = mcl_field({("chain_x", 3): 8.0}, gmp_ns=1000.0)
    cases = [c for c in cases if not (c.variant == "gmp_mul_n" and c.params["N"] == 7
                                      and c.params["mode"] == "chain_y")]
    cases.append(moded("gmp_mul_n@host", 7, 9.0, "chain_y"))  # a GMP faster than mcl
    v = verdicts(cases)["(e)"]
    assert v.verdict == "refuted" and "short in 2" in v.evidence
    assert "N=3, mode=chain_x: tsc 0.800x [" in v.evidence
    assert "N=7, mode=chain_y: tsc 0.900x [0.892, 0.908] of asm (gcc-12 -O2) against " \
        "gmp_mul_n@host" in v.evidence


def test_faster_than_mcl_needs_the_margin_at_every_size():
    v = verdicts(mcl_field({("throughput", 6): 11.0}))["(f)"]  # 1.1x at N=6
    assert v.verdict == "refuted" and "reached in 4 of 5" in v.evidence
    assert "N=6, mode=throughput: tsc 1.100x [" in v.evidence
    assert "N=4, mode=throughput: tsc 1.200x [" in v.evidence
    assert verdicts(mcl_field({}))["(f)"].verdict == "confirmed"  # 1.2x everywhere


def test_without_mcl_its_verdicts_are_unmeasurable():
    cases = [c for c in mcl_field({}) if c.variant != "mcl"]
    got = verdicts(cases)
    assert got["(e)"].verdict == got["(f)"].verdict == "unmeasurable"
    assert "no set meets the claim's preconditions" in got["(e)"].evidence
    assert "mcl's time >= 0 (not measured)" in got["(f)"].evidence
    # a set without mcl is not judged against the GMPs alone
    one = [c for c in mcl_field({}) if not (c.variant == "mcl" and c.params["N"] == 5)]
    v = verdicts(one)["(f)"]
    assert v.verdict == "confirmed" and "reached in 4 of 4" in v.evidence
    assert "N=5, mode=throughput (mcl's time >= 0 (not measured))" in v.evidence


# ---- (g) never slower than mcl, each call site choosing its operand order -------------


def test_never_slower_than_mcl_takes_the_order_that_streams_the_chain():
    # asm (rows over y) loses the chain through x; asm_sx (rows over x) ties mcl there
    cases = mcl_field({(m, n): 10.0 for m in mulpre.MODES for n in mulpre.SIZES})
    cases = [c for c in cases if not (c.variant == "asm" and c.params["mode"] == "chain_x")]
    cases += [moded("asm", n, 13.0, "chain_x") for n in mulpre.SIZES]
    cases += [moded("asm_sx", n, 10.1, m) for m in mulpre.MODES for n in mulpre.SIZES]
    v = verdicts(cases)["(g)"]
    assert v.verdict == "confirmed", v.evidence
    assert "the fastest of asm or asm_sx over mcl" in v.evidence
    assert "N=4, mode=chain_x: tsc 0.990x [" in v.evidence  # within the 3% of a tie
    assert "of asm_sx (gcc-12 -O2) against mcl" in v.evidence
    assert "N=4, mode=chain_y: tsc 1.000x [" in v.evidence


def test_never_slower_than_mcl_refuted_past_the_tie():
    cases = mcl_field({("chain_x", 2): 9.0})  # asm 10 ns, mcl 9 ns: 0.9x
    v = verdicts(cases)["(g)"]
    assert v.verdict == "refuted" and "short in 1" in v.evidence
    assert "N=2, mode=chain_x: tsc 0.900x [" in v.evidence


# ---- (h), (i) within 10% of the machine's measured bounds ------------------------------


def bound_field(asm_over_bound: float) -> list[Case]:
    out = []
    for n in mulpre.SIZES:
        bound = 0.44 * n * n
        out += [timed("asm", n, bound * asm_over_bound), timed(mulpre.MULX_BOUND, n, bound),
                timed(mulpre.MIX_BOUND, n, 1.45 * bound),
                timed("mcl", n, bound * asm_over_bound, None)]
    return out


def test_near_the_mulx_bound_judged_at_n_4_to_8():
    got = verdicts(bound_field(1.08))
    v = got["(h)"]
    assert v.verdict == "confirmed" and "reached in 5 of 5" in v.evidence
    assert "N=4, mode=throughput: tsc 0.926x [" in v.evidence
    assert "against mulx_bound (gcc-12 -O2)" in v.evidence
    assert got["(i)"].verdict == "confirmed"  # faster than the mix bound
    got = verdicts(bound_field(1.63))  # what Zen 5 measured: mulx and adds share ports
    assert got["(h)"].verdict == "refuted" and "short in 5" in got["(h)"].evidence
    assert got["(i)"].verdict == "refuted"  # 1.63 / 1.45 = 1.12x the mix bound


def test_bound_table_in_ticks_and_cycles_never_zero():
    cases = bound_field(1.5)
    for c in cases:
        c.unavailable["cycles"] = {"source": "pmu", "reason": "no PMU in this VM"}
    table = mulpre.bound_table(cases)
    row4 = next(r for r in table.rows if r[0] == "N=4")
    # 0.44 * 16 ns * 2.6 ticks/ns = 18.3 ticks; 16 mulx in them
    assert row4[:6] == ["N=4", "18.3", "0.87", "26.5 (1.45x)", "27.5 (1.50x)",
                        "27.5 (1.50x)"]
    assert row4[6:] == ["unavailable", "-", "-", "-"]
    assert "Cycles unavailable: no PMU in this VM" in table.title
    assert mulpre.bound_table([c for c in cases if c.variant != mulpre.MULX_BOUND]) is None


def test_chained_cases_leave_the_throughput_verdicts_alone():
    cases = ecc_cases(gmp4=10.0, host6=9.5)  # throughput: confirmed
    cases += [moded("gmp_mul_n", n, 1.0, "chain_x") for n in (4, 6)]  # would refute
    assert verdicts(cases)["(a)"].verdict == "confirmed"


def test_model_is_n_squared_cycles():
    # N^2 mulx at one per cycle; 2N^2 - 1 adds on two chains never take longer
    assert [mulpre.model_cycles(n) for n in mulpre.SIZES] == [n * n for n in mulpre.SIZES]


def test_model_table_reports_cycles_unavailable_never_zero():
    c = mulpre._finish(timed("asm/N=4", 0, 5.0), {})
    c.params["mode"] = "throughput"
    assert c.metrics["model_cycles"] == Metric.exact(16, "cycles/call", "model")
    c.unavailable["cycles"] = {"source": "pmu", "reason": "no PMU in this VM"}
    chained = mulpre._finish(moded("asm/N=4", 0, 5.0, "chain_x"), {})
    assert "model_cycles" not in chained.metrics  # the model is of the seed's loop only
    table = mulpre.model_table([c, chained])
    assert table.rows == [["N=4", "16", "unavailable", "-", "13.0", "0.81"]]
    assert "Cycles unavailable: no PMU in this VM" in table.title
    with_pmu = mulpre._finish(timed("asm/N=2", 0, 5.0), {})
    with_pmu.metrics["cycles"] = Metric.exact(6.0, "cycles/call", "pmu")
    assert mulpre.model_table([with_pmu]).rows[0][:4] == ["N=2", "4", "6.0", "1.50"]


# ---- cases and tables -----------------------------------------------------------------


def test_finish_splits_the_case_name_and_attaches_the_mix():
    mix = {"mul": 16, "mulx": 16, "add": 31, "mov": 16, "xor-zero": 3, "spills": 0,
           "reloads": 0}
    c = mulpre._finish(timed("asm/N=4", 0, 1.0), {"mulpre_asm_mul_4": mix})
    assert (c.variant, c.params["N"]) == ("asm", 4)
    assert c.metrics["mulx"] == Metric.exact(16, "instructions", "asm")
    g = mulpre._finish(timed("gmp_mul_n@host/N=7", 0, 1.0), {})
    assert (g.variant, g.params["N"], g.build) == ("gmp_mul_n@host", 7, None)
    assert "mulx" not in g.metrics  # GMP's loop has no per-N code: absent, never 0


def test_time_and_mix_tables():
    cases = [with_mix(timed("asm", n, n * 1.5), n * n) for n in (4, 8)]
    cases += [timed("gmp_mul_n", n, n * 3.0, None) for n in (4, 8)]
    cases.append(Case("portable", CLANG, {"N": 4}, error="build failed"))
    times, mixes, model = EXP.evidence(None, cases).tables
    assert [r[0] for r in model.rows] == ["N=4", "N=8"]
    assert times.columns == ["code", "build", "N=4", "N=8"]
    assert times.rows == [["asm", "gcc-12 -O2", "6.00", "12.00"],
                             ["portable", "clang-19 -O2", "failed", "-"],
                             ["gmp_mul_n", "-", "12.00", "24.00"]]
    assert mixes.rows == [["asm N=4", "gcc-12 -O2", "16", "16", "32", "4", "1", "0", "0"],
                             ["asm N=8", "gcc-12 -O2", "64", "64", "128", "4", "1", "0", "0"]]
    assert "source asm" in mixes.title


# ---- where the GMP peers come from (scripted) ----------------------------------------


class PeerRunner:
    """build_gmp_peer.sh: host built, fat missing; everything else fails loudly."""

    def __init__(self):
        self.calls: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], timeout: float, env=None, cwd=None) -> RunResult:
        self.calls.append(tuple(argv))
        if "--fat" in argv:
            return RunResult(tuple(argv), 1, "", "build_gmp_peer.sh: no fat build yet at X")
        if str(mulpre_gmp.PEER_SCRIPT) in argv:
            return RunResult(tuple(argv), 0, "/b/peers/gmp-host/lib/libgmp.so\n", "")
        raise AssertionError(f"unexpected run {argv}")


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_only_the_default_profile_builds_a_gmp(profile):
    runner = PeerRunner()
    ctx = Context(PROFILES[profile], [], runner)
    peers = mulpre_gmp.gmp_peers(ctx)
    assert peers["host"].as_posix() == "/b/peers/gmp-host/lib/libgmp.so"
    assert "fat" not in peers
    host_call = next(c for c in runner.calls if "--fat" not in c)
    assert ("--print-path" in host_call) == (profile == "quick")
    assert all("--print-path" in c for c in runner.calls if "--fat" in c)
    assert any(n.startswith("GMP peer fat not measured: build_gmp_peer.sh: no fat build")
               for n in ctx.notes)
    assert ("gmpy2" in peers) != any("GMP peer gmpy2 not measured" in n for n in ctx.notes)


class McLRunner:
    """build_mcl_peer.sh: built (stdout: its path) or not (stderr: why)."""

    def __init__(self, built: bool):
        self.built, self.calls = built, []

    def run(self, argv: Sequence[str], timeout: float, env=None, cwd=None) -> RunResult:
        self.calls.append(tuple(argv))
        assert str(mulpre_mcl.MCL_SCRIPT) in argv
        if self.built:
            return RunResult(tuple(argv), 0, "/b/peers/mcl/lib/libmclbint.so\n", "")
        return RunResult(tuple(argv), 1, "", "build_mcl_peer.sh: no mcl build yet at X")


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_only_the_default_profile_builds_mcl(profile):
    runner = McLRunner(built=profile == "default")
    ctx = Context(PROFILES[profile], [], runner)
    path = mulpre_mcl.mcl_peer(ctx)
    (call,) = runner.calls
    assert ("--print-path" in call) == (profile == "quick")
    if profile == "default":
        assert path.as_posix() == "/b/peers/mcl/lib/libmclbint.so" and not ctx.notes
    else:
        assert path is None
        assert ctx.notes == ["peer mcl not measured: build_mcl_peer.sh: no mcl build yet at "
                             "X (`native/kernels/mulpre/build_mcl_peer.sh` builds it, and so "
                             "does the default profile)"]


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output mulpre` recorded
# (tests/data/replay/mulpre.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert (run["experiment"], run["seed_row"], run["status"]) == ("mulpre", "S11", "complete")
    labels = {f"{b['compiler']} {b['flags']}" for b in run["builds"]}
    has_mulx = mulpre._cpu_has_mulx()
    assert {label.split("-")[0] for label in labels} == {"gcc", "clang"}
    assert len(labels) == (4 if has_mulx else 2)  # -mbmi2 -madx twins only where they run
    main = next(label for label in labels if label.startswith("gcc") and "mbmi2" not in label)
    got = {(c["variant"], c["params"]["N"],
            f"{c['build']['compiler']} {c['build']['flags']}" if c["build"] else "-")
           for c in run["cases"]}
    compiled = ("portable", "intrin") if has_mulx else ("portable",)
    mains = ("asm", "asm_sx", "asm_sqr", "mulpre_mul", *mulpre.BOUNDS) if has_mulx \
        else ("mulpre_mul",)
    want = {(v, n, b) for v in compiled for n in mulpre.SIZES for b in labels}
    want |= {(v, n, main) for v in mains for n in mulpre.SIZES}
    want |= {(v, n, "-") for v in ("gmp_mul_n", "gmp_sqr") for n in mulpre.SIZES}
    assert want <= got
    peers = {v for v, _, b in got - want}
    assert all(v.startswith("gmp_mul_n@") or v == "mcl" for v in peers), peers
    for form in mulpre.ASM_FORMS:  # both operand orders in every mode
        modes = {c["params"]["mode"] for c in run["cases"] if c["variant"] == form}
        assert modes == (set(mulpre.MODES) if has_mulx else set())
    for c in run["cases"]:
        assert "error" not in c, c
        assert c["metrics"]["time"]["unit"] == "ns/call"
        assert c["metrics"]["time"]["source"] == "clock" and c["metrics"]["time"]["median"] > 0
        assert ("cycles" in c["metrics"]) != ("cycles" in c["unavailable"])
        if c["variant"] == "asm" and c["params"]["mode"] == "throughput":
            # deterministic: N^2 mulx, nothing on the stack, and the model's N^2 cycles
            n = c["params"]["N"]
            mix = {k: c["metrics"][k]["median"] for k in mulpre.MIX}
            assert (mix["mulx"], mix["mul"], mix["spills"], mix["reloads"]) == \
                (n * n if n > 1 else 0, n * n, 0, 0), (n, mix)
            assert c["metrics"]["mulx"]["source"] == "asm"
            assert c["metrics"]["model_cycles"]["median"] == n * n
            assert c["metrics"]["model_cycles"]["source"] == "model"
            if n == 4:  # seed S11's hand-written N=4: 16 mulx, 31 add-type, 16 mov
                assert (mix["add"], mix["mov"]) == (31, 16)
    assert len(run["verdicts"]) == 10
    for v in run["verdicts"]:
        assert v["verdict"] in VERDICTS and v["evidence"] and v["seed"]
    if has_mulx:  # (d), both halves: static, never depends on time
        assert [v["verdict"] for v in run["verdicts"][3:5]] == ["confirmed", "confirmed"]
        assert "in 9 of 9" in run["verdicts"][3]["evidence"]
    titles = [t["title"] for t in run["evidence"]["tables"]]
    assert titles[0].startswith("ns per call") and titles[1].startswith("instructions")
    assert any(n.startswith("gmp_mul_n: GMP ") and "mpn_mul_basecase" in n
               for n in run["notes"])


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_run_mulpre_quick_json(results_db, capsys):
    rc = cli.main(["run", "mulpre", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
