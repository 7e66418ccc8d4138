"""Packed fixed-width runs (fixed32, sfixed32, float, fixed64, sfixed64, double) in every
build and decoder, against Google's protobuf (PyPI, upb-backed).

The fast decoder copies a run of up to 256 bytes inline and hands longer ones (and those
its array has no room for, or that end in the input's last 16 bytes) to one memcpy
(internal/fast_packed.h, pbdyn__fast_copy); the switch decoder does the same and the
generic decoder always takes the memcpy. Runs are written by hand around those edges: every
length up to 300 bytes and across 256, the longest run a two-byte length holds and the
first that needs three, runs ending in the input's last 16 bytes, runs appended to an array
that already has values (a second run, unpacked values), runs inside a sub-message, and
lengths that are not a whole number of values or run past the message."""

from __future__ import annotations

import random
import struct

import pytest

from pbdyn_support import (
    BUILDS,
    DECODERS,
    allkinds_set,
    differ,
    google_classes,
    lib,
    make_bench_data,
    varint,
)

TYPE = "allkinds3.All"
# allkinds3.All's packed fixed-width fields (two-byte tags) and their value sizes; the
# unpacked u_fixed32 and u_double read packed runs too
FIELDS = {"r_fixed32": (39, 4), "r_fixed64": (40, 8), "r_sfixed32": (41, 4),
          "r_sfixed64": (42, 8), "r_float": (43, 4), "r_double": (44, 8),
          "u_fixed32": (53, 4), "u_double": (54, 8)}
CHILD = 18  # i_child, an All


def packed(number: int, body: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(body)) + body


def values(rng: random.Random, n: int, size: int) -> bytes:
    return rng.randbytes(n * size)


def check(schema, cls, data: bytes, what: str) -> None:
    for dname, dec in DECODERS.items():
        why = differ(schema, cls, data, dec)
        assert why is None, f"{what} {dname}: {why}"


@pytest.fixture(scope="module")
def allkinds():
    fds = allkinds_set()
    return fds, google_classes(fds)[TYPE]


@pytest.mark.parametrize("build", list(BUILDS))
def test_every_length(build, allkinds):
    """Runs of 0 to 300 bytes (inline copy up to 256, memcpy above), either side of 4 KiB
    (where arrays start to be placed for memcpy), the longest run a two-byte length holds
    and the first a three-byte length needs; each followed by a field of another kind, and
    alone (the run ends the input)."""
    fds, cls = allkinds
    schema = lib(build).load_schema(fds)
    rng = random.Random(39)
    for name, (number, size) in FIELDS.items():
        lengths = [*range(0, 300 // size + 1), 4095 // size, 4096 // size, 16383 // size,
                   16384 // size]
        for n in lengths:
            run = packed(number, values(rng, n, size))
            check(schema, cls, run + b"\x08\x01", f"{name} n={n}")
            check(schema, cls, run, f"{name} n={n} alone")


def test_runs_ending_in_the_slop(allkinds):
    """Runs whose end lies in the input's last 16 bytes, shifted byte by byte against the
    end by a string field before them: inline-sized runs go to the memcpy there."""
    fds, cls = allkinds
    schema = lib("musttail").load_schema(fds)
    rng = random.Random(16)
    for name, (number, size) in FIELDS.items():
        for n in (1, 2, 3, 4, 8, 31, 32, 33, 64, 65, 100):
            run = packed(number, values(rng, n, size))
            for pad in range(0, 24):
                before = (b"\x7a" + bytes([pad]) + b"x" * pad) if pad else b""  # string 15
                for after in (b"", b"\x08\x01"):
                    check(schema, cls, before + run + after,
                          f"{name} n={n} pad={pad} after={after!r}")


@pytest.mark.parametrize("build", list(BUILDS))
def test_runs_appended(build, allkinds):
    """A run after another run of the same field, or after and before unpacked values:
    the array has values (and some capacity) already, and grows past its exact size."""
    fds, cls = allkinds
    schema = lib(build).load_schema(fds)
    rng = random.Random(40)
    sizes = (0, 1, 7, 8, 9, 40, 64, 65, 300)
    for name, (number, size) in FIELDS.items():
        fmt = "<I" if size == 4 else "<Q"
        wt = 5 if size == 4 else 1
        for n1 in sizes:
            for n2 in sizes:
                a, b = packed(number, values(rng, n1, size)), packed(number, values(rng, n2, size))
                check(schema, cls, a + b, f"{name} runs of {n1} then {n2}")
                check(schema, cls, a + b"\x08\x01" + b, f"{name} runs of {n1}, a field, {n2}")
            one = varint(number << 3 | wt) + struct.pack(fmt, rng.getrandbits(8 * size))
            run = packed(number, values(rng, n1, size))
            check(schema, cls, one * 3 + run + one, f"{name} unpacked, run of {n1}, unpacked")


@pytest.mark.parametrize("build", list(BUILDS))
def test_runs_in_a_sub_message(build, allkinds):
    """Runs as the last and as a middle field of a sub-message, with fields after it:
    the run must end at the child's limit, not the input's."""
    fds, cls = allkinds
    schema = lib(build).load_schema(fds)
    rng = random.Random(18)
    for name, (number, size) in FIELDS.items():
        for n in (0, 5, 40, 64, 65, 500):
            run = packed(number, values(rng, n, size))
            for inner in (run, run + b"\x08\x07", b"\x08\x07" + run):
                child = packed(CHILD, inner)
                check(schema, cls, child + run, f"{name} n={n} in a child, then a run")
                check(schema, cls, run + child + b"\x10\x03", f"{name} n={n} run, child, field")


@pytest.mark.parametrize("build", list(BUILDS))
def test_malformed_runs(build, allkinds):
    """A length that is not a whole number of values, a run longer than its message or
    than the input: rejected, as Google rejects them."""
    fds, cls = allkinds
    schema = lib(build).load_schema(fds)
    rng = random.Random(41)
    for name, (number, size) in FIELDS.items():
        for n in (1, 8, 64, 65, 300):
            body = values(rng, n, size)
            for cut in (1, size - 1, size + 1):
                check(schema, cls, packed(number, body[:-cut]) + b"\x08\x01",
                      f"{name} n={n} less {cut} bytes")
            full = packed(number, body)
            check(schema, cls, full[:-1], f"{name} n={n} input cut")
            check(schema, cls, packed(CHILD, full[:-size]) + body[-size:],
                  f"{name} n={n} past its child")


def test_benchmark_payload():
    """The protobuf benchmark's packed-fixed payload (one-byte tags, runs of 8,000 and
    16,000 bytes, the last ending the input) and its first hundred values of each field,
    in every build."""
    manifest = make_bench_data()
    line = next(ln.split() for ln in manifest.read_text().splitlines()
                if ln.startswith("payload packed-fixed "))
    fds = (manifest.parent / "schema.pb").read_bytes()
    cls = google_classes(fds)[line[2]]
    data = (manifest.parent / line[3]).read_bytes()
    m = cls.FromString(data)
    small = cls(words=m.words[:100], wide=m.wide[:100], reals=m.reals[:100])
    for build in BUILDS:
        schema = lib(build).load_schema(fds)
        check(schema, cls, data, f"{build} payload")
        check(schema, cls, small.SerializeToString(), f"{build} 100 values each")
