"""libFuzzer over the pbdyn decoders (native/lib/pbdyn/tests/fuzz_decode.c), the
text-format parser (fuzz_text.c) and the JSON parser (fuzz_json.c), under ASan and UBSan.

The decoder target decodes each input with the fast, switch and generic decoders and
aborts if their statuses or dumps differ, or if re-encoding does not decode to the same
message. A seed corpus (valid messages of every test schema, the malformed cases,
descriptor sets for the schema-loading mode) is replayed in full, then the fuzzer runs
for 8 s over the two builds by default (60 s with CPULAB_FULL=1).

The text target parses each input and aborts if a refusal's status or position is not
one the parser may give, or if a parsed message does not print as text that parses and
prints the same, or does not encode to a message that decodes and prints the same. Its
seeds are the text of random messages of every type, unknown fields included, and the
malformed text cases; it runs for 8 s (60 s).

The JSON target does the same for JSON, with the well-known types in the schema (a
message that holds each of them), and also aborts if a parsed message has no JSON form.
Its seeds are the JSON of random messages and the accepted and refused JSON cases.

The targets are ctest's, from the ASan+UBSan tree (tests/cmake_support.py), built once for
both suites; the decoder target over the library without musttail is built here."""

from __future__ import annotations

import os
import random
import re
import subprocess

import pytest
from google.protobuf import descriptor_pb2

from cmake_support import asan_binary
from cpulab.build import BuildConfig, build_one
from pbdyn_support import (
    PBDYN,
    PBDYN_DIR,
    allkinds_set,
    data_file,
    descriptor_proto_set,
    fill_random,
    google_classes,
    lib,
    varint,
)
from test_lib_pbdyn_diff import packed_values
from test_lib_pbdyn_json import holder_set
from test_lib_pbdyn_json_parse import ACCEPTED as ACCEPTED_JSON
from test_lib_pbdyn_json_parse import REFUSED as REFUSED_JSON
from test_lib_pbdyn_malformed import CASES
from test_lib_pbdyn_text_parse import MALFORMED as MALFORMED_TEXT
from test_lib_pbdyn_text_parse import fault_offset

FUZZ_SECONDS = 60 if os.environ.get("CPULAB_FULL") else 8
TYPES = ["allkinds2.All", "allkinds3.All", "allkinds2.Leaf", "allkinds3.Item",
         "google.protobuf.FileDescriptorSet", "google.protobuf.DescriptorProto"]
SAN = ("-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all")

pytestmark = pytest.mark.needs("cmake")


def fuzz_target(clang, harness: str = "decode"):
    """The harness as ctest builds it in the ASan+UBSan tree (RelWithDebInfo, libFuzzer
    coverage on every object), which the ctest test under the sanitizers needs anyway."""
    return asan_binary(clang, "pbdyn", f"pbdyn_fuzz_{harness}")


def trampoline_fuzz_target(clang):
    """The decode harness over the library built without musttail (PBDYN_TAILCALL=0),
    the decoders' other dispatch."""
    t = PBDYN.target("pbdyn_fuzz_PBDYN_TAILCALL0", (PBDYN_DIR / "tests" / "fuzz_decode.c",),
                     defines=("PBDYN_TAILCALL=0",), cflags=SAN, ldflags=SAN)
    return build_one(t, BuildConfig(clang, "O1"))


def schema_file():
    """One descriptor set with every fuzzed type (allkinds + descriptor.proto)."""
    from pbdyn_support import DATA, SYSTEM_PROTO, descriptor_set
    fds = descriptor_set(("allkinds2.proto", "allkinds3.proto",
                          "google/protobuf/descriptor.proto"), (DATA, SYSTEM_PROTO))
    return data_file("fuzz_schema.pb", fds), fds



class SeedCorpus:
    """A libFuzzer seed folder: each seed is a selector byte (type and options) and the
    input; `n` counts them."""

    def __init__(self, path):
        self.path, self.n = path, 0
        path.mkdir(parents=True, exist_ok=True)

    def put(self, sel: int, data: bytes) -> None:
        (self.path / f"seed{self.n:04d}").write_bytes(bytes([sel]) + data)
        self.n += 1

def seed_corpus(path) -> int:
    """Valid messages of every type, the malformed cases and descriptor sets."""
    _, fds = schema_file()
    classes = google_classes(fds)
    seeds = SeedCorpus(path)
    put = seeds.put

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
    return seeds.n


def text_seed_corpus(path) -> int:
    """The text of random messages of every type (unknown fields included), and the
    malformed text cases."""
    _, fds = schema_file()
    classes = google_classes(fds)
    schema = lib().load_schema(fds)
    seeds = SeedCorpus(path)
    put = seeds.put

    for i in range(60):
        t = i % len(TYPES)
        m = classes[TYPES[t]]()
        fill_random(m, random.Random(100 + i), max_depth=3, density=0.5, unknown=0.3)
        st, text = schema.decode_text(TYPES[t], m.SerializePartialToString())
        assert st == 0
        put(t, text)
    for type_name, text, _st, token in MALFORMED_TEXT:
        put(TYPES.index(type_name), fault_offset(text, token)[0])
    return seeds.n


JSON_TYPES = ["allkinds2.All", "allkinds3.All", "pbjson.Holder"]


def json_schema_file():
    """allkinds and the well-known-types holder in one descriptor set."""
    s = descriptor_pb2.FileDescriptorSet.FromString(allkinds_set())
    names = {f.name for f in s.file}
    s.file.extend(f for f in descriptor_pb2.FileDescriptorSet.FromString(holder_set()).file
                  if f.name not in names)
    fds = s.SerializeToString()
    return data_file("fuzz_json_schema.pb", fds), fds


def json_seed_corpus(path) -> int:
    """The JSON of random messages of every type, and the accepted and refused cases."""
    _, fds = json_schema_file()
    classes = google_classes(fds)
    schema = lib().load_schema(fds)
    seeds = SeedCorpus(path)
    put = seeds.put

    for i in range(90):
        t = i % len(JSON_TYPES)
        m = classes[JSON_TYPES[t]]()
        fill_random(m, random.Random(200 + i), max_depth=2, density=0.4)
        st, text = schema.decode_json(JSON_TYPES[t], m.SerializePartialToString())
        if st == 0:
            put(t, text.encode())
    for type_name, text in ACCEPTED_JSON:
        if type_name in JSON_TYPES:
            put(JSON_TYPES.index(type_name), text.encode())
    for type_name, text, _st, _token in REFUSED_JSON:
        put(JSON_TYPES.index(type_name), text.replace("...", "").encode())
    return seeds.n


def run_fuzzer(exe, corpus, seconds: int, extra=(), json: bool = False,
               sabotage: bool = False):
    """`sabotage`: the harness corrupts what it checks (PBDYN_FUZZ_SABOTAGE=1), on the
    same build as the fuzzing, so the build whose checks are proved to fire is the one
    that fuzzed."""
    sp, _ = json_schema_file() if json else schema_file()
    types = JSON_TYPES if json else TYPES
    env = dict(os.environ, PBDYN_FUZZ_SCHEMA=str(sp), PBDYN_FUZZ_TYPES=",".join(types),
               PBDYN_FUZZ_SABOTAGE="1" if sabotage else "0")
    cmd = [str(exe), f"-max_total_time={seconds}", "-print_final_stats=1", "-seed=1",
           "-max_len=4096", "-rss_limit_mb=1024", *extra, str(corpus)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=seconds + 240, cwd=corpus.parent)


def executed(stderr: str) -> int:
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", stderr)
    return int(m.group(1)) if m else 0


@pytest.mark.parametrize("dispatch,seconds", [("musttail", FUZZ_SECONDS * 3 // 4),
                                              ("trampoline", FUZZ_SECONDS // 4)],
                         ids=["musttail", "trampoline"])
def test_fuzz(tmp_path, clang, dispatch, seconds):
    exe = fuzz_target(clang) if dispatch == "musttail" else trampoline_fuzz_target(clang)
    corpus = tmp_path / "corpus"
    seeds = seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, seconds)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "ERROR" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-4000:]
    assert executed(r.stderr) > seeds  # the corpus replayed, then fuzzing went on


def test_fuzz_text(tmp_path, clang):
    exe = fuzz_target(clang, "text")
    corpus = tmp_path / "corpus"
    seeds = text_seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, FUZZ_SECONDS)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "ERROR" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-4000:]
    assert executed(r.stderr) > seeds


def test_fuzz_text_target_catches_a_wrong_printer(tmp_path, clang):
    """The text target's check works: a run that changes a digit of the printed text
    before parsing it again must be caught on the seed corpus alone."""
    exe = fuzz_target(clang, "text")
    corpus = tmp_path / "corpus"
    text_seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, 10, ("-runs=0",), sabotage=True)
    assert r.returncode != 0 and "printed text differs" in r.stderr


def test_fuzz_json(tmp_path, clang):
    exe = fuzz_target(clang, "json")
    corpus = tmp_path / "corpus"
    seeds = json_seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, FUZZ_SECONDS, json=True)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "ERROR" not in r.stderr and "runtime error" not in r.stderr, r.stderr[-4000:]
    assert executed(r.stderr) > seeds


def test_fuzz_json_target_catches_a_wrong_printer(tmp_path, clang):
    """The JSON target's check works: a run that changes a digit of the printed JSON
    before parsing it again must be caught on the seed corpus alone."""
    exe = fuzz_target(clang, "json")
    corpus = tmp_path / "corpus"
    json_seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, 10, ("-runs=0",), json=True, sabotage=True)
    assert r.returncode != 0 and "printed JSON differs" in r.stderr


def test_fuzz_target_catches_a_wrong_decoder(tmp_path, clang):
    """The differential check works: a run that feeds the fast decoder a corrupted copy
    of each input (the sabotage switch) must be caught on the seed corpus alone."""
    exe = fuzz_target(clang)
    corpus = tmp_path / "corpus"
    seed_corpus(corpus)
    r = run_fuzzer(exe, corpus, 10, ("-runs=0",), sabotage=True)
    assert r.returncode != 0 and "differs" in r.stderr
