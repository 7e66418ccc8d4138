"""Whole-command results written for other tools, under hyperfine's flag names: one
table of each command (mean, median, min, max, and its ratio to the fastest) built
once from the stored run (summary.py), and one small serializer per format, each a
pure `serialize(rows) -> str` (markdown.py, csv.py). Files are written whole or not at
all: a temporary name in the same folder, then renamed over the target.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cpulab.files import write_whole
from cpulab.report.export import csv, markdown
from cpulab.report.export.summary import CommandSummary, command_summaries

SERIALIZERS: dict[str, Callable[[list[CommandSummary]], str]] = {
    "markdown": markdown.serialize,
    "csv": csv.serialize,
}


class ExportError(Exception):
    """An export file could not be written; the message names it."""


def check_folder(path: Path) -> None:
    """The folder must exist, as for `cp`: a mistyped one is refused, not created."""
    if not Path(path).parent.is_dir():
        raise ExportError(f"{path}: no such folder: {Path(path).parent}")


def write_export(path: Path, text: str) -> Path:
    path = Path(path)
    check_folder(path)
    try:
        write_whole(path, text)
    except OSError as e:
        raise ExportError(f"{path}: cannot write: {e}") from e
    return path


__all__ = ["SERIALIZERS", "CommandSummary", "ExportError", "check_folder",
           "command_summaries", "write_export"]
