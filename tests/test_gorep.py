"""gorep, the Go module in gorep/: its own tests (its packages' by default; with
CPULAB_FULL=1 `go test ./...`, with the golden tests against ripgrep and find on Go's
tree, Linux's and /usr/include, peers required), that `go install` installs it, and that it
colours its output in a real terminal (tmux) and never through a pipe.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cpulab.build import BuildConfig, find_toolchain, go_build
from cpulab.paths import GO_MODULE

GO = find_toolchain("go")
needs_go = pytest.mark.needs("go")


def _go(*args: str, env: dict | None = None, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([GO.cc, *args], cwd=GO_MODULE, capture_output=True, text=True,
                          env={**os.environ, "GOFLAGS": "-buildvcs=false", **(env or {})},
                          timeout=timeout)


@needs_go
def test_go_unit_tests_pass():
    """The packages' own tests (~2 s); the golden tests against the peers are the full set's."""
    p = _go("test", "./internal/...")
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "ok  \tcpulab/gorep/internal/match\t" in p.stdout


@needs_go
@pytest.mark.full
def test_go_test_passes_with_the_peers_required():
    """With the experiment's C tree (Linux's sources, fetched once, ~1 min) beside Go's."""
    from cpulab.experiments.gorep.corpus import c_tree
    p = _go("test", "./...", env={"GOREP_REQUIRE_PEERS": "1", "GOREP_C_TREE": str(c_tree())})
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "ok  \tcpulab/gorep\t" in p.stdout  # the golden tests ran, not skipped as a package


@needs_go
def test_go_vet_is_clean():
    p = _go("vet", "./...")
    assert p.returncode == 0, p.stderr


@needs_go
def test_go_install_installs_gorep(tmp_path):
    p = _go("install", ".", env={"GOBIN": str(tmp_path)})
    assert p.returncode == 0, p.stderr
    out = subprocess.run([str(tmp_path / "gorep"), "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "usage: gorep" in out.stdout


@pytest.fixture(scope="module")
def gorep() -> Path:
    if GO is None:
        pytest.skip("the Go toolchain is not installed")
    return go_build(BuildConfig(GO), ".")


@pytest.fixture()
def tree(tmp_path) -> Path:
    (tmp_path / "a.txt").write_text("a gopher here\n")
    return tmp_path


def _in_tmux(command: str, cwd: Path, env: str = "") -> str:
    """Run `command` in a fresh tmux window (a real terminal); the screen with escapes."""
    if not shutil.which("tmux"):
        pytest.fail("tmux is not installed (make setup installs it)")
    session = f"gorep-test-{os.getpid()}-{time.monotonic_ns()}"
    # a server of its own (-S, its socket in the test's folder): on the shared default
    # server, a session started while the previous test's kill-session was shutting that
    # server down failed now and then
    tmux = ["tmux", "-S", str(cwd / "tmux.socket")]
    done = cwd / "done"
    subprocess.run([*tmux, "new-session", "-d", "-s", session, "-x", "120", "-y", "20",
                    f"cd {cwd} && env TERM=xterm-256color {env} {command}; touch {done}; "
                    "sleep 60"], check=True)
    try:
        for _ in range(200):
            if done.exists():
                break
            time.sleep(0.05)
        assert done.exists(), "the command did not finish in tmux"
        return subprocess.run([*tmux, "capture-pane", "-p", "-e", "-t", session],
                              capture_output=True, text=True, check=True).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)


def test_colour_on_a_terminal(gorep, tree):
    screen = _in_tmux(f"{gorep} -g --no-names gopher", tree)
    assert "a.txt" in screen and "\x1b[" in screen, repr(screen)


def test_no_colour_through_a_pipe_even_in_a_terminal(gorep, tree):
    screen = _in_tmux(f"{gorep} -g --no-names gopher | cat", tree)
    assert "a.txt:1:a gopher here" in screen and "\x1b[" not in screen, repr(screen)


def test_no_color_turns_auto_off_in_a_terminal(gorep, tree):
    # On a terminal the path is a heading above its lines, as ripgrep prints it.
    screen = _in_tmux(f"{gorep} -g --no-names gopher", tree, env="NO_COLOR=1")
    assert "a.txt\n1:a gopher here" in screen and "\x1b[" not in screen, repr(screen)


def test_no_colour_into_a_pipe(gorep, tree):
    p = subprocess.run([str(gorep), "-g", "--no-names", "gopher"], cwd=tree,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout == "a.txt:1:a gopher here\n"
