"""Experiment `gzwrap` (S6): the experiment (experiment.py), its data (data.py), a private
MariaDB server (mariadb.py) and the seed's claim shown on it (sqlproof.py)."""

from cpulab.experiments.gzwrap.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
