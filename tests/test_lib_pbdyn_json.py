"""pbdyn's JSON output (pbdyn_json_encode) and `pbtool decode --json` against Google's Python
protobuf (json_format.MessageToDict).

Random messages of allkinds2/3.proto and of Debian's protos (which hold every well-known
type) are serialized by Google's protobuf, decoded by pbdyn with each decoder and printed;
the JSON, parsed, must equal MessageToDict's value under each combination of the two
options. Strings (64-bit integers, enum names, base64, Timestamps, Durations, FieldMasks,
"NaN") are so compared byte for byte; numbers by value, which is exact: pbdyn prints doubles
as the shortest decimal that reads back, floats as Python does (the fewest digits from 6
up). Where Google's printer refuses a message, pbdyn must return an error status. The
well-known types are also printed from hand-written edge cases, inside a message that
holds each of them singular, repeated, as map values and in a oneof.
CPULAB_FULL=1 multiplies the message counts by 20."""

from __future__ import annotations

import json
import math
import random
import subprocess
from pathlib import Path

import pytest
from google.protobuf import descriptor_pb2

from pbdyn_support import (
    DECODERS,
    DEPTH,
    JSON,
    JSON_EMIT_DEFAULTS,
    JSON_PROTO_NAMES,
    MALFORMED,
    NOT_FOUND,
    OK,
    SCALE,
    STATUS_NAMES,
    SYSTEM_PROTO,
    UTF8,
    allkinds_set,
    build_pbtool,
    debian_proto_files,
    descriptor_set,
    fill_random,
    google_classes,
    google_json,
    lib,
    random_scalar,
)

FDP = descriptor_pb2.FieldDescriptorProto

# pbdyn's flags and the json_format options that mean the same
OPTIONS = {
    0: {},
    JSON_PROTO_NAMES: {"preserving_proto_field_name": True},
    JSON_EMIT_DEFAULTS: {"always_print_fields_with_no_presence": True},
    JSON_PROTO_NAMES | JSON_EMIT_DEFAULTS: {"preserving_proto_field_name": True,
                                            "always_print_fields_with_no_presence": True},
}
# what pbdyn may answer where Google's printer raises
REFUSALS = {JSON, NOT_FOUND, UTF8, DEPTH} | MALFORMED


def json_diff(want, got, path: str = "$") -> str | None:
    """Where two parsed JSON values differ (None if equal): numbers by value, but a bool
    is no number; NaN is a string in the mapping."""
    if isinstance(want, bool) or isinstance(got, bool):
        return None if want is got else f"{path}: {want!r} != {got!r}"
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return None if want == got else f"{path}: {want!r} != {got!r}"
    if isinstance(want, dict) and isinstance(got, dict):  # json_format's Any: an OrderedDict
        if want.keys() != got.keys():
            return f"{path}: keys differ: {sorted(want.keys() ^ got.keys())}"
        return next((d for k in want if (d := json_diff(want[k], got[k], f"{path}.{k}"))),
                    None)
    if type(want) is not type(got):
        return f"{path}: {want!r} != {got!r}"
    if isinstance(want, list):
        if len(want) != len(got):
            return f"{path}: {len(want)} != {len(got)} elements"
        return next((d for i, (w, g) in enumerate(zip(want, got, strict=True))
                     if (d := json_diff(w, g, f"{path}[{i}]"))), None)
    return None if want == got else f"{path}: {want!r} != {got!r}"


def check(schema, msg, json_flags: int = 0, decoders=DECODERS) -> str:
    """Print msg with pbdyn (each decoder) and with json_format; assert they agree. Returns
    "printed" or "refused"."""
    name = msg.DESCRIPTOR.full_name
    data = msg.SerializePartialToString()
    kind, want = google_json(msg, **OPTIONS[json_flags])
    for dname in decoders:
        st, got = schema.decode_json(name, data, DECODERS[dname], json_flags=json_flags)
        what = f"{name} ({data.hex()[:200]}) {dname} flags {json_flags}"
        if kind == "err":
            assert st in REFUSALS, f"{what}: Google refuses ({want}), pbdyn: {STATUS_NAMES[st]}"
            continue
        assert st == OK, f"{what}: pbdyn refuses: {STATUS_NAMES[st]}"
        d = json_diff(want, json.loads(got))
        assert d is None, f"{what}: {d}\npb: {got[:2000]}"
    return "printed" if kind == "ok" else "refused"


def random_check(fds: bytes, count: int, seed: int, **fill) -> dict[str, int]:
    classes = google_classes(fds)
    names = sorted(n for n, c in classes.items() if not c.DESCRIPTOR.GetOptions().map_entry)
    schema = lib().load_schema(fds)
    outcomes = {"printed": 0, "refused": 0}
    for i in range(count):
        rng = random.Random(seed * 1000 + i)
        m = classes[rng.choice(names)]()
        fill_random(m, rng, **fill)
        outcomes[check(schema, m, list(OPTIONS)[i % len(OPTIONS)])] += 1
    return outcomes


def test_allkinds_random():
    out = random_check(allkinds_set(), 250 * SCALE, seed=1, max_depth=3, unknown=0.3)
    assert out["printed"] == 250 * SCALE


def test_debian_protos_random():
    """Debian's protos: descriptor.proto, the well-known types, the compiler plugin's;
    some random Timestamps, Durations, FieldMasks and Anys have no JSON form."""
    fds = descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))
    out = random_check(fds, 250 * SCALE, seed=3, max_depth=3)
    assert out["printed"] > 150 and out["refused"] > 5, out


def test_long_integer_and_bool_runs():
    """Repeated integers and bools are written in place a chunk of elements at a time:
    runs of every such field across chunk boundaries (1,024 elements each), packed and not,
    with edge values, must print as json_format prints them."""
    classes = google_classes(allkinds_set())
    schema = lib().load_schema(allkinds_set())
    rng = random.Random(7)
    kinds = {FDP.TYPE_BOOL, FDP.TYPE_INT32, FDP.TYPE_SINT32, FDP.TYPE_SFIXED32, FDP.TYPE_UINT32,
             FDP.TYPE_FIXED32, FDP.TYPE_INT64, FDP.TYPE_SINT64, FDP.TYPE_SFIXED64,
             FDP.TYPE_UINT64, FDP.TYPE_FIXED64}
    fields = 0
    for cls in classes.values():
        for fd in cls.DESCRIPTOR.fields:
            if not fd.is_repeated or fd.type not in kinds or cls.DESCRIPTOR.GetOptions().map_entry:
                continue
            for n in (1023, 1024, 1025, 2500):
                m = cls()
                getattr(m, fd.name).extend(random_scalar(fd, rng) for _ in range(n))
                assert check(schema, m, rng.choice(list(OPTIONS))) == "printed"
            fields += 1
    assert fields >= 2 * len(kinds), fields


# ---- well-known types ------------------------------------------------------------------

WKT_FILES = ("google/protobuf/any.proto", "google/protobuf/duration.proto",
             "google/protobuf/empty.proto", "google/protobuf/field_mask.proto",
             "google/protobuf/struct.proto", "google/protobuf/timestamp.proto",
             "google/protobuf/wrappers.proto")
WRAPPERS = ["DoubleValue", "FloatValue", "Int64Value", "UInt64Value", "Int32Value",
            "UInt32Value", "BoolValue", "StringValue", "BytesValue"]
WKTS = ["Timestamp", "Duration", "FieldMask", "Struct", "Value", "ListValue", "Any",
        "Empty", *WRAPPERS]


def holder_set() -> bytes:
    """The well-known types plus pbjson.Holder: each of them as a singular, a repeated
    and a map<string, _> field, and a oneof of a Timestamp and an Int64Value."""
    fds = descriptor_pb2.FileDescriptorSet.FromString(
        descriptor_set(WKT_FILES, (SYSTEM_PROTO,)))
    f = fds.file.add(name="pbjson.proto", package="pbjson", syntax="proto3")
    f.dependency.extend(WKT_FILES)
    m = f.message_type.add(name="Holder")
    m.oneof_decl.add(name="choice")
    num = 1
    for t in WKTS:
        snake = "".join("_" + c.lower() if c.isupper() else c for c in t).lstrip("_")
        tn = ".google.protobuf." + t
        m.field.add(name=snake, number=num, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_MESSAGE,
                    type_name=tn)
        m.field.add(name="r_" + snake, number=num + 1, label=FDP.LABEL_REPEATED,
                    type=FDP.TYPE_MESSAGE, type_name=tn)
        entry = m.nested_type.add(name=f"M{t}Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_STRING)
        entry.field.add(name="value", number=2, label=FDP.LABEL_OPTIONAL,
                        type=FDP.TYPE_MESSAGE, type_name=tn)
        m.field.add(name="m_" + snake, number=num + 2, label=FDP.LABEL_REPEATED,
                    type=FDP.TYPE_MESSAGE, type_name=f".pbjson.Holder.M{t}Entry")
        num += 3
    for n, t in ((num, "Timestamp"), (num + 1, "Int64Value")):
        m.field.add(name="o_" + t.lower(), number=n, label=FDP.LABEL_OPTIONAL,
                    type=FDP.TYPE_MESSAGE, type_name=".google.protobuf." + t, oneof_index=0)
    m.field.add(name="null", number=num + 2, label=FDP.LABEL_OPTIONAL, type=FDP.TYPE_ENUM,
                type_name=".google.protobuf.NullValue", oneof_index=0)
    return fds.SerializeToString()


@pytest.fixture(scope="module")
def holder():
    fds = holder_set()
    return google_classes(fds), lib().load_schema(fds)


def print_both(holder, msg, json_flags: int = 0) -> tuple[int, str, object]:
    """(pbdyn's status, pbdyn's JSON, json_format's value or exception) of one message."""
    _, schema = holder
    st, got = schema.decode_json(msg.DESCRIPTOR.full_name, msg.SerializePartialToString(),
                                 json_flags=json_flags)
    return st, got, google_json(msg, **OPTIONS[json_flags])[1]


def ts(classes, seconds: int, nanos: int = 0):
    return classes["google.protobuf.Timestamp"](seconds=seconds, nanos=nanos)


def du(classes, seconds: int, nanos: int = 0):
    return classes["google.protobuf.Duration"](seconds=seconds, nanos=nanos)


TIMESTAMPS = [  # (seconds, nanos, pbdyn's JSON or None for PBDYN_ERR_JSON)
    (0, 0, '"1970-01-01T00:00:00Z"'),
    (-62135596800, 0, '"0001-01-01T00:00:00Z"'),
    (253402300799, 999999999, '"9999-12-31T23:59:59.999999999Z"'),
    (-62135596801, 0, None), (253402300800, 0, None), (0, -1, None), (0, 10**9, None),
    (951782400, 1000000, '"2000-02-29T00:00:00.001Z"'),
    (-1, 1000, '"1969-12-31T23:59:59.000001Z"'),
    (1, 1, '"1970-01-01T00:00:01.000000001Z"'),
    (4107542400, 120000000, '"2100-03-01T00:00:00.120Z"'),
    (-2208988800, 0, '"1900-01-01T00:00:00Z"'),
]
DURATIONS = [
    (0, 0, '"0s"'), (1, 500000000, '"1.500s"'), (-1, -500000000, '"-1.500s"'),
    (0, -1, '"-0.000000001s"'), (0, 1000, '"0.000001s"'),
    (315576000000, 999999999, '"315576000000.999999999s"'),
    (-315576000000, -999999999, '"-315576000000.999999999s"'),
    (315576000001, 0, None), (-315576000001, 0, None), (1, -1, None), (-1, 1, None),
    (0, 10**9, None), (0, -(10**9), None),
]


@pytest.mark.parametrize(("seconds", "nanos", "want"), TIMESTAMPS)
def test_timestamp(holder, seconds, nanos, want):
    classes, _ = holder
    st, got, ref = print_both(holder, ts(classes, seconds, nanos))
    if want is None:
        assert st == JSON and isinstance(ref, Exception)
    else:
        assert (st, got) == (OK, want) and json.dumps(ref) == want


@pytest.mark.parametrize(("seconds", "nanos", "want"), DURATIONS)
def test_duration(holder, seconds, nanos, want):
    classes, _ = holder
    st, got, ref = print_both(holder, du(classes, seconds, nanos))
    if want is None:
        assert st == JSON and isinstance(ref, Exception)
    else:
        assert (st, got) == (OK, want) and json.dumps(ref) == want


@pytest.mark.parametrize(("paths", "want"), [
    ([], '""'), (["foo"], '"foo"'), (["foo_bar", "baz.qux_quux_x"], '"fooBar,baz.quxQuuxX"'),
    (["a1_b"], '"a1B"'), (["fooBar"], None), (["foo__bar"], None), (["foo_"], None),
    (["foo_1"], None), (["_foo"], '"Foo"'),
])
def test_field_mask(holder, paths, want):
    classes, _ = holder
    st, got, ref = print_both(holder, classes["google.protobuf.FieldMask"](paths=paths))
    if want is None:
        assert st == JSON and isinstance(ref, Exception)
    else:
        assert (st, got) == (OK, want) and json.dumps(ref) == want


def test_field_mask_non_ascii(holder):
    """Only ASCII letters change case, as in protobuf C++ (a letter after '_' must be
    a-z): Python's json_format, Unicode-aware, prints "a_é" as "aÉ"; pbdyn refuses it."""
    classes, _ = holder
    mask = classes["google.protobuf.FieldMask"]
    st, _, ref = print_both(holder, mask(paths=["a_é"]))
    assert st == JSON and ref == "aÉ"
    assert print_both(holder, mask(paths=["é_a"]))[:2] == (OK, '"éA"')


def ascii_paths(h) -> None:
    """Make every FieldMask path of a Holder ASCII (see test_field_mask_non_ascii)."""
    masks = [h.field_mask, *h.r_field_mask, *h.m_field_mask.values()]
    for m in masks:
        paths = [p.encode("ascii", "replace").decode() for p in m.paths]
        del m.paths[:]
        m.paths.extend(paths)


def test_wrappers(holder):
    """The bare value, default values included (a wrapper's value has no presence)."""
    classes, schema = holder
    values = {"DoubleValue": [0.0, -0.0, 1.5, math.inf, math.nan, 1e300],
              "FloatValue": [0.0, 0.1, -math.inf, 1e-45],
              "Int64Value": [0, -(2**63), 2**63 - 1], "UInt64Value": [0, 2**64 - 1],
              "Int32Value": [0, -(2**31)], "UInt32Value": [0, 2**32 - 1],
              "BoolValue": [False, True], "StringValue": ["", "é\"\\\n\x01"],
              "BytesValue": [b"", b"\xff", b"\x00\x01", b"abc", b"abcd"]}
    for t, vs in values.items():
        for v in vs:
            msg = classes["google.protobuf." + t](value=v)
            st, got, ref = print_both(holder, msg)
            assert st == OK and json_diff(ref, json.loads(got)) is None, (t, v, got)
    st, got, _ = print_both(holder, classes["google.protobuf.Int64Value"](value=-5))
    assert got == '"-5"'
    st, got, _ = print_both(holder, classes["google.protobuf.BytesValue"](value=b"\xfb\xff"))
    assert got == '"+/8="'


def fewest_digits(v: float) -> str:
    """C's "%.*g" with the fewest digits that read back as v."""
    return next(t for d in range(1, 18) if float(t := f"%.{d}g" % v) == v)


def test_doubles_print_the_fewest_digits(holder):
    """Byte for byte the fewest-digit "%.*g" (pbdyn rounds one 17-digit conversion, not
    trying every count): random bit patterns, subnormals (fewer exact digits), numbers of
    few digits at every scale, uniform ones as in the packed payloads (a tenth of them
    with a 17th digit 5, a hundredth ending 50: ties that pbdyn converts again)."""
    import struct

    classes, schema = holder
    rng = random.Random(20)
    values = [5e-324, -2.2250738585072014e-308, 2.225073858507201e-308, 0.1, 1e22, 1e23,
              123456789012345.0, 1234567890123456.0, 9007199254740993.0, 1e-5, 1e15, 1e16,
              0.9999999999999999, 9.999999999999999e22, 999999999999999.9, 0.30000000000000004,
              1.7976931348623157e308, 2**-1022 * 1.5]  # 17 digits that round up with a carry
    for _ in range(3000 * SCALE):
        values += [struct.unpack("<d", rng.randbytes(8))[0],
                   struct.unpack("<d", rng.randbytes(6) + b"\0\0")[0],  # subnormal
                   rng.randint(1, 99999) * 10.0 ** rng.randint(-30, 30),
                   rng.uniform(-1e6, 1e6)]
    for v in values:
        if not math.isfinite(v):
            continue
        msg = classes["google.protobuf.DoubleValue"](value=v)
        st, got = schema.decode_json(msg.DESCRIPTOR.full_name, msg.SerializePartialToString())
        assert st == OK and got == fewest_digits(v), (v, got)


def test_struct_value_list(holder):
    classes, _ = holder
    Struct, Value = classes["google.protobuf.Struct"], classes["google.protobuf.Value"]
    s = Struct()
    s.update({"a": 1.5, "b": "x", "c": True, "d": None, "e": [1, "y", [], {}],
              "f": {"g": {"h": [None, False]}}, "": 0, "é\n": -1e-300})
    st, got, ref = print_both(holder, s)
    assert st == OK and json_diff(ref, json.loads(got)) is None
    assert print_both(holder, Value())[:2] == (OK, "null")  # no kind set: null
    for bad in (math.nan, math.inf, -math.inf):  # would read back as strings
        st, _, ref = print_both(holder, Value(number_value=bad))
        assert st == JSON and isinstance(ref, Exception)
    lv = classes["google.protobuf.ListValue"]()
    lv.values.add(string_value="a")
    lv.values.add()
    lv.values.add(list_value=classes["google.protobuf.ListValue"]())
    assert print_both(holder, lv)[:2] == (OK, '["a",null,[]]')


def any_of(classes, msg, url: str | None = None):
    a = classes["google.protobuf.Any"]()
    a.Pack(msg)
    if url is not None:
        a.type_url = url
    return a


def test_any(holder):
    classes, _ = holder
    Any, H = classes["google.protobuf.Any"], classes["pbjson.Holder"]
    h = H(timestamp=ts(classes, 5), int64_value=classes["google.protobuf.Int64Value"](value=7))
    cases = {
        "empty": (Any(), "{}"),
        "message": (any_of(classes, h), None),
        "wkt": (any_of(classes, ts(classes, 1, 5000000)),
                '{"@type":"type.googleapis.com/google.protobuf.Timestamp",'
                '"value":"1970-01-01T00:00:01.005Z"}'),
        "wrapper": (any_of(classes, classes["google.protobuf.StringValue"](value="s")), None),
        "any in any": (any_of(classes, any_of(classes, h)), None),
        "empty message": (any_of(classes, classes["google.protobuf.Empty"]()),
                          '{"@type":"type.googleapis.com/google.protobuf.Empty"}'),
        "other host": (any_of(classes, h, "example.com/x/y/pbjson.Holder"), None),
    }
    for what, (msg, want) in cases.items():
        st, got, ref = print_both(holder, msg)
        assert st == OK and json_diff(ref, json.loads(got)) is None, (what, got, ref)
        if want is not None:
            assert got == want, what
        assert list(json.loads(got))[:1] in ([], ["@type"]), what  # "@type" first
    refused = {
        "type not in the schema": (any_of(classes, h, "type.googleapis.com/no.Such"),
                                   {NOT_FOUND}),
        "no type": (Any(value=b"\x08\x01"), {NOT_FOUND}),
        "value not a message": (Any(type_url="x/pbjson.Holder", value=b"\x0a\x05"),
                                MALFORMED),
        "timestamp out of range": (any_of(classes, ts(classes, 2**40)), {JSON}),
    }
    for what, (msg, statuses) in refused.items():
        st, _, ref = print_both(holder, msg)
        assert st in statuses and isinstance(ref, Exception), (what, STATUS_NAMES[st])


def test_any_depth(holder):
    """An Any nests its packed message one level down: 100 levels print, 101 do not
    (json_format has no limit)."""
    classes, _ = holder
    e = classes["google.protobuf.Empty"]()
    for levels in range(1, 102):
        e = any_of(classes, e)
        if levels == 100:
            assert print_both(holder, e)[0] == OK
    assert print_both(holder, e)[0] == DEPTH


def test_holder_random(holder):
    """Every well-known type as a field, repeated, map value and oneof member, filled at
    random (random Timestamps, Durations, FieldMasks and Anys mostly have no JSON form) and with
    chosen in-range values; every option."""
    classes, schema = holder
    H = classes["pbjson.Holder"]
    outcomes = {"printed": 0, "refused": 0}
    for i in range(100 * SCALE):
        rng = random.Random(i)
        h = H()
        fill_random(h, rng, max_depth=3, density=0.3)
        ascii_paths(h)
        if i % 2:  # make every Timestamp and Duration printable
            for f in ("timestamp", "duration"):
                getattr(h, "r_" + f).clear()
                getattr(h, "m_" + f).clear()
                h.ClearField(f)
            h.timestamp.CopyFrom(ts(classes, rng.randint(-62135596800, 253402300799),
                                    rng.choice([0, 10**6, 10**3 * 7, 123456789])))
            h.r_duration.add(seconds=-3, nanos=-rng.randint(0, 999999999))
            h.m_timestamp["k"].CopyFrom(ts(classes, rng.randint(0, 2**32)))
            h.m_any["a"].Pack(h.timestamp)
            h.r_any.add().Pack(h.r_duration[0])
            h.r_field_mask.add(paths=["a_b", "c"])
            if rng.random() < 0.5:
                h.o_int64value.value = rng.randint(-(2**63), 2**63 - 1)
        outcomes[check(schema, h, list(OPTIONS)[i % len(OPTIONS)])] += 1
    assert outcomes["printed"] > 30 * SCALE and outcomes["refused"] > 30 * SCALE, outcomes
    st, got, _ = print_both(holder, H(null=0))
    assert (st, got) == (OK, '{"null":null}')


def test_json_names_without_descriptor_json_name():
    """A descriptor set written without json_name: pbdyn derives the names as protoc does."""
    s = descriptor_pb2.FileDescriptorSet.FromString(allkinds_set())
    for f in s.file:
        for m in f.message_type:
            for fd in m.field:
                fd.ClearField("json_name")
    fds = s.SerializeToString()
    assert fds != allkinds_set()
    out = random_check(fds, 30 * SCALE, seed=7, max_depth=2)
    assert out["printed"] == 30 * SCALE


# ---- the command ---------------------------------------------------------------------

def test_pbtool_decode_json(tmp_path: Path):
    fds = allkinds_set()
    (tmp_path / "set.pb").write_bytes(fds)
    classes = google_classes(fds)
    for i in range(20 * SCALE):
        rng = random.Random(100 + i)
        name = rng.choice(["allkinds2.All", "allkinds3.All", "allkinds3.Item"])
        m = classes[name]()
        fill_random(m, rng, max_depth=3)
        r = subprocess.run([str(build_pbtool()), "decode", "-d", str(tmp_path / "set.pb"),
                            "--json", name], input=m.SerializePartialToString(),
                           capture_output=True, timeout=60)
        assert r.returncode == 0 and r.stdout.endswith(b"\n"), r.stderr
        assert r.stdout.count(b"\n") == 1
        assert json_diff(google_json(m)[1], json.loads(r.stdout)) is None
    r = subprocess.run([str(build_pbtool()), "decode", "-d", str(tmp_path / "set.pb"),
                        "--json", "allkinds3.Item"], input=b"\x0a\x02\xc3\x28",
                       capture_output=True, timeout=60)
    assert r.returncode == 1 and b"Failed to parse input" in r.stderr
    r = subprocess.run([str(build_pbtool()), "decode-raw", "--json"], input=b"",
                       capture_output=True, timeout=60)
    assert r.returncode == 2


def test_pbtool_json_refusal(tmp_path: Path):
    """A Timestamp out of range: exit status 1, the reason on standard error."""
    fds = holder_set()
    (tmp_path / "set.pb").write_bytes(fds)
    classes = google_classes(fds)
    data = ts(classes, 2**40).SerializeToString()
    r = subprocess.run([str(build_pbtool()), "decode", "--json", "-d", str(tmp_path / "set.pb"),
                        "google.protobuf.Timestamp"], input=data, capture_output=True,
                       timeout=60)
    assert r.returncode == 1 and r.stdout == b""
    assert b"Failed to print JSON: a value with no JSON form" in r.stderr
