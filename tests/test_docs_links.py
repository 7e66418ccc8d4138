"""Every relative link of the README and of docs/ (and of gorep's manual and the native
libraries' READMEs, which link into docs/) leads somewhere: to a file or folder that
exists and, for `page.md#anchor` or `#anchor`, to a heading of that page (GitHub's
anchors: lower case, punctuation dropped, spaces as hyphens). Links in code (fenced
blocks, inline spans) are text, not links. External links are not fetched."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cpulab.paths import ROOT

PAGES = sorted([ROOT / "README.md", ROOT / "gorep" / "README.md",
                *(ROOT / "docs").rglob("*.md"), *(ROOT / "native").rglob("*.md")])

LINK = re.compile(r"!?\[(?:[^\]]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE_SPAN = re.compile(r"(`+).+?\1")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def links(path: Path) -> list[str]:
    return [m.group(1) for line in prose_lines(path.read_text())
            for m in LINK.finditer(CODE_SPAN.sub("", line))]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text()
    found, seen = set(), {}
    for line in prose_lines(text):
        m = HEADING.match(line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
    return found | set(HTML_ANCHOR.findall(text))


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in links(path):
        if re.match(r"[a-zA-Z][a-zA-Z+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = (path.parent / file).resolve() if file else path
        if not dest.exists():
            broken.append(f"{target}: no such file or folder")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: {dest.name} has no heading #{anchor}")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_lead_somewhere(page):
    broken = broken_links(page)
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_checker_sees_what_is_broken(tmp_path):
    (tmp_path / "other.md").write_text("# A `code` heading: yes\n\n## Twice\n\n## Twice\n")
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[ok](other.md#a-code-heading-yes) [ok](other.md#twice-1) "
                    "[ok](#top) [ok](https://example.org/x) `[in code](gone.md)`\n"
                    "[missing](gone.md) [no anchor](other.md#nope) [no local](#nope)\n"
                    "```\n[fenced](gone2.md)\n```\n")
    assert broken_links(page) == ["gone.md: no such file or folder",
                                  "other.md#nope: other.md has no heading #nope",
                                  "#nope: page.md has no heading #nope"]
