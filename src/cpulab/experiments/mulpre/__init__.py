"""Experiment `mulpre` (S11): the experiment (experiment.py) and the GMP peers it measures
beside the generated asm (gmp.py: which GMPs exist here and which code path each runs)."""

from cpulab.experiments.mulpre.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
