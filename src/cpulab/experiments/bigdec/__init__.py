"""Experiment `bigdec` (S5): the experiment (experiment.py) and the CPython `str(int)`
timing program (cpython.py) that it runs beside the C kernel."""

from cpulab.experiments.bigdec.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
