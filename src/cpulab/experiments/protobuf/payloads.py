"""The protobuf benchmark's inputs: its schema, its payloads and protobuf C++'s generated code.

Payloads (all serialized by Google's encoder, PyPI `protobuf`):
- `debian-protos`: a FileDescriptorSet of every .proto that Debian's protobuf packages
  install under /usr/include (the 11 well-known-type files of libprotobuf-dev 3.21: ~13 KB);
- `descriptor`: the FileDescriptorSet of descriptor.proto alone (~7.7 KB; the seed's
  benchmark input);
- `varints`, `strings`, `packed`: synthetic messages of bench.proto, about 12 KB each,
  from a fixed random seed (many small varints; short strings; long packed runs);
- `packed-ints`, `packed-fixed`, `packed-bools`: packed runs alone, where protobuf C++
  is at its best: 4 x 2,000 int32/sint64 varints of mixed magnitudes, a third of one
  int32 run negative (10-byte varints; ~40 KB); 3 x 2,000 fixed32/fixed64/double (40 KB);
  12,000 bools (12 KB).

Everything is written under build/ in folders named by a hash of what shapes it, so that
the same inputs are never regenerated and a changed protoc never reuses stale files. The
kernel (native/kernels/protobuf/pb_bench.c) reads them through a manifest.
"""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cpulab.build.turns import build_turn
from cpulab.files import write_whole, written_whole
from cpulab.paths import KERNELS, build_dir

SYSTEM_PROTO = Path("/usr/include")
BENCH_PROTO_DIR = KERNELS / "protobuf"
DESCRIPTOR_PROTO = "google/protobuf/descriptor.proto"

# payload name -> its message type (full name)
BENCH_TYPES = {
    "debian-protos": "google.protobuf.FileDescriptorSet",
    "descriptor": "google.protobuf.FileDescriptorSet",
    "varints": "cpulab.bench.Varints",
    "strings": "cpulab.bench.Strings",
    "packed": "cpulab.bench.Packed",
    "packed-ints": "cpulab.bench.PackedInts",
    "packed-fixed": "cpulab.bench.PackedFixed",
    "packed-bools": "cpulab.bench.PackedBools",
}
SYNTHETIC = ("varints", "strings", "packed", "packed-ints", "packed-fixed", "packed-bools")
PACKED_RUN = 2_000  # values per field of packed-ints and packed-fixed


class PayloadError(RuntimeError):
    """protoc or the system .proto files are missing, or protoc rejected a file."""


def protoc_version() -> str:
    """`protoc --version`, e.g. 'libprotoc 3.21.12'."""
    if shutil.which("protoc") is None:
        raise PayloadError("protoc not found (Debian package protobuf-compiler; run "
                           "`make setup`)")
    return subprocess.run(["protoc", "--version"], capture_output=True, text=True).stdout


def descriptor_set(files: tuple[str, ...], include: tuple[Path, ...]) -> bytes:
    """protoc --include_imports --descriptor_set_out, cached by input content."""
    h = hashlib.sha256()
    for f in files:
        for inc in include:
            p = inc / f
            if p.exists():
                h.update(f.encode() + p.read_bytes())
                break
        else:
            raise PayloadError(f"{f}: not found under {', '.join(map(str, include))}")
    h.update(protoc_version().encode())
    out = build_dir() / "pb-data" / f"{h.hexdigest()[:20]}.pb"
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        with written_whole(out) as tmp:  # another process may make it too
            cmd = ["protoc", *(f"-I{i}" for i in include), "--include_imports",
                   f"--descriptor_set_out={tmp}", *files]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                raise PayloadError(f"protoc failed on {' '.join(files)[:200]}: "
                                   f"{r.stderr.strip()}")
    return out.read_bytes()


def debian_proto_files() -> list[str]:
    """Every .proto Debian's protobuf packages install under /usr/include."""
    found = sorted(str(p.relative_to(SYSTEM_PROTO))
                   for p in (SYSTEM_PROTO / "google").rglob("*.proto"))
    if DESCRIPTOR_PROTO not in found:
        raise PayloadError(f"{SYSTEM_PROTO / DESCRIPTOR_PROTO} not found (Debian package "
                           "libprotobuf-dev; run `make setup`)")
    return found


def _pool(fds: bytes):
    from google.protobuf import descriptor_pb2, descriptor_pool

    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(fds).file:
        pool.Add(f)
    return pool


def _message_classes(fds: bytes, names: list[str]) -> dict[str, type]:
    from google.protobuf import message_factory

    pool = _pool(fds)
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(n)) for n in names}


@dataclass(frozen=True)
class WireFields:
    """What a decoder reads in one message, counted on the wire.

    `fields`: field occurrences, each tag once (an end-group tag is not a field), those
    inside sub-messages and groups included; a packed run is one field. `values`: the
    same with each packed run counted as its elements, the unit of packed payloads,
    whose few fields each carry thousands of values."""

    fields: int
    values: int


def _varint(data: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        if i >= len(data):
            raise ValueError("truncated varint")
        b = data[i]
        v |= (b & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if b < 0x80:
            return v, i


def wire_fields(schema: bytes, type_name: str, data: bytes) -> WireFields:
    """The fields and values of one serialized message of `type_name` (full name), a
    type of the FileDescriptorSet `schema`: length-delimited fields of a message type
    are walked into, those of a numeric type are packed runs. Fields the schema does not
    name are counted and not walked into."""
    from google.protobuf.descriptor import FieldDescriptor as F

    fixed = {F.TYPE_FIXED32: 4, F.TYPE_SFIXED32: 4, F.TYPE_FLOAT: 4,
             F.TYPE_FIXED64: 8, F.TYPE_SFIXED64: 8, F.TYPE_DOUBLE: 8}
    counts = [0, 0]

    def walk(msg, i: int, end: int, group: int | None = None) -> int:
        while i < end:
            key, i = _varint(data, i)
            number, wire = key >> 3, key & 7
            if wire == 4:
                if number != group:
                    raise ValueError(f"end-group tag {number} outside its group")
                return i
            f = msg.fields_by_number.get(number) if msg else None
            counts[0] += 1
            counts[1] += 1
            if wire == 0:
                _, i = _varint(data, i)
            elif wire in (1, 5):
                i += 8 if wire == 1 else 4
            elif wire == 3:
                i = walk(f.message_type if f else None, i, end, number)
            elif wire == 2:
                n, i = _varint(data, i)
                if f is not None and f.type == F.TYPE_MESSAGE:
                    walk(f.message_type, i, i + n)
                elif f is not None and f.type not in (F.TYPE_STRING, F.TYPE_BYTES):
                    run = data[i:i + n]
                    counts[1] += (n // fixed[f.type] if f.type in fixed
                                  else sum(b < 0x80 for b in run)) - 1
                i += n
            else:
                raise ValueError(f"wire type {wire} at byte {i}")
        if group is not None or i != end:
            raise ValueError("message ends inside a field")
        return i

    walk(_pool(schema).FindMessageTypeByName(type_name), 0, len(data))
    return WireFields(*counts)


_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "net", "disk", "user", "id", "cache",
          "region", "eu-west-1", "us-east-2", "primary", "replica"]


def _magnitude(rng: random.Random, bits: tuple[int, ...]) -> int:
    """A non-negative value of a randomly chosen bit width: mixed varint lengths."""
    return rng.getrandbits(rng.choice(bits))


def synthetic(kind: str, cls: type, target: int, seed: int = 14) -> bytes:
    """A message of bench.proto of at least `target` bytes (packed-ints and packed-fixed
    have a fixed size of their own), the same for the same seed."""
    rng = random.Random(seed)
    m = cls()
    if kind == "varints":
        while m.ByteSize() < target:
            for _ in range(64):
                m.rows.add(id=len(m.rows), a=rng.randint(0, 100), b=rng.randint(0, 3000),
                           c=rng.randint(-50, 50), d=rng.random() < 0.5,
                           e=rng.randint(-60, 60), f=rng.randint(0, 200), g=rng.randint(0, 127))
    elif kind == "strings":
        while m.ByteSize() < target:
            for _ in range(16):
                e = m.entries.add(name=".".join(rng.choices(_WORDS, k=rng.randint(1, 4))),
                                  value=" ".join(rng.choices(_WORDS, k=rng.randint(1, 9))),
                                  digest=rng.randbytes(rng.choice([0, 16, 32])))
                e.tags.extend(rng.choices(_WORDS, k=rng.randint(0, 4)))
    elif kind == "packed":
        while m.ByteSize() < target:
            m.small.extend(rng.randint(0, 120) for _ in range(256))
            m.signed.extend(rng.randint(-10**6, 10**6) for _ in range(64))
            m.large.extend(rng.getrandbits(rng.choice([8, 20, 40, 63])) for _ in range(64))
            m.reals.extend(rng.uniform(-1e3, 1e3) for _ in range(64))
            m.words.extend(rng.getrandbits(32) for _ in range(64))
            m.flags.extend(rng.random() < 0.3 for _ in range(128))
    elif kind == "packed-ints":
        n = PACKED_RUN
        m.counts.extend(_magnitude(rng, (6, 13, 20, 27, 31)) for _ in range(n))
        m.deltas.extend(_magnitude(rng, (6, 13, 20)) * (-1 if rng.random() < 1 / 3 else 1)
                        for _ in range(n))
        m.small.extend(_magnitude(rng, (5, 12, 19, 26)) * rng.choice((-1, 1)) for _ in range(n))
        m.large.extend(_magnitude(rng, (5, 20, 34, 48, 62)) * rng.choice((-1, 1))
                       for _ in range(n))
    elif kind == "packed-fixed":
        n = PACKED_RUN
        m.words.extend(rng.getrandbits(32) for _ in range(n))
        m.wide.extend(rng.getrandbits(64) for _ in range(n))
        m.reals.extend(rng.uniform(-1e6, 1e6) for _ in range(n))
    elif kind == "packed-bools":
        m.flags.extend(rng.random() < 0.3 for _ in range(target))
    else:
        raise ValueError(f"unknown synthetic payload {kind!r} ({', '.join(SYNTHETIC)})")
    return m.SerializeToString()


def make_bench_data(target: int = 12_000) -> Path:
    """The benchmark's schema and payloads in build/pb-bench/<hash>/; the manifest's path.

    The manifest has a line `schema schema.pb` and one `payload NAME TYPE FILE` per
    payload, in BENCH_TYPES order."""
    schema = descriptor_set((DESCRIPTOR_PROTO, "bench.proto"), (SYSTEM_PROTO, BENCH_PROTO_DIR))
    blobs = {
        "debian-protos": descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,)),
        "descriptor": descriptor_set((DESCRIPTOR_PROTO,), (SYSTEM_PROTO,)),
    }
    classes = _message_classes(schema, [BENCH_TYPES[k] for k in SYNTHETIC])
    for kind in SYNTHETIC:
        blobs[kind] = synthetic(kind, classes[BENCH_TYPES[kind]], target)
    h = hashlib.sha256(schema)
    for k, v in blobs.items():
        h.update(k.encode() + v)
    out = build_dir() / "pb-bench" / h.hexdigest()[:16]
    manifest = out / "manifest"
    if manifest.exists():
        return manifest
    with build_turn("pb-bench"):  # another process may be writing the same files
        if not manifest.exists():
            out.mkdir(parents=True, exist_ok=True)
            (out / "schema.pb").write_bytes(schema)
            lines = ["schema schema.pb"]
            for k, v in blobs.items():
                (out / f"{k}.bin").write_bytes(v)
                lines.append(f"payload {k} {BENCH_TYPES[k]} {k}.bin")
            write_whole(manifest, "\n".join(lines) + "\n")
    return manifest


def read_manifest(manifest: Path) -> tuple[Path, dict[str, tuple[str, Path]]]:
    """(schema file, payload name -> (type, file)) of a manifest."""
    schema, payloads = None, {}
    for n, line in enumerate(manifest.read_text().splitlines(), 1):
        words = line.split()
        if len(words) == 2 and words[0] == "schema":
            schema = manifest.parent / words[1]
        elif len(words) == 4 and words[0] == "payload":
            payloads[words[1]] = (words[2], manifest.parent / words[3])
        elif words:
            raise ValueError(f"{manifest}:{n}: expected `schema FILE` or "
                             f"`payload NAME TYPE FILE`, got {line!r}")
    if schema is None or not payloads:
        raise ValueError(f"{manifest}: needs a schema line and at least one payload")
    return schema, payloads


def generate_cpp(package: str, cpp_opt: str | None) -> Path:
    """protoc --cpp_out for copies of descriptor.proto and bench.proto renamed into
    `package` (so that several builds of generated code can live in one process), with
    `--cpp_opt=cpp_opt` if given; returns the folder of the generated sources."""
    if not package.isidentifier():
        raise ValueError(f"package {package!r} is not a proto identifier")
    desc = SYSTEM_PROTO / DESCRIPTOR_PROTO
    if not desc.exists():
        raise PayloadError(f"{desc} not found (Debian package libprotobuf-dev)")
    sources = {
        f"{package}_descriptor.proto": desc.read_text()
        .replace("package google.protobuf;", f"package {package};"),
        f"{package}_bench.proto": (BENCH_PROTO_DIR / "bench.proto").read_text()
        .replace("package cpulab.bench;", f"package {package};"),
    }
    h = hashlib.sha256((protoc_version() + package + repr(cpp_opt)).encode())
    for name, text in sorted(sources.items()):
        h.update(name.encode() + text.encode())
    gen = build_dir() / "pb-peer" / f"{package}-{h.hexdigest()[:16]}"
    if (gen / "done").exists():
        return gen
    with build_turn("pb-peer"):  # another process may be generating the same files
        if not (gen / "done").exists():
            gen.mkdir(parents=True, exist_ok=True)
            for name, text in sources.items():
                (gen / name).write_text(text)
            cmd = ["protoc", f"-I{gen}", f"--cpp_out={gen}"]
            if cpp_opt:
                cmd.append(f"--cpp_opt={cpp_opt}")
            r = subprocess.run(cmd + sorted(sources), capture_output=True, text=True)
            if r.returncode:
                raise PayloadError(f"{' '.join(cmd)}: {r.stderr.strip()}")
            (gen / "done").write_text(" ".join(cmd) + "\n")
    return gen
