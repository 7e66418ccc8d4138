"""Layers call only downwards: the result model, the store, the reports and `cpulab
compare` read a stored run without importing a single experiment."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["cpulab.results", "cpulab.store", "cpulab.report",
                                    "cpulab.report.plot", "cpulab.comparison"])
def test_readers_of_a_run_do_not_import_the_experiments(module):
    # A fresh interpreter: this test process has imported the experiments already.
    code = (f"import sys, {module}; "
            "print(' '.join(m for m in sys.modules if m.startswith('cpulab.experiments')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == []
