"""The command line of each search tool for one pattern, root and thread count, set so
that every tool searches the same files (hidden ones too, no ignore files, binary files
skipped) and prints `path:line:text`; and how their outputs are compared.

GNU grep has no threads; git grep searches the files of a git repository (corpus.py
makes one whose work tree is the searched folder). All run with LC_ALL=C, so that no
tool treats invalid UTF-8 as binary. Most patterns are ASCII and mean the same in RE2,
Rust's regex, PCRE and POSIX ERE; `\\w`, `\\s` and `\\p{Greek}` are Unicode in ripgrep
and gorep only, and a tool that reads them otherwise prints other lines (and is not
timed on that case).
"""

from __future__ import annotations

import shutil
from pathlib import Path

TOOLS = ("gorep", "rg", "grep", "git-grep", "ugrep", "ag")
THREADED = ("gorep", "rg", "git-grep", "ugrep", "ag")
ENV = {"LC_ALL": "C"}


def program(tool: str) -> str | None:
    """The tool's executable (gorep's is built), or None when it is not installed."""
    name = {"git-grep": "git"}.get(tool, tool)
    return shutil.which(name)


def argv(tool: str, exe: str, pattern: str, root: Path, threads: int,
         git_dir: Path | None = None) -> list[str]:
    t = str(threads)
    r = str(root)
    match tool:
        case "gorep":
            return [exe, "-g", "--no-names", "--hidden", "--no-ignore", "--color", "never",
                    "-j", t, "--", pattern, r]
        case "rg":
            return [exe, "-n", "--no-heading", "-uu", "--color", "never", "-j", t, "--",
                    pattern, r]
        case "grep":
            return [exe, "-rnIE", "--color=never", "--", pattern, r]
        case "git-grep":
            if git_dir is None:
                raise ValueError("git grep needs a git repository")
            return [exe, f"--git-dir={git_dir}", f"--work-tree={r}", "-C", r, "grep",
                    "-nIE", "--no-color", f"--threads={t}", "--", pattern]
        case "ugrep":
            return [exe, "-rnIE", "--hidden", "--color=never", f"-J{t}", "--", pattern, r]
        case "ag":  # -s: ag folds case by default when the pattern is all lower case
            return [exe, "--nocolor", "--noheading", "--numbers", "--hidden", "-s",
                    "--skip-vcs-ignores", "--workers", t, "--", pattern, r]
    raise ValueError(f"unknown tool {tool!r}")


def lines(output: str, root: Path) -> list[str]:
    """A tool's output as sorted `relative/path:line:text` lines (the blank lines ag puts
    between files dropped: a matching line always starts with its path)."""
    prefix = str(root).rstrip("/") + "/"
    out = [ln[len(prefix):] if ln.startswith(prefix) else ln.removeprefix("./")
           for ln in output.splitlines() if ln]
    return sorted(out)


def difference(got: list[str], want: list[str]) -> str | None:
    """None when equal, else a one-line account of how `got` differs from `want`."""
    if got == want:
        return None
    a, b = set(got), set(want)
    only_got, only_want = sorted(a - b), sorted(b - a)
    first = (only_got or only_want or ["(the same lines, counted differently)"])[0]
    return (f"{len(got)} lines against ripgrep's {len(want)}: {len(only_got)} only here, "
            f"{len(only_want)} only in ripgrep's; first: {first[:160]!r}")
