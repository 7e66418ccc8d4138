"""Experiment `spawn` (S13): the experiment (experiment.py) and the generated C project
whose no-op rebuild it times with make and ninja (noop_build.py)."""

from cpulab.experiments.spawn.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
