"""The peer cache (native/kernels/peer_cache.sh): built peers are kept outside the checkout,
keyed by their recipe and the scripts that build them, and linked as build/peers/NAME.

Checked without building a peer: the helper's functions are called from bash on stand-in
builds in temporary folders, and each peer script is run with --print-path against an
empty cache."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from cpulab.paths import KERNELS, LIBS

HELPER = KERNELS / "peer_cache.sh"
PEER_SCRIPTS = [KERNELS / "protobuf" / "build_upb_peer.sh",
                KERNELS / "mulpre" / "build_gmp_peer.sh",
                KERNELS / "mulpre" / "build_mcl_peer.sh",
                KERNELS / "bigdec" / "build_flint_peer.sh",
                KERNELS / "opprof" / "build_cpython_peer.sh",
                KERNELS / "opprof" / "build_cruby_peer.sh",
                LIBS / "pbdyn" / "tests" / "build_conformance_runner.sh"]


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {**os.environ, "CPULAB_PEER_CACHE": str(tmp_path / "cache"),
            "CPULAB_BUILD_DIR": str(tmp_path / "build")}


def sh(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f"set -euo pipefail; . {HELPER}; {script}"],
                          capture_output=True, text=True, env=env, timeout=60)


def key(recipe: str, *files: Path, env: dict[str, str]) -> str:
    p = sh(f"peer_key {recipe!r} {' '.join(map(str, files))}", env)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_a_changed_recipe_or_script_gets_a_new_key(tmp_path, env):
    script = tmp_path / "build_x.sh"
    script.write_text("echo one\n")
    first = key("x 1.0: clang-19 -O2", script, env=env)
    assert len(first) == 16 and int(first, 16) >= 0
    assert key("x 1.0: clang-19 -O2", script, env=env) == first  # stable
    assert key("x 1.1: clang-19 -O2", script, env=env) != first  # a new version
    assert key("x 1.0: clang-19 -O3", script, env=env) != first  # new flags
    script.write_text("echo two\n")
    assert key("x 1.0: clang-19 -O2", script, env=env) != first  # a changed script


BUILD = """peer_cache_open x "$1" /dev/null
if peer_cache_ready lib/x.a; then echo "cached $peer_link"; exit 0; fi
peer_cache_stage
mkdir "$peer_stage/lib" && echo built > "$peer_stage/lib/x.a"
peer_cache_commit
echo "built $peer_link"
"""


def build(recipe: str, env: dict[str, str]) -> str:
    p = subprocess.run(["bash", "-c", f"set -euo pipefail; . {HELPER}; {BUILD}", "_", recipe],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_a_build_is_kept_once_and_linked_from_build_peers(tmp_path, env):
    link = tmp_path / "build" / "peers" / "x"
    assert build("x 1.0", env) == f"built {link}"
    (entry,) = (tmp_path / "cache").iterdir()  # no stage left beside it
    assert entry.name.startswith("x-") and link.resolve() == entry.resolve()
    assert (link / ".done").read_text() == "x 1.0\n" and (link / "lib" / "x.a").is_file()
    # a fresh checkout (a new build/) reuses the entry and links it
    fresh = {**env, "CPULAB_BUILD_DIR": str(tmp_path / "fresh")}
    assert build("x 1.0", fresh) == f"cached {tmp_path / 'fresh' / 'peers' / 'x'}"
    # a new recipe builds a second entry and moves the link; the old entry stays
    assert build("x 2.0", env) == f"built {link}"
    assert len(list((tmp_path / "cache").iterdir())) == 2
    assert (link / ".done").read_text() == "x 2.0\n"


def test_an_unfinished_entry_is_not_used_and_a_folder_of_before_is_replaced(tmp_path, env):
    old = tmp_path / "build" / "peers" / "x"
    (old / "lib").mkdir(parents=True)
    (old / ".done").write_text("x 1.0\n")  # a build of before the cache: a plain folder
    p = sh("peer_cache_open x 'x 1.0' /dev/null; mkdir -p $peer_entry; peer_cache_ready", env)
    assert p.returncode == 1  # an entry without .done is not ready
    assert build("x 1.0", env) == f"built {old}"
    assert old.is_symlink()


def test_a_second_builder_of_the_same_key_leaves_one_entry(tmp_path, env):
    p = sh("peer_cache_open x 'x 1.0' /dev/null; peer_cache_stage; first=$peer_stage; "
           "peer_cache_stage; touch $first/a $peer_stage/b; "
           "peer_stage=$first peer_cache_commit; peer_cache_commit; ls $peer_entry", env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["a"]  # the first one's; the second stage was dropped
    assert len(list((tmp_path / "cache").iterdir())) == 1


@pytest.mark.parametrize("script", PEER_SCRIPTS, ids=lambda p: p.name)
def test_every_peer_script_looks_in_the_cache(script, tmp_path, env):
    """--print-path on an empty cache: no build, and the message names build/peers/."""
    p = subprocess.run(["bash", str(script), "--print-path"], capture_output=True, text=True,
                       env=env, timeout=60)
    if p.returncode == 1 and "is not installed" in p.stderr:
        pytest.skip(p.stderr.strip())
    assert p.returncode == 1 and p.stdout == "", p.stdout
    assert str(tmp_path / "build" / "peers") in p.stderr, p.stderr
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())


def test_test_workers_build_a_peer_one_at_a_time(tmp_path, monkeypatch):
    """peer_support.peer with CPULAB_FULL=1 from two workers at once: the second waits
    for the first's build and finds it, so the peer is built once."""
    import threading

    from peer_support import peer

    script = tmp_path / "build_x_peer.sh"
    out, log = tmp_path / "x", tmp_path / "builds"
    script.write_text(f'[ -e {out} ] || {{ echo b >> {log}; sleep 1; touch {out}; }}\n'
                      f'echo {out}\n')
    monkeypatch.setenv("CPULAB_FULL", "1")
    monkeypatch.setenv("CPULAB_BUILD_DIR", str(tmp_path / "build"))
    monkeypatch.setattr("peer_support.ROOT", tmp_path)
    got: list[Path] = []
    workers = [threading.Thread(target=lambda: got.append(peer(script))) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert got == [out, out]
    assert log.read_text().split() == ["b"]
