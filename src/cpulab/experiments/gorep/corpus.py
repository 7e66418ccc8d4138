"""What `gorep` searches, real text nobody here wrote: the Go toolchain's source tree
($(go env GOROOT)/src, ~11,000 files, ~160 MB), a large C tree (Debian's `linux` source
package, ~80,000 files, 1.5 GB, fetched once by native/kernels/gorep/fetch_c_tree.sh
into the peer cache), each made a git repository for git grep without copying it (a
separate git directory under build/), and one large file of natural-language text: the
system's manual pages and documentation, decompressed, concatenated in path order and
repeated to the size (~350 MB of it on Debian 12 with the lab's packages).
"""

from __future__ import annotations

import gzip
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from cpulab.files import written_whole
from cpulab.paths import KERNELS

TEXT_ROOTS = (Path("/usr/share/man"), Path("/usr/share/doc"))
C_TREE_PACKAGE = "linux"


class CorpusError(RuntimeError):
    """The tree or the file could not be prepared."""


def go_source(go: str) -> Path:
    try:
        root = subprocess.run([go, "env", "GOROOT"], capture_output=True, text=True,
                              timeout=60, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        raise CorpusError(f"go env GOROOT: {e}") from e
    src = Path(root) / "src"
    if not (src / "fmt" / "print.go").is_file():
        raise CorpusError(f"no Go source tree at {src}")
    return src


def git_repository(tree: Path, git_dir: Path) -> Path:
    """A git directory whose work tree is `tree`, every file added and committed once."""
    if (git_dir / "refs" / "heads").is_dir() and (git_dir / "index").is_file():
        return git_dir
    git_dir.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(tree),
           "GIT_AUTHOR_NAME": "cpulab", "GIT_AUTHOR_EMAIL": "cpulab@localhost",
           "GIT_COMMITTER_NAME": "cpulab", "GIT_COMMITTER_EMAIL": "cpulab@localhost"}
    for args in (["init", "-q"], ["add", "-A", "-f", "."], ["commit", "-q", "-m", "tree"]):
        p = subprocess.run(["git", *args], cwd=tree, env=env, capture_output=True,
                           text=True, timeout=600)
        if p.returncode != 0:
            raise CorpusError(f"git {' '.join(args)} in {tree}: {p.stderr.strip()[-300:]}")
    return git_dir


def c_tree(package: str = C_TREE_PACKAGE) -> Path:
    """Debian's source package `package`, unpacked (fetched on the first call only)."""
    script = KERNELS / "gorep" / "fetch_c_tree.sh"
    try:
        p = subprocess.run([str(script), package], capture_output=True, text=True,
                           timeout=3600)
    except (OSError, subprocess.SubprocessError) as e:
        raise CorpusError(f"{script.name} {package}: {e}") from e
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines or not Path(lines[-1]).is_dir():
        raise CorpusError(f"{script.name} {package}: {p.stderr.strip()[-300:]}")
    return Path(lines[-1])


def text_sources(roots: Iterable[Path] = TEXT_ROOTS) -> list[Path]:
    """The text files under `roots` in path order: manual pages (gzip) and the plain or
    gzip-compressed documents of /usr/share/doc (READMEs, changelogs, copyrights)."""
    out = []
    for root in roots:
        if root.is_dir():
            out += sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    return out


def _text_of(path: Path) -> bytes | None:
    """The file's text (decompressed), or None when it is not text (a NUL in it)."""
    try:
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    if b"\0" in data:
        return None
    return data if data.endswith(b"\n") or not data else data + b"\n"


def large_file(sources: Iterable[Path], path: Path, size: int) -> Path:
    """`size` bytes or more of the sources' text (whole lines, no binary file), in their
    order and repeated as often as needed; written once and kept."""
    if path.is_file() and path.stat().st_size >= size:
        return path
    sources = list(sources)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with written_whole(path) as tmp, open(tmp, "wb") as f:  # nothing half-written is left
        while written < size:
            before = written
            for src in sources:
                data = _text_of(src) if src.is_file() else None
                if data:
                    f.write(data)
                    written += len(data)
                if written >= size:
                    break
            if written == before:
                raise CorpusError(f"no text file among {len(sources)} sources")
    return path
