"""The command line: JSON outputs, and one clear line (no traceback) for bad requests."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.store import Store


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_list_json(capsys):
    rc, out, _ = _run(capsys, "list", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rc == 0
    assert rows["threading"]["seed_row"] == "S1"
    assert "repl-switch" in rows["threading"]["variants"]


def test_env_json(capsys):
    rc, out, _ = _run(capsys, "env", "--json")
    fp = json.loads(out)
    assert rc == 0
    assert {"key", "cpu", "caches", "kernel", "tsc", "counters", "compilers"} <= set(fp)


@pytest.mark.parametrize("argv, message", [
    (["run", "nosuch"], "unknown experiment nosuch"),
    (["run"], "name an experiment"),
    (["asm", "threading", "nosuch"], "has no variant 'nosuch'"),
    (["asm", "threading", "direct", "--cc", "tcc-0"], "compiler not found"),
])
def test_bad_requests_exit_2_with_one_line(capsys, argv, message):
    rc, _, err = _run(capsys, *argv)
    assert rc == 2
    assert message in err and "Traceback" not in err


def _every_parser(parser: argparse.ArgumentParser, words: tuple[str, ...] = ("cpulab",)):
    """The program's parser and every subcommand's, nested ones (`fleet run`) too."""
    yield " ".join(words), parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _every_parser(sub, (*words, name))


PARSERS = dict(_every_parser(cli.parser()))


def test_the_walk_reaches_nested_subcommands():
    assert {"cpulab", "cpulab plot", "cpulab fleet run", "cpulab opprof"} <= set(PARSERS)


@pytest.mark.parametrize("command", list(PARSERS))
def test_every_help_renders(command):
    # argparse %-formats help texts: one unescaped `95%` crashed `cpulab --help`.
    assert PARSERS[command].format_help().startswith(f"usage: {command}")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_0(capsys, flag):
    with pytest.raises(SystemExit) as e:
        cli.main([flag])
    assert e.value.code == 0
    assert "plot" in capsys.readouterr().out


def test_bad_opt_level_is_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "threading", "--opt", "O9"])
    assert e.value.code == 2
    assert "not an optimisation level: O9" in capsys.readouterr().err


def test_unknown_run_id(capsys, tmp_path):
    Store(tmp_path / "r.db").close()
    rc, _, err = _run(capsys, "show", "42", "--db", str(tmp_path / "r.db"))
    assert rc == 1 and "no run with id 42" in err


def test_runs_on_an_empty_database(capsys, tmp_path):
    Store(tmp_path / "r.db").close()
    rc, out, _ = _run(capsys, "runs", "--db", str(tmp_path / "r.db"), "--json")
    assert rc == 0 and json.loads(out)["runs"] == []


@pytest.mark.parametrize("argv", [
    ["runs"], ["show", "1"], ["plot", "1"], ["compare", "1", "2"], ["history", "alloc"],
    ["report", "-o", "{tmp}/r.html"], ["export", "--all", "-o", "{tmp}/x.json"],
], ids=lambda argv: argv[0])
def test_reading_commands_refuse_a_missing_database_and_create_nothing(capsys, tmp_path,
                                                                       argv):
    # They used to create the folder and an empty database, then say "no run with id 1".
    db = tmp_path / "missing" / "x.db"
    rc, _, err = _run(capsys, *(a.format(tmp=tmp_path) for a in argv), "--db", str(db))
    assert rc != 0
    assert f"no results database at {db} (run `cpulab run ...` first)" in err
    assert list(tmp_path.iterdir()) == []


LAYOUT1_DB = Path(__file__).parent / "data" / "store" / "results-layout1.db"


@pytest.mark.parametrize("argv", [
    ["run", "--cmd", "true", "--quick"], ["runs"], ["show", "1"],
    ["plot", "1", "--out", "{tmp}/plots"],
], ids=lambda argv: argv[0])
def test_every_command_that_opens_an_older_database_says_it_migrated(capsys, tmp_path, argv):
    # Opening migrates the file in place, so a user must hear of it from whichever
    # command opened it first: run, runs, show and plot once said nothing.
    db = tmp_path / "old.db"
    shutil.copy(LAYOUT1_DB, db)
    rc, _, err = _run(capsys, *(a.format(tmp=tmp_path) for a in argv), "--db", str(db))
    assert rc == 0, err
    assert f"{db}: migrated, layout 1 -> 2" in err
    rc, _, err = _run(capsys, "runs", "--db", str(db))
    assert rc == 0 and "migrated" not in err  # once


def test_asm_shows_the_shared_and_the_replicated_dispatch(capsys):
    # gcc -O1 shares one `jmp *reg` among the handlers of `switch`; repl-switch keeps one
    # per handler: the evidence behind S1's verdict (a).
    rc, out, _ = _run(capsys, "asm", "threading", "switch", "--cc", "gcc", "--opt", "O1",
                      "--json")
    assert rc == 0
    shared = json.loads(out)
    assert [f["name"] for f in shared["functions"]] == ["engine"]
    assert shared["functions"][0]["mix"]["jmp-indirect"] == 1
    rc, out, _ = _run(capsys, "asm", "threading", "repl-switch", "--cc", "gcc", "--opt",
                      "O1", "--json", "--listing")
    repl = json.loads(out)["functions"][0]
    assert repl["mix"]["jmp-indirect"] >= 6
    assert sum("jmp" in line and "ptr" in line or "jmp r" in line
               for line in repl["listing"]) >= 6


def test_every_experiment_module_loads():
    from cpulab import experiments

    assert experiments.import_errors() == {}
    assert "threading" in experiments.names()
