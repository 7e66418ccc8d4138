"""The profiles: quick, default and full on the command line (and `--quick`, its old
name). Each experiment's sizes per profile are tested beside the experiment
(tests/test_experiment_*.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from cpulab import cli
from cpulab.context import PROFILES


def test_full_measures_as_the_default_does():
    assert replace(PROFILES["full"], name="default") == PROFILES["default"]
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
