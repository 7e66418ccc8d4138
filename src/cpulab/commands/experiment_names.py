"""Naming an experiment on the command line, and finding the one a stored run came from.

A built-in experiment is named by its name. One of the user's own is named either way,
by every command: by the path of its description (a folder with experiment.toml, or a
.toml file), or by the name the description gives it, which is the name its runs are
stored under. So a path given where runs are named (compare, history, export, report)
stands for that name, and a name given where the experiment is built (run, asm,
report --listing) is looked up: first among the repository's descriptions
(cpulab/*.toml, those `cpulab run` alone runs), then through the description path that
the newest stored run of that name recorded."""

from __future__ import annotations

from pathlib import Path

from cpulab.commands.common import UsageError, open_store

# The registry of built-in experiments (cpulab.experiments) is imported inside the
# functions that need it: refs.py, compare and history import this module to read
# stored runs, and reading a run imports no experiment (tests/test_layers.py).


def experiment(word: str, db=None):
    """A built-in experiment by name, the one a folder or .toml file describes, or one of
    the user's own by its name (`db`: the results database to look the name up in)."""
    from cpulab import experiments

    exp = find(word, db)
    if exp is None:
        raise UsageError(f"unknown experiment {word}; known: "
                         f"{', '.join(experiments.names())}, or the path of a folder or "
                         ".toml file that describes one (`cpulab new NAME` writes one)")
    return exp


def find(word: str, db=None):
    """As `experiment`, None for a word that names none."""
    from cpulab import described, experiments

    if word in experiments.names():
        return experiments.get(word)
    if described.looks_like_path(word) or Path(word).exists():
        return described.load_experiment(word)
    path = _in_repository(word)
    if path is not None:
        return described.load_experiment(path)
    return _stored(word, db)


def is_description_path(word: str) -> bool:
    """Whether a word that names runs is the path of a description rather than a name,
    a run id or a bundle file: a .toml file, or a folder holding experiment.toml."""
    from cpulab.described import DESCRIPTION_FILE

    return word.endswith(".toml") or (Path(word) / DESCRIPTION_FILE).is_file()


def name_of(word: str) -> str:
    """The name an experiment's runs are stored under: a description's path stands for
    the name it gives (read alone, so a description whose sources have moved still
    names its runs); any other word is a name already."""
    from cpulab import described, experiments

    if not is_description_path(word) or word in experiments.names():
        return word  # a built-in's name comes first, as `run` reads it
    return described.read_name(Path(word))


def experiment_of(rec):
    """The experiment a stored run came from, where this cpulab (or its description
    file) still has it; None for a run of an experiment known only by its record."""
    from cpulab import described, experiments

    if rec.experiment in experiments.names():
        return experiments.get(rec.experiment)
    return described.from_record(rec)


def _in_repository(name: str) -> Path | None:
    from cpulab.described.discovery import find_named

    return find_named(Path.cwd(), name)


def _stored(name: str, db):
    """The described experiment of the newest stored run named `name` whose description
    is still where the run found it; None when no run of that name recorded one."""
    from cpulab import described
    from cpulab.described import DESCRIPTION_FACT
    from cpulab.store import default_path

    path = Path(db) if db else default_path()
    if not path.is_file():
        return None  # a lookup never creates the database
    first = None
    with open_store(path) as store:
        for i in reversed(store.ids(name)):  # newest first
            where = store.get(i).evidence.facts.get(DESCRIPTION_FACT)
            if not isinstance(where, str):
                continue
            first = first or where
            if Path(where).is_file() and described.read_name(Path(where)) == name:
                return described.load_experiment(where)  # one gone bad says which field
    if first is not None:
        raise UsageError(f"{name}: the description its runs were made from, {first}, is "
                         "gone or names another experiment now; give the path of its "
                         "description")
    return None
