"""Result bundles: runs that travel between machines as one versioned JSON file,
optionally gzip-compressed (`cpulab export`, `cpulab import`, a fleet's hosts).

A bundle holds whole records (the machine fingerprint, lab revision, compilers and every
per-repetition figure) and a SHA-256 of them, and is read all or nothing: a truncated,
corrupt or edited file, or one record that does not parse, rejects the whole bundle
before anything is stored. A bundle of a newer schema is refused with the versions, as
pyperf and google/benchmark refuse result files they do not know. The checks go from
the file to its figures, each saying what the one before could not: the JSON parses;
its bundle_schema is one this cpulab reads; it has a sha256, and the runs match it; the
whole bundle follows its JSON Schema (`bundle_schema.py`). Format history:
  1: {"format": "cpulab-bundle", "bundle_schema": 1, "record_schema": 1, "created",
     "cpulab", "runs": [RECORD...], "sha256": of the runs as canonical JSON}.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from cpulab.files import write_whole
from cpulab.results import SCHEMA, RunRecord
from cpulab.store.bundle_schema import bundle_fault

BUNDLE_SCHEMA = 1
FORMAT = "cpulab-bundle"
_GZIP_MAGIC = b"\x1f\x8b"


class BundleError(ValueError):
    """A bundle cannot be written, or cannot be read whole (the message names the file)."""


def _digest(runs: list[dict]) -> str:
    canonical = json.dumps(runs, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _cpulab_version() -> str:
    try:
        return version("cpulab")
    except PackageNotFoundError:
        return "unknown"


def write_bundle(path: Path, records: list[RunRecord], compress: bool | None = None) -> Path:
    """Write `records` to `path`, gzip-compressed when `compress` (default: when the name
    ends in .gz). Written to a temporary name and renamed: never a half-written bundle.
    The folder must exist, as for `cp`: a mistyped one is refused, not created."""
    path = Path(path)
    if not path.parent.is_dir():
        raise BundleError(f"no such folder: {path.parent}")
    compress = path.suffix == ".gz" if compress is None else compress
    runs = [r.as_dict() for r in records]
    bundle = {"format": FORMAT, "bundle_schema": BUNDLE_SCHEMA, "record_schema": SCHEMA,
              "created": datetime.now(UTC).isoformat(timespec="seconds"),
              "cpulab": _cpulab_version(), "runs": runs, "sha256": _digest(runs)}
    data = json.dumps(bundle, indent=1).encode()
    if compress:
        data = gzip.compress(data, mtime=0)
    try:
        write_whole(path, data)
    except OSError as e:
        raise BundleError(f"{path}: cannot write the bundle: {e}") from e
    return path


def read_bundle(path: Path) -> list[RunRecord]:
    """Every run of the bundle at `path` (gzip or plain, told by its first bytes), or
    BundleError naming what is wrong; nothing is returned from a bundle that is not whole."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise BundleError(f"{path}: cannot read the bundle: {e}") from e
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            raise BundleError(f"{path}: corrupt or truncated gzip data ({e}); nothing "
                              "was imported") from e
    try:
        bundle = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleError(f"{path}: not a complete JSON document ({e}); the file is "
                          "truncated or not a cpulab bundle; nothing was imported") from e
    if not isinstance(bundle, dict) or bundle.get("format") != FORMAT:
        raise BundleError(f"{path}: not a cpulab bundle (no \"format\": \"{FORMAT}\")")
    _check_versions(path, bundle)
    # A bundle cut short before its last field, or made by another tool, has no sha256:
    # said as such, not as a mismatch, which would blame an edit that was never made.
    if "sha256" not in bundle:
        raise BundleError(f"{path}: no sha256 field: not a cpulab bundle, or cut short; "
                          "nothing was imported")
    runs = bundle.get("runs")
    if not isinstance(runs, list):
        raise BundleError(f"{path}: \"runs\" is missing or not a list")
    if bundle["sha256"] != _digest(runs):
        raise BundleError(f"{path}: the runs do not match the bundle's sha256: the file "
                          "was changed or damaged after it was written; nothing was imported")
    # The checksum holds: the file is as it was written. Whether what was written is a
    # record that show and compare can read is the schema's to say.
    fault = bundle_fault(bundle)
    if fault:
        raise BundleError(f"{path}: {fault}; nothing was imported")
    records = []
    for i, d in enumerate(runs):
        try:
            records.append(RunRecord.from_dict(d))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            what = f"{type(e).__name__}: {e}" if not isinstance(e, KeyError) else \
                f"field {e} is missing"
            raise BundleError(f"{path}: run {i + 1} of {len(runs)} is not a valid record "
                              f"({what}); nothing was imported") from e
    return records


def _check_versions(path: Path, bundle: dict) -> None:
    """Refuse a bundle whose schema this cpulab does not read: a newer one with the
    versions (upgrade to read it), and one older than any cpulab wrote (0, -1: made by
    hand or by another tool) as such."""
    found, records = bundle.get("bundle_schema"), bundle.get("record_schema", SCHEMA)
    if found is None:
        raise BundleError(f"{path}: no bundle_schema field: not a cpulab bundle")
    for name, value in (("bundle_schema", found), ("record_schema", records)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise BundleError(f"{path}: {name} {value!r} is not a number")
    if found > BUNDLE_SCHEMA or records > SCHEMA:
        raise BundleError(
            f"{path}: bundle schema {found} (records {records}) was written by a newer "
            f"cpulab ({bundle.get('cpulab', '?')}); this one reads bundle schema "
            f"{BUNDLE_SCHEMA}, records {SCHEMA}: upgrade cpulab to import it")
    if found != BUNDLE_SCHEMA:
        raise BundleError(f"{path}: bundle schema {found}: this cpulab reads {BUNDLE_SCHEMA}; "
                          "nothing was imported")
    if records != SCHEMA:
        raise BundleError(f"{path}: record schema {records}: this cpulab reads {SCHEMA}; "
                          "nothing was imported")
