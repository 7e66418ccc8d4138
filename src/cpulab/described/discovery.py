"""Where `cpulab run` finds a repository's own experiments when it is given no name: the
`cpulab/` folder at the top of the repository holding the current folder (or the folder
that its `.cpulab.toml` names under `experiments`), each `*.toml` in it a description, each
subfolder with an experiment.toml one too. A repository keeps its performance claims
next to its code this way, and CI runs them with `cpulab run --fail-on-regression`.
A command given a name (`cpulab run pick`) finds the description of that name there."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

from cpulab.described.description import DESCRIPTION_FILE, DescriptionError, read_name

DEFAULT_FOLDER = "cpulab"
CONFIG_FILE = ".cpulab.toml"  # at the repository's top: experiments = "perf/claims"


def repository_root(start: Path) -> Path:
    """The top of the git work tree holding `start`; `start` itself outside git."""
    try:
        p = subprocess.run(["git", "-C", str(start), "rev-parse", "--show-toplevel"],
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return start
    return Path(p.stdout.strip()) if p.returncode == 0 and p.stdout.strip() else start


def experiments_folder(root: Path) -> Path:
    """The folder of descriptions: the configured one, else cpulab/."""
    config = root / CONFIG_FILE
    if not config.is_file():
        return root / DEFAULT_FOLDER
    try:
        doc = tomllib.loads(config.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DescriptionError(f"{config}: not valid TOML: {e}") from e
    folder = doc.get("experiments", DEFAULT_FOLDER)
    if not isinstance(folder, str) or not folder:
        raise DescriptionError(f"{config}: experiments: expected a folder relative to "
                               f"the repository, got {folder!r}")
    return root / folder


def discover(start: Path) -> tuple[Path, list[Path]]:
    """(the folder searched, the description files in it, sorted)."""
    folder = experiments_folder(repository_root(start.resolve()))
    if not folder.is_dir():
        return folder, []
    found = [p for p in folder.glob("*.toml")]
    found += [p for p in folder.glob(f"*/{DESCRIPTION_FILE}")]
    return folder, sorted(found)


def find_named(start: Path, name: str) -> Path | None:
    """The description of the experiment `name` among those `discover` finds; None when
    none is named so (or the folder cannot be read: `cpulab run` alone says why)."""
    try:
        _, found = discover(start)
    except DescriptionError:
        return None
    for path in found:
        try:
            if read_name(path) == name:
                return path
        except DescriptionError:  # a description without a valid name names nothing
            continue
    return None
