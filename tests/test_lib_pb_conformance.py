"""The conformance testee (native/lib/pb/tests/conformance_testee.c), driven through the
conformance runner's stdin/stdout protocol by a runner written here with Google's protobuf:
binary requests for the allkinds test schemas are answered like Google's parser would
(the same accept/reject, an equal message back), the rest is skipped as the protocol says."""

from __future__ import annotations

import random
import struct
import subprocess

import pytest

from cpulab.build import BuildConfig, build_one, find_toolchain
from cpulab.paths import build_dir
from pb_support import (
    DATA,
    PB,
    PB_DIR,
    descriptor_set,
    fill_random,
    google_classes,
    google_parse,
    mutate,
)
from test_lib_pb_malformed import CASES

PROTOBUF, JSON, TEXT = 1, 2, 4


def build_testee():
    t = PB.target("pb_conformance_testee", (PB_DIR / "tests" / "conformance_testee.c",))
    return build_one(t, BuildConfig(find_toolchain("clang"), "O2"))


def schema():
    fds = descriptor_set(("conformance.proto", "allkinds2.proto", "allkinds3.proto"), (DATA,))
    p = build_dir() / "pb-data" / "conformance.pb"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(fds)
    return p, fds


class Runner:
    """The runner's side of the protocol."""

    def __init__(self, decoder: str):
        path, fds = schema()
        self.classes = google_classes(fds)
        self.Req = self.classes["conformance.ConformanceRequest"]
        self.Resp = self.classes["conformance.ConformanceResponse"]
        self.proc = subprocess.Popen([str(build_testee()), str(path)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     env={"PB_TESTEE_DECODER": decoder})

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


@pytest.mark.parametrize("decoder", ["fast", "switch", "generic"])
def test_conformance_protocol(decoder):
    r = Runner(decoder)
    resp = r.ask(message_type="conformance.FailureSet", protobuf_payload=b"",
                 requested_output_format=PROTOBUF)
    assert resp.WhichOneof("result") == "protobuf_payload" and resp.protobuf_payload == b""
    assert r.ask(message_type="allkinds3.All", json_payload="{}",
                 requested_output_format=PROTOBUF).WhichOneof("result") == "skipped"
    assert r.ask(message_type="allkinds3.All", protobuf_payload=b"",
                 requested_output_format=JSON).WhichOneof("result") == "skipped"
    assert r.ask(message_type="allkinds3.All", protobuf_payload=b"",
                 requested_output_format=TEXT).WhichOneof("result") == "skipped"
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
    assert r.close() == 0
    assert outcomes["accepted"] > 150 and outcomes["rejected"] > 40
