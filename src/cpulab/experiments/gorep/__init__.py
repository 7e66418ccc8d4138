"""Experiment `gorep` (S9): the experiment (experiment.py), the commands it times
(commands.py), the trees it searches (corpus.py) and its verdicts (verdicts.py)."""

from cpulab.experiments.gorep.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
