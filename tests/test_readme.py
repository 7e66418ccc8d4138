"""The README stays what a newcomer reads first, on one screen or a few: at most 20 KiB,
with every page of docs/ one link away. What does not fit goes to docs/ (at 83 KB, with
the experiments' sections nearly half of it, it had stopped being read)."""

from __future__ import annotations

from pathlib import Path

from cpulab.paths import ROOT

README = ROOT / "README.md"
LIMIT = 20 * 1024


def test_the_readme_is_at_most_20_kib():
    size = len(README.read_bytes())
    assert size <= LIMIT, (f"README.md is {size:,} bytes, over {LIMIT:,}: move a section to "
                           "docs/ and link it (docs/README.md is the index)")


def test_the_readme_links_every_docs_page():
    text = README.read_text()
    pages = [p for p in (ROOT / "docs").rglob("*.md") if "notes" not in p.parts]
    missing = [str(p.relative_to(ROOT)) for p in sorted(pages)
               if f"]({Path(p).relative_to(ROOT).as_posix()}" not in text]
    assert not missing, f"README.md does not link {', '.join(missing)}"
