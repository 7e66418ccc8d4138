"""Experiment `dispatch` (S15, S1, S14): the experiment (experiment.py), its claims
(verdicts.py) and the names both use (names.py)."""

from cpulab.experiments.dispatch.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
