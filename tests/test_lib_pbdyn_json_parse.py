"""pbdyn's JSON parser (pbdyn_json_decode) and `pbtool encode --json` against Google's Python
protobuf (json_format.Parse).

The random messages of test_lib_pbdyn_json.py (allkinds2/3.proto, Debian's protos, the
well-known-types holder) are printed by pbdyn_json_encode under each option; the JSON is
parsed by pbdyn and by json_format.Parse: both must give the message that was printed
(its unknown fields dropped: JSON does not carry them), compared after parsing pbdyn's
encoding with Google's protobuf. Hand-written JSON covers what the printer never writes
(proto names, quoted and exponent integers, URL-safe base64, null, offsets in
Timestamps, "@type" last); malformed JSON is refused with the status and position of the
token at fault, where json_format.Parse refuses it too."""

from __future__ import annotations

import random
import subprocess

import pytest
from google.protobuf import descriptor_pb2, json_format

from pbdyn_support import (
    DEPTH,
    NOT_FOUND,
    OK,
    PARSE_IGNORE_UNKNOWN,
    SCALE,
    SYNTAX,
    SYSTEM_PROTO,
    allkinds_set,
    build_pbtool,
    debian_proto_files,
    descriptor_set,
    fill_random,
    google_classes,
    is_map,
    lib,
    py_dump,
)
from test_lib_pbdyn_json import OPTIONS, ascii_paths, holder_set


def null_values(m) -> None:
    """Give every google.protobuf.Value with no kind the kind null_value, and every
    NullValue the number 0: all print as null, which reads back as null_value 0 (in
    protobuf too); and drop the one empty path of a FieldMask."""
    if m.DESCRIPTOR.full_name == "google.protobuf.Value" and m.WhichOneof("kind") is None:
        m.null_value = 0
    if m.DESCRIPTOR.full_name == "google.protobuf.FieldMask" and list(m.paths) == [""]:
        m.ClearField("paths")  # prints as "", which is no path
    for fd, v in m.ListFields():
        if fd.enum_type is not None and fd.enum_type.full_name == "google.protobuf.NullValue":
            if fd.is_repeated:  # any number prints as null, which reads back as 0
                v[:] = [0] * len(v)
            else:
                setattr(m, fd.name, 0)
        if fd.message_type is None:
            continue
        if is_map(fd):
            if fd.message_type.fields_by_number[2].message_type is not None:
                for k in v:
                    null_values(v[k])
        elif fd.is_repeated:
            for x in v:
                null_values(x)
        else:
            null_values(v)


def known_dump(cls, data: bytes) -> str:
    """The dump of the message JSON can hold: no unknown fields, no Value without kind."""
    m = cls.FromString(data)
    m.DiscardUnknownFields()
    null_values(m)
    return py_dump(m)


ZEROS = ("d:8000000000000000", "d:0000000000000000", "f:80000000", "f:00000000")


def without_zeros(dump: str) -> str:
    """A dump without its float and double zeros: Python's json module reads the "-0"
    the mapping prints for a negative zero as the integer 0, so json_format.Parse loses
    its sign, and a proto3 field of -0.0 (present) becomes 0.0 (absent)."""
    return "".join(ln for ln in dump.splitlines(keepends=True)
                   if not ln.rstrip().endswith(ZEROS))


def google_parse_json(cls, text: str):
    """json_format.Parse's message, or the exception it raises."""
    m = cls()
    try:
        json_format.Parse(text, m, descriptor_pool=cls.DESCRIPTOR.file.pool)
    except Exception as exc:  # noqa: BLE001  (any refusal)
        return exc
    return m


def round_trip(schema, msg, json_flags: int) -> str:
    """Print msg with pbdyn, parse the JSON with pbdyn and with json_format; all three
    must be the same message. Returns "parsed", or "unprintable" where pbdyn does not
    print it (no JSON form: test_lib_pbdyn_json.py checks those)."""
    cls, name = type(msg), msg.DESCRIPTOR.full_name
    data = msg.SerializePartialToString()
    st, text = schema.decode_json(name, data, json_flags=json_flags)
    if st != OK:
        return "unprintable"
    st, ours, where = schema.json_to_binary(name, text)
    assert st == OK, f"{name} flags {json_flags}: status {st} at {where}:\n{text[:2000]}"
    want = known_dump(cls, data)
    assert known_dump(cls, ours) == want, f"{name} flags {json_flags}:\n{text[:2000]}"
    theirs = google_parse_json(cls, text)
    if isinstance(theirs, Exception):
        # Python compares a float's double with FLT_MAX, so it refuses FLT_MAX as
        # printed with the fewest digits that read back (3.4028235e+38)
        assert "Float value too large" in str(theirs) and "e+38" in text, theirs
        return "parsed"
    assert without_zeros(py_dump(theirs)) == without_zeros(want), f"{name}: Google differs"
    return "parsed"


def random_round_trips(fds: bytes, count: int, seed: int, **fill) -> dict[str, int]:
    classes = google_classes(fds)
    names = sorted(n for n, c in classes.items() if not c.DESCRIPTOR.GetOptions().map_entry)
    schema = lib().load_schema(fds)
    out = {"parsed": 0, "unprintable": 0}
    for i in range(count):
        rng = random.Random(seed * 1000 + i)
        m = classes[rng.choice(names)]()
        fill_random(m, rng, **fill)
        out[round_trip(schema, m, list(OPTIONS)[i % len(OPTIONS)])] += 1
    return out


def test_allkinds_round_trip():
    out = random_round_trips(allkinds_set(), 250 * SCALE, seed=1, max_depth=3, unknown=0.3)
    assert out["parsed"] == 250 * SCALE, out


def test_debian_protos_round_trip():
    fds = descriptor_set(tuple(debian_proto_files()), (SYSTEM_PROTO,))
    out = random_round_trips(fds, 250 * SCALE, seed=3, max_depth=3)
    assert out["parsed"] > 150, out


def test_well_known_types_round_trip():
    """Every well-known type as a field, repeated, map value and oneof member."""
    fds = holder_set()
    classes = google_classes(fds)
    schema = lib().load_schema(fds)
    H = classes["pbjson.Holder"]
    out = {"parsed": 0, "unprintable": 0}
    for i in range(100 * SCALE):
        rng = random.Random(i)
        h = H()
        fill_random(h, rng, max_depth=3, density=0.3)
        ascii_paths(h)
        for f in ("timestamp", "duration", "any"):  # mostly out of range at random
            getattr(h, "r_" + f).clear()
            getattr(h, "m_" + f).clear()
            h.ClearField(f)
        h.timestamp.seconds = rng.randint(-62135596800, 253402300799)
        h.timestamp.nanos = rng.choice([0, 10**6, 7000, 123456789])
        h.r_duration.add(seconds=-3, nanos=-rng.randint(0, 999999999))
        h.m_any["a"].Pack(h.timestamp)
        h.r_any.add().Pack(h.r_duration[0])
        h.r_any.add().Pack(classes["google.protobuf.Struct"](
            fields={"x": classes["google.protobuf.Value"](number_value=1.5)}))
        out[round_trip(schema, h, list(OPTIONS)[i % len(OPTIONS)])] += 1
    assert out["parsed"] > 60 * SCALE, out  # the rest: values with no JSON form (NaN in a Value)


# ---- what the printer never writes --------------------------------------------------

ACCEPTED = [  # (type, JSON) that pbdyn must read as json_format.Parse does
    ("allkinds3.All", '{"i_int32": 1, "iUint32": "7", "iInt64": 12, "iUint64": "1e3"}'),
    ("allkinds3.All", '{"iInt32": 1.0e2, "iSint32": -2147483648, '
                      '"iFixed64": "18446744073709551615"}'),
    ("allkinds3.All", '{"iDouble": "1.5", "iFloat": "-Infinity", "rDouble": [1, "NaN", -0.0]}'),
    ("allkinds3.All", '{"iBytes": "-_-_", "rBytes": ["AQ", "AQI=", "", "+/+/"]}'),
    ("allkinds3.All", '{"iMood": 2, "rMood": ["HAPPY", 7, -1], "oMood": "MINUS"}'),
    ("allkinds3.All", '{"iItem": null, "rInt32": null, "kInt32": null, "kString": "x"}'),
    ("allkinds3.All", '{"iString": "\\ud83d\\ude00 \\u00e9\\n\\/", "oString": ""}'),
    ("allkinds3.All", ' {\n"mStringInt32": {"a": 1, "b": 2}, "mBoolFloat": {"true": 1}, '
                      '"mUint64Mood": {"18446744073709551615": "SAD"}, '
                      '"mSfixed32Bytes": {"-1": "AA"}} '),
    ("allkinds2.All", '{"oColor": "HUGE", "oInt64": "-9223372036854775808", "oBool": false}'),
    ("pbjson.Holder", '{"timestamp": "1970-01-01T01:00:00.5+01:00", '
                      '"duration": "-0.000000001s", "fieldMask": "a.bC,d"}'),
    ("pbjson.Holder", '{"any": {"iString": "x", "@type": "type.googleapis.com/allkinds3.All"}}'),
    ("pbjson.Holder", '{"any": {"value": "1s", "@type": "x/google.protobuf.Duration"}}'),
    ("pbjson.Holder", '{"value": null, "rValue": [null, 1, "s", true, {"a": []}, [{}]], '
                      '"struct": {"k": {"n": null}}, "listValue": [], "empty": {}}'),
    ("pbjson.Holder", '{"int64Value": "5", "rBoolValue": [true, false], "bytesValue": "AA=="}'),
    ("pbjson.Holder", '{"null": null}'),
]


@pytest.fixture(scope="module")
def mixed():
    """allkinds and the holder in one schema (an Any may pack allkinds3.All)."""
    s = descriptor_pb2.FileDescriptorSet.FromString(allkinds_set())
    h = descriptor_pb2.FileDescriptorSet.FromString(holder_set())
    names = {f.name for f in s.file}
    s.file.extend(f for f in h.file if f.name not in names)
    fds = s.SerializeToString()
    return google_classes(fds), lib().load_schema(fds)


@pytest.mark.parametrize("type_name,text", ACCEPTED, ids=[t for _, t in ACCEPTED])
def test_accepted(mixed, type_name, text):
    classes, schema = mixed
    st, ours, where = schema.json_to_binary(type_name, text)
    assert st == OK, (st, where)
    theirs = google_parse_json(classes[type_name], text)
    assert not isinstance(theirs, Exception), theirs
    assert py_dump(classes[type_name].FromString(ours)) == py_dump(theirs)


# (type, JSON, status, the token at fault: its last occurrence, or its first after `...`).
# json_format.Parse refuses each too, but where PYTHON_ACCEPTS says why it does not.
REFUSED = [
    ("allkinds3.All", '{"iInt32": 1, ..."i_int32": 2}', SYNTAX, '"i_int32"'),  # twice
    ("allkinds3.All", '{"kInt32": 1, "kString": "x"}', SYNTAX, '"kString"'),  # oneof
    ("allkinds3.All", '{"iInt32": 1.5}', SYNTAX, "1.5"),
    ("allkinds3.All", '{"iInt32": 2147483648}', SYNTAX, "2147483648"),
    ("allkinds3.All", '{"iUint32": -1}', SYNTAX, "-1"),
    ("allkinds3.All", '{"iInt64": "9223372036854775808"}', SYNTAX, '"9223372036854775808"'),
    ("allkinds3.All", '{"iInt32": 01}', SYNTAX, "01"),
    ("allkinds3.All", '{"iInt32": "0x10"}', SYNTAX, '"0x10"'),
    ("allkinds3.All", '{"iInt32": " 1"}', SYNTAX, '" 1"'),
    ("allkinds3.All", '{"iFloat": 3.5e38}', SYNTAX, "3.5e38"),
    ("allkinds3.All", '{"iDouble": 1e999}', SYNTAX, "1e999"),
    ("allkinds3.All", '{"iBool": "true"}', SYNTAX, '"true"'),
    ("allkinds3.All", '{"iBool": 1}', SYNTAX, "1"),
    ("allkinds3.All", '{"iString": 1}', SYNTAX, "1"),
    ("allkinds3.All", '{"iString": ..."\\ud800"}', SYNTAX, '"'),
    ("allkinds3.All", '{"iString": ..."a\tb"}', SYNTAX, '"'),
    ("allkinds3.All", '{"iBytes": "A"}', SYNTAX, '"A"'),
    ("allkinds3.All", '{"iBytes": "AB=C"}', SYNTAX, '"AB=C"'),
    ("allkinds3.All", '{"iMood": "NOSUCH"}', NOT_FOUND, '"NOSUCH"'),
    ("allkinds2.All", '{"oColor": 3}', NOT_FOUND, "3"),
    ("allkinds3.All", '{"nosuch": 1}', NOT_FOUND, '"nosuch"'),
    ("allkinds3.All", '{"rInt32": [1, null]}', SYNTAX, "null"),
    ("allkinds3.All", '{"rInt32": 1}', SYNTAX, "1"),
    ("allkinds3.All", '{"mBoolFloat": {"1": 1}}', SYNTAX, '"1"'),
    ("allkinds3.All", '{"mInt32Item": {"1.5": {}}}', SYNTAX, '"1.5"'),
    ("allkinds3.All", '{"iInt32": 1,}', SYNTAX, "}"),
    ("allkinds3.All", '{"iInt32": 1} x', SYNTAX, "x"),
    ("allkinds3.All", '{"iInt32": tru}', SYNTAX, "tru"),
    ("allkinds3.All", '1', SYNTAX, "1"),
    ("allkinds3.All", '', SYNTAX, ""),
    ("pbjson.Holder", '{"timestamp": "1970-01-01t00:00:00Z"}', SYNTAX, '"1970'),
    ("pbjson.Holder", '{"timestamp": "10000-01-01T00:00:00Z"}', SYNTAX, '"10000'),
    ("pbjson.Holder", '{"timestamp": "1970-02-30T00:00:00Z"}', SYNTAX, '"1970'),
    ("pbjson.Holder", '{"duration": "1.0000000001s"}', SYNTAX, '"1.'),
    ("pbjson.Holder", '{"duration": "315576000001s"}', SYNTAX, '"3'),
    ("pbjson.Holder", '{"fieldMask": "a_b"}', SYNTAX, '"a_b"'),
    ("pbjson.Holder", '{"any": {"iString": "x"}}', SYNTAX, '"iString"'),
    ("pbjson.Holder", '{"any": {"@type": "x/no.Such"}}', NOT_FOUND, "{"),
    ("pbjson.Holder", '{"any": {"@type": "x/google.protobuf.Empty", "@type": ..."x"}}',
     SYNTAX, '"x"'),
    ("pbjson.Holder", '{"value": {"a": ...}}', SYNTAX, "}"),
]
PYTHON_ACCEPTS = {
    # a field given twice, by its JSON and its proto name: the conformance suite
    # (FieldNameDuplicateDifferentCasing) requires a refusal, Python keeps the last
    '{"iInt32": 1, "i_int32": 2}',
    # Python's base64 decoder skips what is not base64 ("=" inside the text)
    '{"iBytes": "AB=C"}',
    # Python truncates a tenth fractional digit; the mapping allows nine
    '{"duration": "1.0000000001s"}',
}


def fault(text: str, token: str) -> tuple[str, int]:
    if not token:
        return text, len(text)
    mark = text.find("...")
    text = text.replace("...", "")
    return text, text.index(token, mark) if mark >= 0 else text.rindex(token)


@pytest.mark.parametrize("type_name,text,status,token", REFUSED,
                         ids=[t for _, t, _, _ in REFUSED])
def test_refused(mixed, type_name, text, status, token):
    classes, schema = mixed
    text, offset = fault(text, token)
    st, _, where = schema.json_to_binary(type_name, text)
    assert (st, where[0] if where else None) == (status, offset)
    line = text[:offset].count("\n") + 1
    assert where[1] == line and where[2] == offset - (text.rfind("\n", 0, offset) + 1) + 1
    refused = isinstance(google_parse_json(classes[type_name], text), Exception)
    assert refused != (text in PYTHON_ACCEPTS)


def test_ignore_unknown(mixed):
    classes, schema = mixed
    text = ('{"nosuch": {"a": [1, {"b": null}]}, "iMood": "NOSUCH", "rMood": ["X", "SAD"], '
            '"iInt32": 4}')
    assert schema.json_to_binary("allkinds3.All", text)[0] == NOT_FOUND
    st, ours, _ = schema.json_to_binary("allkinds3.All", text, PARSE_IGNORE_UNKNOWN)
    theirs = classes["allkinds3.All"]()
    json_format.Parse(text, theirs, ignore_unknown_fields=True)
    assert st == OK and py_dump(classes["allkinds3.All"].FromString(ours)) == py_dump(theirs)


def test_depth_limit(mixed):
    _, schema = mixed
    ok = '{"iChild": ' * 100 + "{}" + "}" * 100
    assert schema.json_to_binary("allkinds3.All", ok)[0] == OK
    deeper = '{"iChild": ' + ok + "}"
    st, _, where = schema.json_to_binary("allkinds3.All", deeper)
    assert (st, where[0]) == (DEPTH, 101 * len('{"iChild": '))
    st, _, _ = schema.json_to_binary("allkinds3.All",
                                     '{"nosuch": ' + "[" * 200 + "]" * 200 + "}",
                                     PARSE_IGNORE_UNKNOWN)
    assert st == DEPTH  # skipped values are nested too


def test_pbtool_encode_json(tmp_path):
    fds = allkinds_set()
    (tmp_path / "set.pb").write_bytes(fds)
    classes = google_classes(fds)
    m = classes["allkinds3.All"]()
    fill_random(m, random.Random(5), max_depth=2, unknown=0)
    text = json_format.MessageToJson(m)
    r = subprocess.run([str(build_pbtool()), "encode", "-d", str(tmp_path / "set.pb"), "--json",
                        "allkinds3.All"], input=text.encode(), capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert py_dump(classes["allkinds3.All"].FromString(r.stdout)) == py_dump(m)
    r = subprocess.run([str(build_pbtool()), "encode", "-d", str(tmp_path / "set.pb"), "--json",
                        "allkinds3.All"], input=b'{\n  "iInt32": "x"\n}', capture_output=True,
                       timeout=60)
    assert r.returncode == 1
    assert b"malformed text or JSON at line 2 column 13 (byte 14 of allkinds3.All)" in r.stderr
