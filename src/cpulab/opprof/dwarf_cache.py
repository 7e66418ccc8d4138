"""The decoded DWARF of a binary, kept between profiles: a second profile of the same
interpreter reads its compilation units and address -> frames map from one pickle
instead of decoding them again with pyelftools (~20-30 s for libpython3.11).

Keyed by what the decoded data depends on and nothing else: the binary's GNU build-id
(a rebuild changes it), else a SHA-256 of the file that holds the DWARF, and FORMAT,
raised whenever the decoded types (symbolize.py) change. The sources that marker
mapping reads are not part of the key: they are scanned again on every profile.
Written atomically (a temporary file renamed), so a profile that is interrupted or
runs beside another never leaves half a cache.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from cpulab.files import written_whole
from cpulab.paths import cache_dir

FORMAT = 2


def cache_key(build_id: str | None, debug_file: Path) -> str:
    if build_id:
        return f"build-id-{build_id}"
    h = hashlib.sha256()
    with open(debug_file, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return f"sha256-{h.hexdigest()}"


class DwarfCache:
    """One binary's cache file: load() what an earlier profile saved, save() it back."""

    def __init__(self, key: str, folder: Path | None = None) -> None:
        self.path = (folder or cache_dir() / "opprof") / f"{key}.v{FORMAT}.pickle"

    def load(self) -> dict | None:
        try:
            with open(self.path, "rb") as f:
                data = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None  # none yet, or unreadable: decode again and overwrite it
        return data if isinstance(data, dict) else None

    def save(self, data: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with written_whole(self.path) as tmp, open(tmp, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
