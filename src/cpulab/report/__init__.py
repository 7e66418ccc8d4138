"""Output formats for stored results: a terminal report (rich) and summaries of runs.

The report reads records; it never runs or measures anything.
"""

from cpulab.report.terminal import render_comparison, render_record, render_runs

__all__ = ["render_comparison", "render_record", "render_runs"]
