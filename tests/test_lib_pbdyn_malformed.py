"""Malformed input: rejected where Google's parser rejects it, with a code that says which,
by every build and decoder; accepted (and decoded the same) where Google accepts it.

Google's Python objects only say "Wire format was corrupt", "bad UTF-8" or "max depth";
our codes refine the first (TRUNCATED, VARINT, FIELD_NUMBER, WIRE_TYPE, LENGTH, GROUP).
CPULAB_FULL=1 multiplies the random mutation counts by 20."""

from __future__ import annotations

import random

import pytest

from pbdyn_support import (
    ALIAS,
    BUILDS,
    DECODERS,
    DEPTH,
    FIELD_NUMBER,
    GROUP,
    LENGTH,
    OK,
    SCALE,
    STATUS_NAMES,
    TRUNCATED,
    UTF8,
    VARINT,
    WIRE_TYPE,
    allkinds_set,
    descriptor_proto_set,
    differ,
    fill_random,
    google_classes,
    google_parse,
    lib,
    mutate,
    varint,
)

P2, P3 = "allkinds2.All", "allkinds3.All"


def tag(number: int, wt: int) -> bytes:
    return varint(number << 3 | wt)


def ld(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def nested(depth: int, field: int = 18) -> bytes:
    b = b""
    for _ in range(depth):
        b = ld(field, b)
    return b


# (name, type, bytes, our status); Google must agree on accept/reject and on the class.
CASES = [
    # truncation
    ("varint value missing", P3, b"\x08", TRUNCATED),
    ("varint cut", P3, b"\x08\x96", TRUNCATED),
    ("tag cut", P3, b"\x80", TRUNCATED),
    ("fixed32 cut", P3, b"\x4d\x01\x02", TRUNCATED),
    ("fixed64 cut", P3, b"\x51" + b"\x00" * 7, TRUNCATED),
    ("unknown fixed64 cut", P3, tag(600, 1) + b"\x00" * 3, TRUNCATED),
    ("varint crosses sub-message end", P3, ld(18, b"\x08\x96") + b"\x01", TRUNCATED),
    # lengths
    ("string past end", P3, b"\x7a\x05ab", LENGTH),
    ("sub-message past end", P3, b"\x92\x01\x05\x08\x01", LENGTH),
    ("length 2^32-1", P3, b"\x7a\xff\xff\xff\xff\x0f", LENGTH),
    ("length 2^31", P3, b"\x7a\x80\x80\x80\x80\x08", LENGTH),
    ("string past sub-message end", P3, ld(18, b"\x7a\x03ab") + b"c", LENGTH),
    ("packed fixed32 not a multiple", P2, ld(69, b"\x01\x02\x03"), LENGTH),
    ("packed past end", P3, tag(31, 2) + b"\x04\x01", LENGTH),
    # varints
    ("overlong zero, 10 bytes", P3, b"\x08" + b"\x80" * 9 + b"\x00", OK),
    ("10 bytes, top bits dropped", P3, b"\x08" + b"\xff" * 9 + b"\x7f", OK),
    ("11-byte varint", P3, b"\x08" + b"\x80" * 10 + b"\x00", VARINT),
    ("11-byte varint, unknown field", P3, tag(600, 0) + b"\xff" * 10 + b"\x01", VARINT),
    ("11-byte varint in a packed run", P3, ld(31, b"\x80" * 10 + b"\x00"), VARINT),
    ("11-byte length", P3, b"\x7a" + b"\x80" * 10 + b"\x00", VARINT),
    ("5-byte overlong tag", P3, b"\x88\x80\x80\x80\x00\x01", OK),
    ("6-byte tag", P3, b"\x88\x80\x80\x80\x80\x00\x01", VARINT),
    ("int32 truncation", P3, b"\x08\x85\x80\x80\x80\x10", OK),
    # field numbers and wire types
    ("field number 0", P3, b"\x00\x01", FIELD_NUMBER),
    ("field number 0, length-delimited", P3, b"\x02\x00", FIELD_NUMBER),
    ("field number 2^29-1", P3, b"\xf8\xff\xff\xff\x0f\x01", OK),
    ("field number 2^29", P3, b"\x80\x80\x80\x80\x10\x01", FIELD_NUMBER),
    ("wire type 6", P3, b"\x0e", WIRE_TYPE),
    ("wire type 7", P3, b"\x0f\x00", WIRE_TYPE),
    ("wire type 7 in a sub-message", P3, ld(18, b"\x0f"), WIRE_TYPE),
    ("wire type 6 in an unknown group", P3, tag(600, 3) + b"\x0e" + tag(600, 4), WIRE_TYPE),
    ("wire type mismatch is unknown", P3, tag(1, 2) + b"\x00" + tag(15, 0) + b"\x01", OK),
    # UTF-8
    ("bad UTF-8 in proto3 string", P3, b"\x7a\x02\xc3\x28", UTF8),
    ("bad UTF-8 in proto2 string", P2, b"\x7a\x02\xc3\x28", OK),
    ("overlong NUL", P3, b"\x7a\x02\xc0\x80", UTF8),
    ("surrogate", P3, b"\x7a\x03\xed\xa0\x80", UTF8),
    ("above U+10FFFF", P3, b"\x7a\x04\xf4\x90\x80\x80", UTF8),
    ("truncated sequence", P3, b"\x7a\x03ab\xe2", UTF8),
    ("bad UTF-8 in repeated string", P3, ld(45, b"ok") + ld(45, b"\xff"), UTF8),
    ("bad UTF-8 in oneof string", P3, ld(62, b"\x80"), UTF8),
    ("bad UTF-8 in map key", P3, ld(73, ld(1, b"\xfe") + ld(2, b"v")), UTF8),
    ("bad UTF-8 in nested string", P3, ld(18, ld(18, ld(15, b"a\xc3"))), UTF8),
    ("bad UTF-8 in bytes is fine", P3, ld(16, b"\xff\xfe"), OK),
    ("bad UTF-8 past a sub-message end", P3, ld(17, ld(1, b"\xff")[:-1]) + b"\xff", UTF8),
    # groups
    ("end group at top level", P2, b"\x0c", GROUP),
    ("end group of another field", P2, b"\x9b\x01\xa4\x01", GROUP),
    ("group never ended", P2, b"\x9b\x01\xa0\x01\x05", GROUP),
    ("start group at the end", P2, b"\x9b\x01", GROUP),
    ("end group in a sub-message", P2, ld(17, b"\x0c"), GROUP),
    ("group closed", P2, b"\x9b\x01\xa0\x01\x05\x9c\x01", OK),
    ("unknown group closed", P3, b"\x33\x08\x01\x34", OK),
    ("unknown group mismatched", P3, b"\x33\x3c", GROUP),
    ("unknown group nested", P3, tag(600, 3) + tag(601, 3) + tag(601, 4) + tag(600, 4), OK),
    ("unknown group ends in sub-message", P3, ld(18, tag(600, 3)) + tag(600, 4), GROUP),
    # depth
    ("100 levels", P3, nested(100), OK),
    ("101 levels", P3, nested(101), DEPTH),
    ("100 levels through a group", P2, tag(19, 3) + ld(22, nested(98, 17)) + tag(19, 4), OK),
    ("101 levels through a group", P2, tag(19, 3) + ld(22, nested(99, 17)) + tag(19, 4), DEPTH),
    # Google skips unknown groups with a reader of its own, which says "malformed" past
    # the depth limit; we say DEPTH (see GOOGLE_SAYS)
    ("101 unknown groups", P3, tag(600, 3) * 101 + tag(600, 4) * 101, DEPTH),
    ("100 unknown groups", P3, tag(600, 3) * 100 + tag(600, 4) * 100, OK),
    # closed enums, maps
    ("closed enum, unknown value", P2, tag(8, 0) + b"\x07", OK),
    ("closed enum, packed with unknowns", P2, ld(68, b"\x01\x09\xff\xff\xff\xff\x0f\x00"), OK),
    ("closed enum, repeated unknown", P2, tag(38, 0) + b"\x89\x00" + tag(38, 0) + b"\x02", OK),
    ("closed enum in a map value", P2, ld(92, tag(1, 0) + b"\x01" + tag(2, 0) + b"\x05"), OK),
    ("map entry with an extra field", P3, ld(70, ld(1, b"a") + tag(2, 0) + b"\x01" + b"\x18\x05"),
     OK),
    ("map entry without key", P3, ld(72, tag(2, 0) + b"\x01"), OK),
    ("map duplicate keys", P3, ld(70, ld(1, b"k") + b"\x10\x01") * 2 + ld(70, ld(1, b"k")), OK),
    ("oneof switches and merges", P3, ld(63, ld(1, b"a")) + tag(61, 0) + b"\x01" +
     ld(63, ld(2, b"\x02")) + ld(63, ld(1, b"b")), OK),
]


# Cases where Google's error class is not the class of our code.
GOOGLE_SAYS = {"101 unknown groups": "malformed"}


@pytest.fixture(scope="module")
def classes():
    return google_classes(allkinds_set())


@pytest.mark.parametrize("build", list(BUILDS))
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_case(build, case, classes):
    name, type_name, data, want = case
    schema = lib(build).load_schema(allkinds_set())
    cls = classes[type_name]
    if name in GOOGLE_SAYS:
        assert google_parse(cls, data) == ("err", GOOGLE_SAYS[name])
    for dname, dec in DECODERS.items():
        for flags in (0, ALIAS):
            st, _ = schema.decode_dump(type_name, data, dec, flags)
            assert st == want, f"{dname}: {STATUS_NAMES[st]}, want {STATUS_NAMES[want]}"
            if name not in GOOGLE_SAYS:
                assert differ(schema, cls, data, dec, flags) is None


# Sequences placed at every position of strings of every length up to 40: the fast
# decoder checks 8 bytes a step and the last 0-7 in one load, so each length and position
# meets another word boundary.
UTF8_PIECES = [b"\x80", b"\xff", b"\xc3", b"\xe2\x82", b"\xc0\x80", b"\xed\xa0\x80",
               b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80"]


@pytest.mark.parametrize("build", list(BUILDS))
def test_utf8_at_every_position(build):
    """A proto3 string (singular and repeated) with a valid or invalid UTF-8 sequence at
    each position of each length: UTF8 exactly where Python's decoder refuses it, with
    every decoder, strings copied and aliased."""
    schema = lib(build).load_schema(allkinds_set())
    checked = 0
    for n in range(0, 41):
        for piece in UTF8_PIECES:
            for at in range(0, max(n - len(piece), 0) + 1):
                text = (b"a" * at + piece + b"b" * n)[:max(n, len(piece))]
                try:
                    text.decode("utf-8")
                    want = OK
                except UnicodeDecodeError:
                    want = UTF8
                for data in (ld(15, text), ld(45, b"ok") + ld(45, text)):
                    for dname, dec in DECODERS.items():
                        for flags in (0, ALIAS):
                            st, _ = schema.decode_dump(P3, data, dec, flags)
                            assert st == want, (n, piece, at, dname, STATUS_NAMES[st])
                checked += 1
    assert checked > 2000, checked


def overlong_length(n: int, value: int) -> bytes:
    """`value` (< 128) as an n-byte varint: padded with continuation bytes of zeros."""
    return bytes([value | 0x80] + [0x80] * (n - 2) + [0x00]) if n > 1 else bytes([value])


# Every place a length prefix is read: (what, type, field number, payload after the length)
LENGTH_PREFIXED = [
    ("string", P3, 15, b"ab"),
    ("proto2 string", P2, 15, b"ab"),
    ("bytes", P3, 16, b"\xff\x00"),
    ("sub-message", P3, 18, tag(1, 0) + b"\x05"),
    ("repeated string", P3, 45, b"ok"),
    ("packed int32", P3, 31, b"\x01\x7f"),
    ("packed fixed32 (proto2 [packed])", P2, 69, b"\x01\x00\x00\x00"),
    ("map entry", P3, 70, ld(1, b"k") + tag(2, 0) + b"\x01"),
    ("unknown field", P3, 600, b"zz"),
]


@pytest.mark.parametrize("build", list(BUILDS))
def test_overlong_length_prefix_rejected(build, classes):
    """A 6- to 10-byte encoding of a length is malformed to upb and protobuf C++ (their
    length reader stops at 5 bytes), however small its value; pbdyn used to accept it,
    e.g. 7281808080800061 as a TestAllTypesProto3 (optional_string "a" behind a 6-byte
    length).
    Up to 5 bytes, an overlong length is still a length."""
    schema = lib(build).load_schema(allkinds_set())
    for what, type_name, number, payload in LENGTH_PREFIXED:
        cls = classes[type_name]
        for n in range(1, 11):
            data = tag(number, 2) + overlong_length(n, len(payload)) + payload
            want = OK if n <= 5 else VARINT
            assert google_parse(cls, data)[0] == ("ok" if want == OK else "err"), (what, n)
            for dname, dec in DECODERS.items():
                for flags in (0, ALIAS):
                    st, _ = schema.decode_dump(type_name, data, dec, flags)
                    assert st == want, f"{what}, {n}-byte length, {dname}: {STATUS_NAMES[st]}"
                    assert differ(schema, cls, data, dec, flags) is None, (what, n, dname)
            # inside a sub-message too, where the fast decoder hands the field over
            inner = ld(18, data) if type_name == P3 else ld(17, data)
            st, _ = schema.decode_dump(type_name, inner, DECODERS["fast"], 0)
            assert st == want, f"{what} in a sub-message, {n}-byte length"


def corpus(classes, type_names: list[str], count: int, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        t = rng.choice(type_names)
        m = classes[t]()
        fill_random(m, random.Random(seed * 7919 + i), max_depth=3, density=0.3)
        data = m.SerializePartialToString()
        for _ in range(rng.randint(1, 3)):
            data = mutate(data, rng)
        out.append((t, data))
    return out


@pytest.mark.parametrize("build", list(BUILDS))
def test_random_mutations(build, classes):
    schema = lib(build).load_schema(allkinds_set())
    inputs = corpus(classes, [P2, P3, "allkinds3.Item", "allkinds2.Leaf"], 1500 * SCALE, 5)
    rejected = 0
    for i, (t, data) in enumerate(inputs):
        for dname, dec in DECODERS.items():
            why = differ(schema, classes[t], data, dec, ALIAS if i % 2 else 0)
            assert why is None, f"{t} #{i} {dname} {data.hex()}: {why}"
        rejected += schema.decode_dump(t, data)[0] != OK
    # the corpus exercises both outcomes
    assert 0.2 * len(inputs) < rejected < 0.9 * len(inputs)


def test_truncated_everywhere():
    """Every prefix of descriptor.proto's descriptor set: Google and we agree on all."""
    fds = descriptor_proto_set()
    schema = lib().load_schema(fds)
    cls = google_classes(fds)["google.protobuf.FileDescriptorSet"]
    for n in range(len(fds)):
        for dec in DECODERS.values():
            assert differ(schema, cls, fds[:n], dec) is None, f"prefix of {n} bytes"
