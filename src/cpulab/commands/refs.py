"""Naming runs on the command line: by id, by experiment and machine, or from bundles.

  12               run 12 of the database
  threading        the newest run of threading
  threading@host   the newest run of threading on a machine: a fingerprint key prefix
                   (`cpulab runs`) or an origin (a fleet host's name)
  @host            the newest run of every experiment on that machine
  PATH[@host]      a described experiment's folder or .toml file: as its name
  FILE             every run of a bundle (`cpulab export`)
  REF:COMPILER     only the cases built by that compiler (a prefix: gcc, clang-19), so
                   that one run's gcc builds compare with its clang builds
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from cpulab.commands.common import UsageError, open_store
from cpulab.commands.experiment_names import is_description_path, name_of
from cpulab.results import RunRecord
from cpulab.store import Store, read_bundle

_COMPILER = re.compile(r"^[A-Za-z][\w.+-]*$")


@dataclass
class RunRef:
    label: str  # how the run is named in output: "#12", "#12:gcc", "lab.json.gz#3 (host-a)"
    record: RunRecord
    compiler: str | None = None
    bundle: Path | None = None  # the file it was read from; None for the database


def _label(base: str, rec: RunRecord, compiler: str | None) -> str:
    text = base + (f":{compiler}" if compiler else "")
    return text + (f" ({rec.origin})" if rec.origin else "")


def _split_compiler(text: str) -> tuple[str, str | None]:
    """REF:COMPILER -> (REF, COMPILER); a file whose name has a colon stays whole."""
    if not Path(text).exists() and ":" in text:
        head, tail = text.rsplit(":", 1)
        if _COMPILER.match(tail):
            return head, tail
    return text, None


def _is_bundle(text: str) -> bool:
    """A file that is not a description: every other file a run is named by is a bundle."""
    return Path(text).is_file() and not is_description_path(text)


def database_for(texts: list[str], db) -> AbstractContextManager[Store | None]:
    """The results database that `texts` need, opened for reading; none at all (so none
    need exist) when every one of them is a bundle file."""
    if texts and all(_is_bundle(_split_compiler(t)[0]) for t in texts):
        return nullcontext()
    return open_store(db)


def resolve(text: str, store: Store | None) -> list[RunRef]:
    """The runs `text` names (one, or several for a bundle or @machine); `store` may be
    None when `text` is a bundle file."""
    text, compiler = _split_compiler(text)
    path = Path(text)
    if _is_bundle(text):
        recs = read_bundle(path)
        if not recs:
            raise UsageError(f"{text}: the bundle holds no run")
        return [RunRef(_label(f"{path.name}#{r.id if r.id is not None else i + 1}", r,
                              compiler), r, compiler, path) for i, r in enumerate(recs)]
    if text.isdigit():
        rec = store.get(int(text))
        return [RunRef(_label(f"#{rec.id}", rec, compiler), rec, compiler)]
    if is_description_path(text):  # whole first: a path may hold an @
        experiment, machine = name_of(text), ""
    else:
        experiment, _, machine = text.partition("@")
        experiment = name_of(experiment) if experiment else experiment
    if not experiment and not machine:
        raise UsageError(f"{text!r} names no run: give an id, EXPERIMENT[@MACHINE], "
                         "@MACHINE or a bundle file")
    ids = store.ids(experiment or None, machine or None)
    if not ids:
        where = f" on machine {machine!r}" if machine else ""
        raise UsageError(f"{text!r}: no run of {experiment or 'any experiment'}{where} in "
                         f"{store.path} (and no such file); see `cpulab runs`")
    if experiment:
        ids = ids[-1:]
    else:  # the newest of each experiment on that machine
        newest: dict[str, int] = {}
        for i in ids:
            newest[store.get(i).experiment] = i
        ids = sorted(newest.values())
    out = []
    for i in ids:
        rec = store.get(i)
        out.append(RunRef(_label(f"#{rec.id}", rec, compiler), rec, compiler))
    return out


def resolve_all(texts: list[str], store: Store | None) -> list[list[RunRef]]:
    return [resolve(t, store) for t in texts]
