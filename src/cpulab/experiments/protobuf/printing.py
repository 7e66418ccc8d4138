"""The protobuf experiment's printing figures: how fast pbdyn prints an already decoded
message as proto3 JSON (pbdyn_json_encode) and in the text format (pbdyn_text_encode),
beside native upb's JSON encoder (upb_JsonEncode) and protobuf C++'s
util::MessageToJsonString and TextFormat::PrintToString, each with its default options.

One kernel process per optimisation level (native/kernels/protobuf/pb_print.c) loads the
decoding kernel's adapters, decodes every payload once with each, checks that their
outputs are the same (JSON as values: upb and C++ spell some numbers and escapes
differently; text byte for byte) and times the prints interleaved. Cases are named
"<payload>/<impl label>/<json|text>"; their time is per byte of the binary payload, as
the decoding cases', so that ns per message reads the same way.

Who prints what: every pbdyn build both formats; upb JSON only (its text printer is a
debug format, not protobuf's), and only a upb whose sources carry upb/json (grpcio's
and the repository's; the protobuf sdist's has none); protobuf C++ both, from its
default-parser build (printing goes through libprotobuf's reflection, whatever the
generated parser). The quick profile prints with the clang builds of pbdyn's tail-call
build and of the peers only: one case per implementation, format and payload.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cpulab.build import Target
from cpulab.claims import ClaimSpec
from cpulab.context import Context
from cpulab.experiments.protobuf.upb_native import UpbPeer
from cpulab.measure.metrics import Metric, case_metrics
from cpulab.measure.schedule import Outcome, Program
from cpulab.paths import KERNELS
from cpulab.results import Case, CaseConditions

DIR = KERNELS / "protobuf"
FORMATS = ("json", "text")
# The implementations that print (Impl.name), and in which formats.
PRINTERS = {"pb-tailcall": FORMATS, "pb-trampoline": FORMATS, "upb-fasttable": ("json",),
            "upb-fasttable-git": ("json",), "upb-generic": ("json",),
            "cpp-default": FORMATS}
OURS_JSON, OURS_TEXT = "pb-tailcall json", "pb-tailcall text"
JSON_PEERS = ("upb-fasttable json", "upb-fasttable-git json", "upb-generic json",
              "cpp-default json")
TEXT_PEER = "cpp-default text"
VS_JSON = 1.0  # x the faster of upb's and C++'s JSON printers, every payload
VS_TEXT = 1.0  # x C++'s text printer, every payload

CLAIMS = (
    ClaimSpec("faster", OURS_JSON, than=JSON_PEERS, by=VS_JSON, metric="time",
              fastest_build=True,
              text=f"(g) pbdyn prints a decoded message as proto3 JSON (pbdyn_json_encode) "
                   f"at least {VS_JSON:g}x as fast as the faster of native upb's "
                   "upb_JsonEncode and protobuf C++'s MessageToJsonString on every payload, "
                   "the three outputs first checked to be the same JSON",
              seed="not in S14: the speed pbdyn's JSON output was promised, that of the "
                   "fastest peer"),
    ClaimSpec("faster", OURS_TEXT, than=TEXT_PEER, by=VS_TEXT, metric="time",
              fastest_build=True,
              text=f"(h) pbdyn prints the text format (pbdyn_text_encode) at least "
                   f"{VS_TEXT:g}x as fast as protobuf C++'s TextFormat::PrintToString on "
                   "every payload, byte-equal outputs",
              seed="not in S14: protoc --decode's printer, the one peer of the text format"),
)


def kernel_target() -> Target:
    return Target("pb_print", (DIR / "pb_print.c",), include_dirs=(DIR,), libs=("dl",))


def upb_without_json(peer: UpbPeer) -> str | None:
    """Why a built upb cannot print JSON, or None when it can."""
    if (peer.prefix / "include" / "upb" / "json" / "encode.h").exists():
        return None
    return f"{peer.name} prints no JSON: its sources ({peer.source}) carry no upb/json"


def printers(ctx: Context, impls: list, upbs: list[UpbPeer]) -> list:
    """The decoding kernel's implementations (experiment.Impl) that print, noting the upbs
    that cannot; --quick keeps the clang builds of pbdyn's tail-call build and the peers
    (the claims' side), one case per implementation, format and payload."""
    cannot = {p.name: why for p in upbs if (why := upb_without_json(p))}
    for why in cannot.values():
        ctx.note(why)
    quick = ctx.profile.quick
    return [i for i in impls if i.name in PRINTERS and i.name not in cannot
            and not (quick and (i.config.toolchain.family != "clang"
                                or i.name == "pb-trampoline"))]


def programs(ctx: Context, kernel: Path, built: dict, impls: list, manifest: Path
             ) -> list[Program]:
    """One pb_print process per optimisation level, all compilers' builds side by side
    in it (`built`: Impl -> its adapter's Artifact)."""
    out = []
    for opt in dict.fromkeys(i.config.opt for i in impls):
        spec = ",".join(f"{i.label}={built[i].path}" for i in impls if i.config.opt == opt)
        out.append(Program([
            str(kernel), "--param", f"manifest={manifest}", "--param", f"impls={spec}",
            *ctx.profile.harness_args()], params={"opt": opt, "printed": ",".join(FORMATS)}))
    return out


def cases(program: Program, outcome: Outcome, impls: dict, sizes: dict[str, int],
          per_message: Callable[[Metric, int], dict[str, Metric]]) -> list[Case]:
    """The cases of one pb_print process, named "<payload>/<impl label>/<format>", with
    the figures per message that `per_message` derives; a process that failed (outputs
    that differ, a print that failed) fails every case it would have had."""
    opt = program.params["opt"]
    if outcome.error or outcome.output is None:
        why = outcome.error or "no output"
        return [Case(f"{i.name} {f}", i.config.as_dict(), {"payload": p}, error=why)
                for i in impls.values() if i.config.opt == opt
                for f in PRINTERS[i.name] for p in sizes]
    out = []
    conditions = CaseConditions.of(outcome.processes)
    for name in outcome.output.cases():
        payload, label, fmt = name.split("/")
        impl = impls.get(label)
        metrics, unavailable = case_metrics(outcome.output, name)
        metrics.update(per_message(metrics["time"], sizes[payload]))
        out.append(Case(f"{impl.name if impl else label} {fmt}",
                        impl.config.as_dict() if impl else None,
                        {"payload": payload, "bytes": sizes[payload]}, metrics, unavailable,
                        conditions=conditions))
    return out
