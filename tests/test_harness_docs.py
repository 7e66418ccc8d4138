"""docs/harness.md, kept true: its example kernel is compiled with the system cc against
native/harness/ by the page's own commands, run, and its output read by the lab's parser
(`kernel_output.parse`); the page's links lead to files and headings that exist."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from cpulab.measure.kernel_output import parse
from cpulab.paths import HARNESS_DIR, ROOT

PAGE = ROOT / "docs" / "harness.md"


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", PAGE.read_text(), flags=re.S | re.M)


def _example(folder: Path) -> Path:
    """The page's one C block, written as the file its build command names."""
    (source,) = _blocks("c")  # one example: a second block would go untested
    path = folder / "sum_bytes.c"
    path.write_text(source)
    return path


def test_the_page_s_commands_build_and_run_its_example(tmp_path):
    (commands,) = _blocks("sh")
    assert "--reps 2 --target-ms 1" in commands
    _example(tmp_path)
    (tmp_path / "native").symlink_to(ROOT / "native")  # the commands run from the root
    p = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    out = parse(p.stdout)
    assert not out.errors
    n = out.meta["params"]["n"]
    # Interleaved, per byte: what the page says a rep line carries.
    assert [(r.case, r.rep) for r in out.reps] == [("plain", 0), ("serial", 0),
                                                   ("plain", 1), ("serial", 1)]
    assert all(r.unit == "byte" and r.units == r.iters * n for r in out.reps)


def test_the_example_builds_without_warnings_and_refuses_a_bad_param(tmp_path):
    exe = tmp_path / "sum_bytes"
    for opt in ("-O0", "-O3"):
        p = subprocess.run(["cc", "-std=gnu11", opt, "-Wall", "-Wextra", "-Werror",
                            "-I", str(HARNESS_DIR), str(_example(tmp_path)), "-o", str(exe)],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
    p = subprocess.run([str(exe), "--reps", "2", "--target-ms", "1"], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert parse(p.stdout).meta["params"] == {"n": 4096}  # the default the page gives
    # The exit statuses the page promises: 2 for the caller's mistakes.
    for bad, message in ((["--param", "n=0"], "n must be at least 1"),
                         (["--param", "m=1"], "unknown --param 'm'")):
        p = subprocess.run([str(exe), *bad], capture_output=True, text=True, timeout=60)
        assert p.returncode == 2 and message in p.stderr
        assert json.loads(p.stdout)["type"] == "error"  # no meta: nothing was measured


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_the_page_s_links_resolve():
    links = re.findall(r"\]\(([^)#]+)(?:#([^)]+))?\)", PAGE.read_text())
    assert links
    for target, anchor in links:
        path = (PAGE.parent / target).resolve()
        assert path.is_file(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(), flags=re.M)
            assert anchor in {_slug(h) for h in headings}, f"{target}#{anchor}"
