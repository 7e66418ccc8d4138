"""Experiments of the user's own, described in TOML outside the package (`cpulab new`,
`cpulab run PATH`), and whole commands timed side by side (`cpulab run --cmd`).

They sit beside `experiments`: the same `Experiment` type, run by the same `lab`, so
builds, schedule, judging, storage and reports are the lab's own, not a parallel set.
"""

from __future__ import annotations

from pathlib import Path

from cpulab.described.description import (
    DESCRIPTION_FILE,
    Description,
    DescriptionError,
    find_description,
    load,
    read_name,
)
from cpulab.described.experiment import DESCRIPTION_FACT, DescribedExperiment


def load_experiment(path: str | Path) -> DescribedExperiment:
    """The experiment a folder or a .toml file describes (DescriptionError if invalid)."""
    return DescribedExperiment(load(Path(path)))


def looks_like_path(text: str) -> bool:
    """Whether a command-line word names a description rather than a built-in experiment."""
    return "/" in text or text.endswith(".toml") or text in (".", "..") or Path(text).is_dir()


def from_record(rec) -> DescribedExperiment | None:
    """The experiment a stored run of a described one came from, when its description is
    still where the run found it and still valid; None otherwise (tables only then)."""
    path = rec.evidence.facts.get(DESCRIPTION_FACT)
    if not isinstance(path, str) or not Path(path).is_file():
        return None
    try:
        exp = load_experiment(path)
    except DescriptionError:
        return None
    return exp if exp.name == rec.experiment else None


__all__ = ["DESCRIPTION_FILE", "Description", "DescribedExperiment", "DescriptionError",
           "find_description", "from_record", "load", "load_experiment", "looks_like_path",
           "read_name"]
