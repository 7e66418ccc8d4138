"""An experiment of the user's own is named either way in every command: by its
description's path (a folder or a .toml file) or by the name that description gives,
which is the name its runs are stored under. The folder here is called `mine` and the
experiment `pick`, so that a path resolving to the folder's name would be caught."""

from __future__ import annotations

import json
import subprocess

import pytest

from cpulab import cli
from cpulab.commands import run as run_command
from cpulab.commands.common import UsageError
from cpulab.commands.experiment_names import experiment, name_of
from cpulab.described import DescribedExperiment
from cpulab.measure.metrics import Metric
from cpulab.results import Case, Evidence, RunRecord
from cpulab.store import Store

PICK_C = r"""
#include <stdint.h>
#include "cpulab_harness.h"

__attribute__((noinline)) uint32_t pick(uint32_t x, uint32_t bound)
{
#ifdef BRANCHY
    if (x < bound) { __asm__ volatile(""); return x; }
    return 0;
#else
    return x & -(uint32_t)(x < bound);
#endif
}

static uint64_t run(uint64_t iters, void *arg)
{
    (void)arg;
    uint64_t s = 0;
    for (uint64_t i = 0; i < iters; i++) s += pick((uint32_t)i * 2654435761u, 1u << 31);
    return s;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    const clh_case cases[] = {{.name = "pick", .fn = run, .units_per_iter = 1,
                               .unit = "call"}};
    return clh_run(cases, 1);
}
"""

PICK_TOML = """
name = "pick"
title = "branchy or branch-free pick"

[build]
compilers = ["gcc"]
opts = ["O2"]

[[variants]]
name = "branchy"
sources = ["pick.c"]
defines = ["BRANCHY"]
hot = ["pick"]

[[variants]]
name = "branchfree"
sources = ["pick.c"]
hot = ["pick"]
"""

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}


def _record(description: str, ticks: float) -> RunRecord:
    """A stored run of `pick` as `cpulab run mine` leaves one, without building anything."""
    return RunRecord(
        experiment="pick", seed_row="own", title="branchy or branch-free pick",
        profile="quick", started=f"2026-11-2{int(ticks)}T10:00:00+00:00", duration_s=1.0,
        machine={"cpu": {"model_name": "CPU X"}}, machine_key="k1", lab_revision="r1",
        builds=[B], verdicts=[],
        cases=[Case(v, B, {}, {"tsc": Metric.of([t, t * 1.01, t * 0.99, t * 1.02, t * 0.98],
                                                "ticks/call", "tsc")})
               for v, t in (("branchy", ticks), ("branchfree", 2.0))],
        evidence=Evidence(facts={"description": description}))


@pytest.fixture
def lab(tmp_path):
    """(the description's folder, a database holding two runs of it)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "experiment.toml").write_text(PICK_TOML)
    (folder / "pick.c").write_text(PICK_C)
    db = tmp_path / "r.db"
    with Store(db) as s:
        for ticks in (3.0, 5.0):
            s.add(_record(str(folder / "experiment.toml"), ticks))
    return folder, db


def _run(capsys, *argv):
    rc = cli.main([str(a) for a in argv])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


@pytest.mark.parametrize("path", ["{folder}", "{folder}/experiment.toml"],
                         ids=["folder", "toml"])
def test_compare_history_runs_and_export_take_the_path_for_the_name(lab, capsys, tmp_path,
                                                                   path):
    folder, db = lab
    path = path.format(folder=folder)
    # compare: the path is the newest run of `pick`, #2; with @MACHINE and :COMPILER too.
    for new in (path, f"{path}@k1", f"{path}:gcc"):
        rc, out, err = _run(capsys, "compare", "1", new, "--db", db, "--json")
        assert rc == 0, (new, err)
        (c,) = json.loads(out)["comparisons"]
        assert (c["experiment"], c["old"], c["new"].split(":")[0]) == ("pick", "#1", "#2")
    rc, out, err = _run(capsys, "history", path, "--db", db, "--json")
    assert rc == 0, err
    h = json.loads(out)
    assert h["experiment"] == "pick" and [r["id"] for r in h["runs"]] == [1, 2]
    rc, out, _ = _run(capsys, "runs", "--experiment", path, "--db", db, "--json")
    assert [r["id"] for r in json.loads(out)["runs"]] == [2, 1]
    rc, out, err = _run(capsys, "export", path, "-o", tmp_path / "b.json", "--db", db,
                        "--json")
    assert rc == 0, err
    assert json.loads(out)["runs"] == [2]


def test_a_path_names_the_runs_even_when_its_sources_are_gone(lab, capsys):
    # Only the name is read: runs stay comparable after the kernel moved.
    folder, db = lab
    (folder / "pick.c").unlink()
    assert name_of(str(folder)) == "pick"
    rc, _, err = _run(capsys, "compare", "1", folder, "--db", db)
    assert rc == 0, err


def test_run_takes_the_name_of_a_stored_run_s_description(lab, capsys, monkeypatch,
                                                          tmp_path):
    folder, db = lab
    monkeypatch.chdir(tmp_path)  # not in a repository with a description of `pick`
    ran = []

    def measured(exp, profile, sel, reporter=None):
        ran.append(exp)
        return _record(str(exp.description.path), 4.0)

    monkeypatch.setattr(run_command, "run_experiment", measured)
    rc, _, err = _run(capsys, "run", "pick", "--quick", "--db", db)
    assert rc == 0, err
    (exp,) = ran
    assert isinstance(exp, DescribedExperiment)
    assert exp.description.path == folder / "experiment.toml"
    with Store(db) as s:
        assert [r["experiment"] for r in s.runs()] == ["pick"] * 3


def test_asm_and_report_listing_take_the_name(lab, capsys, monkeypatch, tmp_path):
    folder, db = lab
    monkeypatch.chdir(tmp_path)
    by_path = _run(capsys, "asm", folder, "branchy", "--cc", "gcc", "--json")
    by_name = _run(capsys, "asm", "pick", "branchy", "--cc", "gcc", "--db", db, "--json")
    assert by_name[0] == 0, by_name[2]
    assert json.loads(by_name[1]) == json.loads(by_path[1])
    assert json.loads(by_name[1])["functions"][0]["mix"]["jcc"] >= 1
    report = tmp_path / "r.html"
    rc, _, err = _run(capsys, "report", "2", "--listing", "pick:branchfree", "--db", db,
                      "-o", report)
    assert rc == 0, err
    assert "branchfree, gcc-" in report.read_text() and ": listing of pick<" in report.read_text()


def test_a_name_finds_the_repository_s_description_without_a_database(tmp_path,
                                                                       monkeypatch):
    repo = tmp_path / "repo"
    (repo / "cpulab").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "cpulab" / "sel.toml").write_text(PICK_TOML)
    (repo / "cpulab" / "pick.c").write_text(PICK_C)
    (repo / "src").mkdir()
    monkeypatch.chdir(repo / "src")
    db = tmp_path / "none" / "r.db"
    exp = experiment("pick", db)
    assert exp.description.path == repo / "cpulab" / "sel.toml"
    assert not db.parent.exists()  # looked up, never created
    with pytest.raises(UsageError, match="unknown experiment sel"):
        experiment("sel", db)  # the file's name is not the experiment's


def test_a_description_that_moved_is_said_not_guessed(lab, tmp_path, monkeypatch):
    folder, db = lab
    monkeypatch.chdir(tmp_path)
    (folder / "experiment.toml").rename(tmp_path / "elsewhere.toml")
    with pytest.raises(UsageError) as e:
        experiment("pick", db)
    assert f"{folder / 'experiment.toml'}, is gone" in str(e.value)


def test_an_unknown_name_is_one_line_and_creates_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "none" / "r.db"
    rc, _, err = _run(capsys, "run", "nosuch", "--db", db)
    assert rc == 2 and "unknown experiment nosuch" in err
    assert list(tmp_path.iterdir()) == []
