"""Experiment `yarv` (S2): its verdicts from fake profiles, and where its miniruby comes
from (scripted). The real profile of miniruby is tests/test_opprof_cruby.py's
(CPULAB_FULL=1: building CRuby takes minutes)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cpulab.context import PROFILES, Context
from cpulab.experiments import yarv
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import RunResult
from cpulab.opprof.errors import OpprofError
from cpulab.results import Case, Evidence


def case(name: str, mode: str, shares: list[float]) -> Case:
    return Case(name, None, {"mode": mode}, {"share": Metric.of(shares, "% of samples", "sw",
                                                                range(len(shares)))})


def profile(mode: str, ranking: dict[str, float]) -> list[Case]:
    """Five rounds of one mode, each instruction near its given share."""
    return [case(n, mode, [s - 0.2, s - 0.1, s, s + 0.1, s + 0.2]) for n, s in ranking.items()]


SEED_ORDER = {"opt_aref": 17.0, "opt_newarray_min": 12.0, "opt_minus": 10.0, "putobject": 4.0}
OTHER_ORDER = {"opt_aref": 17.0, "opt_newarray_min": 12.0, "getlocal": 11.0, "opt_minus": 5.0}


def test_seed_ranking_confirmed():
    cases = profile("self", SEED_ORDER) + profile("inclusive", SEED_ORDER)
    a, b, c = yarv.EXPERIMENT.verdicts(cases, Evidence())
    assert (a.verdict, b.verdict, c.verdict) == ("confirmed", "confirmed", "confirmed")
    assert "opt_minus #3" in a.evidence and "mode=self" in a.evidence
    assert "mode=inclusive" not in a.evidence and "mode=inclusive" in c.evidence
    assert "opt_aref over opt_newarray_min: 1.41" in b.evidence
    assert "opt_minus over putobject: 2.50" in a.evidence


def test_an_instruction_outside_the_top_three_refutes():
    cases = profile("self", OTHER_ORDER) + profile("inclusive", SEED_ORDER)
    a, b, c = yarv.EXPERIMENT.verdicts(cases, Evidence())
    assert a.verdict == "refuted" and "opt_minus #4" in a.evidence
    assert b.verdict == "confirmed" and c.verdict == "confirmed"
    # an instruction of the three without a sample in any profile is not ranked
    absent = profile("self", {"opt_aref": 17.0, "opt_minus": 12.0, "getlocal": 11.0})
    a = yarv.EXPERIMENT.verdicts(absent, Evidence())[0]
    assert a.verdict == "refuted" and "not ranked: opt_newarray_min" in a.evidence


def test_third_and_fourth_within_noise_decide_nothing():
    # putobject's shares move against opt_minus's from profile to profile
    close = [c for c in profile("self", SEED_ORDER) if c.variant != "putobject"]
    close.append(case("putobject", "self", [10.3, 9.7, 10.2, 9.8, 10.05]))
    a = yarv.EXPERIMENT.verdicts(close, Evidence())[0]
    assert a.verdict == "inconclusive", a.evidence


def test_a_tie_at_the_top_is_inconclusive_and_a_loss_refutes():
    tie = [case("opt_aref", "self", [10, 12, 11, 10.5, 11.5]),
           case("opt_minus", "self", [11, 10, 12, 11.5, 10.5])]
    assert yarv.EXPERIMENT.verdicts(tie, Evidence())[1].verdict == "inconclusive"
    loss = profile("self", {"opt_minus": 20.0, "opt_aref": 10.0})
    assert yarv.EXPERIMENT.verdicts(loss, Evidence())[1].verdict == "refuted"


def test_no_profile_is_unmeasurable_with_the_reason():
    cases = [Case("miniruby", None, {"mode": m}, error="no miniruby built yet")
             for m in yarv.MODES]
    for v in yarv.EXPERIMENT.verdicts(cases, Evidence()):
        assert v.verdict == "unmeasurable" and "no miniruby built yet" in v.evidence
    # one mode failed in every round: its claim says why, the other mode's is judged
    failed = [Case("profile", None, {"mode": "inclusive"}, error="perf recorded no samples")]
    a, _, c = yarv.EXPERIMENT.verdicts(profile("self", SEED_ORDER) + failed, Evidence())
    assert a.verdict == "confirmed"
    assert c.verdict == "unmeasurable" and "no samples" in c.evidence


class ScriptRunner:
    """build_cruby_peer.sh: built (prints the path) or not (says why)."""

    def __init__(self, built: bool):
        self.built, self.calls = built, []

    def run(self, argv, timeout, env=None, cwd=None) -> RunResult:
        self.calls.append(tuple(argv))
        if self.built:
            return RunResult(tuple(argv), 0, "/peers/cruby/src/miniruby\n", "")
        return RunResult(tuple(argv), 1, "", "build_cruby_peer.sh: no miniruby built yet at X")


@pytest.mark.parametrize("profile_name", ["quick", "default"])
def test_only_the_default_profile_builds_miniruby(profile_name):
    runner = ScriptRunner(built=False)
    ctx = Context(PROFILES[profile_name], [], runner)
    cases = yarv.EXPERIMENT.run(ctx)
    assert [(c.variant, c.params["mode"]) for c in cases] == [
        ("miniruby", m) for m in yarv.MODES]
    assert all("no miniruby" in c.error for c in cases)
    assert ("--print-path" in runner.calls[0]) == (profile_name == "quick")
    assert ("build_cruby_peer.sh` builds it" in ctx.notes[0]) == (profile_name == "quick")


def fake_profiles(event_source: str, fail_on: set[int]):
    """profile_command stand-in: opt_aref 20% in every profile, getlocal 5% only in the
    first; the calls numbered in `fail_on` raise."""
    calls = []

    def profile_command(argv, opts):
        calls.append(opts.inclusive)
        if len(calls) in fail_on:
            raise OpprofError("perf recorded no samples", "")
        rows = [SimpleNamespace(name="opt_aref", share=0.20)]
        if len(calls) <= 2:
            rows.append(SimpleNamespace(name="getlocal", share=0.05))
        return SimpleNamespace(mapping=SimpleNamespace(mode="markers", reason=""),
                               event=SimpleNamespace(name="x", source=event_source),
                               result=SimpleNamespace(instructions=rows))
    return profile_command


@pytest.mark.parametrize("event_source, source", [("clock", "sw"), ("pmu", "pmu")])
def test_a_failed_profile_is_no_zero_and_shares_carry_the_event_source(
        monkeypatch, event_source, source):
    # default profile: its rounds x (self, inclusive); the third call (round 2, self) fails
    monkeypatch.setattr(yarv, "profile_command", fake_profiles(event_source, {3}))
    ctx = Context(PROFILES["default"], [], ScriptRunner(built=True))
    cases = yarv.EXPERIMENT.run(ctx)
    by = {(c.variant, c.params.get("mode")): c for c in cases}
    aref, errors = by[("opt_aref", "self")].metrics["share"], [c for c in cases if c.error]
    rounds = PROFILES["default"].rounds
    assert aref.values == (20.0,) * (rounds - 1) and aref.source == source  # one failed
    assert by[("opt_aref", "inclusive")].metrics["share"].n == rounds
    assert by[("getlocal", "self")].metrics["share"].values == (5.0,) + (0.0,) * (rounds - 2)
    assert len(errors) == 1 and "no samples" in errors[0].error
