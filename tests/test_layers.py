"""Layers call only downwards: the result model, the store (and its bundles), the reports
(the HTML one too), `cpulab compare` and the history read a stored run without importing
a single experiment; `cpulab run --fail-on-regression` judges by a run's leading metric
without loading the HTML report that shows it."""

from __future__ import annotations

import subprocess
import sys

import pytest


def _imported(code: str, prefix: str) -> list[str]:
    """The modules under `prefix` that `code` imports, in a fresh interpreter (this test
    process has imported everything already)."""
    code += f"; import sys; print(' '.join(m for m in sys.modules if m.startswith({prefix!r})))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


@pytest.mark.parametrize("module", ["cpulab.results", "cpulab.store", "cpulab.report",
                                    "cpulab.report.plot", "cpulab.report.html",
                                    "cpulab.comparison", "cpulab.history",
                                    "cpulab.commands.compare", "cpulab.commands.history"])
def test_readers_of_a_run_do_not_import_the_experiments(module):
    assert _imported(f"import {module}", "cpulab.experiments") == []


@pytest.mark.parametrize("code", ["import cpulab.commands.run",
                                  "import cpulab.commands.regression",
                                  "import cpulab.cli; cpulab.cli.parser()"],
                         ids=["run", "regression", "the whole parser"])
def test_run_and_its_regression_check_do_not_import_the_html_report(code):
    # The leading metric lives in results/primary_metric.py; the HTML renderer (Jinja2,
    # its template) is for `cpulab report` alone, though `run` builds the same parser.
    assert _imported(code, "cpulab.report.html") == []


def test_the_parser_does_not_import_the_bundle_validator():
    # jsonschema takes ~130 ms to import: it is for reading bundles, not for every command.
    assert _imported("import cpulab.cli; cpulab.cli.parser()", "jsonschema") == []
