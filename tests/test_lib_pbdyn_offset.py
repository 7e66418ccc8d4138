"""Where a decode fails (pbdyn_decode_opts.error_offset, and pbtool's message): the tag of
the innermost field at fault. Truncating a valid message anywhere must be reported at the
field the cut falls in, as an independent walk of the wire format (below) finds it: the
top-level field for a cut inside a length-delimited value (its length then runs past the
input), the innermost field of a group (whose body is read field by field), and for a cut
between a group's fields, where the end-group tag is missing, the last field read."""

from __future__ import annotations

import random
import re
import subprocess
from dataclasses import dataclass, field

import pytest

from pbdyn_support import (
    BUILDS,
    DECODERS,
    LENGTH,
    MALFORMED,
    OK,
    SCALE,
    allkinds_set,
    build_pbtool,
    fill_random,
    google_classes,
    lib,
    mutate,
    varint,
)


@dataclass
class Span:
    """One field on the wire: [start, end); a group's fields and end-group tag inside."""
    start: int
    end: int
    children: list[Span] = field(default_factory=list)
    end_tag: int | None = None  # a group's end-group tag offset
    body: int = 0  # where a group's body starts


def read_varint(buf: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        b = buf[i]
        v |= (b & 0x7F) << shift
        i += 1
        if b < 0x80:
            return v, i
        shift += 7


def walk(buf: bytes, i: int, end: int, group: int | None = None) -> tuple[list[Span], int]:
    """The fields of a valid message in buf[i:end] (a group's body up to its end tag);
    returns them and the offset after the body (after the end-group tag for a group)."""
    spans = []
    while i < end:
        start = i
        tag, i = read_varint(buf, i)
        number, wt = tag >> 3, tag & 7
        if wt == 4:
            assert number == group
            return spans, i
        span = Span(start, 0)
        if wt == 0:
            _, i = read_varint(buf, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            n, i = read_varint(buf, i)
            i += n
        elif wt == 3:
            span.body = i
            span.children, body_end = walk(buf, i, end, number)
            span.end_tag = body_end - len(varint(number << 3 | 4))
            i = body_end
        span.end = i
        spans.append(span)
    assert group is None
    return spans, i


def expected_offset(spans: list[Span], cut: int) -> int | None:
    """Where a decode of buf[:cut] must fail; None where the prefix is a valid message."""
    for s in spans:
        if not s.start < cut < s.end:
            continue
        if s.end_tag is None or cut <= s.body:  # a value, or the group's own tag
            return s.start
        if cut > s.end_tag:  # inside the end-group tag: the tag being read
            return s.end_tag
        inner = expected_offset(s.children, cut)
        if inner is not None:
            return inner
        before = [c for c in s.children if c.end <= cut]  # the body ends with the input:
        if not before:  # the last tag read, a group's end tag for a group
            return s.start
        return before[-1].start if before[-1].end_tag is None else before[-1].end_tag
    return None


@pytest.fixture(scope="module")
def classes():
    return google_classes(allkinds_set())


def corpus(classes, count: int, seed: int) -> list[tuple[str, bytes]]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        name = ("allkinds2.All", "allkinds3.All")[i % 2]
        msg = classes[name]()
        fill_random(msg, rng, max_depth=2, density=0.3, unknown=0.3)
        out.append((name, msg.SerializePartialToString()))
    return out


@pytest.mark.parametrize("build", list(BUILDS))
def test_every_cut_is_reported_at_its_field(build, classes):
    schema = lib(build).load_schema(allkinds_set())
    checked = 0
    for name, data in corpus(classes, 20 * SCALE, seed=24):
        spans, _ = walk(data, 0, len(data))
        for cut in range(len(data)):
            want = expected_offset(spans, cut)
            for dec in DECODERS.values():
                st, at = schema.decode_offset(name, data[:cut], dec)
                if want is None:
                    assert st == OK, (name, cut, st)
                else:
                    assert st in MALFORMED and at == want, (name, data[:cut].hex(), st, at, want)
                    checked += 1
    assert checked > 1000


def test_groups_are_walked_inside(classes):
    """A cut inside a group body lands on the group's inner field, not on the group."""
    schema = lib().load_schema(allkinds_set())
    msg = classes["allkinds2.All"]()
    msg.ogroup.g_a = 300
    data = msg.SerializeToString()
    spans, _ = walk(data, 0, len(data))
    (group,) = spans
    assert group.children and group.end_tag is not None
    inner = group.children[0]
    st, at = schema.decode_offset("allkinds2.All", data[:inner.end - 1])
    assert st in MALFORMED and at == inner.start > group.start
    st, at = schema.decode_offset("allkinds2.All", data[:inner.end])  # no end-group tag
    assert st in MALFORMED and at == inner.start


def test_mutants_report_an_offset_inside_the_input(classes):
    """Every rejected mutant names a byte of the input, the same for every decoder."""
    schema = lib().load_schema(allkinds_set())
    rng = random.Random(7)
    rejected = 0
    for name, data in corpus(classes, 40 * SCALE, seed=25):
        for _ in range(5):
            bad = mutate(data, rng)
            answers = {schema.decode_offset(name, bad, dec) for dec in DECODERS.values()}
            assert len(answers) == 1, (name, bad.hex(), answers)
            st, at = answers.pop()
            if st != OK:
                rejected += 1
                assert at is not None and 0 <= at < max(len(bad), 1), (bad.hex(), st, at)
    assert rejected > 20


def test_pbtool_names_the_offset(tmp_path):
    (tmp_path / "set.pb").write_bytes(allkinds_set())
    # allkinds3.Item: children (3) holding a key (1) whose length runs past the input
    r = subprocess.run([str(build_pbtool()), "decode", "-d", str(tmp_path / "set.pb"),
                        "allkinds3.Item"], input=b"\x10\x01\x1a\x04\x0a\x03ab",
                       capture_output=True, timeout=60)
    assert r.returncode == 1 and r.stdout == b""
    assert re.search(rb"Failed to parse input: bad length at byte 4 \(8 bytes of "
                     rb"allkinds3\.Item\)", r.stderr), r.stderr
    assert LENGTH  # the status the message names
