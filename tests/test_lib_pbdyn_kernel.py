"""The protobuf kernel (native/kernels/protobuf): every implementation (pbdyn's builds, native
upb generic and fasttable, protobuf C++) loads into one process, agrees on every payload,
and the harness's JSON lines come out complete. Counts and agreement only; no timings are
judged here. The upb peers are built once from PyPI sdists (build_upb_peer.sh)."""

from __future__ import annotations

import json
import subprocess

import pytest

from pbdyn_support import (
    BENCH_TYPES,
    CPP_PEERS,
    PBDYN_ADAPTERS,
    UPB_PEERS,
    build_cpp_peer,
    build_pbdyn_adapter,
    build_upb_peer,
    kernel_command,
    make_bench_data,
)


@pytest.fixture(scope="module")
def impls():
    out = {k: build_pbdyn_adapter(k) for k in PBDYN_ADAPTERS}
    out.update({k: build_upb_peer(k) for k in UPB_PEERS})
    out.update({k: build_cpp_peer(k) for k in CPP_PEERS})
    return out


@pytest.fixture(scope="module")
def manifest():
    return make_bench_data()


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return r, [json.loads(line) for line in r.stdout.splitlines()]


def test_payloads(manifest):
    lines = manifest.read_text().splitlines()
    assert lines[0] == "schema schema.pb"
    payloads = {ln.split()[1]: ln.split() for ln in lines[1:]}
    assert set(payloads) == set(BENCH_TYPES)
    sizes = {k: (manifest.parent / v[3]).stat().st_size for k, v in payloads.items()}
    assert sizes["descriptor"] > 7000 and sizes["debian-protos"] > sizes["descriptor"]
    assert all(8000 < sizes[k] < 20000 for k in ("varints", "strings", "packed", "packed-bools"))
    assert 20000 < sizes["packed-ints"] < 50000
    assert sizes["packed-fixed"] == 3 * 3 + 2000 * (4 + 8 + 8)  # 3 x (tag, 2-byte length)



@pytest.mark.full
def test_every_case_runs_and_agrees(impls, manifest):
    r, out = run(kernel_command(impls, manifest, "--iters", "2", "--reps", "2", "--no-pmu"))
    assert r.returncode == 0, r.stderr
    meta, reps = out[0], out[1:]
    assert meta["type"] == "meta"
    # pbdyn: 3 decoders x copy/alias x fresh/reused; upb: copy/alias x fresh/reused;
    # C++: fresh arena, reused arena, heap message
    per_payload = len(PBDYN_ADAPTERS) * 3 * 2 * 2 + len(UPB_PEERS) * 2 * 2 + len(CPP_PEERS) * 3
    assert len(meta["cases"]) == len(BENCH_TYPES) * per_payload
    assert len(reps) == 2 * len(meta["cases"])
    sizes = {}
    for ln in manifest.read_text().splitlines()[1:]:
        _, name, _, f = ln.split()
        sizes[name] = (manifest.parent / f).stat().st_size
    for rep in reps:
        payload, impl, dec, mode, arena = rep["case"].split("/")
        assert rep["unit"] == "byte" and rep["iters"] == 2
        assert rep["units"] == 2 * sizes[payload]
        assert impl in impls and mode in ("copy", "alias")
        assert arena in (("fresh", "reused", "heap") if impl.startswith("cpp") else
                         ("fresh", "reused"))
        assert dec in (("fast", "switch", "generic") if impl.startswith("pb") else ("parse",))
        assert mode == "copy" or not impl.startswith("cpp")


@pytest.mark.full
def test_case_selection(impls, manifest):
    r, out = run(kernel_command(impls, manifest, "--list", "--param", "payloads=descriptor",
                                "--param", "decoders=fast", "--param", "alias=0",
                                "--param", "arenas=reused,heap"))
    assert r.returncode == 0, r.stderr
    names = [c["name"] for c in out if c["type"] == "case"]
    assert names == [f"descriptor/{k}/fast/copy/reused" for k in PBDYN_ADAPTERS] + \
        [f"descriptor/{k}/parse/copy/reused" for k in UPB_PEERS] + \
        [f"descriptor/{k}/parse/copy/{a}" for k in CPP_PEERS for a in ("reused", "heap")]


@pytest.mark.full
def test_bad_payload_fails(impls, manifest, tmp_path):
    """A payload no implementation can decode stops the run before timing (exit 1)."""
    (tmp_path / "schema.pb").write_bytes((manifest.parent / "schema.pb").read_bytes())
    (tmp_path / "bad.bin").write_bytes(b"\x0a\x05\x0a")
    (tmp_path / "manifest").write_text(
        "schema schema.pb\npayload bad google.protobuf.FileDescriptorSet bad.bin\n")
    r, out = run(kernel_command(impls, tmp_path / "manifest", "--iters", "1", "--reps", "1"))
    assert r.returncode == 1
    assert out[-1]["type"] == "error" and "decode failed" in out[-1]["message"]
