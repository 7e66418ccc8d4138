"""Experiments of the user's own: a description written from scratch outside the
repository, run end to end (cases, verdicts, machine-code evidence), `cpulab new` run as
generated, a kernel that does not compile, and malformed descriptions, each with its
message. Timings are never asserted: only the structure, exact counts and the asm."""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.context import PROFILES
from cpulab.described import DescriptionError, load
from cpulab.paths import ROOT

SELECT_C = r"""
#include <stdint.h>
#include "cpulab_harness.h"

static uint32_t items[4096];

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
    for (uint64_t it = 0; it < iters; it++)
        for (int i = 0; i < 4096; i++) s += pick(items[i], 1u << 31);
    return s;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    uint64_t seed = clh_param_u64("seed", 1);
    for (int i = 0; i < 4096; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        items[i] = (uint32_t)seed;
    }
    const clh_case cases[] = {{.name = "pick", .fn = run, .units_per_iter = 4096,
                               .unit = "item"}};
    return clh_run(cases, 1);
}
"""

SELECT_TOML = """
name = "pick"
title = "branchy or branch-free pick"
table = ["tsc", "instructions (callgrind)"]

[build]
compilers = ["gcc"]
opts = ["O2"]

[params]
seed = [1, 7]

[[variants]]
name = "branchy"
sources = ["pick.c"]
defines = ["BRANCHY"]
hot = ["pick"]

[[variants]]
name = "branchfree"
sources = ["pick.c"]
hot = ["pick"]

[[claims]]
kind = "faster"
variant = "branchfree"
than = "branchy"
by = 1.1

[[claims]]
kind = "no-instruction"
variant = "branchfree"
instruction = "jcc"

[[claims]]
kind = "no-instruction"
variant = "branchy"
instruction = "jcc"

[[claims]]
kind = "at-most"
variant = "branchfree"
metric = "instructions (callgrind)"
value = 40
"""


def _run(capsys, *argv):
    rc = cli.main(list(argv))
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def _write(folder: Path, toml: str, c_source: str = SELECT_C) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "experiment.toml").write_text(textwrap.dedent(toml))
    (folder / "pick.c").write_text(c_source)
    return folder


# Claims limited to one seed: the quick grid has seed 1 alone.
WHERE_CLAIMS = """
[[claims]]
kind = "at-most"
variant = "branchfree"
metric = "instructions (callgrind)"
value = 40
where = { seed = 1 }

[[claims]]
kind = "at-most"
variant = "branchfree"
metric = "instructions (callgrind)"
value = 40
where = { seed = 7 }
"""


def test_an_experiment_written_from_scratch_runs_end_to_end(tmp_path, capsys):
    folder = _write(tmp_path / "pick", SELECT_TOML + WHERE_CLAIMS)
    db = tmp_path / "results.db"
    rc, out, err = _run(capsys, "run", str(folder), "--quick", "--db", str(db), "--json")
    assert rc == 0, err
    (run,) = json.loads(out)["runs"]
    assert (run["experiment"], run["seed_row"], run["status"]) == ("pick", "own", "complete")
    # Two variants x one build x the quick grid (the first seed only).
    cases = {(c["variant"], c["build"]["flags"], c["params"]["seed"]): c for c in run["cases"]}
    assert set(cases) == {("branchy", "-O2", 1), ("branchfree", "-O2", 1)}
    for c in cases.values():
        assert "error" not in c
        assert c["metrics"]["tsc"]["unit"] == "ticks/item"
        tsc, quick = c["metrics"]["tsc"], PROFILES["quick"]
        processes = len(set(tsc["processes"]))  # as many as its precision asked for
        assert quick.rounds <= processes <= quick.max_rounds
        assert len(tsc["values"]) == processes * quick.reps
        # Exact, per item: a call, a compare and a select; the same every run.
        assert 5 < c["metrics"]["instructions (callgrind)"]["median"] < 40
    verdicts = [v["verdict"] for v in run["verdicts"]]
    assert verdicts[0] in ("confirmed", "refuted", "inconclusive")  # a timing: any kind
    assert "branchfree over branchy" in run["verdicts"][0]["evidence"]
    # The machine code decides these: the volatile asm keeps a branch in `branchy`.
    assert verdicts[1:4] == ["confirmed", "refuted", "confirmed"]
    # `where`: judged on the seed-1 case alone; seed 7 is not in a quick run.
    seed1, seed7 = run["verdicts"][4:]
    assert seed1["claim"].endswith("in every build where seed=1")
    assert seed1["verdict"] == "confirmed" and "seed=7" not in seed1["evidence"]
    assert seed7["verdict"] == "unmeasurable"
    assert "no case of this run has seed=7" in seed7["evidence"]
    assert "its cases have: seed=1" in seed7["evidence"]
    hot = run["evidence"]["hot-code"]
    assert hot["branchy"]["gcc-12 -O2"]["counts"]["jcc"] >= 1
    assert hot["branchfree"]["gcc-12 -O2"]["counts"].get("jcc", 0) == 0
    assert run["evidence"]["tables"][0]["columns"][:4] == ["variant", "build", "functions",
                                                          "instructions"]

    rc, out, err = _run(capsys, "asm", str(folder), "branchy", "--json")
    assert rc == 0, err
    (fn,) = json.loads(out)["functions"]
    assert fn["name"] == "pick" and fn["mix"]["jcc"] >= 1

    # The stored run is one like any other: shown again, and in the HTML report.
    rc, out, _ = _run(capsys, "runs", "--db", str(db), "--json")
    assert [r["experiment"] for r in json.loads(out)["runs"]] == ["pick"]
    report = tmp_path / "report.html"
    rc, _, err = _run(capsys, "report", "--db", str(db), "-o", str(report))
    assert rc == 0, err
    assert "branchfree has no `jcc`" in report.read_text()


def _readme_commands(readme: Path) -> list[str]:
    (block,) = re.findall(r"^```sh\n(.*?)^```$", readme.read_text(), flags=re.S | re.M)
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_new_writes_an_experiment_that_runs_as_generated(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = _run(capsys, "new", "sel")
    assert rc == 0, err
    assert {p.name for p in (tmp_path / "sel").iterdir()} == {"experiment.toml", "sel.c",
                                                              "README.md"}
    assert "cpulab run sel --quick" in out
    # Written twice: refused, and nothing is overwritten.
    (tmp_path / "sel" / "sel.c").write_text((tmp_path / "sel" / "sel.c").read_text() + "\n")
    rc, _, err = _run(capsys, "new", "sel")
    assert rc == 2 and "already exists" in err
    # The README's commands, as a user pastes them into a shell in another folder
    # (narrowed to one build, with a database of the test's own).
    readme = tmp_path / "sel" / "README.md"
    quick, _, asm, _ = _readme_commands(readme)
    assert quick == f"{ROOT / 'cpulab'} run {tmp_path / 'sel'} --quick"
    assert f"]({ROOT / 'docs' / 'harness.md'})" in readme.read_text()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    p = subprocess.run(["bash", "-c", f"{quick} --cc gcc --opt O2 --json"], cwd=elsewhere,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    p2 = subprocess.run(["bash", "-c", f"{asm} --cc gcc"], cwd=elsewhere, env=env,
                        capture_output=True, text=True, timeout=600)
    assert p2.returncode == 0 and "select_below" in p2.stdout, p2.stderr
    (run,) = json.loads(p.stdout)["runs"]
    assert run["status"] == "complete"
    assert {c["variant"] for c in run["cases"]} == {"branchy", "branchfree"}
    assert not [c for c in run["cases"] if "error" in c]
    kinds = [v["verdict"] for v in run["verdicts"]]
    assert len(kinds) == 3 and kinds[1:] == ["confirmed", "confirmed"]


@pytest.mark.parametrize("argv, where", [
    (["new", "alloc"], "NAME 'alloc'"),
    (["new", "threading", "mine"], "NAME 'threading'"),
    (["run", "--cmd", "true", "--name", "alloc"], "--name 'alloc'"),
])
def test_a_built_in_experiment_s_name_is_refused(tmp_path, capsys, monkeypatch, argv, where):
    # Its runs would be stored, compared and reported as the built-in's.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # where runs would go
    rc, _, err = _run(capsys, *argv)
    assert rc == 2
    assert f"{where} is the name of a built-in experiment" in err
    assert list(tmp_path.iterdir()) == []


def test_a_description_named_like_a_built_in_experiment_is_refused(tmp_path):
    message = _bad(tmp_path, BASE.replace('name = "pick"', 'name = "alloc"'))
    assert message.startswith(f"{tmp_path / 'experiment.toml'}: name: 'alloc' is the name "
                              "of a built-in experiment")


def test_a_kernel_that_does_not_compile_fails_alone(tmp_path, capsys):
    broken = SELECT_C.replace("return x & -(uint32_t)(x < bound);",
                              "return x & -(uint32_t)(x < bound) + no_such_name;")
    folder = _write(tmp_path / "pick", SELECT_TOML, broken)
    # one build (the broken variant fails to compile under every one)
    rc, out, err = _run(capsys, "run", str(folder), "--quick", "--cc", "gcc", "--opt", "O2",
                        "--db", str(tmp_path / "r.db"), "--json")
    assert rc == 0, err
    (run,) = json.loads(out)["runs"]
    failed = [c for c in run["cases"] if "error" in c]
    assert [c["variant"] for c in failed] == ["branchfree"]
    first = failed[0]["error"].splitlines()[0]
    assert first.startswith("build failed: ") and "no_such_name" in first and "error" in first
    assert [c["variant"] for c in run["cases"] if "error" not in c] == ["branchy"]
    by_claim = {v["claim"]: v for v in run["verdicts"]}
    faster = next(v for c, v in by_claim.items() if "as fast as" in c)
    assert faster["verdict"] == "unmeasurable" and "no_such_name" in faster["evidence"]


def _bad(tmp_path, toml: str) -> str:
    _write(tmp_path, toml)
    with pytest.raises(DescriptionError) as e:
        load(tmp_path)
    return str(e.value)


BASE = """
name = "pick"
[[variants]]
name = "a"
sources = ["pick.c"]
hot = ["pick"]
[[variants]]
name = "b"
sources = ["pick.c"]
"""

FASTER = "[[claims]]\nkind = 'faster'\nvariant = 'a'\nthan = 'b'\n"


@pytest.mark.parametrize("toml, field, expected", [
    ("name = 'x'\n[[variants]]\nname = 'a'\nsources = 'pick.c'\n", "variants[0].sources",
     "expected a list of strings, got 'pick.c'"),
    ("name = 'x'\n[[variants]]\nname = 'a'\nsources = ['nope.c']\n",
     "variants[0].sources[0]", "expected a file, relative to the description's folder"),
    ("name = 'x'\n", "variants", "(the field is missing)"),
    ("name = '1x'\n[[variants]]\nname = 'a'\nsources = ['pick.c']\n", "name",
     "starting with a letter"),
    (BASE + "[build]\nopts = ['O9']\n", "build.opts[0]", "an optimisation level"),
    (BASE + "[build]\ncompiler = ['gcc']\n", "build.compiler", "unknown field"),
    (BASE + "[params]\nn = []\n", "params.n", "a non-empty list of numbers or strings"),
    (BASE + "[params]\nn = [1]\n[quick]\nm = [2]\n", "quick.m", "a parameter of [params]"),
    (BASE + "[[claims]]\nkind = 'faster'\nvariant = 'a'\nthan = 'c'\n", "claims[0].than",
     "a variant of this experiment (a, b), got 'c'"),
    (BASE + "[[claims]]\nkind = 'faster'\nvariant = 'a'\nthan = 'b'\nmetric = 'speed'\n",
     "claims[0].metric", "a metric (time, tsc"),
    (BASE + "[[claims]]\nkind = 'slower'\nvariant = 'a'\n", "claims[0].kind",
     "one of faster, within, no-instruction, at-most, at-least"),
    (BASE + "[[claims]]\nkind = 'no-instruction'\nvariant = 'b'\ninstruction = 'div'\n",
     "claims[0].variant", "a variant with hot functions"),
    (BASE + "[[claims]]\nkind = 'at-most'\nvariant = 'a'\nmetric = 'tsc'\n",
     "claims[0].value", "a number (the field is missing)"),
    (BASE + "[[claims]]\nkind = 'faster'\nvariant = 'a'\nthan = 'b'\nby = true\n",
     "claims[0].by", "a ratio > 0"),
    ("table = ['tsc', 'speed']\n" + BASE, "table[1]", "a metric"),
    ("name = 'x'\n[[variants]\n", "experiment.toml", "not valid TOML"),
    (BASE + "include = ['no/such/dir']\n", "variants[1].include[0]", "a folder of headers"),
    (BASE + "[params]\nn = [1, 2]\n" + FASTER + "where = { m = 1 }\n", "claims[0].where.m",
     "a parameter of [params] (n)"),
    (BASE + "[params]\nn = [1, 2]\n" + FASTER + "where = { n = 3 }\n", "claims[0].where.n",
     "a value that [params] gives n (1, 2), got 3"),
    (BASE + "[params]\nn = [1, 2]\n" + FASTER + "where = { n = [2, 4] }\n",
     "claims[0].where.n", "got 4"),
    (BASE + "[params]\nn = [1, 2]\n" + FASTER + "where = { n = [] }\n", "claims[0].where.n",
     "a number or a string, or a non-empty list of them"),
    (BASE + FASTER + "where = { n = 1 }\n", "claims[0].where.n", "[params] sweeps nothing"),
    (BASE + "[params]\nn = [1, 2]\n" + FASTER + "where = 'n = 1'\n", "claims[0].where",
     "a table of parameter = value"),
    (BASE + "[params]\nn = [1]\n[[claims]]\nkind = 'no-instruction'\nvariant = 'a'\n"
     "instruction = 'div'\nwhere = { n = 1 }\n", "claims[0].where", "unknown field"),
])
def test_a_malformed_description_names_file_field_and_expectation(tmp_path, toml, field,
                                                                  expected):
    message = _bad(tmp_path, toml)
    assert message.startswith(f"{tmp_path / 'experiment.toml'}: ")
    assert f": {field}: " in message or field == "experiment.toml"
    assert expected in message


def test_a_bad_claim_is_refused_before_anything_is_built(tmp_path, capsys, monkeypatch):
    build = tmp_path / "build"
    monkeypatch.setenv("CPULAB_BUILD_DIR", str(build))
    folder = _write(tmp_path / "pick", BASE + "[[claims]]\nkind = 'at-most'\nvariant = 'zz'\n"
                    "value = 1\n")
    rc, out, err = _run(capsys, "run", str(folder), "--quick", "--db", str(tmp_path / "r.db"))
    assert rc == 2
    assert err.strip().count("\n") == 0  # one line, no traceback
    assert "claims[0].variant: expected a variant of this experiment (a, b), got 'zz'" in err
    assert not build.exists()


def test_a_missing_folder_is_one_line(tmp_path, capsys):
    rc, _, err = _run(capsys, "run", str(tmp_path / "nowhere"))
    assert rc == 2 and "no such file" in err and "cpulab new" in err


def test_a_repository_keeps_its_claims_and_ci_fails_on_a_refuted_one(tmp_path, capsys,
                                                                     monkeypatch):
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    claims = repo / "cpulab"
    claims.mkdir()
    (claims / "pick.c").write_text(SELECT_C)
    # Exact claims only, so that the exit status does not hang on a timing.
    holds = SELECT_TOML.split("[[claims]]")[0] + textwrap.dedent("""
        [[claims]]
        kind = "no-instruction"
        variant = "branchfree"
        instruction = "jcc"
        """)
    (claims / "pick.toml").write_text(holds)
    monkeypatch.chdir(repo / "src" / "deep")
    db = str(tmp_path / "r.db")
    rc, out, err = _run(capsys, "run", "--quick", "--db", db, "--fail-on-regression")
    assert rc == 0, err
    assert "1 experiment(s) found in" in err and str(claims) in err
    # A claim that the machine code refutes: exit status 3, the claim named.
    (claims / "pick.toml").write_text(holds.replace('variant = "branchfree"\ninstruction',
                                                    'variant = "branchy"\ninstruction'))
    rc, out, err = _run(capsys, "run", "--quick", "--db", db, "--fail-on-regression")
    assert rc == 3
    assert "claim refuted: branchy has no `jcc`" in err
    # Without the flag the same run is a success: refuted is a result, not an error.
    rc, _, err = _run(capsys, "run", "--quick", "--db", db)
    assert rc == 0, err
    # A configured folder instead of cpulab/.
    (repo / ".cpulab.toml").write_text('experiments = "perf"\n')
    rc, _, err = _run(capsys, "run", "--quick", "--db", db)
    assert rc == 2 and "no description in" in err and str(repo / "perf") in err


def test_fail_on_regression_compares_with_the_previous_run(tmp_path, capsys):
    # Exact counts lead the table, so the comparison does not hang on a timing.
    toml = SELECT_TOML.replace('table = ["tsc", "instructions (callgrind)"]',
                               'table = ["instructions (callgrind)"]')
    folder = _write(tmp_path / "pick", toml.split("[[claims]]")[0])
    db = str(tmp_path / "r.db")
    args = ("run", str(folder), "--quick", "--cc", "gcc", "--opt", "O2", "--db", db,
            "--fail-on-regression", "5")
    rc, _, err = _run(capsys, *args)
    assert rc == 0 and "no earlier run" in err
    rc, _, err = _run(capsys, *args)
    assert rc == 0, err  # the same code: the same counts
    # Four more instructions per item in the branch-free select.
    slower = SELECT_C.replace("return x & -(uint32_t)(x < bound);",
                              '__asm__ volatile("nop; nop; nop; nop");\n'
                              "    return x & -(uint32_t)(x < bound);")
    (folder / "pick.c").write_text(slower)
    rc, _, err = _run(capsys, *args)
    assert rc == 3
    assert "pick: branchfree" in err and "instructions (callgrind)" in err
    assert "branchy" not in err.split("regression", 1)[1]


def test_headers_of_a_variant_come_from_its_include_folders(tmp_path):
    from cpulab.build import BuildConfig, BuildError, build_one, find_toolchain
    from cpulab.described import load_experiment

    folder = _write(tmp_path / "pick", BASE.replace(
        'name = "b"\nsources = ["pick.c"]',
        'name = "b"\nsources = ["pick.c"]\ninclude = ["../headers"]\ndefines = ["BOUND_H"]'),
        SELECT_C.replace('#include "cpulab_harness.h"',
                         '#include "cpulab_harness.h"\n#ifdef BOUND_H\n#include "bound.h"\n'
                         '#endif'))
    (tmp_path / "headers").mkdir()
    (tmp_path / "headers" / "bound.h").write_text("#define PICK_BOUND 7\n")
    exp = load_experiment(folder)
    exe = build_one(exp.targets()["b"], BuildConfig(find_toolchain("gcc"), "O1"))
    assert exe.is_file()
    (tmp_path / "headers" / "bound.h").unlink()  # the header is what made it build
    (tmp_path / "headers" / "other.h").write_text("")
    with pytest.raises(BuildError, match="bound.h"):
        build_one(exp.targets()["b"], BuildConfig(find_toolchain("gcc"), "O1"))
