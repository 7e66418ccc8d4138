"""The "Your own experiments" walk-through (docs/own-experiments.md), run step by step as
a user would: every ```sh block in order, in an empty folder outside the repository, with
its own results database. A step that fails fails the test with its output. The
walk-through runs the lab several times (~30 s): CPULAB_FULL=1 runs it; by default its
steps are checked to be there."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cpulab.paths import ROOT

PAGE = ROOT / "docs" / "own-experiments.md"


def walkthrough_steps() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```$", PAGE.read_text(), flags=re.S | re.M)


def test_the_page_has_the_steps_it_promises():
    steps = walkthrough_steps()
    commands = " ".join(steps)
    for promised in ("cpulab new", "cpulab run select", "cpulab asm", "cpulab compare",
                     "cpulab report", "--cmd"):
        assert promised in commands


@pytest.mark.full
def test_the_walkthrough_runs_step_by_step(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    work = tmp_path / "work"
    work.mkdir()
    outputs = []
    for i, step in enumerate(walkthrough_steps()):
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", step], cwd=work, env=env,
                           capture_output=True, text=True, timeout=600)
        outputs.append(p.stdout)
        assert p.returncode == 0, f"step {i + 1} failed:\n{step}\n{p.stdout[-3000:]}" \
                                  f"\n{p.stderr[-3000:]}"
    runs = subprocess.run(["cpulab", "runs", "--json"], cwd=work, env=env, check=True,
                          capture_output=True, text=True)
    stored = [(r["experiment"], r["status"]) for r in json.loads(runs.stdout)["runs"]]
    assert stored == [("gzip-levels", "complete"), ("select", "complete"),
                      ("select", "complete")]
    # The changed experiment ran its new variant and its new claim.
    db = subprocess.run(["cpulab", "show", "2", "--json"], cwd=work, env=env, check=True,
                        capture_output=True, text=True)
    rec = json.loads(db.stdout)
    assert {c["variant"] for c in rec["cases"]} == {"branchy", "branchfree", "expect"}
    assert {c["params"]["n"] for c in rec["cases"]} == {4096, 65536}
    assert rec["verdicts"][-1]["claim"] == "expect has no `div` in its hot functions in " \
                                           "any build"
    assert rec["verdicts"][-1]["verdict"] == "confirmed"
    assert (work / "gzip-levels.md").read_text().startswith("| Command | level | Mean [")
    html = (work / "select.html").read_text()
    assert "expect has no `div`" in html and "select_below" in html  # with its listing
    assert any("jb" in o or "ja" in o for o in outputs)  # the branchy listing's branch
