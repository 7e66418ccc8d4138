"""pbdyn's text format (pbdyn_text_encode) and the `pbtool` command against protoc 3.21.

Random messages of allkinds2/3.proto (every field kind, unknown fields, edge values) and
of Debian's protos are serialized by Google's Python protobuf, decoded by pbdyn and printed;
the text must equal `protoc --decode` byte for byte. protoc runs once per schema: the
messages are the elements of a repeated field of a wrapper message added to the
descriptor set, so that its output is every message's text, indented, in order.
CPULAB_FULL=1 multiplies the message counts by 20."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from pbdyn_support import (
    DATA,
    DECODERS,
    SCALE,
    SYSTEM_PROTO,
    allkinds_set,
    build_pbtool,
    debian_proto_files,
    descriptor_set,
    fill_random,
    google_classes,
    lib,
    varint,
)

BATCH_FILE = "pbtext_batch.proto"
FDP = descriptor_pb2.FieldDescriptorProto


def with_batch(fds: bytes, types: list[str]) -> bytes:
    """fds plus pbtext.Batch: `repeated T t<i> = i + 1` for each of `types`."""
    s = descriptor_pb2.FileDescriptorSet.FromString(fds)
    f = s.file.add(name=BATCH_FILE, package="pbtext", syntax="proto2")
    f.dependency.extend(x.name for x in s.file[:-1])
    m = f.message_type.add(name="Batch")
    for i, t in enumerate(types):
        m.field.add(name=f"t{i}", number=i + 1, label=FDP.LABEL_REPEATED,
                    type=FDP.TYPE_MESSAGE, type_name="." + t)
    return s.SerializeToString()


def protoc_blocks(fds: bytes, data: bytes, tmp: Path) -> list[bytes]:
    """protoc --decode of a Batch, split into its top-level blocks, each unindented."""
    (tmp / "set.pb").write_bytes(fds)
    r = subprocess.run(["protoc", f"--descriptor_set_in={tmp / 'set.pb'}",
                        "--decode=pbtext.Batch", BATCH_FILE], input=data,
                       capture_output=True, timeout=120, check=True)
    blocks, cur = [], None
    for line in r.stdout.splitlines(keepends=True):
        if cur is None:
            assert line.endswith(b" {\n"), line
            cur = []
        elif line == b"}\n":
            blocks.append(b"".join(cur))
            cur = None
        else:
            assert line.startswith(b"  "), line
            cur.append(line[2:])
    assert cur is None
    return blocks


def random_messages(fds: bytes, count: int, seed: int, **fill) -> list[tuple[str, bytes]]:
    """(type, wire bytes) of random messages, sorted by type (the Batch's field order)."""
    classes = google_classes(fds)
    names = sorted(n for n, c in classes.items() if not c.DESCRIPTOR.GetOptions().map_entry)
    rng = random.Random(seed)
    out = []
    for i in range(count):
        name = rng.choice(names)
        m = classes[name]()
        fill_random(m, random.Random(seed * 1000 + i), **fill)
        out.append((name, m.SerializePartialToString()))
    return sorted(out, key=lambda p: names.index(p[0]))


def check_against_protoc(fds: bytes, msgs: list[tuple[str, bytes]], tmp: Path) -> None:
    types = sorted(set(n for n, _ in msgs), key=[n for n, _ in msgs].index)
    batch = b"".join(varint((types.index(n) + 1) << 3 | 2) + varint(len(d)) + d
                     for n, d in msgs)
    want = protoc_blocks(with_batch(fds, types), batch, tmp)
    assert len(want) == len(msgs)
    schema = lib().load_schema(fds)
    for i, ((name, data), expect) in enumerate(zip(msgs, want, strict=True)):
        for dname, dec in DECODERS.items():
            st, got = schema.decode_text(name, data, dec)
            assert st == 0, f"#{i} {name} {dname}: status {st}"
            assert got == expect, (f"#{i} {name} ({data.hex()[:200]}):\n"
                                   f"protoc:\n{expect.decode(errors='replace')}\n"
                                   f"pbdyn:\n{got.decode(errors='replace')}")


def debian_set() -> bytes:
    return descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))


def test_allkinds_random(tmp_path):
    check_against_protoc(allkinds_set(), random_messages(allkinds_set(), 250 * SCALE, seed=1,
                                                         max_depth=3), tmp_path)


def test_allkinds_unknown_fields(tmp_path):
    """Unknown fields everywhere: varints, fixed, groups, and length-delimited values
    that protoc prints as a message when they parse as one, else as a string."""
    check_against_protoc(allkinds_set(), random_messages(allkinds_set(), 150 * SCALE, seed=2,
                                                         max_depth=3, unknown=0.9), tmp_path)


def test_debian_protos_random(tmp_path):
    fds = debian_set()
    check_against_protoc(fds, random_messages(fds, 150 * SCALE, seed=3, max_depth=3), tmp_path)


def nested_unknown_messages() -> list[tuple[str, bytes]]:
    """Length-delimited unknown values that are, or almost are, messages: nested ten and
    more levels deep (protoc stops parsing them after 10), groups inside them, overlong
    tags and lengths, field number 0, an end-group tag alone, wire types 6 and 7."""
    rng = random.Random(5)

    def ld(num: int, body: bytes) -> bytes:
        return varint(num << 3 | 2) + varint(len(body)) + body

    samples = [b"\x08\x01", b"\x00", b"\x0c", b"\x0b\x0c", b"\x0b\x14", b"\x0e\x01", b"\x0f",
               b"\x88\x80\x80\x80\x80\x00\x01", b"\x0a\x81\x80\x80\x80\x80\x00x",
               b"\x0a\x80\x80\x80\x80\x08", b"\x09" + bytes(8), b"\x0d" + bytes(3),
               b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x08" + b"\xff" * 10 + b"\x01",
               b"\x0b" * 12 + b"\x0c" * 12, b"\x0b" * 9 + b"\x0c" * 9, b"\x13\x1c"]
    msgs = []
    for s in samples:
        for depth in (0, 1, 8, 9, 10, 11):
            body = s
            for _ in range(depth):
                body = ld(rng.randint(1, 5), body)
            msgs.append(("allkinds3.Item", ld(900, body)))
    for _ in range(100 * SCALE):
        msgs.append(("allkinds3.Item", ld(901, bytes(rng.getrandbits(8)
                                                   for _ in range(rng.randint(1, 6))))))
    return msgs


def test_nested_unknown_bytes(tmp_path):
    check_against_protoc(allkinds_set(), nested_unknown_messages(), tmp_path)


# ---- the command ---------------------------------------------------------------------

def pbtool(*args: str, data: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([str(build_pbtool()), *args], input=data, capture_output=True,
                          timeout=60)


def protoc(*args: str, data: bytes) -> subprocess.CompletedProcess:
    return subprocess.run(["protoc", *args], input=data, capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def allkinds_file(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("pbtool") / "allkinds.pb"
    p.write_bytes(allkinds_set())
    return p


def test_pbtool_decode_is_protoc_decode(allkinds_file):
    """The drop-in: same output as protoc --decode given the .proto files, and as
    protoc --decode_raw with no schema."""
    msgs = random_messages(allkinds_set(), 20 * SCALE, seed=6, max_depth=3, unknown=0.5)
    for name, data in msgs:
        ours = pbtool("decode", "--descriptor-set", str(allkinds_file), name, data=data)
        theirs = protoc(f"-I{DATA}", f"--decode={name}", "allkinds2.proto", "allkinds3.proto",
                        data=data)
        assert (ours.returncode, ours.stdout) == (0, theirs.stdout), ours.stderr
        ours = pbtool("decode-raw", data=data)
        theirs = protoc("--decode_raw", data=data)
        assert (ours.returncode, ours.stdout) == (0, theirs.stdout), ours.stderr


@pytest.mark.parametrize("data", [b"\x0a\x05\x08", b"\x08", b"\x07", b"\x00", b"\x0c",
                                  b"\x0b\x08\x01", b"\x08" + b"\xff" * 11])
def test_pbtool_rejects_what_protoc_rejects(data, allkinds_file):
    for args, pargs in ((("decode-raw",), ("--decode_raw",)),
                        (("decode", "-d", str(allkinds_file), "allkinds3.Item"),
                         (f"-I{DATA}", "--decode=allkinds3.Item", "allkinds3.proto"))):
        theirs = protoc(*pargs, data=data)
        ours = pbtool(*args, data=data)
        assert theirs.returncode == 1 and b"Failed to parse input." in theirs.stderr
        assert ours.returncode == 1 and ours.stdout == b""
        assert b"Failed to parse input" in ours.stderr


def test_pbtool_command_line(allkinds_file, tmp_path):
    r = pbtool("--help")
    assert r.returncode == 0 and b"decode --descriptor-set FILE TYPE" in r.stdout
    assert b"decode-raw" in r.stdout
    assert pbtool().returncode == 2
    assert pbtool("decode", "allkinds3.Item").returncode == 2  # no descriptor set
    r = pbtool("decode", "-d", str(allkinds_file), "no.Such")
    assert r.returncode == 2 and b"no message type no.Such" in r.stderr
    r = pbtool("decode", "-d", str(tmp_path / "absent.pb"), "allkinds3.Item")
    assert r.returncode == 3 and b"absent.pb" in r.stderr
    bad = tmp_path / "bad.pb"
    bad.write_bytes(b"\x0a\x05\x08")
    r = pbtool("decode", "-d", str(bad), "allkinds3.Item")
    assert r.returncode == 4 and b"bad.pb" in r.stderr
    r = pbtool("decode", "--descriptor-set=" + str(allkinds_file), ".allkinds3.Item",
               data=b"\x0a\x01x")
    assert r.returncode == 0 and r.stdout == b'key: "x"\n'
