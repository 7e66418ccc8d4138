"""The JSON Schema of a bundle and its run records (`schema/bundle.schema.json`, draft
2020-12, shipped with the package), and the one rule it cannot say.

A checksum proves that a bundle is the one that was written, not that it holds records:
a bundle edited and re-summed, or written by a faulty tool, would be stored and then
fail in `show` or `compare`, far from the cause. So a bundle is checked, whole, before
any of its runs is read, and the first fault is named by its JSON path
(`runs[0].cases[3].metrics.time.median`), the way a user would look for it in the file.

The schema is the reference, readable without this code; the rule kept here is that a
metric's `processes` tag its `values` one to one (JSON Schema cannot compare two
arrays' lengths), which statistics would otherwise refuse only when a comparison is made.
"""

from __future__ import annotations

import json
import reprlib
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_FILE = "schema/bundle.schema.json"  # under the cpulab.store package

# A wrong value is quoted in the one-line error; a whole record quoted would be 100 KB.
# (Set field by field: Repr takes them as arguments only from Python 3.12.)
_QUOTE = reprlib.Repr()
_QUOTE.maxstring = _QUOTE.maxother = 60
_QUOTE.maxlist = _QUOTE.maxdict = 4
_QUOTE.maxlevel = 2


@cache
def bundle_schema() -> dict:
    """The schema as a JSON object, read once from the package's data."""
    return json.loads(files("cpulab.store").joinpath(SCHEMA_FILE).read_text())


@cache
def _validator() -> Draft202012Validator:
    # Imported when a bundle is read, not with the store: jsonschema takes ~130 ms to
    # import, a sixth of every cpulab command's start-up (python -X importtime).
    from jsonschema import Draft202012Validator

    return Draft202012Validator(bundle_schema())


def bundle_fault(bundle: Any) -> str | None:
    """The first thing in `bundle` (a parsed bundle) that its schema refuses, as
    `JSON.PATH: what is wrong`; None for a bundle that conforms."""
    from jsonschema.exceptions import best_match

    errors = list(_validator().iter_errors(bundle))
    if errors:
        # best_match prefers the shallowest error: a run that is not an object, rather
        # than each of the fields it then lacks.
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return _line(best_match(errors)) + more
    untagged = _untagged_figures(bundle["runs"])
    return _line(untagged) if untagged else None


def _untagged_figures(runs: list[dict]) -> ValidationError | None:
    """A metric whose `processes` do not tag each of its `values`, as jsonschema would
    report it (so that its path is written the same way)."""
    from jsonschema.exceptions import ValidationError

    for i, run in enumerate(runs):
        for j, case in enumerate(run["cases"]):
            for name, m in case.get("metrics", {}).items():
                tags, values = m.get("processes"), m.get("values", [])
                if tags is not None and len(tags) != len(values):
                    return ValidationError(
                        f"{len(tags)} process tags for {len(values)} values (one per figure)",
                        path=["runs", i, "cases", j, "metrics", name, "processes"],
                        instance=tags)
    return None


def _line(error: ValidationError) -> str:
    """`JSON.PATH: message` on one line, a long value quoted short."""
    where = error.json_path.removeprefix("$.") if error.json_path != "$" else "the bundle"
    text = error.message
    if isinstance(error.instance, dict | list | str):
        text = text.replace(repr(error.instance), _QUOTE.repr(error.instance))
    return f"{where}: {' '.join(text.split())}"
