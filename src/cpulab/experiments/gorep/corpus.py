"""What `gorep` searches: the Go toolchain's source tree (a real tree nobody here wrote,
$(go env GOROOT)/src, ~11,000 files, ~160 MB), made a git repository for git grep
without copying it (a separate git directory under build/), and one large generated
text file: the tree's .go files, concatenated in path order and repeated to the size.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


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


def large_file(tree: Path, path: Path, size: int) -> Path:
    """`size` bytes of Go source text (whole lines), written once and kept."""
    if path.is_file() and path.stat().st_size >= size:
        return path
    # is_file: Go's own tree holds a directory named not_a_file.go (a parser test)
    sources = sorted(p for p in tree.rglob("*.go") if p.is_file())
    if not sources:
        raise CorpusError(f"no .go file under {tree}")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    written = 0
    try:
        with open(tmp, "wb") as f:
            while written < size:
                for src in sources:
                    data = src.read_bytes()
                    if b"\0" in data[:65536]:
                        continue
                    if not data.endswith(b"\n"):
                        data += b"\n"
                    f.write(data)
                    written += len(data)
                    if written >= size:
                        break
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)  # nothing half-written is left behind
    return path
