"""Experiment `fileread` (S8): the experiment (experiment.py), the strategies it compares
(strategies.py), its verdicts (verdicts.py) and the file it reads (testfile.py)."""

from cpulab.experiments.fileread.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
