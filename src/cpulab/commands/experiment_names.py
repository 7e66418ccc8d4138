"""Naming an experiment on the command line, and finding the one a stored run came from.

A built-in experiment is named by its name; one of the user's own by the path of its
description (a folder with experiment.toml, or a .toml file). A stored run names its
experiment by name only: a described one is found again through the description path
the run recorded, when it is still there."""

from __future__ import annotations

from pathlib import Path

from cpulab import experiments
from cpulab.commands.common import UsageError


def experiment(word: str):
    """A built-in experiment by name, or the one a folder or .toml file describes."""
    from cpulab import described

    if word in experiments.names():
        return experiments.get(word)
    if described.looks_like_path(word) or Path(word).exists():
        return described.load_experiment(word)
    raise UsageError(f"unknown experiment {word}; known: {', '.join(experiments.names())}, "
                     "or the path of a folder or .toml file that describes one "
                     "(`cpulab new NAME` writes one)")


def experiment_of(rec):
    """The experiment a stored run came from, where this cpulab (or its description
    file) still has it; None for a run of an experiment known only by its record."""
    from cpulab import described

    if rec.experiment in experiments.names():
        return experiments.get(rec.experiment)
    return described.from_record(rec)
