"""Experiment `fileread` (S8): the experiment (experiment.py), the strategies it compares
(strategies.py), many small files (smallfiles.py), the cases from the kernels' output
(cases.py), its verdicts (verdicts.py) and the files it reads (testfile.py)."""

from cpulab.experiments.fileread.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
