"""Experiment `goalloc` (S7, the Go side): the experiment (experiment.py) and what the
compiler's listing shows (listing.py)."""

from cpulab.experiments.goalloc.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
