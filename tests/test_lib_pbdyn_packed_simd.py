"""The vector kernels of packed varint runs (native/lib/pbdyn/src/packed_avx512.c,
packed_avx2.c), each forced on in turn, against Google's protobuf (PyPI, upb-backed).

Runs are written by hand, so that every encoding Google accepts appears: each value 1 to
10 bytes long whatever its magnitude (overlong encodings included), 10-byte values with
junk above bit 63, runs of every length from 0 to 300 values (every position of a value
against the 32- and 64-byte blocks), runs ending in the input's last 16 bytes, and
malformed runs (an 11-byte value anywhere, a run cut inside a value) that must be
rejected as Google rejects them. A kernel this CPU cannot run is skipped, and says so."""

from __future__ import annotations

import random

import pytest

from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.experiments.protobuf.payloads import PACKED_RUN
from cpulab.measure import valgrind
from cpulab.measure.runner import ProcessRunner
from pbdyn_support import (
    ALIAS,
    BUILDS,
    DECODERS,
    PACKED_ISAS,
    PBDYN,
    PBDYN_DIR,
    allkinds_set,
    differ,
    google_classes,
    lib,
    make_bench_data,
    varint,
)

# allkinds3.All's packed varint fields: every kind with a vector decoder (the open enum
# Mood is an int32 on the wire); allkinds2.All's closed enum keeps its loop (below).
FIELDS = {"r_int32": 31, "r_int64": 32, "r_uint32": 33, "r_uint64": 34, "r_sint32": 35,
          "r_sint64": 36, "r_bool": 37, "r_mood": 38}
TYPE = "allkinds3.All"


@pytest.fixture(params=list(PACKED_ISAS))
def isa(request, build):
    """Each kernel set forced on in the build, then back to the CPU's choice."""
    lb = lib(build)
    if not lb.force_packed_isa(request.param):
        pytest.skip(f"this CPU cannot run the {request.param} kernels")
    assert lb.packed_kind == request.param
    yield request.param
    assert lb.force_packed_isa("auto")


@pytest.fixture
def build():
    """The musttail build, unless a test asks for every build."""
    return "musttail"


def raw_varint(rng: random.Random, length: int) -> bytes:
    """A varint of exactly `length` bytes and random bits: 10 bytes can carry bits past
    63 (dropped by every parser), a short one may be overlong (high groups zero)."""
    body = [rng.getrandbits(7) | 0x80 for _ in range(length - 1)]
    return bytes(body + [rng.getrandbits(7) if rng.random() < 0.8 else 0])


LENGTH_MIXES = (
    (1,), (10,), (1, 2, 3, 4, 5), tuple(range(1, 11)), (1, 1, 1, 1, 9, 10), (5, 10), (8, 9),
)


def run_body(rng: random.Random, n: int) -> bytes:
    mix = rng.choice(LENGTH_MIXES)
    return b"".join(raw_varint(rng, rng.choice(mix)) for _ in range(n))


def packed(number: int, body: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(body)) + body


def check(schema, cls, data: bytes, what: str) -> None:
    for dname, dec in DECODERS.items():
        why = differ(schema, cls, data, dec)
        assert why is None, f"{what} {dname}: {why}"


@pytest.mark.parametrize("build", list(BUILDS))
def test_every_length(build, isa):
    """Runs of 0 to 300 values of every kind, each followed by a field of another kind
    (the run does not end the input): each value's place against every block edge; in
    every build, since each compiler compiles the kernels."""
    schema = lib(build).load_schema(allkinds_set())
    cls = google_classes(allkinds_set())[TYPE]
    rng = random.Random(300)
    for name, number in FIELDS.items():
        for n in range(301):
            data = packed(number, run_body(rng, n)) + b"\x08\x01"
            check(schema, cls, data, f"{isa} {name} n={n}")


def test_runs_ending_in_the_slop(isa):
    """Long runs whose end lies in the input's last 16 bytes (fast_packed.h's `cut`):
    shifted byte by byte against the end by a string field before them."""
    schema = lib("musttail").load_schema(allkinds_set())
    cls = google_classes(allkinds_set())[TYPE]
    rng = random.Random(16)
    for name, number in FIELDS.items():
        for n in (9, 16, 40, 70, 130):
            body = run_body(rng, n)
            for pad in range(0, 24):
                before = (b"\x7a" + bytes([pad]) + b"x" * pad) if pad else b""  # string 15
                for after in (b"", b"\x08\x01"):
                    check(schema, cls, before + packed(number, body) + after,
                          f"{isa} {name} n={n} pad={pad} after={after!r}")


@pytest.mark.parametrize("build", list(BUILDS))
def test_eleven_byte_value_anywhere(build, isa):
    """An 11-byte value at every place of a 100-value run: rejected, as Google does, and
    the same run with that value 10 bytes long accepted."""
    schema = lib(build).load_schema(allkinds_set())
    cls = google_classes(allkinds_set())[TYPE]
    rng = random.Random(11)
    for name, number in FIELDS.items():
        values = [raw_varint(rng, rng.choice((1, 2, 5, 10))) for _ in range(100)]
        for i in range(0, 100, 1 if name == "r_int64" else 7):
            bad = values[:i] + [b"\xff" * 10 + b"\x01"] + values[i + 1:]
            check(schema, cls, packed(number, b"".join(bad)) + b"\x08\x01",
                  f"{isa} {name} 11 bytes at {i}")
            good = values[:i] + [b"\xff" * 9 + b"\x01"] + values[i + 1:]
            check(schema, cls, packed(number, b"".join(good)) + b"\x08\x01",
                  f"{isa} {name} 10 bytes at {i}")


def test_run_cut_inside_a_value(isa):
    """A length that ends a run inside a value (its last byte has the continuation bit),
    with the rest of the value and more runs after it: whatever Google says."""
    schema = lib("musttail").load_schema(allkinds_set())
    cls = google_classes(allkinds_set())[TYPE]
    rng = random.Random(12)
    for name, number in FIELDS.items():
        for n in (20, 64, 150):
            body = run_body(rng, n)
            for cut in sorted({len(body) - 1, len(body) - 2, len(body) // 2, 63, 64, 65}):
                if not 0 < cut < len(body) or body[cut - 1] < 0x80:
                    continue
                data = packed(number, body[:cut]) + body[cut:] + packed(number, body)
                check(schema, cls, data, f"{isa} {name} n={n} cut at {cut}")


@pytest.mark.parametrize("build", list(BUILDS))
def test_closed_enum_and_aliases_unchanged(build):
    """The closed enum of allkinds2 keeps its checked loop: long runs with undefined
    values (kept as unknown fields), every build, strings aliased too."""
    fds = allkinds_set()
    schema = lib(build).load_schema(fds)
    cls = google_classes(fds)["allkinds2.All"]
    field = cls.DESCRIPTOR.fields_by_name["r_color"]
    rng = random.Random(5)
    for n in (0, 1, 70, 200):
        body = b"".join(varint(rng.choice((0, 1, 2, 5, 99, -1))) for _ in range(n))
        data = packed(field.number, body)
        for dec in DECODERS.values():
            for flags in (0, ALIAS):
                assert differ(schema, cls, data, dec, flags) is None


def test_the_best_kernels_are_chosen():
    """Unforced, the library picks the widest set this CPU runs (cpuid, as /proc sees)."""
    flags = set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    lb = lib("musttail")
    assert lb.force_packed_isa("auto")
    if {"avx512f", "avx512bw", "avx512vbmi", "avx512_vbmi2", "bmi2"} <= flags:
        want = "avx512"
    elif "avx2" in flags:
        want = "avx2"
    else:
        want = "portable"
    assert lb.packed_kind == want


def decode_loop():
    """tests/packed_decode_loop.c with the library, DWARF 4 (valgrind 3.19 cannot read
    clang 19's DWARF 5)."""
    tc = find_toolchain("clang")
    if tc is None:
        pytest.skip("clang not found")
    t = PBDYN.target("pbdyn_packed_decode_loop",
                     (PBDYN_DIR / "tests" / "packed_decode_loop.c",), cflags=("-gdwarf-4",))
    return build_one(t, BuildConfig(tc, "O2"))


# Packed varint values of the benchmark's packed-only payloads (payloads.py)
PAYLOAD_VALUES = {"packed-ints": 4 * PACKED_RUN, "packed-bools": 12_000}


@pytest.mark.parametrize("payload", list(PAYLOAD_VALUES))
def test_instructions_per_value(payload):
    """Exact instructions per packed value (callgrind, by differencing 20 and 120 decodes)
    of the protobuf benchmark's packed payloads: the AVX2 kernels take under half the
    portable loop's. Valgrind has no AVX-512: that set cannot be counted (it refuses)."""
    why = valgrind.available()
    if why:
        pytest.skip(why)
    exe, manifest = decode_loop(), make_bench_data()
    line = next(ln.split() for ln in manifest.read_text().splitlines()
                if ln.startswith(f"payload {payload} "))
    data = manifest.parent / line[3]
    counts = {}
    for name, isa in PACKED_ISAS.items():
        def argv(n: int, isa: int = isa) -> list[str]:
            return [str(exe), str(manifest.parent / "schema.pb"), line[2], str(data), str(n),
                    str(isa)]
        try:
            m = valgrind.per_unit_counts(ProcessRunner(), argv, (20, 120),
                                         PAYLOAD_VALUES[payload], "value")
        except valgrind.ValgrindError as e:
            assert name == "avx512", e  # the one set valgrind's CPU lacks
            continue
        counts[name] = round(m["instructions (callgrind)"].median, 2)
    print(f"{payload}: instructions per value {counts}")
    assert counts["avx2"] < counts["portable"] / 2, counts
