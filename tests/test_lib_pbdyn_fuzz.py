"""libFuzzer over the pbdyn decoders (native/lib/pbdyn/tests/fuzz_decode.c), under ASan and UBSan.

The target decodes each input with the fast, switch and generic decoders and aborts if
their statuses or dumps differ, or if re-encoding does not decode to the same message.
A seed corpus (valid messages of every test schema, the malformed cases, descriptor sets
for the schema-loading mode) is replayed in full, then the fuzzer runs for 8 s over
the two builds by default (60 s with CPULAB_FULL=1)."""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest

from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.paths import build_dir
from pbdyn_support import (
    PBDYN,
    PBDYN_DIR,
    allkinds_set,
    descriptor_proto_set,
    fill_random,
    google_classes,
    varint,
)
from test_lib_pbdyn_diff import packed_values
from test_lib_pbdyn_malformed import CASES

FUZZ_SECONDS = 60 if os.environ.get("CPULAB_FULL") else 8
TYPES = ["allkinds2.All", "allkinds3.All", "allkinds2.Leaf", "allkinds3.Item",
         "google.protobuf.FileDescriptorSet", "google.protobuf.DescriptorProto"]
SAN = ("-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all")


def fuzz_target(defines: tuple[str, ...] = ()):
    tc = find_toolchain("clang")
    if tc is None:
        pytest.skip("clang not found")
    t = PBDYN.target("pbdyn_fuzz" + "".join("_" + d.replace("=", "") for d in defines),
                  (PBDYN_DIR / "tests" / "fuzz_decode.c",), defines=defines, cflags=SAN,
                  ldflags=SAN)
    return build_one(t, BuildConfig(tc, "O1"))


def schema_file():
    """One descriptor set with every fuzzed type (allkinds + descriptor.proto)."""
    from pbdyn_support import DATA, SYSTEM_PROTO, descriptor_set
    fds = descriptor_set(("allkinds2.proto", "allkinds3.proto",
                          "google/protobuf/descriptor.proto"), (DATA, SYSTEM_PROTO))
    p = build_dir() / "pb-data" / "fuzz_schema.pb"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(fds)
    return p, fds


def seed_corpus(path) -> int:
    """Valid messages of every type, the malformed cases and descriptor sets."""
    path.mkdir(parents=True, exist_ok=True)
    _, fds = schema_file()
    classes = google_classes(fds)
    n = 0

    def put(sel: int, data: bytes):
        nonlocal n
        (path / f"seed{n:04d}").write_bytes(bytes([sel]) + data)
        n += 1

    rng = random.Random(7)
    for i in range(120):
        t = i % len(TYPES)
        m = classes[TYPES[t]]()
        fill_random(m, random.Random(i), max_depth=3, density=rng.choice([0.2, 0.5, 0.9]))
        put(t | (0x40 if i % 3 == 0 else 0), m.SerializePartialToString())
    for _name, type_name, data, _st in CASES:
        put(TYPES.index(type_name), data)
    # long packed runs of every varint kind, which the vector kernels take (64 bytes or
    # more): random messages seldom have them, and mutations alone rarely make them
    for type_name in ("allkinds3.All", "allkinds2.All"):
        cls = classes[type_name]
        for f in cls.DESCRIPTOR.fields:
            if f.is_repeated and f.message_type is None and f.type not in (
                    f.TYPE_STRING, f.TYPE_BYTES, f.TYPE_FLOAT, f.TYPE_DOUBLE, f.TYPE_FIXED32,
                    f.TYPE_FIXED64, f.TYPE_SFIXED32, f.TYPE_SFIXED64):
                values = packed_values(f, rng, rng.choice((20, 70, 150)))
                if f.enum_type is not None:
                    values = [v.number for v in f.enum_type.values] * 30
                m = cls()
                getattr(m, f.name).extend(values)
                data = m.SerializeToString()
                if not f.is_packed:  # proto2: the same values packed by hand
                    body = b"".join(varint(v) for v in values)
                    data = varint(f.number << 3 | 2) + varint(len(body)) + body
                put(TYPES.index(type_name), data)
    put(TYPES.index("google.protobuf.FileDescriptorSet"), descriptor_proto_set())
    put(0x80, descriptor_proto_set())
    put(0x80, allkinds_set())
    return n


def run_fuzzer(exe, corpus, seconds: int, extra=()):
    sp, _ = schema_file()
    env = dict(os.environ, PBDYN_FUZZ_SCHEMA=str(sp), PBDYN_FUZZ_TYPES=",".join(TYPES))
    cmd = [str(exe), f"-max_total_time={seconds}", "-print_final_stats=1", "-seed=1",
           "-max_len=4096", "-rss_limit_mb=1024", *extra, str(corpus)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=seconds + 240, cwd=corpus.parent)


def executed(stderr: str) -> int:
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", stderr)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("defines,seconds", [((), FUZZ_SECONDS * 3 // 4),
                                             (("PBDYN_TAILCALL=0",), FUZZ_SECONDS // 4)],
                         ids=["musttail", "trampoline"])
def test_fuzz(tmp_path, defines, seconds):
    exe = fuzz_target(defines)
    corpus = tmp_path / "corpus"
    seeds = seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, seconds)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "ERROR" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-4000:]
    assert executed(r.stderr) > seeds  # the corpus replayed, then fuzzing went on


def test_fuzz_target_catches_a_wrong_decoder(tmp_path):
    """The differential check works: a build whose fast path stores varints wrong (a
    sabotage define) must be caught on the seed corpus alone."""
    exe = fuzz_target(("PBDYN_FUZZ_SABOTAGE=1",))
    corpus = tmp_path / "corpus"
    seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, 10, ("-runs=0",))
    assert r.returncode != 0 and "differs" in r.stderr
