"""Experiment `bigdec` (S5): verdicts and the growth fit from fake cases, the CPython
peer program (its number is the kernel's, its output the harness's), and its quick run
end to end, replayed from recorded kernel output (for real with CPULAB_FULL=1)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cpulab import cli
from cpulab.context import PROFILES, Context
from cpulab.experiments import get
from cpulab.experiments.bigdec import flint as bigdec_flint
from cpulab.experiments.bigdec.cpython import kernel_number
from cpulab.experiments.bigdec.experiment import (
    CPYTHON_MAX_BITS,
    FIT_FROM_BITS,
    SWEEP_BITS,
    digits_max,
    growth_fits,
)
from cpulab.experiments.bigdec.gmp import gmp_builds_param, gmp_libs
from cpulab.measure.kernel_output import parse
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import RunResult
from cpulab.results import Case, Evidence
from replay import replay

EXP = get("bigdec")


def _build(cc="gcc-12") -> dict:
    return {"compiler": cc, "compiler_version": "x", "flags": "-O2", "pgo": False}


def _case(variant, bits, ns, divs=None, cc="gcc-12") -> Case:
    m = {"time": Metric.of([ns * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)],
                           "ns/conversion", "clock")}
    if divs is not None:
        m["divs/digit"] = Metric.exact(divs, "div/digit", "asm")
    build = None if variant == "cpython" else _build(cc)
    return Case(variant, build, {"bits": bits, "digits": digits_max(bits)}, m)


def _sweep(bigdec, gmp, sizes=(64, 1024, 4096, 16384, 65536, 262144, 1048576, 3321928)):
    """bigdec and gmp at each size, times from functions of the size in bits."""
    return [c for b in sizes for c in (_case("bigdec", b, bigdec(b)), _case("gmp", b, gmp(b)))]


def _verdicts(cases):
    return {v.claim[:3]: v for v in EXP.verdicts(cases, Evidence())}


def test_digits_max_is_exact_for_the_swept_sizes():
    for bits in (1, 63, 64, 65, 1000, 1024, 4096, 10000):
        assert digits_max(bits) == len(str((1 << bits) - 1))
    # 10^999999 lies between 2^3321924 and 2^3321925: every number from 2^3321927 to
    # 2^3321928 - 1 (the sweep's largest size) has 10^6 digits
    assert digits_max(3321928) == digits_max(3321927) == digits_max(3321925) == 1_000_000
    assert digits_max(3321924) == 999_999


def test_fused_loop_claim():
    faster = [_case("seed_twodiv", 1000, 3000.0, divs=2), _case("seed_fused", 1000, 1500.0, 1)]
    v = _verdicts(faster)["(a)"]
    assert v.verdict == "confirmed" and "2.000x" in v.evidence and "8.686" in v.seed
    slower = [_case("seed_twodiv", 1000, 1500.0, divs=2), _case("seed_fused", 1000, 3000.0, 1)]
    assert _verdicts(slower)["(a)"].verdict == "refuted"
    # the same speed: the interval spans 1, which decides nothing either way
    same = [_case("seed_twodiv", 1000, 1500.0, divs=2), _case("seed_fused", 1000, 1500.0, 1)]
    assert _verdicts(same)["(a)"].verdict == "inconclusive"
    assert _verdicts([])["(a)"].verdict == "unmeasurable"


def test_fused_loop_claim_compares_the_seed_s_loops_only():
    # a build whose loops do not divide twice and once is not the seed's comparison
    one_each = [_case("seed_twodiv", 1000, 3000.0, divs=1), _case("seed_fused", 1000, 1500.0, 1)]
    v = _verdicts(one_each)["(a)"]
    assert v.verdict == "unmeasurable" and "seed_twodiv's divs/digit == 2 (1)" in v.evidence
    unread = [_case("seed_twodiv", 1000, 3000.0), _case("seed_fused", 1000, 1500.0)]
    assert "(not measured)" in _verdicts(unread)["(a)"].evidence


def test_small_sizes_against_gmp():
    fast = _sweep(lambda b: b * 1.0, lambda b: b * 2.0)
    assert _verdicts(fast)["(b)"].verdict == "confirmed"
    close = _sweep(lambda b: b * 1.0, lambda b: b * 1.1)
    v = _verdicts(close)["(b)"]
    assert v.verdict == "refuted" and "1.100x" in v.evidence
    assert "bits=65536" not in v.evidence  # judged up to 4096 bits only
    assert _verdicts(_sweep(lambda b: b, lambda b: b, sizes=(65536,)))["(b)"].verdict \
        == "unmeasurable"


def test_large_size_against_gmp_and_the_quick_profile():
    near = _sweep(lambda b: b * 1.5, lambda b: b * 1.0)
    v = _verdicts(near)["(c)"]
    assert v.verdict == "confirmed" and "digits=1000000: time 0.667x" in v.evidence
    assert "digits=78914" not in v.evidence
    far = _sweep(lambda b: b * 3.0, lambda b: b * 1.0)
    assert _verdicts(far)["(c)"].verdict == "refuted"
    quick = _sweep(lambda b: b * 1.5, lambda b: b * 1.0, sizes=(64, 4096, 262144))
    v = _verdicts(quick)["(c)"]
    assert v.verdict == "unmeasurable" and "digits=1000000" in v.evidence
    assert "78914" in v.evidence  # the sizes the run had


def test_cpython_s_largest_size_is_the_full_profile_s_and_10_6_digits_every_profile_s():
    assert set(CPYTHON_MAX_BITS) == set(PROFILES)
    assert CPYTHON_MAX_BITS["default"] < CPYTHON_MAX_BITS["full"] <= max(SWEEP_BITS)
    # the claims at 10^6 digits are bigdec's and GMP's: their sweep is not cut
    assert digits_max(max(SWEEP_BITS)) == 1_000_000
    # CPython's growth is still fitted in the default profile
    assert len([b for b in SWEEP_BITS if FIT_FROM_BITS <= b <= CPYTHON_MAX_BITS["default"]]) >= 3


def test_growth_exponent_fit():
    cases = _sweep(lambda b: 1e-3 * b**1.5, lambda b: 1e-3 * b**1.3)
    cases += [_case("cpython", b, 1e-6 * b**2) for b in (16384, 65536, 262144)]
    fits = growth_fits(cases)
    k, se, n, lo, hi = fits[("bigdec", "gcc-12 -O2")]
    assert abs(k - 1.5) < 0.01 and n == 5 and (lo, hi) == (16384, 3321928)
    assert abs(fits[("gmp", "gcc-12 -O2")][0] - 1.3) < 0.01
    assert abs(fits[("cpython", "-")][0] - 2.0) < 0.01
    v = _verdicts(cases)["(d)"]
    assert v.verdict == "confirmed" and "k = 1.500" in v.evidence
    assert "digits 4,933 .. 1,000,000, 5 values" in v.evidence  # from FIT_FROM_BITS
    quadratic = _sweep(lambda b: 1e-6 * b**2, lambda b: b)
    assert _verdicts(quadratic)["(d)"].verdict == "refuted"
    too_few = _sweep(lambda b: b, lambda b: b, sizes=(64, 16384, 65536))
    v = _verdicts(too_few)["(d)"]
    assert v.verdict == "unmeasurable" and "fewer than 3 values of digits" in v.evidence


def test_growth_between_the_bounds_is_inconclusive():
    # k near 1.9 with scatter: k + 2 s.e. above the bound, k - 2 s.e. below it
    wobble = {16384: 1.3, 65536: 0.7, 262144: 1.3, 1048576: 0.7, 3321928: 1.0}
    cases = _sweep(lambda b: 1e-6 * b**1.9 * wobble.get(b, 1.0), lambda b: b)
    assert _verdicts(cases)["(d)"].verdict == "inconclusive"


ALL = (64, 256, 1000, 1024, 4096, 16384, 65536, 262144, 1048576, 3321928)


def _states(warm, cold, gmp, sizes=ALL):
    return [c for b in sizes for c in (_case("bigdec", b, warm(b)),
                                       _case("bigdec_cold", b, cold(b)),
                                       _case("gmp", b, gmp(b)))]


def test_warm_and_cold_are_judged_apart_against_gmp():
    # warm beats GMP everywhere; cold loses above 4096 bits, where powers are built
    cases = _states(lambda b: b * 1.0, lambda b: b * (1.0 if b <= 4096 else 3.0),
                    lambda b: b * 1.5)
    got = _verdicts(cases)
    assert got["(e)"].verdict == "confirmed" and "warm" in got["(e)"].claim
    assert "reached in 10 of 10" in got["(e)"].evidence
    assert got["(f)"].verdict == "refuted" and "cold" in got["(f)"].claim
    assert "bits=65536, digits=19729: time 0.500x" in got["(f)"].evidence
    assert "reached in 5 of 10, short in 5" in got["(f)"].evidence


def test_verdicts_take_the_fastest_gmp_build():
    cases = _states(lambda b: b * 1.0, lambda b: b * 1.0, lambda b: b * 1.5)
    cases.append(_case("gmp@host", 65536, 65536 * 0.8))  # faster than bigdec there
    got = _verdicts(cases)
    assert got["(e)"].verdict == "refuted"
    assert "bits=65536, digits=19729: time 0.800x" in got["(e)"].evidence
    assert "against gmp@host" in got["(e)"].evidence


def test_verdicts_take_flint_where_it_is_the_fastest_peer():
    cases = _states(lambda b: b * 1.0, lambda b: b * 1.0, lambda b: b * 1.5)
    cases.append(_case("flint", 3321928, 3321928 * 0.9))  # 10^6 digits: FLINT leads
    cases.append(_case("flint", 64, 64 * 3.0))  # slower than GMP: GMP stays the peer
    got = _verdicts(cases)
    for claim in ("(e)", "(f)"):
        v = got[claim]
        assert v.verdict == "refuted" and "short in 1" in v.evidence
        assert "bits=3321928, digits=1000000: time 0.900x" in v.evidence
        assert "against flint" in v.evidence and "FLINT" in v.claim
        assert "bits=64, digits=20: time 1.500x [" in v.evidence


class _FlintScript:
    """build_flint_peer.sh: fetched (stdout: its path) or not (stderr: why)."""

    def __init__(self, fetched: bool):
        self.fetched, self.calls = fetched, []

    def run(self, argv, timeout, env=None, cwd=None):
        self.calls.append(tuple(argv))
        assert str(bigdec_flint.FLINT_SCRIPT) in argv
        if self.fetched:
            return RunResult(tuple(argv), 0, "/b/peers/flint/lib/libflint.so\n", "")
        return RunResult(tuple(argv), 1, "", "build_flint_peer.sh: no FLINT yet at X")


@pytest.mark.parametrize("profile", ["quick", "default"])
def test_only_the_default_profile_fetches_flint(profile):
    runner = _FlintScript(fetched=profile == "default")
    ctx = Context(PROFILES[profile], [], runner)
    path = bigdec_flint.flint_peer(ctx)
    (call,) = runner.calls
    assert ("--print-path" in call) == (profile == "quick")
    if profile == "default":
        assert path.as_posix() == "/b/peers/flint/lib/libflint.so" and not ctx.notes
    else:
        assert path is None
        assert ctx.notes == ["bigdec: peer flint not measured: build_flint_peer.sh: no FLINT "
                             "yet at X (`native/kernels/bigdec/build_flint_peer.sh` builds "
                             "it, and so does the default profile)"]


class _PeerScript:
    """build_gmp_peer.sh --print-path: the host build present, the fat one not."""

    def run(self, argv, timeout, env=None, cwd=None):
        if "--fat" in argv:
            return RunResult(tuple(argv), 1, "", "build_gmp_peer.sh: no fat build yet at X")
        return RunResult(tuple(argv), 0, "/b/peers/gmp-host/lib/libgmp.so\n", "")


def test_gmp_builds_are_found_never_built():
    ctx = Context(PROFILES["default"], [], _PeerScript())
    libs = gmp_libs(ctx)
    assert {k: v.as_posix() for k, v in libs.items()} == \
        {"host": "/b/peers/gmp-host/lib/libgmp.so"}
    assert gmp_builds_param(libs) == ("--param", "gmp_builds=host:/b/peers/gmp-host/lib/libgmp.so")
    assert gmp_builds_param({}) == ()
    assert ctx.notes == ["bigdec: GMP fat not measured: "
                         "`native/kernels/mulpre/build_gmp_peer.sh --fat` builds it"]


def test_warm_and_cold_need_the_whole_sweep_to_be_confirmed():
    quick = _states(lambda b: b, lambda b: b, lambda b: 2.0 * b, sizes=ALL[:8])
    v = _verdicts(quick)["(f)"]
    assert v.verdict == "unmeasurable" and "bits=1048576 or 3321928" in v.evidence
    assert "on the rest, confirmed" in v.evidence
    # a size where bigdec loses refutes "every size" all the same
    lost = _states(lambda b: b, lambda b: 3.0 * b, lambda b: 2.0 * b, sizes=ALL[:8])
    assert _verdicts(lost)["(f)"].verdict == "refuted"
    v = _verdicts([_case("gmp", 64, 1.0)])["(e)"]
    assert v.verdict == "unmeasurable" and "no case of bigdec" in v.evidence


def test_cpython_peer_converts_the_kernels_number():
    # splitmix64 from 0: the first output is 0xe220a8397b1dcdaf (Vigna's reference)
    assert kernel_number(64, seed=0) == 0xE220A8397B1DCDAF | (1 << 63)
    x = kernel_number(1000)
    assert x.bit_length() == 1000
    p = subprocess.run([sys.executable, "-m", "cpulab.experiments.bigdec.cpython", "--bits",
                        "1000", "--reps", "2", "--iters", "3"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    out = parse(p.stdout)
    assert out.cases() == ["cpython"] and len(out.reps) == 2
    assert out.meta["params"]["digits"] == len(str(x)) == 301
    assert all(r.units == 3 and r.tsc is None for r in out.reps)


@pytest.mark.parametrize("bad", [["--bits", "0"], ["--bits", "64", "--reps", "0"]])
def test_cpython_peer_rejects_bad_input(bad):
    p = subprocess.run([sys.executable, "-m", "cpulab.experiments.bigdec.cpython", *bad],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and json.loads(p.stdout)["type"] == "error"


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output bigdec` recorded
# (tests/data/replay/bigdec.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert run["status"] == "complete"
    compilers = {b["compiler"] for b in run["builds"]}
    cases = [c for c in run["cases"] if not c.get("error")]
    seen = {(c["variant"], c["params"]["bits"], (c["build"] or {}).get("compiler"))
            for c in cases}
    for cc in compilers:
        assert {(v, 1000, cc) for v in ("seed_twodiv", "seed_fused", "bigdec", "gmp")} <= seen
        for bits in (64, 256, 1024, 4096, 16384, 65536, 262144):
            assert {("bigdec", bits, cc), ("bigdec_cold", bits, cc), ("gmp", bits, cc)} <= seen
    assert {("cpython", b, None) for b in (64, 4096, 262144)} <= seen
    if not any(n.startswith("bigdec: peer flint not measured") for n in run["notes"]):
        for cc in compilers:  # FLINT beside GMP in every program of the kernel's cases
            assert {("flint", b, cc) for b in (64, 1000, 4096, 262144)} <= seen
    divs = {(c["variant"], c["build"]["compiler"]): c["metrics"]["divs/digit"]["median"]
            for c in cases if "divs/digit" in c["metrics"]}
    for cc in compilers:  # S5: two divisions per digit, one after the fix, none in bigdec
        assert (divs[("seed_twodiv", cc)], divs[("seed_fused", cc)], divs[("bigdec", cc)]) \
            == (2, 1, 0)
    assert all(c["metrics"]["time"]["source"] == "clock" for c in cases)
    assert [v["claim"][:3] for v in run["verdicts"]] == ["(a)", "(b)", "(c)", "(d)", "(e)",
                                                          "(f)"]
    by = {v["claim"][:3]: v["verdict"] for v in run["verdicts"]}
    assert by["(c)"] == "unmeasurable"  # the quick profile stops before 10^6 digits
    assert all(by[k] != "unmeasurable" for k in ("(a)", "(b)", "(d)"))
    growth = {(g["method"], g["build"]) for g in run["evidence"]["growth"]}
    ours = {m for m, _ in growth if not m.startswith("gmp@")} - {"flint"}
    assert ("cpython", "-") in growth and ours == {"bigdec", "bigdec_cold", "gmp", "cpython"}
    # gmp@host where build_gmp_peer.sh made one
    builds = {m for m, _ in growth} - ours - {"flint"}
    missing = {lbl for lbl in ("host", "fat")
               if any(n.startswith(f"bigdec: GMP {lbl} not measured") for n in run["notes"])}
    assert builds == {f"gmp@{lbl}" for lbl in ("host", "fat") if lbl not in missing}


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_end_to_end_quick(results_db, capsys):
    rc = cli.main(["run", "bigdec", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
