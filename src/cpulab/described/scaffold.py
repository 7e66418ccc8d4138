"""`cpulab new`: a self-contained experiment folder that runs as generated.

The folder holds the description (experiment.toml), a kernel on the lab's harness and
a README; the files come from templates/ with the name, the folder and the launcher
filled in, as absolute paths, so that the commands they give work from any folder. An
existing file is never overwritten: the user's own experiment may already be there.
"""

from __future__ import annotations

import re
import shlex
from importlib import resources
from pathlib import Path
from string import Template

from cpulab.described.description import DESCRIPTION_FILE, DescriptionError, builtin_name_clash
from cpulab.paths import ROOT

# The checkout's `./cpulab`: it finds uv and the environment from any folder and shell.
LAUNCHER = ROOT / "cpulab"
# The harness API for the kernel's author (linked from the generated README).
HARNESS_DOC = ROOT / "docs" / "harness.md"

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def scaffold(name: str, folder: Path) -> list[Path]:
    """Write the experiment `name` into `folder` (created); returns the files written."""
    if not _NAME.match(name):
        raise DescriptionError(f"NAME {name!r}: expected letters, digits, '-' or '_', "
                               "starting with a letter (it names the kernel's file too)")
    clash = builtin_name_clash(name)
    if clash:
        raise DescriptionError(f"NAME {clash} (nothing was written)")
    files = {DESCRIPTION_FILE: "experiment.toml", f"{name}.c": "kernel.c",
             "README.md": "README.md"}
    taken = [folder / f for f in files if (folder / f).exists()]
    if taken:
        raise DescriptionError(f"{taken[0]}: already exists; choose another folder or "
                               "name (nothing was written)")
    # Commands in the files work from any folder: the launcher and the experiment by
    # their absolute paths (`cpulab` may not be on PATH; a relative folder works only
    # from where `cpulab new` ran).
    values = {"name": name, "folder": shlex.quote(str(folder.resolve())),
              "cpulab": shlex.quote(str(LAUNCHER)), "harness_doc": str(HARNESS_DOC)}
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    templates = resources.files("cpulab.described") / "templates"
    for out, template in files.items():
        text = Template(templates.joinpath(template).read_text()).substitute(values)
        (folder / out).write_text(text)
        written.append(folder / out)
    return written
