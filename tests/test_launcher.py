"""The `./cpulab` launcher in a new shell: set-up puts uv into ~/.local/bin, which such
a shell's PATH lacks, and the README's commands must work there, from any folder."""

from __future__ import annotations

import os
import subprocess

import pytest

from cpulab.paths import ROOT

# A clean environment: the system's folders only, HOME kept (where uv and its cache are).
CLEAN = {"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]}


@pytest.mark.parametrize("argv, expected", [(["--help"], "usage: cpulab"),
                                            (["list"], "threading")])
def test_the_launcher_runs_cpulab_in_a_clean_environment(tmp_path, argv, expected):
    p = subprocess.run([str(ROOT / "cpulab"), *argv], cwd=tmp_path, env=CLEAN,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert expected in p.stdout
    assert "setting up" not in p.stderr  # the environment is there: no `make setup`
