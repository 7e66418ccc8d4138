"""Experiment `divide` (S4): verdicts from fake cases, and its quick run end to end (every
method x type x op x loop, quo(), `div` counts), replayed from recorded kernel output (for
real with CPULAB_FULL=1)."""

from __future__ import annotations

import json
from fnmatch import fnmatch

import pytest

from cpulab import cli
from cpulab.asm import find_functions
from cpulab.build import BuildConfig, build_one
from cpulab.context import PROFILES
from cpulab.experiments import get
from cpulab.experiments.divide import (
    DIVISORS,
    PROFILE_DIVISORS,
    QUO_DIVISOR,
    _add_quo_difference,
    divisor_kind,
)
from cpulab.measure.metrics import Metric
from cpulab.results import Case, Evidence
from replay import replay

EXP = get("divide")
TYPES = ["u32", "u64", "s32", "s64"]


def _build(cc="gcc-12") -> dict:
    return {"compiler": cc, "compiler_version": "x", "flags": "-O2", "pgo": False}


def _series(v: float) -> list[float]:
    return [v * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)]


def _case(method, t, ns, loop="tput", op="div", cc="gcc-12") -> Case:
    m = {"tsc": Metric.of(_series(ns), "ticks/division", "tsc")}
    params = {"divisor": 7, "type": t, "op": op, "kind": divisor_kind(7, t), "loop": loop}
    return Case(method, _build(cc), params, m)


def _types(times: dict[str, float], **per_type) -> list[Case]:
    """Every method of `times` for every type (per_type overrides one type's figures)."""
    out = []
    for t in TYPES:
        for method, ns in {**times, **per_type.get(t, {})}.items():
            out.append(_case(method, t, ns))
    return out


def _quo(mul_size, mod_size, mod_divs=0, cc="gcc-12") -> list[Case]:
    """quo()'s two forms in one build, with their code (asm) and what mod adds."""
    out = []
    for v, size, divs in (("mul", mul_size, 0), ("mod", mod_size, mod_divs)):
        out.append(Case(f"quo_{v}", _build(cc), {"divisor": 10**9, "exact_pct": 50,
                                                  "loop": "tput"}, {
            "tsc": Metric.of(_series(3.0), "ticks/call", "tsc"),
            "code-size": Metric.exact(size, "instructions", "asm"),
            "div-instructions": Metric.exact(divs, "instructions", "asm")}))
    _add_quo_difference(out)
    return out


def _verdicts(cases, evidence=None):
    return {v.claim[:3]: v for v in EXP.verdicts(cases, evidence or Evidence())}


BASE = {"hw": 10.0, "const": 2.0, "rtdiv": 2.1, "rtdiv_bf": 2.6, "libdivide": 2.5,
        "libdivide_bf": 2.2}


def test_within_the_constant_uses_our_best_form():
    v = _verdicts(_types(BASE))["(a)"]
    # the constant over rtdiv (2.0 over 2.1): a speed-up of 0.952, above 1/1.15
    assert v.verdict == "confirmed" and "reached in 4 of 4" in v.evidence
    assert "0.952x" in v.evidence and "by rtdiv;" in v.evidence
    fast_bf = _verdicts(_types({**BASE, "rtdiv": 3.0, "rtdiv_bf": 2.1}))["(a)"]
    assert fast_bf.verdict == "confirmed" and "by rtdiv_bf" in fast_bf.evidence
    slow = _verdicts(_types(BASE, s64={"rtdiv": 3.0, "rtdiv_bf": 3.1}))["(a)"]
    assert slow.verdict == "refuted" and "type=s64: tsc 0.667x" in slow.evidence
    # near the bound (1.15x slower): the interval spans it
    near = _verdicts(_types({**BASE, "rtdiv": 2.3}))["(a)"]
    assert near.verdict == "inconclusive"


def test_the_batch_never_stands_for_the_scalar_verbs():
    fast_batch = {**BASE, "rtdiv": 3.0, "rtdiv_bf": 3.1, "rtdiv_batch": 0.5}
    v = _verdicts(_types(fast_batch))["(a)"]
    assert v.verdict == "refuted" and "tsc 0.667x" in v.evidence and "by rtdiv;" in v.evidence
    assert "kind=add" in v.evidence and "type=u64" in v.evidence  # the divisor's kind


def test_the_batch_is_judged_against_the_vectorised_constant():
    vec = {**BASE, "rtdiv_batch": 0.6, "const_vec": 0.5}
    v = _verdicts(_types(vec))["(e)"]
    assert v.verdict == "refuted" and "tsc 0.833x" in v.evidence
    ok = _verdicts(_types({**vec, "const_vec": 0.55}))["(e)"]
    assert ok.verdict == "confirmed"
    v = _verdicts(_types(BASE))["(e)"]  # no batch at all: the claim's own variant is named
    assert v.verdict == "unmeasurable" and "no case of rtdiv_batch" in v.evidence
    v = _verdicts(_types({**BASE, "rtdiv_batch": 0.6}))["(e)"]  # the batch, no const_vec
    assert v.verdict == "unmeasurable" and "no case of const_vec beside" in v.evidence


def test_speed_is_judged_in_throughput_only():
    lat = [_case(m, t, ns, loop="lat") for t in TYPES
           for m, ns in (("const", 1.0), ("rtdiv", 5.0))]
    assert _verdicts(_types(BASE) + lat)["(a)"].verdict == "confirmed"
    v = _verdicts(lat)["(a)"]
    assert v.verdict == "unmeasurable" and "loop=tput" in v.evidence


def test_every_kind_of_divisor_is_the_full_profile_s_and_the_seed_s_the_default_s():
    assert PROFILE_DIVISORS["full"] == DIVISORS and set(PROFILE_DIVISORS) == set(PROFILES)
    kinds = {name: {divisor_kind(d, t) for d in PROFILE_DIVISORS[name]
                    for t in ("u32", "u64", "s32", "s64")} for name in PROFILES}
    assert kinds["full"] == {"add", "plain", "pow2", "even"}
    assert QUO_DIVISOR in PROFILE_DIVISORS["default"] and "add" in kinds["default"]
    assert set(PROFILE_DIVISORS["quick"]) < set(PROFILE_DIVISORS["default"]) < set(DIVISORS)


def test_divisor_kinds_follow_the_magic_number_test():
    assert [divisor_kind(d, "u64") for d in (3, 7, 1024, 10**9)] == \
        ["plain", "add", "pow2", "even"]
    assert divisor_kind(7, "s64") == "plain" and divisor_kind(3, "s64") == "plain"
    assert divisor_kind(7, "s32") == "add" and divisor_kind(3, "s32") == "plain"
    assert divisor_kind(1, "u32") == "pow2"


def test_libdivide_comparison_allows_a_tie_only():
    v = _verdicts(_types(BASE))["(b)"]
    # rtdiv (2.1) against the faster libdivide form (libdivide_bf, 2.2)
    assert v.verdict == "confirmed" and "against libdivide_bf" in v.evidence
    tie = {**BASE, "libdivide_bf": 2.06}  # rtdiv 2% slower: a tie
    assert _verdicts(_types(tie))["(b)"].verdict == "confirmed"
    lost = _verdicts(_types(BASE, u32={"libdivide_bf": 1.5}))["(b)"]
    assert lost.verdict == "refuted" and "type=u32: tsc 0.714x" in lost.evidence


def test_hardware_division_against_ours():
    v = _verdicts(_types(BASE))["(c)"]
    assert v.verdict == "confirmed" and "4 of 4" in v.evidence
    fast_hw = _verdicts(_types(BASE, u64={"hw": 1.5}))["(c)"]
    assert fast_hw.verdict == "refuted" and "short in 1" in fast_hw.evidence
    # our fastest form counts, the batch among them
    batch = _verdicts(_types(BASE, u64={"hw": 1.5, "rtdiv_batch": 1.0}))["(c)"]
    assert batch.verdict == "confirmed" and "by rtdiv_batch" in batch.evidence


def test_verdicts_without_their_cases_are_unmeasurable():
    v = _verdicts([_case("hw", "u64", 10.0)])
    assert all(x.verdict == "unmeasurable" for x in v.values())


def test_quo_claim_is_decided_by_instruction_counts():
    v = _verdicts(_quo(12, 16))["(d)"]
    assert v.verdict == "confirmed" and "4 instructions" in v.evidence
    assert _verdicts(_quo(12, 12))["(d)"].verdict == "refuted"
    # one build adds instructions, another does not: refuted, "only adds" in every build
    mixed = _quo(12, 16) + _quo(12, 12, cc="clang-19")
    assert _verdicts(mixed)["(d)"].verdict == "refuted"
    # a form that divides is not the seed's comparison: no figure, and why
    v = _verdicts(_quo(12, 16, mod_divs=1))["(d)"]
    assert v.verdict == "unmeasurable" and "quo_mod 1" in v.evidence


def test_asm_variants_name_functions_their_builds_have(gcc):
    """`cpulab asm divide V` reads the functions hot_symbols names: every variant's
    target must build a binary that has each of them."""
    targets = EXP.targets()
    assert {"hw", "const", "rtdiv", "libdivide", "fastmod", "quo_mul", "quo_mod"} \
        <= set(targets)
    for variant in ("hw", "rtdiv", "quo_mod"):
        binary = build_one(targets[variant], BuildConfig(gcc, "O2"))
        found = {f.name for f in find_functions(binary, EXP.hot_symbols(variant))}
        for want in EXP.hot_symbols(variant):
            assert any(fnmatch(n, want) for n in found), (variant, want)


# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output divide` recorded
# (tests/data/replay/divide.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert run["status"] == "complete"
    compilers = {b["compiler"] for b in run["builds"]}
    cases = [c for c in run["cases"] if not c.get("error")]
    seen = {(c["variant"], c["params"].get("type"), c["params"].get("op"),
             c["params"]["loop"], c["build"]["compiler"]) for c in cases}
    for cc in compilers:
        for t in TYPES:
            for op in ("div", "rem"):
                for m in ("hw", "const", "rtdiv", "rtdiv_bf", "libdivide", "libdivide_bf"):
                    assert {(m, t, op, "tput", cc), (m, t, op, "lat", cc)} <= seen
                assert ("rtdiv_batch", t, op, "tput", cc) in seen
                assert ("const_vec", t, op, "tput", cc) in seen
            assert (("fastmod", t, "rem", "tput", cc) in seen) == (t != "s64")
        for v in ("quo_mul", "quo_mod", "quo_inverse"):
            assert (v, None, None, "tput", cc) in seen
    for c in cases:
        if c["variant"] in ("const_vec", "rtdiv_batch"):  # ISA clones behind an ifunc
            assert "div-instructions" in c["unavailable"], c
            continue
        divs = c["metrics"]["div-instructions"]["median"]
        if c["variant"] == "hw" and c["params"]["loop"] == "tput":
            assert divs >= 1, c
        if c["variant"] in ("const", "rtdiv", "rtdiv_bf", "quo_mul", "quo_mod"):
            assert divs == 0, c
    assert [v["claim"][:3] for v in run["verdicts"]] == ["(a)", "(b)", "(c)", "(d)", "(e)"]
    assert all(v["verdict"] != "unmeasurable" for v in run["verdicts"])


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_end_to_end_quick(results_db, capsys):
    rc = cli.main(["run", "divide", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
