"""Shared support of the pbdyn library's tests (no tests here).

- builds the library (with the ctypes entry points of native/lib/pbdyn/tests/pbdyn_testapi.c)
  in each decoder build: clang with musttail, clang and gcc with the trampoline;
- compiles .proto files into descriptor sets with Debian's protoc;
- loads Google's protobuf (PyPI, upb-backed) message classes from those sets;
- builds the `pbtool` command;
- writes the canonical dump of a Google message in pbdyn_dump's format;
- generates random messages of any schema, edge values included.
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import random
import struct
from dataclasses import dataclass
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from google.protobuf.descriptor import FieldDescriptor as FD

from cpulab.build import BuildConfig, Target, build_one, build_shared, find_toolchain, library
from cpulab.experiments.protobuf.payloads import (  # noqa: F401  (re-exported to the tests)
    BENCH_TYPES,
    SYSTEM_PROTO,
    debian_proto_files,
    descriptor_set,
    generate_cpp,
    make_bench_data,
)
from cpulab.experiments.protobuf.upb_native import PEER_SCRIPT as UPB_PEER_SCRIPT
from cpulab.experiments.protobuf.upb_native import UPB_PEERS, UpbPeer
from cpulab.files import write_whole
from cpulab.paths import KERNELS, build_dir
from peer_support import peer as built_peer

# Random and differential counts: x20 where CPULAB_FULL=1 asks for the long runs.
SCALE = 20 if os.environ.get("CPULAB_FULL") else 1
PBDYN = library("pbdyn")
PBDYN_DIR = PBDYN.root
DATA = PBDYN_DIR / "tests" / "data"

# pbdyn_status
OK, TRUNCATED, VARINT, FIELD_NUMBER, WIRE_TYPE, LENGTH, UTF8, GROUP, DEPTH = range(9)
REQUIRED, NOMEM, SCHEMA, NOT_FOUND, ARG, JSON, SYNTAX = range(9, 16)
STATUS_NAMES = ["OK", "TRUNCATED", "VARINT", "FIELD_NUMBER", "WIRE_TYPE", "LENGTH", "UTF8",
                "GROUP", "DEPTH", "REQUIRED", "NOMEM", "SCHEMA", "NOT_FOUND", "ARG", "JSON",
                "SYNTAX"]
# pbdyn_decoder
FAST, SWITCH, GENERIC = 0, 1, 2
DECODERS = {"fast": FAST, "switch": SWITCH, "generic": GENERIC}
ALIAS = 1
# the vector kernels of packed varint runs (internal/packed_simd.h: pbdyn__isa)
PACKED_ISAS = {"portable": 0, "avx2": 1, "avx512": 2}
CHECK_REQUIRED = 2
# PBDYN_NO_OFFSET: an error offset where no byte is at fault
NO_OFFSET = 2**64 - 1
# pbdyn_json_encode flags
JSON_PROTO_NAMES = 1
JSON_EMIT_DEFAULTS = 2
# pbdyn_parse_opts flags
PARSE_IGNORE_UNKNOWN = 1

# Google's parser says only which class of error: map our codes onto its classes.
MALFORMED = {TRUNCATED, VARINT, FIELD_NUMBER, WIRE_TYPE, LENGTH, GROUP}


def google_error_class(exc: Exception) -> int | str:
    text = str(exc)
    if "UTF-8" in text:
        return UTF8
    if "MaxDepth" in text:
        return DEPTH
    if "corrupt" in text:
        return "malformed"
    return f"other: {text}"


def our_error_class(status: int) -> int | str:
    return "malformed" if status in MALFORMED else status


# ---- building ------------------------------------------------------------------

# Builds of the library: (compiler, extra defines). "musttail" is the tail-call
# build; the others run the same field functions through the trampoline loop.
BUILDS = {
    "musttail": ("clang", ()),
    "trampoline-gcc": ("gcc", ()),
    "trampoline-clang": ("clang", ("PBDYN_TAILCALL=0",)),
}


@functools.cache
def build_lib(build: str = "musttail", sanitize: bool = False) -> Path:
    cc, defines = BUILDS[build]
    cflags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"] if sanitize else []
    return PBDYN.build_shared(cc, "O2", extra=[PBDYN_DIR / "tests" / "pbdyn_testapi.c"],
                           defines=defines, cflags=cflags,
                           suffix=f"_{build.replace('-', '_')}{'_san' if sanitize else ''}")


class PbError(RuntimeError):
    def __init__(self, status: int, what: str):
        name = STATUS_NAMES[status] if status < len(STATUS_NAMES) else status
        super().__init__(f"{what}: {name}")
        self.status = status


class Lib:
    """The pbdyn library through ctypes (one build)."""

    def __init__(self, path: Path):
        self.dll = d = ctypes.CDLL(str(path))
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        d.pbdyn_schema_load.argtypes = [cp, sz, ctypes.POINTER(vp)]
        d.pbdyn_schema_load.restype = ctypes.c_int
        d.pbdyn_schema_free.argtypes = [vp]
        d.pbdyn_schema_find.argtypes = [vp, cp]
        d.pbdyn_schema_find.restype = vp
        d.pbdyn_decode_fast_kind.restype = cp
        for fn in (d.pbt_decode_dump, d.pbt_decode_text, d.pbt_roundtrip):
            fn.argtypes = [vp, cp, cp, sz, ctypes.c_int, ctypes.c_uint,
                           ctypes.POINTER(vp), ctypes.POINTER(sz)]
            fn.restype = ctypes.c_int
        d.pbt_decode_json.argtypes = [vp, cp, cp, sz, ctypes.c_int, ctypes.c_uint,
                                      ctypes.c_uint, ctypes.POINTER(vp), ctypes.POINTER(sz)]
        d.pbt_decode_json.restype = ctypes.c_int
        d.pbt_decode_offset.argtypes = [vp, cp, cp, sz, ctypes.c_int, ctypes.c_uint,
                                        ctypes.POINTER(sz)]
        d.pbt_decode_offset.restype = ctypes.c_int
        d.pbt_map_rebuild.argtypes = [vp, cp, cp, sz, ctypes.c_int, cp, ctypes.POINTER(vp),
                                      ctypes.POINTER(sz)]
        d.pbt_map_rebuild.restype = ctypes.c_int
        d.pbt_map_delete.argtypes = [vp, cp, cp, sz, ctypes.c_int, cp, cp, sz,
                                     ctypes.POINTER(vp), ctypes.POINTER(sz), sz * 4]
        d.pbt_map_delete.restype = ctypes.c_int
        d.pbt_enum_listing.argtypes = [vp, cp, ctypes.POINTER(vp), ctypes.POINTER(sz)]
        d.pbt_enum_listing.restype = ctypes.c_int
        d.pbt_text_to_binary.argtypes = [vp, cp, cp, sz, ctypes.POINTER(vp), ctypes.POINTER(sz),
                                         sz * 3]
        d.pbt_text_to_binary.restype = ctypes.c_int
        d.pbt_json_to_binary.argtypes = [vp, cp, cp, sz, ctypes.c_uint, ctypes.POINTER(vp),
                                         ctypes.POINTER(sz), sz * 3]
        d.pbt_json_to_binary.restype = ctypes.c_int
        d.pbt_free.argtypes = [vp]
        d.pbt_packed_isa_force.argtypes = [ctypes.c_int]
        d.pbt_packed_isa_force.restype = ctypes.c_int
        d.pbdyn_decode_packed_kind.restype = cp

    @property
    def fast_kind(self) -> str:
        return self.dll.pbdyn_decode_fast_kind().decode()

    @property
    def packed_kind(self) -> str:
        """The vector kernels packed varint runs go through: avx512, avx2, portable."""
        return self.dll.pbdyn_decode_packed_kind().decode()

    def force_packed_isa(self, isa: str) -> bool:
        """Decode packed runs with one set of kernels (PACKED_ISAS, or "auto") from now
        on; False if this CPU cannot run it."""
        return bool(self.dll.pbt_packed_isa_force(PACKED_ISAS.get(isa, -1)))

    def load_schema(self, fds: bytes) -> Schema:
        h = ctypes.c_void_p()
        st = self.dll.pbdyn_schema_load(fds, len(fds), ctypes.byref(h))
        if st:
            raise PbError(st, "pbdyn_schema_load")
        return Schema(self, h)


@dataclass
class Schema:
    lib: Lib
    handle: ctypes.c_void_p

    def __del__(self):
        self.lib.dll.pbdyn_schema_free(self.handle)

    def has(self, type_name: str) -> bool:
        return bool(self.lib.dll.pbdyn_schema_find(self.handle, type_name.encode()))

    def _call(self, fn, type_name: str, data: bytes, decoder: int, flags: int, *extra: int):
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = fn(self.handle, type_name.encode(), data, len(data), decoder, flags, *extra,
                ctypes.byref(out), ctypes.byref(n))
        res = ctypes.string_at(out, n.value) if out.value else b""
        if out.value:
            self.lib.dll.pbt_free(out)
        return st, res

    def decode_dump(self, type_name: str, data: bytes, decoder: int = FAST,
                    flags: int = 0) -> tuple[int, str]:
        st, res = self._call(self.lib.dll.pbt_decode_dump, type_name, data, decoder, flags)
        return st, res.decode()

    def decode_text(self, type_name: str, data: bytes, decoder: int = FAST,
                    flags: int = 0) -> tuple[int, bytes]:
        """pbdyn_text_encode's output (bytes: protoc's text is not always UTF-8)."""
        return self._call(self.lib.dll.pbt_decode_text, type_name, data, decoder, flags)

    def decode_json(self, type_name: str, data: bytes, decoder: int = FAST, flags: int = 0,
                    json_flags: int = 0) -> tuple[int, str]:
        """pbdyn_json_encode's output (PBDYN_JSON_* json_flags)."""
        st, res = self._call(self.lib.dll.pbt_decode_json, type_name, data, decoder, flags,
                             json_flags)
        return st, res.decode()

    def decode_offset(self, type_name: str, data: bytes, decoder: int = FAST,
                      flags: int = 0) -> tuple[int, int | None]:
        """The decode status and, on failure, the error offset (None: no byte at fault)."""
        at = ctypes.c_size_t(NO_OFFSET)
        st = self.lib.dll.pbt_decode_offset(self.handle, type_name.encode(), data, len(data),
                                            decoder, flags, ctypes.byref(at))
        return st, (None if st == OK or at.value == NO_OFFSET else at.value)

    def map_rebuild(self, type_name: str, data: bytes, field: str,
                    decoder: int = FAST) -> tuple[int, str]:
        """The map field rebuilt through the map API (pbdyn_testapi.c: pbt_map_rebuild)."""
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = self.lib.dll.pbt_map_rebuild(self.handle, type_name.encode(), data, len(data),
                                          decoder, field.encode(), ctypes.byref(out),
                                          ctypes.byref(n))
        return st, self._take(out, n).decode()

    def map_delete(self, type_name: str, data: bytes, field: str, keys: bytes,
                   decoder: int = FAST) -> tuple[int, bytes, tuple[int, int, int, int]]:
        """Each key of the map field in `keys` (a message of the same type) deleted from
        the map of `data`, the result encoded (pbt_map_delete): the status, the encoding
        and (keys deleted, keys absent, map size after, keys iterated after)."""
        out, n, counts = ctypes.c_void_p(), ctypes.c_size_t(), (ctypes.c_size_t * 4)()
        st = self.lib.dll.pbt_map_delete(self.handle, type_name.encode(), data, len(data),
                                         decoder, field.encode(), keys, len(keys),
                                         ctypes.byref(out), ctypes.byref(n), counts)
        return st, self._take(out, n), tuple(counts)

    def enum_listing(self, name: str) -> tuple[int, str]:
        """Each value of an enum by index, by name and by number (pbt_enum_listing)."""
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        st = self.lib.dll.pbt_enum_listing(self.handle, name.encode(), ctypes.byref(out),
                                           ctypes.byref(n))
        return st, self._take(out, n).decode()

    def _take(self, out: ctypes.c_void_p, n: ctypes.c_size_t) -> bytes:
        res = ctypes.string_at(out, n.value) if out.value else b""
        if out.value:
            self.lib.dll.pbt_free(out)
        return res

    def text_to_binary(self, type_name: str, text: bytes) -> tuple[int, bytes, tuple | None]:
        """pbdyn_text_decode of text, then encoded: the status, the binary message and,
        on failure, the error's (offset, line, column) (None: no byte at fault)."""
        out, n, err = ctypes.c_void_p(), ctypes.c_size_t(), (ctypes.c_size_t * 3)()
        st = self.lib.dll.pbt_text_to_binary(self.handle, type_name.encode(), text, len(text),
                                             ctypes.byref(out), ctypes.byref(n), err)
        where = None if st == OK or err[0] == NO_OFFSET else tuple(err)
        return st, self._take(out, n), where

    def json_to_binary(self, type_name: str, json: bytes | str,
                       flags: int = 0) -> tuple[int, bytes, tuple | None]:
        """pbdyn_json_decode of json (PBDYN_PARSE_* flags), then encoded, as
        text_to_binary."""
        if isinstance(json, str):
            json = json.encode()
        out, n, err = ctypes.c_void_p(), ctypes.c_size_t(), (ctypes.c_size_t * 3)()
        st = self.lib.dll.pbt_json_to_binary(self.handle, type_name.encode(), json, len(json),
                                             flags, ctypes.byref(out), ctypes.byref(n), err)
        where = None if st == OK or err[0] == NO_OFFSET else tuple(err)
        return st, self._take(out, n), where

    def roundtrip(self, type_name: str, data: bytes, decoder: int = FAST,
                  flags: int = 0) -> tuple[int, bytes]:
        return self._call(self.lib.dll.pbt_roundtrip, type_name, data, decoder, flags)


@functools.cache
def build_pbtool() -> Path:
    """The `pbtool` command (tools/pbtool.c), linked with the library statically."""
    return build_one(PBDYN.command_target(), BuildConfig(find_toolchain("clang"), "O2"))


@functools.cache
def lib(build: str = "musttail") -> Lib:
    return Lib(build_lib(build))


# ---- schemas ---------------------------------------------------------------------

@functools.cache
def data_file(name: str, data: bytes) -> Path:
    """build/pb-data/`name` holding `data`, for a program that reads it; written under
    another name and renamed, as another test process may be reading it."""
    p = build_dir() / "pb-data" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    return write_whole(p, data)


def allkinds_set() -> bytes:
    return descriptor_set(("allkinds2.proto", "allkinds3.proto"), (DATA,))


@functools.cache
def descriptor_proto_set() -> bytes:
    return descriptor_set(("google/protobuf/descriptor.proto",), (SYSTEM_PROTO,))


def google_classes(fds: bytes) -> dict[str, type]:
    """Google message classes of every message in a descriptor set, by full name."""
    pool = descriptor_pool.DescriptorPool()
    for f in descriptor_pb2.FileDescriptorSet.FromString(fds).file:
        pool.Add(f)
    out: dict[str, type] = {}

    def walk(d):
        out[d.full_name] = message_factory.GetMessageClass(d)
        for n in d.nested_types:
            walk(n)

    for f in descriptor_pb2.FileDescriptorSet.FromString(fds).file:
        fd = pool.FindFileByName(f.name)
        for d in fd.message_types_by_name.values():
            walk(d)
    return out


# ---- canonical dump of a Google message (pbdyn_dump's format) -------------------------

def _float_bits(v: float) -> str:
    b = struct.unpack("<I", struct.pack("<f", v))[0]
    if math.isnan(v):
        b |= 0x00400000
    return f"f:{b:08x}"


def _double_bits(v: float) -> str:
    b = struct.unpack("<Q", struct.pack("<d", v))[0]
    if math.isnan(v):
        b |= 0x0008000000000000
    return f"d:{b:016x}"


def _value(fd, v, depth: int) -> str:
    t = fd.type
    if t in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
        return "{\n" + py_dump(v, depth + 1) + "  " * depth + "}"
    if t == FD.TYPE_BOOL:
        return "true" if v else "false"
    if t == FD.TYPE_FLOAT:
        return _float_bits(v)
    if t == FD.TYPE_DOUBLE:
        return _double_bits(v)
    if t == FD.TYPE_STRING:  # proto2 strings that are not UTF-8 come back as bytes
        return "x:" + _str_bytes(v).hex()
    if t == FD.TYPE_BYTES:
        return "x:" + bytes(v).hex()
    return str(int(v))


def _str_bytes(v) -> bytes:
    return v if isinstance(v, bytes) else v.encode("utf-8", "surrogateescape")


def _key_order(k):
    """Map keys in pbdyn_dump's order: numbers by value, strings bytewise."""
    return _str_bytes(k) if isinstance(k, (str, bytes)) else k


def _line(fd, v, depth: int) -> str:
    return f"{'  ' * depth}{fd.number}:{fd.name} {_value(fd, v, depth)}\n"


def unknown_bytes(msg) -> bytes:
    """A message's unknown fields as wire bytes: serialize a copy with no known fields."""
    c = type(msg)()
    c.CopyFrom(msg)
    for fd in c.DESCRIPTOR.fields:
        c.ClearField(fd.name)
    return c.SerializePartialToString()


def is_map(fd) -> bool:
    return (fd.type == FD.TYPE_MESSAGE and fd.message_type.GetOptions().map_entry
            and fd.is_repeated)


def is_synthetic_oneof(o) -> bool:
    """The oneof protoc makes for a proto3 `optional` field (not a real oneof)."""
    return len(o.fields) == 1 and o.name == "_" + o.fields[0].name


def py_dump(msg, depth: int = 0) -> str:
    out = []
    for fd, v in sorted(msg.ListFields(), key=lambda p: p[0].number):
        if is_map(fd):
            kf, vf = fd.message_type.fields_by_number[1], fd.message_type.fields_by_number[2]
            for k in sorted(v, key=_key_order):
                out.append(f"{'  ' * depth}{fd.number}:{fd.name} {{\n")
                out.append(_line(kf, k, depth + 1))
                out.append(_line(vf, v[k], depth + 1))
                out.append(f"{'  ' * depth}}}\n")
        elif fd.is_repeated:
            out.extend(_line(fd, x, depth) for x in v)
        else:
            out.append(_line(fd, v, depth))
    u = unknown_bytes(msg)
    if u:
        out.append(f"{'  ' * depth}? {u.hex()}\n")
    return "".join(out)


# ---- random messages ----------------------------------------------------------------

INT32_EDGES = [0, 1, -1, 2, 127, 128, 255, 256, 16383, 16384, 2**31 - 1, -(2**31), 2**30, -300]
INT64_EDGES = INT32_EDGES + [2**63 - 1, -(2**63), 2**32, 2**35 + 7, -(2**40)]
UINT32_EDGES = [0, 1, 127, 128, 2**31, 2**32 - 1, 2**28, 300]
UINT64_EDGES = UINT32_EDGES + [2**64 - 1, 2**63, 2**56, 2**49 + 1]
FLOAT_EDGES = [0.0, -0.0, 1.0, -1.5, math.inf, -math.inf, math.nan, 1e-45, 3.4028234663852886e38,
               1.1754943508222875e-38]
DOUBLE_EDGES = FLOAT_EDGES + [5e-324, 1.7976931348623157e308, 2.2250738585072014e-308]


def _rand_int(rng: random.Random, edges: list[int], lo: int, hi: int) -> int:
    r = rng.random()
    if r < 0.4:
        return rng.choice(edges)
    if r < 0.7:
        return rng.randint(max(lo, -200), min(hi, 200))
    return rng.randint(lo, hi)


def _rand_float(rng: random.Random, single: bool) -> float:
    if rng.random() < 0.4:
        return rng.choice(FLOAT_EDGES if single else DOUBLE_EDGES)
    if rng.random() < 0.5:
        v = rng.uniform(-1e6, 1e6)
    else:
        v = rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
    return struct.unpack("<f", struct.pack("<f", v))[0] if single else v


_ALPHABET = "abcxyz 0123456789_-é€ж日本𝄞😀\u00a0\u07ff\u0800\uffff\U0010ffff"


def _rand_str(rng: random.Random) -> str:
    n = rng.choice([0, 1, 3, 7, 8, 15, 16, 17, 40]) if rng.random() < 0.9 else rng.randint(100, 300)
    if rng.random() < 0.5:
        return "".join(rng.choice("abcdefghijklmnop.QRS_") for _ in range(n))
    return "".join(rng.choice(_ALPHABET) for _ in range(n))


def _rand_bytes(rng: random.Random) -> bytes:
    n = rng.choice([0, 1, 5, 16, 33]) if rng.random() < 0.9 else rng.randint(100, 400)
    return bytes(rng.getrandbits(8) for _ in range(n))


def _rand_enum(rng: random.Random, fd) -> int:
    values = [v.number for v in fd.enum_type.values]
    if not fd.enum_type.is_closed and rng.random() < 0.25:
        return _rand_int(rng, INT32_EDGES, -(2**31), 2**31 - 1)
    return rng.choice(values)


def random_scalar(fd, rng: random.Random):
    t = fd.type
    if t in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
        return _rand_int(rng, INT32_EDGES, -(2**31), 2**31 - 1)
    if t in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
        return _rand_int(rng, INT64_EDGES, -(2**63), 2**63 - 1)
    if t in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
        return _rand_int(rng, UINT32_EDGES, 0, 2**32 - 1)
    if t in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
        return _rand_int(rng, UINT64_EDGES, 0, 2**64 - 1)
    if t == FD.TYPE_BOOL:
        return rng.random() < 0.5
    if t == FD.TYPE_FLOAT:
        return _rand_float(rng, True)
    if t == FD.TYPE_DOUBLE:
        return _rand_float(rng, False)
    if t == FD.TYPE_ENUM:
        return _rand_enum(rng, fd)
    if t == FD.TYPE_STRING:
        return _rand_str(rng)
    if t == FD.TYPE_BYTES:
        return _rand_bytes(rng)
    raise ValueError(t)


def random_unknown(rng: random.Random, numbers: range = range(500, 1000), depth: int = 0) -> bytes:
    """A few well-formed fields with numbers from `numbers` (not in the schema)."""
    out = bytearray()
    for _ in range(rng.randint(1, 3)):
        num = rng.choice(numbers)
        wt = rng.choice([0, 0, 1, 2, 2, 5] + ([3] if depth < 3 else []))
        out += _varint((num << 3) | wt)
        if wt == 0:
            out += _varint(rng.choice([0, 1, 300, 2**64 - 1, rng.getrandbits(40)]))
        elif wt == 1:
            out += rng.getrandbits(64).to_bytes(8, "little")
        elif wt == 5:
            out += rng.getrandbits(32).to_bytes(4, "little")
        elif wt == 2:
            b = _rand_bytes(rng)
            out += _varint(len(b)) + b
        else:
            out += random_unknown(rng, numbers, depth + 1) + _varint((num << 3) | 4)
    return bytes(out)


def _varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def varint(v: int) -> bytes:
    """Canonical varint encoding of a non-negative integer (two's complement for < 0)."""
    return _varint(v & (2**64 - 1))


def fill_random(msg, rng: random.Random, depth: int = 0, max_depth: int = 4,
                density: float = 0.5, unknown: float = 0.1) -> None:
    """Set random fields of msg (recursively), including edge values."""
    d = msg.DESCRIPTOR
    chosen_oneof = {o.name: rng.choice([None, *o.fields]) for o in d.oneofs
                    if not is_synthetic_oneof(o)}
    for fd in d.fields:
        o = fd.containing_oneof
        if o is not None and o.name in chosen_oneof:
            if chosen_oneof[o.name] is not fd:
                continue
        elif rng.random() > density:
            continue
        sub_ok = depth < max_depth
        if is_map(fd):
            kf, vf = fd.message_type.fields_by_number[1], fd.message_type.fields_by_number[2]
            m = getattr(msg, fd.name)
            for _ in range(rng.randint(0, 4)):
                k = random_scalar(kf, rng)
                if vf.type == FD.TYPE_MESSAGE:
                    if sub_ok:
                        fill_random(m[k], rng, depth + 1, max_depth, density * 0.7, unknown)
                    else:
                        m[k]  # noqa: B018  (creates an empty value)
                else:
                    m[k] = random_scalar(vf, rng)
        elif fd.is_repeated:
            n = rng.choice([0, 1, 2, 3, 5]) if rng.random() < 0.9 else rng.randint(20, 60)
            r = getattr(msg, fd.name)
            for _ in range(n):
                if fd.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
                    if not sub_ok:
                        break
                    fill_random(r.add(), rng, depth + 1, max_depth, density * 0.6, unknown)
                else:
                    r.append(random_scalar(fd, rng))
        elif fd.type in (FD.TYPE_MESSAGE, FD.TYPE_GROUP):
            if sub_ok:
                sub = getattr(msg, fd.name)
                sub.SetInParent()
                fill_random(sub, rng, depth + 1, max_depth, density * 0.7, unknown)
        else:
            setattr(msg, fd.name, random_scalar(fd, rng))
    for fd in d.fields:  # required fields, so that Google's encoder accepts the message
        if fd.is_required and not msg.HasField(fd.name):
            setattr(msg, fd.name, random_scalar(fd, rng))
    if rng.random() < unknown:
        msg.MergeFromString(random_unknown(rng))


# ---- one differential check ------------------------------------------------------------

def google_parse(cls, data: bytes):
    """("ok", message) or ("err", error class) from Google's parser."""
    try:
        return "ok", cls.FromString(data)
    except Exception as e:  # DecodeError; the class is in its text
        return "err", google_error_class(e)


def google_json(msg, **opts):
    """("ok", json_format.MessageToDict(msg, **opts)) or ("err", its exception): the JSON
    mapping as Google's Python protobuf prints it, Any resolved in msg's own pool."""
    try:
        return "ok", json_format.MessageToDict(msg, descriptor_pool=msg.DESCRIPTOR.file.pool,
                                               **opts)
    except Exception as e:  # SerializeToJsonError, ValueError, TypeError (Any)
        return "err", e


def differ(schema: Schema, cls, data: bytes, decoder: int, flags: int = 0) -> str | None:
    """None if our decoder agrees with Google's on `data`, else what differs.

    Agreement: both reject (with our code in Google's error class), or both accept with
    equal canonical dumps. Google's Python objects cannot show a proto2 string that is not
    UTF-8 as text; then the two are compared by re-encoding ours and parsing it in Google's
    library (message equality)."""
    name = cls.DESCRIPTOR.full_name
    kind, ref = google_parse(cls, data)
    st, got = schema.decode_dump(name, data, decoder, flags)
    if kind == "err":
        if st == OK:
            return f"Google rejects ({ref}), ours accepts"
        if our_error_class(st) != ref:
            return f"Google rejects as {ref}, ours as {STATUS_NAMES[st]}"
        return None
    if st != OK:
        return f"Google accepts, ours rejects: {STATUS_NAMES[st]}"
    try:
        want = py_dump(ref)
    except UnicodeDecodeError:
        st, enc = schema.roundtrip(name, data, decoder, flags)
        if st != OK:
            return f"re-encode failed: {STATUS_NAMES[st]}"
        return None if cls.FromString(enc) == ref else "re-encoded message differs"
    if want != got:
        import difflib
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                 "google", "ours"))[:60])
        return "dumps differ:\n" + diff
    return None


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One random corruption: truncate, overwrite, flip a bit, insert or delete bytes."""
    d = bytearray(data)
    if not d:
        return bytes([rng.getrandbits(8)])
    i = rng.randrange(len(d))
    op = rng.randrange(5)
    if op == 0:
        del d[i:]
    elif op == 1:
        d[i] = rng.getrandbits(8)
    elif op == 2:
        d[i] ^= 1 << rng.randrange(8)
    elif op == 3:
        d[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 3)))
    else:
        del d[i:i + rng.randint(1, 4)]
    return bytes(d)


# ---- the benchmark: payloads, adapter libraries, the kernel ---------------------------
# (the protobuf experiment builds and runs the same things)

KERNEL_DIR = KERNELS / "protobuf"


# pbdyn builds measured by the kernel: label -> (compiler, defines)
PBDYN_ADAPTERS = {
    "pb-clang": ("clang", ()),                    # musttail + preserve_none
    "pb-gcc": ("gcc", ()),                        # trampoline (gcc has no musttail)
    "pb-clang-tramp": ("clang", ("PBDYN_TAILCALL=0",)),  # trampoline, same compiler
}


def build_pbdyn_adapter(label: str) -> Path:
    cc, defines = PBDYN_ADAPTERS[label]
    t = PBDYN.target(f"pbbench_{label.replace('-', '_')}", (KERNEL_DIR / "pbdyn_adapter.c",),
                  include_dirs=(KERNEL_DIR,), defines=defines, cflags=("-Wl,-Bsymbolic",),
                  shared=True)
    return build_one(t, BuildConfig(find_toolchain(cc), "O2"))


# protobuf C++ flavours: label -> (compiler, protoc --cpp_opt, description)
CPP_PEERS = {
    "cpp-default": ("gcc", None, "default parser"),
    "cpp-tailcall": ("clang", "experimental_tail_call_table_mode=always", "table-driven parser"),
}


def build_cpp_peer(label: str) -> Path:
    """Generated code of descriptor.proto and bench.proto in a package of its own, with
    protoc's default parser or its table-driven tail-call parser, plus the adapter."""
    cc, cpp_opt, flavour = CPP_PEERS[label]
    pkg = "pbpeer_" + label.split("-")[1]
    gen = generate_cpp(pkg, cpp_opt)
    srcs = sorted(gen.glob("*.pb.cc")) + [KERNEL_DIR / "cpp_adapter.cc"]
    return build_shared(f"pbpeer_{label.split('-')[1]}", srcs, cc=cc, opt="O2",
                        libs=["protobuf"], include_dirs=[gen, KERNEL_DIR],
                        defines=[f'PBPEER_PACKAGE="{pkg}"', f'PBPEER_FLAVOUR="{flavour}"'],
                        cflags=["-Wl,-Bsymbolic"])


def build_upb_peer(name: str) -> Path:
    """A native upb (build_upb_peer.sh, once per machine; about a minute the first time,
    and a PyPI download: peer_support) with its adapter, as the experiment builds it."""
    args, _ = UPB_PEERS[name]
    prefix = built_peer(UPB_PEER_SCRIPT, *args, timeout=1800)
    peer = UpbPeer(name, prefix, (prefix / ".done").read_text().strip())
    return build_one(peer.target(), BuildConfig(find_toolchain("clang"), "O2"))


def build_kernel() -> Path:
    t = Target("pb_bench", (KERNEL_DIR / "pb_bench.c",), include_dirs=(KERNEL_DIR,),
               libs=("dl",))
    return build_one(t, BuildConfig(find_toolchain("clang"), "O2"))


def kernel_command(impls: dict[str, Path], manifest: Path, *extra: str) -> list[str]:
    spec = ",".join(f"{k}={v}" for k, v in impls.items())
    return [str(build_kernel()), "--param", f"manifest={manifest}", "--param", f"impls={spec}",
            *extra]
