"""Declarative claims judged from made-up cases: the same data always gives the same
verdict, and a missing figure is `unmeasurable` with its reason, never a zero."""

from __future__ import annotations

import pytest

from cpulab.claims import ASM_FACT, MNEMONIC, ClaimSpec, count_of, judge
from cpulab.described.description import DescriptionError, load
from cpulab.measure.metrics import Metric
from cpulab.results import Case, Evidence


def _case(variant, opt, tsc=None, exact=None, unavailable=None, params=None):
    metrics = {}
    if tsc is not None:
        metrics["tsc"] = Metric.of(list(tsc), "ticks/item", "tsc")
    if exact is not None:
        metrics["instructions (callgrind)"] = Metric.exact(exact, "instructions/item",
                                                           "callgrind")
    build = {"compiler": "gcc-12", "flags": f"-{opt}", "pgo": False}
    return Case(variant, build, params or {}, metrics, unavailable or {})


FAST = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98]
SLOW = [2.0, 2.02, 1.98, 2.0, 2.04, 1.96]
SAME = [1.0, 1.05, 0.95, 1.02, 0.98, 1.0]


def _faster(builds="every", by=1.5):
    return ClaimSpec("faster", "a", "a beats b", than="b", by=by, metric="tsc",
                     builds=builds)


def test_faster_every_build_needs_every_interval_at_the_target():
    cases = [_case("a", "O2", FAST), _case("b", "O2", SLOW),
             _case("a", "O3", FAST), _case("b", "O3", SLOW)]
    v = judge(_faster(), cases, Evidence())
    assert v.verdict == "confirmed" and "reached in 2 of 2" in v.evidence
    # One build where they tie: refuted for "every", still confirmed by a majority of 3.
    cases += [_case("a", "O1", SAME), _case("b", "O1", FAST)]
    assert judge(_faster(), cases, Evidence()).verdict == "refuted"
    assert judge(_faster("most"), cases, Evidence()).verdict == "confirmed"
    # A target above every ratio: refuted, with the ratios shown.
    v = judge(_faster(by=3.0), cases[:4], Evidence())
    assert v.verdict == "refuted" and "2.000x" in v.evidence


def test_a_metric_the_machine_lacks_is_unmeasurable_with_the_reason():
    why = {"source": "pmu", "reason": "perf_event_open(cycles): errno 2"}
    cases = [_case("a", "O2", FAST, unavailable={"cycles": why}),
             _case("b", "O2", SLOW, unavailable={"cycles": why})]
    claim = ClaimSpec("faster", "a", "a beats b", than="b", by=1.1, metric="cycles")
    v = judge(claim, cases, Evidence())
    assert v.verdict == "unmeasurable" and "errno 2" in v.evidence


def test_bounds_on_exact_and_measured_figures():
    cases = [_case("a", "O2", FAST, exact=11), _case("a", "O3", FAST, exact=12)]
    at_most = ClaimSpec("at-most", "a", "few", metric="instructions (callgrind)", value=12)
    assert judge(at_most, cases, Evidence()).verdict == "confirmed"
    tight = ClaimSpec("at-most", "a", "fewer", metric="instructions (callgrind)", value=11.5)
    assert judge(tight, cases, Evidence()).verdict == "refuted"
    # A measured median near the bound: its interval straddles it.
    near = ClaimSpec("at-least", "a", "slow enough", metric="tsc", value=1.0)
    assert judge(near, cases, Evidence()).verdict == "inconclusive"
    far = ClaimSpec("at-least", "a", "slow enough", metric="tsc", value=0.5)
    assert judge(far, cases, Evidence()).verdict == "confirmed"


def test_no_instruction_counts_categories_and_mnemonic_prefixes():
    counts = {"jcc": 0, "div": 1, f"{MNEMONIC}cmovne": 2, f"{MNEMONIC}cmovl": 1,
              f"{MNEMONIC}div": 1}
    assert count_of(counts, "cmov") == 3 and count_of(counts, "div") == 1
    assert count_of(counts, "jcc") == 0 and count_of(counts, "idiv") == 0
    facts = {ASM_FACT: {"a": {"gcc-12 -O2": {"functions": ["f"], "counts": counts},
                              "clang-19 -O2": {"error": "build failed: x.c:1: error: y"}}}}
    no_div = ClaimSpec("no-instruction", "a", "no div", instruction="div")
    v = judge(no_div, [], Evidence(facts=facts))
    assert v.verdict == "refuted" and "1 of 1" in v.evidence and "error: y" in v.evidence
    no_jcc = ClaimSpec("no-instruction", "a", "no jcc", instruction="jcc")
    assert judge(no_jcc, [], Evidence(facts=facts)).verdict == "confirmed"
    nothing = {ASM_FACT: {"a": {"gcc-12 -O2": {"error": "no function matching f"}}}}
    v = judge(no_jcc, [], Evidence(facts=nothing))
    assert v.verdict == "unmeasurable" and "no function matching f" in v.evidence


def test_a_claim_with_where_is_judged_on_the_cases_it_names_alone():
    small, large = {"n": 4096}, {"n": 1048576}
    cases = [_case("a", "O2", FAST, params=small), _case("b", "O2", SLOW, params=small),
             _case("a", "O2", SLOW, params=large), _case("b", "O2", FAST, params=large)]
    at_4096 = ClaimSpec("faster", "a", "a beats b at n=4096", than="b", by=1.5,
                        metric="tsc", where={"n": ("4096",)})
    v = judge(at_4096, cases, Evidence())
    assert v.verdict == "confirmed" and "reached in 1 of 1" in v.evidence
    assert "n=1048576" not in v.evidence
    assert judge(_faster(), cases, Evidence()).verdict == "refuted"  # every case
    either = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc",
                       where={"n": ("4096", "1048576")})
    assert judge(either, cases, Evidence()).verdict == "refuted"
    cheap = ClaimSpec("at-most", "a", "cheap when large", metric="tsc", value=1.5,
                      where={"n": ("1048576",)})
    v = judge(cheap, cases, Evidence())
    assert v.verdict == "refuted" and "in 0 of 1" in v.evidence
    # A run without that value (a --quick one): no verdict from other cases, and what
    # the run had instead.
    v = judge(at_4096, cases[2:], Evidence())
    assert v.verdict == "unmeasurable"
    assert "n=4096" in v.evidence and "its cases have: n=1048576" in v.evidence


def test_several_peers_are_judged_against_the_fastest_in_each_build():
    # b is 2x slower than a, c only as fast: against the fastest peer a leads by ~1.
    cases = [_case("a", "O2", FAST), _case("b", "O2", SLOW), _case("c", "O2", SAME)]
    one = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc")
    assert judge(one, cases, Evidence()).verdict == "confirmed"
    both = ClaimSpec("faster", "a", "a beats all", than=("b", "c"), by=1.5, metric="tsc")
    v = judge(both, cases, Evidence())
    assert v.verdict == "refuted" and "against c" in v.evidence
    assert "the fastest of b or c" in v.evidence


def test_over_averages_a_parameter_into_one_ratio_per_build():
    cases = [_case(v, "O2", t, params={"program": p})
             for p in ("fib", "sieve") for v, t in (("a", FAST), ("b", SLOW))]
    claim = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc",
                      over="program")
    v = judge(claim, cases, Evidence())
    assert v.verdict == "confirmed" and "reached in 1 of 1" in v.evidence
    assert "geometric mean over program" in v.evidence


def test_within_is_confirmed_inside_the_band_and_refuted_wholly_outside():
    near = [_case("a", "O2", FAST), _case("b", "O2", FAST)]
    little = ClaimSpec("within", "a", "changes little", than="b", by=0.1, metric="tsc")
    assert judge(little, near, Evidence()).verdict == "confirmed"
    far = [_case("a", "O2", FAST), _case("b", "O2", SLOW)]
    assert judge(little, far, Evidence()).verdict == "refuted"


def test_a_failed_precondition_skips_the_build_and_says_why():
    from cpulab.claims import Requirement

    def sites(case, n):
        case.metrics["sites"] = Metric.exact(n, "sites", "asm")
        return case

    cases = [sites(_case("a", "O2", FAST), 2), sites(_case("b", "O2", SLOW), 1),
             sites(_case("a", "O3", FAST), 2), sites(_case("b", "O3", SLOW), 3)]
    claim = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc",
                      requires=(Requirement("b", "sites", "==", 1),))
    v = judge(claim, cases, Evidence())
    assert v.verdict == "confirmed" and "reached in 1 of 1" in v.evidence
    assert "precondition fails: gcc-12 -O3 (b's sites == 1 (3))" in v.evidence


def _sized(variant, opt, n, per_n, k, jitter=1.0):
    """A case at size n whose tsc grows as per_n * n^k."""
    return _case(variant, opt, [per_n * n**k * jitter * f for f in (1.0, 1.01, 0.99)],
                 params={"n": n, "bytes": 8 * n})


def _growth(value=1.9, builds="every"):
    return ClaimSpec("growth", "a", "a grows slowly", metric="tsc", over="n", value=value,
                     builds=builds)


def test_growth_fits_the_exponent_per_build_against_its_bound():
    ns = (1000, 4000, 16000, 64000)
    cases = [_sized("a", "O2", n, 1e-3, 1.5) for n in ns]
    cases += [_sized("a", "O3", n, 1e-3, 1.5) for n in ns]
    v = judge(_growth(), cases, Evidence())
    # `bytes` moves with n: one series per build, not one per size
    assert v.verdict == "confirmed" and "below 1.9 in 2 of 2" in v.evidence
    assert "k = 1.500" in v.evidence and "n 1,000 .. 64,000, 4 values" in v.evidence
    # one build quadratic: refuted by "every", a split for "most"
    cases[4:] = [_sized("a", "O3", n, 1e-6, 2.0) for n in ns]
    assert judge(_growth(), cases, Evidence()).verdict == "refuted"
    assert judge(_growth(builds="most"), cases, Evidence()).verdict == "inconclusive"
    # scattered points: k + 2 s.e. above the bound, k - 2 s.e. below
    jitter = (1.4, 0.6, 1.4, 0.7)
    wobble = [_sized("a", "O2", n, 1e-3, 1.8, j) for n, j in zip(ns, jitter, strict=True)]
    assert judge(_growth(), wobble, Evidence()).verdict == "inconclusive"


def test_growth_needs_three_sizes_and_the_metric():
    two = [_sized("a", "O2", n, 1.0, 1.0) for n in (1000, 4000)]
    v = judge(_growth(), two, Evidence())
    assert v.verdict == "unmeasurable" and "fewer than 3 values of n" in v.evidence
    why = {"source": "tsc", "reason": "no invariant TSC"}
    none = [_case("a", "O2", unavailable={"tsc": why}, params={"n": 1})]
    v = judge(_growth(), none, Evidence())
    assert v.verdict == "unmeasurable" and "no invariant TSC" in v.evidence


def test_a_family_compares_the_fastest_form_of_the_variant():
    cases = [_case("a", "O2", SLOW), _case("a2", "O2", FAST), _case("b", "O2", SLOW)]
    alone = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc")
    assert judge(alone, cases, Evidence()).verdict == "refuted"
    either = ClaimSpec("faster", "a", "a beats b", than="b", by=1.5, metric="tsc",
                       family=("a2",))
    v = judge(either, cases, Evidence())
    assert v.verdict == "confirmed" and "] by a2" in v.evidence
    assert "the fastest of a or a2 over b" in v.evidence


def test_every_value_needs_every_size_to_confirm_but_one_loss_refutes():
    small, large = {"n": 4096}, {"n": 1048576}
    claim = ClaimSpec("faster", "a", "a beats b at every n", than="b", by=1.5,
                      metric="tsc", where={"n": ("4096", "1048576")}, every_value=True)
    both = [_case("a", "O2", FAST, params=small), _case("b", "O2", SLOW, params=small),
            _case("a", "O2", FAST, params=large), _case("b", "O2", SLOW, params=large)]
    assert judge(claim, both, Evidence()).verdict == "confirmed"
    v = judge(claim, both[:2], Evidence())
    assert v.verdict == "unmeasurable" and "no case of a has n=1048576" in v.evidence
    assert "on the rest, confirmed" in v.evidence
    lost = [_case("a", "O2", SLOW, params=small), _case("b", "O2", FAST, params=small)]
    assert judge(claim, lost, Evidence()).verdict == "refuted"


def test_a_description_states_growth_over_a_swept_parameter(tmp_path):
    import pytest

    from cpulab.described.description import DescriptionError, load

    (tmp_path / "pick.c").write_text("int pick(int x) { return x; }\n")
    head = ("name = 'pick'\n[[variants]]\nname = 'a'\nsources = ['pick.c']\n"
            "[params]\nn = [1000, 4000, 16000]\nm = [1, 2]\n[[claims]]\nkind = 'growth'\n"
            "variant = 'a'\n")
    (tmp_path / "experiment.toml").write_text(head + "over = 'n'\nvalue = 1.5\n")
    (claim,) = load(tmp_path).claims
    assert (claim.kind, claim.over, claim.value) == ("growth", "n", 1.5)
    assert claim.text == "tsc of a grows slower than n^1.5 in every build"
    (tmp_path / "experiment.toml").write_text(head + "over = 'm'\nvalue = 1.5\n")
    with pytest.raises(DescriptionError, match="claims.0..over: expected a parameter of "
                       r"\[params\] with three values"):
        load(tmp_path)


def test_share_is_one_less_the_part_over_the_whole_inside_0_100_only():
    # 1 - b/a: b (a loop without the fault) is half of a, a tenth, or all of it
    half = [_case("a", "O2", SLOW), _case("b", "O2", FAST)]
    most = ClaimSpec("share", "a", "most of a is not b", than="b", value=0.4, metric="tsc")
    v = judge(most, half, Evidence())
    assert v.verdict == "confirmed" and "1 - b/a (tsc) above 40% in 1 of 1" in v.evidence
    assert "gcc-12 -O2: 50.0% [" in v.evidence
    assert judge(ClaimSpec("share", "a", "x", than="b", value=0.6, metric="tsc"), half,
                 Evidence()).verdict == "refuted"
    # b took longer than a: no share, no figure printed, and why (off-CPU time)
    longer = [_case("a", "O2", FAST), _case("b", "O2", SLOW)]
    v = judge(most, longer, Evidence())
    assert v.verdict == "inconclusive" and "-100" not in v.evidence
    assert "not measurable here (b took longer than a)" in v.evidence
    assert "1 outside 0% to 100% (no result)" in v.evidence
    # a second build below the share refutes "every", leaves "most" split
    other = [_case("a", "O3", SLOW), _case("b", "O3", [1.9, 1.92, 1.88, 1.9, 1.94, 1.86])]
    assert judge(most, half + other, Evidence()).verdict == "refuted"
    split = ClaimSpec("share", "a", "x", than="b", value=0.4, metric="tsc", builds="most")
    assert judge(split, half + other, Evidence()).verdict == "inconclusive"


def test_share_without_processes_enough_or_a_figure_decides_nothing():
    few = [_case("a", "O2", SLOW[:2]), _case("b", "O2", FAST[:2])]
    for c in few:
        c.metrics["tsc"] = Metric.of(list(c.metrics["tsc"].values), "ticks/item", "tsc",
                                     (0, 1))
    claim = ClaimSpec("share", "a", "most of a is not b", than="b", value=0.4, metric="tsc")
    v = judge(claim, few, Evidence())
    assert v.verdict == "inconclusive" and "without an interval" in v.evidence
    gone = [_case("a", "O2", unavailable={"tsc": {"source": "tsc", "reason": "no rdtsc"}}),
            _case("b", "O2", FAST)]
    v = judge(claim, gone, Evidence())
    assert v.verdict == "unmeasurable" and "no rdtsc" in v.evidence


def test_a_described_share_claim_needs_one_peer_and_a_share(tmp_path):
    (tmp_path / "pick.c").write_text("int pick(int x) { return x; }\n")
    base = ("name = 'pick'\n[[variants]]\nname = 'a'\nsources = ['pick.c']\n"
            "[[variants]]\nname = 'b'\nsources = ['pick.c']\n[[variants]]\nname = 'c'\n"
            "sources = ['pick.c']\n[[claims]]\nkind = 'share'\nvariant = 'a'\n")
    (tmp_path / "experiment.toml").write_text(base + "than = 'b'\nvalue = 0.5\n")
    (claim,) = load(tmp_path).claims
    assert (claim.kind, claim.than, claim.value) == ("share", "b", 0.5)
    assert claim.text == ("more than 50% of a's tsc is not b's (1 - b/a) in every build "
                          "and parameter")
    for bad, expected in (("than = ['b', 'c']\nvalue = 0.5\n", "one variant name"),
                          ("than = 'b'\nvalue = 1.5\n", "a share between 0 and 1"),
                          ("than = 'b'\n", "the field is missing")):
        (tmp_path / "experiment.toml").write_text(base + bad)
        with pytest.raises(DescriptionError) as e:
            load(tmp_path)
        assert "claims[0]" in str(e.value) and expected in str(e.value)


def test_a_bound_on_figures_at_zero_uses_their_range_from_three_processes():
    zero = _case("a", "O2", [0.0, 0.0, 0.0, 0.0])  # no ratio to a bound exists
    at_least = ClaimSpec("at-least", "a", "a is at least half", metric="tsc", value=0.5)
    v = judge(at_least, [zero], Evidence())
    assert v.verdict == "refuted" and "gcc-12 -O2: 0 ticks/item" in v.evidence
    few = _case("a", "O2", [0.0, 0.0])
    few.metrics["tsc"] = Metric.of([0.0, 0.0], "ticks/item", "tsc", (0, 1))
    v = judge(at_least, [few], Evidence())
    assert v.verdict == "inconclusive" and "no interval: 2 processes, 3 needed" in v.evidence


def test_a_bound_skips_the_builds_whose_precondition_fails():
    from cpulab.claims import Requirement

    shared = _case("a", "O2", [0.001] * 4)
    shared.metrics["sites"] = Metric.exact(1, "sites", "asm")
    many = _case("a", "O3", [0.06] * 4)
    many.metrics["sites"] = Metric.exact(4, "sites", "asm")
    claim = ClaimSpec("at-most", "a", "few misses", metric="tsc", value=0.01,
                      requires=(Requirement("a", "sites", "==", 1),))
    v = judge(claim, [shared, many], Evidence())
    assert v.verdict == "confirmed" and "in 1 of 1" in v.evidence
    assert "precondition fails: gcc-12 -O3 (a's sites == 1 (4))" in v.evidence


def test_fastest_build_compares_the_fastest_builds_and_peers_built_by_no_one():
    # a's O3 build is fast, its O2 slow; b's O2 as fast as a's O3; c (a system library:
    # no build) slow. Build by build nothing pairs with c, and a's O3 meets no b.
    cases = [_case("a", "O3", FAST), _case("a", "O2", SLOW), _case("b", "O2", SAME),
             _case("c", "O2", SLOW)]
    cases[3].build = None
    lone = ClaimSpec("faster", "a", "a beats c", than="c", by=1.5, metric="tsc")
    assert judge(lone, cases, Evidence()).verdict == "unmeasurable"
    pooled = ClaimSpec("faster", "a", "a beats c", than="c", by=1.5, metric="tsc",
                       fastest_build=True)
    v = judge(pooled, cases, Evidence())
    assert v.verdict == "confirmed" and "reached in 1 of 1" in v.evidence
    assert "all: 2.000x [" in v.evidence
    assert v.evidence.endswith("of a (gcc-12 -O3) against c")
    assert "fastest build of each" in v.evidence
    # against the fastest of every peer build: b's O2 is as fast as a's best
    both = ClaimSpec("faster", "a", "a beats all", than=("b", "c"), by=1.5, metric="tsc",
                     fastest_build=True)
    v = judge(both, cases, Evidence())
    assert v.verdict == "refuted" and "against b (gcc-12 -O2)" in v.evidence


def test_a_family_against_several_peers_takes_the_fastest_of_each_side():
    # a is slow, its family member c fast; against the fastest peer (b, not d) c leads 2x
    cases = [_case("a", "O2", SLOW), _case("c", "O2", FAST), _case("b", "O2", SLOW),
             _case("d", "O2", [4 * x for x in SLOW])]
    claim = ClaimSpec("faster", "a", "the a family beats b and d", than=("b", "d"),
                      family=("c",), by=1.5, metric="tsc")
    v = judge(claim, cases, Evidence())
    assert v.verdict == "confirmed" and "2.000x [1.964, 2.037] by c against b" in v.evidence
    alone = ClaimSpec("faster", "a", "a alone", than=("b", "d"), by=1.5, metric="tsc")
    assert judge(alone, cases, Evidence()).verdict == "refuted"
    assert judge(alone, [], Evidence()).verdict == "unmeasurable"


def test_faster_in_some_set_is_a_rebuttal():
    # a wins at O3 only: "some" is confirmed where "every" is refuted; losing everywhere
    # refutes "some", and a tie somewhere (the rest lost) decides nothing
    win = [_case("a", "O2", SLOW), _case("b", "O2", FAST),
           _case("a", "O3", FAST), _case("b", "O3", SLOW)]
    some = ClaimSpec("faster", "a", "a wins somewhere", than="b", by=1.5, metric="tsc",
                     builds="some")
    assert judge(some, win, Evidence()).verdict == "confirmed"
    every = ClaimSpec("faster", "a", "a wins everywhere", than="b", by=1.5, metric="tsc")
    assert judge(every, win, Evidence()).verdict == "refuted"
    assert judge(some, win[:2], Evidence()).verdict == "refuted"
    tie = win[:2] + [_case("a", "O3", FAST), _case("b", "O3", SAME)]
    at_par = ClaimSpec("faster", "a", "a as fast somewhere", than="b", metric="tsc",
                       builds="some")
    assert judge(at_par, tie, Evidence()).verdict == "inconclusive"


def test_fastest_build_pairs_builds_measured_in_the_same_rounds():
    def tagged(variant, opt, values):
        c = _case(variant, opt, params={"n": 1})
        c.metrics["tsc"] = Metric.of(list(values), "ticks/item", "tsc", range(len(values)))
        return c

    # x in two builds against y in a third, measured in the same rounds
    cases = [tagged("x", "O2", SLOW), tagged("x", "O3", FAST),
             tagged("y", "O1", [1.5 * v for v in FAST])]
    claim = ClaimSpec("faster", "x", "x's best build beats y", than="y", by=1.2,
                      metric="tsc", fastest_build=True)
    v = judge(claim, cases, Evidence())
    assert v.verdict == "confirmed", v.evidence
    assert "n=1: 1.500x of x (gcc-12 -O3) against y (gcc-12 -O1)" in v.evidence
    # within each build, x and y never meet
    apart = ClaimSpec("faster", "x", "x beats y", than="y", by=1.2, metric="tsc")
    assert judge(apart, cases, Evidence()).verdict == "unmeasurable"


def test_a_family_and_some_sets_in_a_description(tmp_path):
    from cpulab.described import DescriptionError, load

    (tmp_path / "pick.c").write_text("int main(void) { return 0; }\n")
    head = ("name = 'pick'\n" + "".join(
        f"[[variants]]\nname = '{n}'\nsources = ['pick.c']\n" for n in "abc")
            + "[[claims]]\nkind = 'faster'\nvariant = 'a'\nthan = 'c'\n")
    (tmp_path / "experiment.toml").write_text(head + "family = ['b']\nbuilds = 'some'\n")
    (claim,) = load(tmp_path).claims
    assert (claim.kind, claim.family, claim.peers, claim.builds) == (
        "faster", ("b",), ("c",), "some")
    assert "the fastest of a or b" in claim.text
    (tmp_path / "experiment.toml").write_text(head + "family = ['c']\n")
    with pytest.raises(DescriptionError, match="claims.0..family"):
        load(tmp_path)


def _share(variant, values, mode="self"):
    return Case(variant, None, {"mode": mode},
                {"share": Metric.of(list(values), "%", "sw", range(len(values)))})


def test_rank_holds_the_first_places_against_the_strongest_other():
    big, mid, small = [10, 11, 10.5, 9.5, 10], [5, 5.5, 5.2, 4.8, 5], [1, 1.1, 0.9, 1, 1.05]
    first = ClaimSpec("rank", "a", "a is first", metric="share")
    cases = [_share("a", big), _share("b", mid), _share("c", small)]
    v = judge(first, cases, Evidence())
    assert v.verdict == "confirmed" and "a over b" in v.evidence and "a #1" in v.evidence
    two = ClaimSpec("rank", "a", "a and c lead", family=("c",), metric="share")
    v = judge(two, cases, Evidence())
    assert v.verdict == "refuted" and "c over b" in v.evidence and "c #3" in v.evidence
    # a member without a figure where others have one is not ranked; a failed one
    # decides nothing; nothing to rank against: unmeasurable with the reason
    gone = ClaimSpec("rank", "a", "a and d lead", family=("d",), metric="share")
    assert judge(gone, cases, Evidence()).verdict == "refuted"
    failed = cases + [Case("d", None, {"mode": "self"}, error="perf: no samples")]
    assert judge(gone, failed, Evidence()).verdict == "inconclusive"
    alone = [Case("x", None, {"mode": "self"}, error="no miniruby")]
    v = judge(first, alone, Evidence())
    assert v.verdict == "unmeasurable" and "no miniruby" in v.evidence


def test_rank_is_no_kind_of_a_users_description(tmp_path):
    from cpulab.described import DescriptionError, load

    (tmp_path / "pick.c").write_text("int main(void) { return 0; }\n")
    (tmp_path / "experiment.toml").write_text(
        "name = 'pick'\n[[variants]]\nname = 'a'\nsources = ['pick.c']\n"
        "[[claims]]\nkind = 'rank'\nvariant = 'a'\n")
    with pytest.raises(DescriptionError, match="claims.0..kind"):
        load(tmp_path)


def test_rank_with_a_figure_of_zero_decides_nothing():
    first = ClaimSpec("rank", "a", "a is first", metric="share")
    cases = [_share("a", [10, 11, 10.5]), _share("b", [5, 0.0, 5.2])]
    v = judge(first, cases, Evidence())
    assert v.verdict == "inconclusive" and "a figure of 0" in v.evidence
