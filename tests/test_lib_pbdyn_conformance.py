"""The conformance testee (native/lib/pbdyn/tests/conformance_testee.c), driven two ways:

- by Google's own conformance suite: protobuf's conformance_test_runner, built from
  Debian's `protobuf` source package (native/lib/pbdyn/tests/build_conformance_runner.sh,
  once per machine; about 1-3 minutes the first time, by CPULAB_FULL=1), run with
  --enforce_recommended and no failure list against the musttail and the gcc trampoline
  builds, every decoder: every binary test must pass, and every test that asks for binary
  input printed as JSON (pbdyn_json_encode; the runner reads the JSON back with protobuf's
  own parser, and expects a serialize error for values with no JSON form), every test of
  JSON input (pbdyn_json_decode) but the one listed in
  native/lib/pbdyn/tests/conformance_failures.txt (a member that names an extension),
  and every test of the text-format suite (pbdyn_text_decode, pbdyn_text_encode) but the
  four that ask for a message's unknown fields to be left out of its text, which pbdyn
  cannot do;
- through the runner's stdin/stdout protocol by a runner written here with Google's
  protobuf: binary requests for the allkinds test schemas are answered like Google's
  parser would (the same accept/reject, an equal message back, or the JSON that
  json_format prints, as parsed values), the rest is skipped as the protocol says."""

from __future__ import annotations

import functools
import json
import random
import re
import struct
import subprocess
from pathlib import Path

import pytest

from cpulab.build import BuildConfig, build_one, find_toolchain
from pbdyn_support import (
    BUILDS,
    DATA,
    DECODERS,
    PBDYN,
    PBDYN_DIR,
    data_file,
    descriptor_set,
    fill_random,
    google_classes,
    google_json,
    google_parse,
    mutate,
)
from peer_support import peer
from test_lib_pbdyn_malformed import CASES

PROTOBUF, JSON, TEXT = 1, 2, 4


def build_testee(build: str = "musttail") -> Path:
    cc, defines = BUILDS[build]
    t = PBDYN.target(f"pbdyn_conformance_testee_{build.replace('-', '_')}",
                  (PBDYN_DIR / "tests" / "conformance_testee.c",), defines=defines)
    return build_one(t, BuildConfig(find_toolchain(cc), "O2"))


def schema():
    fds = descriptor_set(("conformance.proto", "allkinds2.proto", "allkinds3.proto"), (DATA,))
    return data_file("conformance.pb", fds), fds


class Runner:
    """The runner's side of the protocol."""

    def __init__(self, decoder: str):
        path, fds = schema()
        self.classes = google_classes(fds)
        self.Req = self.classes["conformance.ConformanceRequest"]
        self.Resp = self.classes["conformance.ConformanceResponse"]
        self.proc = subprocess.Popen([str(build_testee()), str(path)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     env={"PBDYN_TESTEE_DECODER": decoder})

    def ask(self, **fields):
        b = self.Req(**fields).SerializeToString()
        self.proc.stdin.write(struct.pack("<I", len(b)) + b)
        self.proc.stdin.flush()
        n = struct.unpack("<I", self.proc.stdout.read(4))[0]
        return self.Resp.FromString(self.proc.stdout.read(n))

    def close(self) -> int:
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)

    def check_binary(self, type_name: str, data: bytes) -> str:
        """Send one binary test; assert the answer is Google's; return the outcome."""
        cls = self.classes[type_name]
        resp = self.ask(message_type=type_name, protobuf_payload=data,
                        requested_output_format=PROTOBUF, test_category=1)
        kind, ref = google_parse(cls, data)
        result = resp.WhichOneof("result")
        if kind == "err":
            assert result == "parse_error", f"{data.hex()}: Google rejects, testee {result}"
            return "rejected"
        assert result == "protobuf_payload", f"{data.hex()}: {resp}"
        assert cls.FromString(resp.protobuf_payload) == ref
        return "accepted"

    def check_json(self, type_name: str, data: bytes) -> None:
        """Send one binary-to-JSON test; assert the JSON is json_format's."""
        resp = self.ask(message_type=type_name, protobuf_payload=data,
                        requested_output_format=JSON, test_category=1)
        kind, ref = google_parse(self.classes[type_name], data)
        result = resp.WhichOneof("result")
        if kind == "err":
            assert result == "parse_error", f"{data.hex()}: Google rejects, testee {result}"
            return
        assert result == "json_payload", f"{data.hex()}: {resp}"
        assert json.loads(resp.json_payload) == google_json(ref)[1]


@pytest.mark.parametrize("decoder", ["fast", "switch", "generic"])
def test_conformance_protocol(decoder):
    r = Runner(decoder)
    resp = r.ask(message_type="conformance.FailureSet", protobuf_payload=b"",
                 requested_output_format=PROTOBUF)
    assert resp.WhichOneof("result") == "protobuf_payload" and resp.protobuf_payload == b""
    resp = r.ask(message_type="allkinds3.All", json_payload='{"iInt32": 7, "nosuch": 1}',
                 requested_output_format=PROTOBUF)
    assert resp.WhichOneof("result") == "parse_error"
    resp = r.ask(message_type="allkinds3.All", json_payload='{"iInt32": 7, "nosuch": 1}',
                 requested_output_format=JSON, test_category=3)  # ignore unknown fields
    assert resp.json_payload == '{"iInt32":7}'
    assert r.ask(message_type="allkinds3.All", jspb_payload="[]",
                 requested_output_format=PROTOBUF).WhichOneof("result") == "skipped"
    resp = r.ask(message_type="allkinds3.All", protobuf_payload=b"",
                 requested_output_format=JSON)
    assert resp.WhichOneof("result") == "json_payload" and resp.json_payload == "{}"
    resp = r.ask(message_type="allkinds3.All", protobuf_payload=b"\x08\x07",
                 requested_output_format=TEXT)
    assert resp.WhichOneof("result") == "text_payload" and resp.text_payload == "i_int32: 7\n"
    resp = r.ask(message_type="allkinds3.All", protobuf_payload=b"\x08\x07\xa0\x06\x01",
                 requested_output_format=TEXT)  # an unknown field, not to be printed
    assert resp.WhichOneof("result") == "skipped"
    resp = r.ask(message_type="allkinds3.All", protobuf_payload=b"\x08\x07\xa0\x06\x01",
                 requested_output_format=TEXT, print_unknown_fields=True)
    assert resp.text_payload == "i_int32: 7\n100: 1\n"
    resp = r.ask(message_type="allkinds3.All", text_payload="i_int32: 7 100: 1",
                 requested_output_format=PROTOBUF)
    assert resp.protobuf_payload == b"\x08\x07\xa0\x06\x01"
    resp = r.ask(message_type="allkinds3.All", text_payload="i_int32: x",
                 requested_output_format=PROTOBUF)
    assert resp.WhichOneof("result") == "parse_error"
    assert r.ask(message_type="protobuf_test_messages.proto3.TestAllTypesProto3",
                 protobuf_payload=b"", requested_output_format=PROTOBUF
                 ).WhichOneof("result") == "skipped"
    outcomes = {"accepted": 0, "rejected": 0}
    for _name, type_name, data, _st in CASES:
        outcomes[r.check_binary(type_name, data)] += 1
    rng = random.Random(11)
    for i in range(150):
        type_name = rng.choice(["allkinds2.All", "allkinds3.All"])
        m = r.classes[type_name]()
        fill_random(m, random.Random(i), max_depth=3)
        data = m.SerializePartialToString()
        outcomes[r.check_binary(type_name, data)] += 1
        outcomes[r.check_binary(type_name, mutate(data, rng))] += 1
        if i % 5 == 0:
            r.check_json(type_name, data)
            r.check_json(type_name, mutate(data, rng))
    assert r.close() == 0
    assert outcomes["accepted"] > 150 and outcomes["rejected"] > 40


# ---- Google's conformance suite ------------------------------------------------------

RUNNER_SCRIPT = PBDYN_DIR / "tests" / "build_conformance_runner.sh"
SUITE = re.compile(r"CONFORMANCE SUITE (PASSED|FAILED): (\d+) successes, (\d+) skipped, "
                   r"(\d+) expected failures, (\d+) unexpected failures")
TESTEE = re.compile(r"conformance_testee: (\d+) binary requests \((\d+) parsed, (\d+) "
                    r"rejected, (\d+) skipped.*?; (\d+) binary-to-JSON requests \((\d+) "
                    r"printed, (\d+) rejected, (\d+) not printable, (\d+) skipped.*?; "
                    r"(\d+) text-format requests \((\d+) answered, (\d+) rejected, "
                    r"(\d+) skipped.*?; (\d+) JSON-input requests \((\d+) answered, (\d+) "
                    r"rejected, (\d+) not printable, (\d+) skipped")
# The tests pbdyn fails, each with its reason (a member that names an extension).
FAILURE_LIST = PBDYN_DIR / "tests" / "conformance_failures.txt"
FAILURES = {ln.strip() for ln in FAILURE_LIST.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}
# The text-format suite's tests that ask for a binary message's unknown fields to be left
# out of its text: pbdyn_text_encode always prints them, so the testee skips these.
TEXT_SKIPPED = {f"Recommended.Proto3.ProtobufInput.{kind}UnknownFields_Drop.TextFormatOutput"
                for kind in ("Scalar", "Message", "Group", "Repeated")}


@functools.cache
def conformance_runner() -> Path:
    """conformance_test_runner, built once per machine from Debian's source package
    (peer_support: by CPULAB_FULL=1)."""
    return peer(RUNNER_SCRIPT, timeout=1800)


@pytest.mark.full
@pytest.mark.parametrize("decoder", list(DECODERS))
@pytest.mark.parametrize("build", ["musttail", "trampoline-gcc"])
def test_conformance_suite(build, decoder):
    """Every binary test of protobuf's suite, every one that prints binary input as JSON
    and every one of JSON input passes with --enforce_recommended, but the FAILURES,
    which fail. The testee says how many of each it answered: all of the binary-and-JSON
    suite's successes must be those, none skipped. Every test of the text-format suite
    passes but the four TEXT_SKIPPED, skipped."""
    runner = conformance_runner()
    schema = runner.parent / "conformance-schema.pb"
    r = subprocess.run([str(runner), "--enforce_recommended", "--verbose", "--failure_list",
                        str(FAILURE_LIST), str(build_testee(build)),
                        str(schema)], capture_output=True, text=True, timeout=600,
                       env={"PBDYN_TESTEE_DECODER": decoder})
    out = r.stdout + r.stderr
    suites = SUITE.findall(out)
    assert r.returncode == 0 and len(suites) == 2, out[-3000:]
    assert all(s[0] == "PASSED" and s[4] == "0" for s in suites), suites
    # the runner counts a listed test as an expected failure only when it fails
    assert (int(suites[0][3]), int(suites[1][3])) == (len(FAILURES), 0), suites
    # the first suite is the binary and JSON one, whose binary tests the testee answers
    successes = int(suites[0][1])
    answered = [tuple(map(int, m)) for m in TESTEE.findall(out)]
    counts = max(answered, key=lambda c: c[0])
    binary, to_json, from_json = counts[:4], counts[4:9], counts[13:]
    assert binary[3] == 0 and to_json[4] == 0, f"requests skipped: {counts}"
    assert binary[0] + to_json[0] + from_json[0] == successes + len(FAILURES) > 1400, counts
    assert from_json[1] > 250 and from_json[2] > 50 and from_json[4] == 0, from_json
    assert binary[1] > 0 and binary[2] > 0  # both outcomes: parsed and rejected
    # printed, and refused where protobuf refuses (a Timestamp out of range, ...)
    assert to_json[1] > 200 and to_json[3] > 0, counts
    # the text-format suite: all answered but the four skips, both outcomes
    text = max(answered, key=lambda c: c[9])[9:]
    text_successes, text_skipped = int(suites[1][1]), int(suites[1][2])
    assert text[1] + text[2] == text_successes > 100 and text[1] > 0 and text[2] > 0, text
    assert text_skipped == text[3] == len(TEXT_SKIPPED), (text, suites)
    skipped = set(re.findall(r"SKIPPED, test=(\S+) ", out))
    assert skipped == TEXT_SKIPPED, skipped
