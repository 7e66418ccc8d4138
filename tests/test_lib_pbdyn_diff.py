"""Differential tests against Google's protobuf (PyPI `protobuf`, upb-backed).

Random messages of descriptor.proto and of allkinds2/3.proto (every field kind) are
serialized by Google's library, decoded by ours (every build x decoder x string mode) and
compared through the canonical dump; our encoder's output must parse back in Google's
library to an equal message, and byte for byte where the format allows (no maps).
CPULAB_FULL=1 multiplies the message counts by 20."""

from __future__ import annotations

import random

import pytest

from pbdyn_support import (
    ALIAS,
    BUILDS,
    DECODERS,
    SCALE,
    SYSTEM_PROTO,
    allkinds_set,
    debian_proto_files,
    descriptor_proto_set,
    descriptor_set,
    differ,
    fill_random,
    google_classes,
    is_map,
    lib,
    varint,
)


def has_map(d, seen=None) -> bool:
    """Whether messages of type d can contain a map (whose order is unspecified)."""
    seen = seen if seen is not None else set()
    if d.full_name in seen:
        return False
    seen.add(d.full_name)
    return any(is_map(f) or (f.message_type is not None and has_map(f.message_type, seen))
               for f in d.fields)


def check_messages(build: str, fds: bytes, count: int, seed: int, **fill) -> int:
    schema = lib(build).load_schema(fds)
    classes = google_classes(fds)
    names = [n for n, c in classes.items() if not c.DESCRIPTOR.GetOptions().map_entry]
    rng = random.Random(seed)
    checked = 0
    for i in range(count):
        cls = classes[rng.choice(names)]
        m = cls()
        fill_random(m, random.Random(seed * 1000 + i), **fill)
        data = m.SerializePartialToString()
        for dname, dec in DECODERS.items():
            for flags in (0, ALIAS):
                why = differ(schema, cls, data, dec, flags)
                assert why is None, f"{cls.DESCRIPTOR.full_name} #{i} {dname} flags={flags}: {why}"
                st, enc = schema.roundtrip(cls.DESCRIPTOR.full_name, data, dec, flags)
                assert st == 0
                assert cls.FromString(enc) == cls.FromString(data)
                if not has_map(cls.DESCRIPTOR):
                    assert enc == data, f"{cls.DESCRIPTOR.full_name} #{i}: re-encoding differs"
                checked += 1
    return checked


@pytest.mark.parametrize("build", list(BUILDS))
def test_allkinds_random(build):
    n = check_messages(build, allkinds_set(), 300 * SCALE, seed=1, max_depth=3)
    assert n == 300 * SCALE * 6


@pytest.mark.parametrize("build", list(BUILDS))
def test_descriptor_random(build):
    n = check_messages(build, descriptor_proto_set(), 200 * SCALE, seed=2, max_depth=3)
    assert n == 200 * SCALE * 6


def test_allkinds_dense_and_deep():
    """Every field set, deep nesting, long repeated fields: the fast paths' loops."""
    check_messages("musttail", allkinds_set(), 60 * SCALE, seed=3, max_depth=6, density=1.0)


def test_unknown_fields_everywhere():
    check_messages("musttail", allkinds_set(), 150 * SCALE, seed=4, max_depth=3, unknown=0.9)


@pytest.mark.parametrize("build", list(BUILDS))
def test_real_descriptor_sets(build):
    """FileDescriptorSets that protoc wrote: decoded equal to Google's, re-encoded exact."""
    schema = lib(build).load_schema(descriptor_proto_set())
    cls = google_classes(descriptor_proto_set())["google.protobuf.FileDescriptorSet"]
    sets = [descriptor_proto_set(), allkinds_set(),
            descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))]
    for data in sets:
        for dec in DECODERS.values():
            for flags in (0, ALIAS):
                assert differ(schema, cls, data, dec, flags) is None
                st, enc = schema.roundtrip("google.protobuf.FileDescriptorSet", data, dec, flags)
                assert st == 0 and enc == data


def test_schema_from_itself():
    """The schema compiled from the Debian protos decodes their own descriptor set."""
    fds = descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))
    schema = lib().load_schema(fds)
    cls = google_classes(fds)["google.protobuf.FileDescriptorSet"]
    assert differ(schema, cls, fds, DECODERS["fast"]) is None


def packed_values(field, rng: random.Random, n: int) -> list:
    """n values for a packed field: every varint length from 1 to 10 bytes, mixed."""
    bits = rng.choice([(6,), (6, 13, 20, 27, 34, 41, 48, 55, 62, 63), (13,), (62, 63)])
    t = field.type
    if t == field.TYPE_BOOL:
        return [rng.random() < 0.5 for _ in range(n)]
    if t in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
        return [rng.uniform(-1e9, 1e9) for _ in range(n)]
    out = []
    for _ in range(n):
        v = rng.getrandbits(rng.choice(bits))
        if t in (field.TYPE_INT32, field.TYPE_SINT32, field.TYPE_SFIXED32, field.TYPE_ENUM):
            v = (v & 0x7FFFFFFF) * rng.choice((-1, 1))
        elif t in (field.TYPE_UINT32, field.TYPE_FIXED32):
            v &= 0xFFFFFFFF
        elif t in (field.TYPE_INT64, field.TYPE_SINT64, field.TYPE_SFIXED64):
            v = (v & 0x7FFFFFFFFFFFFFFF) * rng.choice((-1, 1))
        out.append(v)
    return out


@pytest.mark.parametrize("build", list(BUILDS))
def test_packed_runs_ending_in_the_slop(build):
    """Packed runs whose end lies in the input's last 16 bytes, where the fast path reads
    values below the cut in place and the rest from a zero-padded copy (fast_packed.h):
    runs of 0 to 40 values of every length, shifted byte by byte against the end of the
    input by a field before them, with and without a short field after them, and runs
    that start in those 16 bytes. Each must decode as Google's parser decodes it."""
    fds = allkinds_set()
    schema = lib(build).load_schema(fds)
    classes = google_classes(fds)
    rng = random.Random(16)
    cases = 0
    for type_name in ("allkinds3.All", "allkinds2.All"):
        cls = classes[type_name]
        packed = [f for f in cls.DESCRIPTOR.fields if f.is_packed and f.message_type is None]
        for f in packed:
            for n in (0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 40):
                if f.enum_type is not None and type_name == "allkinds2.All":
                    # closed enum: some values undefined, which Google's classes refuse
                    body = b"".join(varint(rng.choice((0, 1, 2, 5, 99, -1))) for _ in range(n))
                    run = varint(f.number << 3 | 2) + varint(len(body)) + body if n else b""
                else:
                    m = cls()
                    getattr(m, f.name).extend(packed_values(f, rng, n))
                    run = m.SerializeToString()
                for pad in (0, 1, 2, 5, 9, 16, 23):
                    before = (b"\x7a" + bytes([pad]) + b"x" * pad) if pad else b""  # string 15
                    for after in (b"", b"\x08\x01"):
                        data = before + run + after
                        for dname, dec in DECODERS.items():
                            why = differ(schema, cls, data, dec, ALIAS if pad & 1 else 0)
                            assert why is None, f"{f.name} n={n} pad={pad} {dname}: {why}"
                        cases += 1
    assert cases > 1500
