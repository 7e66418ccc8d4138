"""The profiles: quick, default and full on the command line (and `--quick`, its old
name), the default's time budget per experiment, and rounds that stop being added when
that budget is spent, on a scripted runner and a fake clock. Each experiment's sizes per
profile are tested beside the experiment (tests/test_experiment_*.py)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

import pytest

from cpulab import cli
from cpulab.build import Target
from cpulab.context import PROFILES, Context
from cpulab.experiments.base import Experiment
from cpulab.lab import experiment_budget, with_rounds
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Program
from cpulab.results import Case, Evidence, Verdict

META = {"type": "meta", "schema": 1, "counters": {}}


def test_full_measures_as_the_default_does_without_a_bound_per_experiment():
    default, full = PROFILES["default"], PROFILES["full"]
    assert replace(full, name="default",
                   experiment_budget_s=default.experiment_budget_s) == default
    assert default.experiment_budget_s is not None
    assert full.experiment_budget_s is None and PROFILES["quick"].experiment_budget_s is None
    assert [p.name for p in PROFILES.values() if p.full] == ["full"]
    assert [p.name for p in PROFILES.values() if p.quick] == ["quick"]


@pytest.mark.parametrize("argv, profile", [
    ([], "default"), (["--quick"], "quick"), (["--profile", "quick"], "quick"),
    (["--profile", "full"], "full"), (["--profile", "default"], "default")])
def test_the_profile_is_chosen_on_the_command_line(argv, profile):
    assert cli.parser().parse_args(["run", "alloc", *argv]).profile == profile


@pytest.mark.parametrize("argv, message", [
    (["--profile", "long"], "invalid choice: 'long'"),
    (["--quick", "--profile", "full"], "not allowed with argument"),
])
def test_a_wrong_profile_is_refused_by_the_parser(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        cli.parser().parse_args(["run", "alloc", *argv])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_the_stored_run_is_of_the_profile_asked_for(capsys, tmp_path):
    rc = cli.main(["run", "--cmd", "true", "--profile", "full", "--warmup", "0", "--json",
                   "--db", str(tmp_path / "r.db")])
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert rc == 0 and run["profile"] == "full"


class _Named(Experiment):
    name, seed_row, title, summary = "probe", "T1", "scripted", "scripted"

    def targets(self) -> dict[str, Target]:
        return {}

    def run(self, ctx: Context) -> list[Case]:
        return []

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        return []


class _Longer(_Named):
    budget_s = 400.0


def test_an_experiment_may_ask_for_more_time_in_the_default_profile_only():
    default = PROFILES["default"]
    assert experiment_budget(_Named(), default) == default.experiment_budget_s
    assert experiment_budget(_Longer(), default) == 400.0
    for name in ("quick", "full"):
        assert experiment_budget(_Longer(), PROFILES[name]) is None


class _Clock:
    """Seconds that pass only when a scripted process runs: 10 s each."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _noisy(clock: _Clock):
    """Each program's processes alternate between two times 3x apart: no interval ever
    gets within the profile's precision, so only the budgets stop the rounds."""
    calls: Counter[str] = Counter()

    def script(argv: Sequence[str]) -> tuple[int, str]:
        clock.now += 10
        name, n = argv[0], calls[argv[0]]
        calls[argv[0]] += 1
        reps = [{"type": "rep", "case": name, "rep": i, "iters": 1, "units": 1, "unit": "op",
                 "ns": 100 if n % 2 else 300} for i in range(2)]
        return 0, "\n".join(json.dumps(x) for x in [META, *reps])

    return script


def _rounds(ctx: Context) -> int:
    out = ctx.measure([Program(["A"], key="A"), Program(["B"], key="B")])
    return len({r.round for r in out["A"].output.reps})


PROFILE = replace(PROFILES["default"], rounds=3, max_rounds=10, budget_s=1000)


def test_without_an_experiment_budget_rounds_go_on_to_the_most():
    clock = _Clock()
    ctx = Context(PROFILE, [], FakeRunner(_noisy(clock)), clock=clock)
    assert _rounds(ctx) == 10
    assert _rounds(ctx) == 10


def test_the_experiment_budget_stops_adding_rounds_and_keeps_the_least():
    clock = _Clock()
    ctx = Context(PROFILE, [], FakeRunner(_noisy(clock)), budget_s=100, clock=clock)
    # A round of two programs takes 20 s: after 3 rounds (60 s) two more fit in 100 s,
    # and a sixth would end past it.
    assert _rounds(ctx) == 5 and clock.now == 100
    # The budget is spent: the next measurement runs its least rounds, no more.
    assert _rounds(ctx) == PROFILE.rounds and clock.now == 160


def test_time_spent_before_the_first_measurement_counts():
    clock = _Clock()
    ctx = Context(PROFILE, [], FakeRunner(_noisy(clock)), budget_s=100, clock=clock)
    clock.now = 50  # building, preparing data
    assert _rounds(ctx) == 3  # 60 s of least rounds already end past the budget's 100 s


def test_rounds_on_the_command_line_replace_the_profiles_least():
    assert cli.parser().parse_args(["run", "alloc"]).rounds is None
    assert cli.parser().parse_args(["run", "alloc", "--rounds", "4"]).rounds == 4
    quick = PROFILES["quick"]
    assert with_rounds(quick, None) is quick
    more = with_rounds(quick, quick.max_rounds + 3)
    assert (more.rounds, more.max_rounds) == (quick.max_rounds + 3, quick.max_rounds + 3)
    fewer = with_rounds(PROFILES["full"], 3)
    assert (fewer.rounds, fewer.max_rounds, fewer.name) == (3, PROFILES["full"].max_rounds,
                                                            "full")


@pytest.mark.parametrize("value", ["2", "0", "-1", "three", "3.5"])
def test_fewer_than_three_rounds_are_refused(capsys, value):
    with pytest.raises(SystemExit) as e:
        cli.parser().parse_args(["run", "alloc", "--rounds", value])
    assert e.value.code == 2 and "3 or more" in capsys.readouterr().err


def test_a_run_with_rounds_has_that_many_processes_and_says_so(capsys, tmp_path):
    n = PROFILES["quick"].max_rounds  # as many as the profile may add: none can be added
    rc = cli.main(["run", "--cmd", "true", "--quick", "--rounds", str(n), "--warmup", "0",
                   "--json", "--db", str(tmp_path / "r.db")])
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    (case,) = run["cases"]
    assert rc == 0 and case["metrics"]["time"]["n"] == n * PROFILES["quick"].reps
    assert (f"--rounds {n}: at least {n} processes per program (the quick profile's 3)"
            in run["notes"])
