"""pbdyn's text-format parser (pbdyn_text_decode) and `pbtool encode` against protoc 3.21's
`--encode`.

The random messages of test_lib_pbdyn_text.py (allkinds2/3.proto and Debian's protos) are
printed by `protoc --decode`; each message's text is parsed by pbdyn and encoded, and must
be the message `protoc --encode` makes of the same text (compared after parsing both with
Google's Python protobuf: maps may serialize in another order). protoc runs twice per
schema, on the Batch wrapper of the text tests. Text with unknown fields (which protoc
cannot read) must read back to the same text. Malformed text is refused with the status
and the position of the token at fault, never a crash, where protoc refuses it too."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from pbdyn_support import (
    DATA,
    DEPTH,
    FIELD_NUMBER,
    NOT_FOUND,
    OK,
    SCALE,
    SYNTAX,
    UTF8,
    allkinds_set,
    build_pbtool,
    google_classes,
    lib,
    py_dump,
    varint,
)
from test_lib_pbdyn_text import (
    BATCH_FILE,
    debian_set,
    nested_unknown_messages,
    protoc_blocks,
    random_messages,
    with_batch,
)


def protoc_encode(fds: bytes, type_name: str, text: bytes, tmp: Path,
                  check: bool = True) -> subprocess.CompletedProcess:
    (tmp / "set.pb").write_bytes(fds)
    r = subprocess.run(["protoc", f"--descriptor_set_in={tmp / 'set.pb'}",
                        f"--encode={type_name}", BATCH_FILE], input=text,
                       capture_output=True, timeout=120)
    assert not check or r.returncode == 0, r.stderr.decode(errors="replace")[-3000:]
    return r


def known_only(fds: bytes, msgs: list[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """The messages without their unknown fields (protoc does not read them back)."""
    classes = google_classes(fds)
    out = []
    for name, data in msgs:
        m = classes[name].FromString(data)
        m.DiscardUnknownFields()
        out.append((name, m.SerializePartialToString()))
    return out


def check_parse_against_protoc(fds: bytes, msgs: list[tuple[str, bytes]], tmp: Path) -> None:
    """Each message's protoc text, parsed by pbdyn, equals protoc --encode's message."""
    msgs = known_only(fds, msgs)
    types = sorted(set(n for n, _ in msgs), key=[n for n, _ in msgs].index)
    batch = b"".join(varint((types.index(n) + 1) << 3 | 2) + varint(len(d)) + d
                     for n, d in msgs)
    bfds = with_batch(fds, types)
    blocks = protoc_blocks(bfds, batch, tmp)
    # the Batch's text again, as protoc printed it: each block indented in its field
    text = b"".join(b"t%d {\n" % types.index(n)
                    + b"".join(b"  " + ln for ln in blk.splitlines(keepends=True)) + b"}\n"
                    for (n, _), blk in zip(msgs, blocks, strict=True))
    theirs = google_classes(bfds)["pbtext.Batch"].FromString(
        protoc_encode(bfds, "pbtext.Batch", text, tmp).stdout)
    expected = [m for i in range(len(types)) for m in getattr(theirs, f"t{i}")]
    assert len(expected) == len(msgs)
    classes = google_classes(fds)
    schema = lib().load_schema(fds)
    for i, ((name, _), blk, want) in enumerate(zip(msgs, blocks, expected, strict=True)):
        st, ours, where = schema.text_to_binary(name, blk)
        assert st == OK, f"#{i} {name}: status {st} at {where}:\n{blk.decode(errors='replace')}"
        got = classes[name].FromString(ours)
        assert py_dump(got) == py_dump(want), f"#{i} {name}:\n{blk.decode(errors='replace')}"


def test_parse_allkinds_random(tmp_path):
    check_parse_against_protoc(allkinds_set(), random_messages(allkinds_set(), 250 * SCALE,
                                                               seed=1, max_depth=3), tmp_path)


def test_parse_debian_protos_random(tmp_path):
    fds = debian_set()
    check_parse_against_protoc(fds, random_messages(fds, 150 * SCALE, seed=3, max_depth=3),
                               tmp_path)


@pytest.mark.parametrize("corpus", ["random", "nested"])
def test_unknown_fields_read_back(corpus):
    """Text with unknown fields (by number: varints, fixed, strings, blocks) parses to a
    message that prints the same text again: the random messages full of unknown fields,
    and the unknown values that almost parse as messages of the text tests."""
    fds = allkinds_set()
    msgs = (random_messages(fds, 150 * SCALE, seed=2, max_depth=3, unknown=0.9)
            if corpus == "random" else nested_unknown_messages())
    schema = lib().load_schema(fds)
    for i, (name, data) in enumerate(msgs):
        st, text = schema.decode_text(name, data)
        assert st == OK
        st, binary, where = schema.text_to_binary(name, text)
        assert st == OK, f"#{i} {name}: status {st} at {where}:\n{text.decode(errors='replace')}"
        st, again = schema.decode_text(name, binary)
        assert (st, again) == (OK, text), f"#{i} {name}"


ANY_TEXT = b"""name: "t"
options {
  name: "a"
  value {
    [type.googleapis.com/google.protobuf.Option] <
      name: "inner"
      value { [type.googleprod.com/google.protobuf.Int32Value] { value: -5 } }
    >
  }
}
options { value: { type_url: "raw", value: "\\001" } }
"""


def test_any_expanded(tmp_path):
    """An Any written as "[prefix/type] { fields }" packs the message as protoc does."""
    fds = debian_set()
    schema = lib().load_schema(fds)
    st, ours, where = schema.text_to_binary("google.protobuf.Type", ANY_TEXT)
    assert st == OK, where
    (tmp_path / "set.pb").write_bytes(fds)
    r = subprocess.run(["protoc", f"--descriptor_set_in={tmp_path / 'set.pb'}",
                        "--encode=google.protobuf.Type", "google/protobuf/type.proto"],
                       input=ANY_TEXT, capture_output=True, timeout=60, check=True)
    assert ours == r.stdout
    g = b"type.googleapis.com/"
    for text, status in ((b"options { value { [" + g + b"no.Such] {} } }", NOT_FOUND),
                         (b"options { value { [x.com/google.protobuf.Empty] {} } }",
                          NOT_FOUND),  # protobuf knows two prefixes only
                         (b"options { value { [" + g + b"google.protobuf.Empty] {} [" + g
                          + b"google.protobuf.Empty] {} } }", SYNTAX),
                         (b"options { value { [" + g + b"google.protobuf.Empty] { a: 1 } } }",
                          NOT_FOUND),
                         (b"options { value { [" + g + b"] {} } }", SYNTAX),
                         (b"options { [" + g + b"google.protobuf.Empty] {} }", NOT_FOUND)):
        assert schema.text_to_binary("google.protobuf.Type", text)[0] == status, text
        r = subprocess.run(["protoc", f"--descriptor_set_in={tmp_path / 'set.pb'}",
                            "--encode=google.protobuf.Type", "google/protobuf/type.proto"],
                           input=text, capture_output=True, timeout=60)
        assert r.returncode == 1, text


def test_unknown_field_forms():
    """Each printed form of an unknown field gives its wire type."""
    schema = lib().load_schema(allkinds_set())
    cases = [(b"900: 150", varint(900 << 3) + b"\x96\x01"),
             (b"900: 0x0000000a", varint(900 << 3 | 5) + b"\x0a\0\0\0"),
             (b"900: 0x000000000000000a", varint(900 << 3 | 1) + b"\x0a" + bytes(7)),
             (b"900: 0xa", varint(900 << 3) + b"\x0a"),
             (b'900: "ab" "c"', varint(900 << 3 | 2) + b"\x03abc"),
             (b"900 { 1: 2 }", varint(900 << 3 | 2) + b"\x02\x08\x02"),
             (b"900 {\n}", varint(900 << 3 | 3) + varint(900 << 3 | 4)),
             (b"900 { 5 { } }", varint(900 << 3 | 2) + b"\x02\x2b\x2c")]
    for text, want in cases:
        assert schema.text_to_binary("allkinds3.Item", text)[:2] == (OK, want), text


# ---- malformed text ---------------------------------------------------------------------

# (type, text, status, the token at fault: its first occurrence after `...` if the text
# has that marker, else its last occurrence), all refused by protoc too
MALFORMED = [
    ("allkinds3.All", b"i_int32: 1 ...i_int32: 2", SYNTAX, b"i_int32"),  # singular twice
    ("allkinds3.All", b'k_int32: 1 k_string: "x"', SYNTAX, b"k_string"),  # two of a oneof
    ("allkinds3.All", b"i_int32 1", SYNTAX, b"1"),                  # ':' missing
    ("allkinds3.All", b"i_int32: 1.0", SYNTAX, b"1.0"),             # a float for an integer
    ("allkinds3.All", b"i_int32: 2147483648", SYNTAX, b"2147483648"),  # out of range
    ("allkinds3.All", b"i_int32: -2147483649", SYNTAX, b"2147483649"),
    ("allkinds3.All", b"i_uint32: -1", SYNTAX, b"-"),               # negative unsigned
    ("allkinds3.All", b"i_uint64: 18446744073709551616", SYNTAX,
     b"18446744073709551616"),
    ("allkinds3.All", b"i_int32: 08", SYNTAX, b"08"),               # 8 in octal
    ("allkinds3.All", b"i_int32: 1a", SYNTAX, b"1a"),               # no space after a number
    ("allkinds3.All", b"i_double: 0x10", SYNTAX, b"0x"),            # hex for a double
    ("allkinds3.All", b"i_double: 1e", SYNTAX, b"1e"),              # exponent missing
    ("allkinds3.All", b"i_bool: 2", SYNTAX, b"2"),
    ("allkinds3.All", b"i_bool: yes", SYNTAX, b"yes"),
    ("allkinds3.All", b"i_string: 'abc", SYNTAX, b"'"),             # unterminated
    ("allkinds3.All", b'i_string: ..."a\nb"', SYNTAX, b'"'),       # across lines
    ("allkinds3.All", b'i_string: ..."\\q"', SYNTAX, b'"'),       # unknown escape
    ("allkinds3.All", b'i_string: ..."\\x"', SYNTAX, b'"'),
    ("allkinds3.All", b"nosuch: 1", NOT_FOUND, b"nosuch"),
    ("allkinds3.All", b"i_mood: NOSUCH", NOT_FOUND, b"NOSUCH"),
    ("allkinds2.All", b"o_color: 3", NOT_FOUND, b"3"),              # closed enum
    ("allkinds2.All", b"ogroup { g_a: 1 }", NOT_FOUND, b"ogroup"),  # a group by field name
    ("allkinds3.All", b'i_item { key: "a"', SYNTAX, b""),           # not closed: the end
    ("allkinds3.All", b'i_item { key: "a" >', SYNTAX, b">"),        # the other bracket
    ("allkinds3.All", b"i_item [ { } ]", SYNTAX, b"["),             # a list, singular field
    ("allkinds3.All", b"r_int32: [1 2]", SYNTAX, b"2"),
    ("allkinds3.All", b"r_int32: [1,]", SYNTAX, b"]"),
    ("allkinds3.All", b"i_int32: 1,...,i_int32: 2", SYNTAX, b","),  # two separators
    ("allkinds3.All", b"[ext.x]: 1", NOT_FOUND, b"["),             # extensions
    ("allkinds3.All", b"i_int32: 1\n  }", SYNTAX, b"}"),
]


def fault_offset(text: bytes, token: bytes) -> tuple[bytes, int]:
    """The text without its marker, and the offset of the token at fault."""
    if not token:
        return text, len(text)
    mark = text.find(b"...")
    text = text.replace(b"...", b"")
    return text, text.index(token, mark) if mark >= 0 else text.rindex(token)


@pytest.mark.parametrize("type_name,text,status,token", MALFORMED,
                         ids=[c[1].decode(errors="replace") for c in MALFORMED])
def test_malformed_text(type_name, text, status, token):
    text, offset = fault_offset(text, token)
    schema = lib().load_schema(allkinds_set())
    st, _, where = schema.text_to_binary(type_name, text)
    assert (st, where[0] if where else None) == (status, offset)
    line = text[:offset].count(b"\n") + 1
    column = offset - (text.rfind(b"\n", 0, offset) + 1) + 1
    assert where[1:] == (line, column)
    r = subprocess.run(["protoc", f"-I{DATA}", f"--encode={type_name}", "allkinds2.proto",
                        "allkinds3.proto"], input=text, capture_output=True, timeout=60)
    assert r.returncode == 1 and b"Failed to parse input." in r.stderr, r.stdout


def test_proto3_string_not_utf8():
    """A proto3 string that is not UTF-8 is refused, as pbdyn's decoder refuses it in a
    binary message (protoc writes it, with a warning on standard error)."""
    schema = lib().load_schema(allkinds_set())
    st, _, where = schema.text_to_binary("allkinds3.All", b'i_string: "\\377"')
    assert (st, where) == (UTF8, (10, 1, 11))
    st, binary, _ = schema.text_to_binary("allkinds2.All", b'o_string: "\\377"')
    assert (st, binary) == (OK, b"\x7a\x01\xff")


def test_escapes():
    """Every escape protoc reads gives protoc's bytes."""
    schema = lib().load_schema(allkinds_set())
    text = (b"i_bytes: '\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\?' \"\\1\\12\\123\\400\\x9\\xAbc\" "
            b"'\\u00e9\\U0001F600\\uffff'")
    st, ours, _ = schema.text_to_binary("allkinds3.All", text)
    r = subprocess.run(["protoc", f"-I{DATA}", "--encode=allkinds3.All", "allkinds3.proto"],
                       input=text, capture_output=True, timeout=60, check=True)
    assert st == OK and ours == r.stdout


@pytest.mark.parametrize("escape", [b"\\U00110000", b"\\ud801\\udc37", b"\\ud800", b"\\udfff",
                                    b"\\U0000d800"])
def test_escapes_refused_unlike_protoc(escape):
    """Unicode escapes past U+10FFFF or of surrogates (a pair too) are malformed, as
    protobuf's conformance suite requires; protoc 3.21 still accepts them."""
    schema = lib().load_schema(allkinds_set())
    st, _, where = schema.text_to_binary("allkinds3.All", b"i_bytes: '" + escape + b"'")
    assert (st, where[0]) == (SYNTAX, 9)
    r = subprocess.run(["protoc", f"-I{DATA}", "--encode=allkinds3.All", "allkinds3.proto"],
                       input=b"i_bytes: '" + escape + b"'", capture_output=True, timeout=60)
    assert r.returncode == 0


@pytest.mark.parametrize("text,offset", [(b"0: 1", 0), (b"536870912: 1", 0),
                                         (b"900 { 0: 1 }", 6)])
def test_unknown_field_number_out_of_range(text, offset):
    schema = lib().load_schema(allkinds_set())
    st, _, where = schema.text_to_binary("allkinds3.Item", text)
    assert (st, where[0]) == (FIELD_NUMBER, offset)


def test_depth_limit():
    """100 levels of messages below the top one parse, 101 do not (as the decoder)."""
    schema = lib().load_schema(allkinds_set())
    ok = b"children { " * 100 + b"}" * 100
    st, binary, _ = schema.text_to_binary("allkinds3.Item", ok)
    assert st == OK and len(binary) > 100
    assert schema.decode_dump("allkinds3.Item", binary)[0] == OK
    deeper = b"\x1a" + varint(len(binary)) + binary
    assert schema.decode_dump("allkinds3.Item", deeper)[0] == DEPTH
    st, _, where = schema.text_to_binary("allkinds3.Item", b"children { " + ok + b"}")
    assert (st, where[0]) == (DEPTH, 100 * len(b"children { ") + len(b"children "))


def test_cut_and_mutated_text_never_crashes(tmp_path):
    """Prefixes of a few messages' text, and random byte changes: a parse status, and on
    success a binary message that decodes (the fuzz harness runs this under ASan)."""
    fds = allkinds_set()
    schema = lib().load_schema(fds)
    rng = random.Random(9)
    statuses = {OK, SYNTAX, NOT_FOUND, UTF8, FIELD_NUMBER, DEPTH}
    for name, data in random_messages(fds, 8, seed=4, max_depth=2, unknown=0.3):
        st, text = schema.decode_text(name, data)
        assert st == OK
        cases = [text[:cut] for cut in range(0, len(text), max(1, len(text) // 40))]
        for _ in range(60):
            b = bytearray(text)
            for _ in range(rng.randint(1, 4)):
                b[rng.randrange(len(b))] = rng.choice(b"{}<>[]:;,\"'\\#-.0x9eEfa \n\x00\xff")
            cases.append(bytes(b))
        for case in cases:
            st, binary, _ = schema.text_to_binary(name, case)
            assert st in statuses, case
            if st == OK:
                assert schema.decode_dump(name, binary)[0] == OK, case


# ---- the command -------------------------------------------------------------------------

def pbtool(*args: str, data: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([str(build_pbtool()), *args], input=data, capture_output=True,
                          timeout=60)


def test_pbtool_encode_is_protoc_encode(tmp_path):
    """pbtool encode and protoc --encode make the same message of the same text; decode
    then encode gives back a message equal to the original."""
    fds = allkinds_set()
    (tmp_path / "set.pb").write_bytes(fds)
    classes = google_classes(fds)
    for name, data in known_only(fds, random_messages(fds, 20 * SCALE, seed=6, max_depth=3)):
        text = pbtool("decode", "-d", str(tmp_path / "set.pb"), name, data=data).stdout
        ours = pbtool("encode", "-d", str(tmp_path / "set.pb"), name, data=text)
        theirs = subprocess.run(["protoc", f"-I{DATA}", f"--encode={name}", "allkinds2.proto",
                                 "allkinds3.proto"], input=text, capture_output=True,
                                timeout=60, check=True)
        assert ours.returncode == 0, ours.stderr
        cls = classes[name]
        assert py_dump(cls.FromString(ours.stdout)) == py_dump(cls.FromString(theirs.stdout))
        assert py_dump(cls.FromString(ours.stdout)) == py_dump(cls.FromString(data))


def test_pbtool_encode_errors(tmp_path):
    (tmp_path / "set.pb").write_bytes(allkinds_set())
    r = pbtool("encode", "-d", str(tmp_path / "set.pb"), "allkinds3.Item",
               data=b"value: 1\nchildren {\n  value: x\n}\n")
    assert r.returncode == 1 and r.stdout == b""
    assert (b"Failed to parse input: malformed text or JSON at line 3 column 10 (byte 29"
            in r.stderr)
    r = pbtool("encode", "allkinds3.Item")
    assert r.returncode == 2 and b"encode needs --descriptor-set" in r.stderr
    r = pbtool("--help")
    assert b"encode --descriptor-set FILE TYPE" in r.stdout
