"""Experiment `protobuf` (seed row S14): does a tail-call protobuf parser in C reach 2 GB/s,
and how far ahead of Google's parsers is it on this machine?

Eight payloads (cpulab.experiments.protobuf.payloads): a FileDescriptorSet of every .proto
in Debian's protobuf packages, that of descriptor.proto alone (the seed's input), many
small varints, string-heavy, a mix of packed runs, and three packed-only ones (varints of
mixed magnitudes with negative int32, fixed-width, bools). Decoded side by side in one run:

- ours (native/lib/pb): the musttail build (clang), the portable trampoline build (gcc,
  and clang with -DPB_TAILCALL=0), each with its tail-call field functions (`fast`), the
  plain `switch` loop over the same tables (the seed's "before"), and in the full
  profile the generic fallback (`DECODERS`); strings copied or aliased into the input; a
  fresh arena per message or one reused arena;
- upb compiled natively (upb_native.py): its generic decoder and its fasttable parsers,
  mini-tables built at run time from the same FileDescriptorSet, copy and alias modes,
  fresh and reused arenas;
- protobuf C++ (Debian's libprotobuf-dev): generated code, `ParseFromArray` into a fresh
  Arena, a reused one, or one heap message Clear()ed before each parse; protoc's default
  parser and its table-driven parser (`--cpp_opt=experimental_tail_call_table_mode=always`,
  clang builds);
- upb through the PyPI `protobuf` package, timed from Python (cpulab.experiments.
  protobuf/upb.py): its figures include the Python call and object creation, shown beside
  native upb's.

The C implementations run in one kernel process per optimisation level
(native/kernels/protobuf/pb_bench.c, which first checks that all of them read every
payload the same way); that process and the Python one are interleaved. Per case:
throughput in GB/s (GB = 10^9 bytes) and ns per message (clock), ns and TSC ticks per
byte; and from the machine code, which fast-path functions have a stack frame (asm).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.asm.mix import has_frame
from cpulab.build import Artifact, BuildConfig, Target, library
from cpulab.context import Context
from cpulab.experiments.base import Experiment
from cpulab.experiments.protobuf import payloads
from cpulab.experiments.protobuf.upb import LABEL as UPB_LABEL
from cpulab.experiments.protobuf.upb_native import UpbPeer, upb_peers
from cpulab.measure.metrics import Metric, case_metrics
from cpulab.measure.schedule import Outcome, Program
from cpulab.measure.stats import Ratio, ratio_to
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, SeedTable, Verdict
from cpulab.results.ratios import median_ratio
from cpulab.results.tally import Tally

DIR = KERNELS / "protobuf"
PB = library("pb")
TARGET_GBS = 2.0  # GB/s on descriptor.proto, copy mode
VS_CPP = 1.3  # x the best protobuf C++ configuration, every payload
VS_UPB = 2.5  # x native upb's generic decoder, every payload and mode
VS_UPB_FAST = 2.0  # x upb's fasttable: S14's "twice the previous best"
VS_SWITCH = 1.5  # x our own switch loop, every payload
TAIL_CALL_OPT = "experimental_tail_call_table_mode=always"
# pb's decoders per profile. Every case adds ~0.1 s to each kernel process (warm-up,
# calibration and 3 reps of 20 ms): the default profile's 6 processes of ~370 cases took
# 163 s here. No claim reads the generic fallback, a third of pb's cases: it is the
# full profile's.
DECODERS = {"quick": "fast,switch", "default": "fast,switch", "full": "fast,switch,generic"}
LIBPROTOBUF = Path("/usr/lib/x86_64-linux-gnu/libprotobuf.so")
# Fast-path functions of one field (the seed's "handful of instructions"): every singular
# and oneof function except those that call out of line (sub-message, UTF-8 check).
_SINGLE_FIELD = re.compile(r"pb_fast_(?!message_|string_utf8_)\w+_(singular|oneof)_tag[12]$")


@dataclass(frozen=True)
class Impl:
    """One implementation as the kernel loads it: `name` x build config."""

    name: str  # pb-tailcall, pb-trampoline, upb-generic, upb-fasttable, cpp-default, cpp-tailcall
    config: BuildConfig
    target: Target

    @property
    def label(self) -> str:
        """Its label in the kernel's case names (no `/`, `,` or `=`)."""
        return f"{self.name}.{self.config.toolchain.name}.{self.config.opt}"


class Protobuf(Experiment):
    name = "protobuf"
    seed_row = "S14"
    title = "A tail-call protobuf parser in C at 2+ GB/s"
    summary = (
        "Decode throughput (GB/s, ns per message) of the pb library's musttail, trampoline "
        "and switch-loop decoders beside native upb (generic and fasttable), protobuf C++ "
        "(default and table-driven parsers; fresh arena, reused arena, reused heap message) "
        "and upb through Python, on eight payloads, in one run; and whether the fast-path "
        "functions compile without prologue, epilogue or stack use."
    )
    compilers = ("gcc", "clang")
    opts = ("O2",)
    table_metrics = ("throughput", "ns/message", "time", "tsc")

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S14: upb's tail-call parser (clang musttail), as reported",
            ["parser", "payload", "throughput", "note"],
            [
                ["upb, musttail field functions", "descriptor.proto (FileDescriptorSet)",
                 "> 2 GB/s", "over twice the best previous parser"],
                ["upb, same code without guaranteed tail calls", "-",
                 "\"catastrophically pessimised\"", "preserve_most on the fallback: no gain"],
                ["each fast-path function", "-", "-",
                 "a handful of instructions, no prologue, epilogue or stack use"],
            ],
        )]

    def pb_target(self, tailcall: bool) -> Target:
        # PB_TAILCALL=2 makes a compiler without musttail a build error, not a silent
        # trampoline: a `pb-tailcall` figure is always the musttail code.
        return PB.target(
            "pbbench-tailcall" if tailcall else "pbbench-trampoline", (DIR / "pb_adapter.c",),
            defines=("PB_TAILCALL=2",) if tailcall else ("PB_TAILCALL=0",),
            include_dirs=(DIR,), cflags=("-Wl,-Bsymbolic",), shared=True)

    def cpp_target(self, flavour: str, config: BuildConfig) -> Target:
        """protobuf C++ generated code (in a package of its own per build) + adapter."""
        package = f"pbpeer_{flavour}_{config.toolchain.name.replace('-', '')}_{config.opt}"
        gen = payloads.generate_cpp(package, TAIL_CALL_OPT if flavour == "tailcall" else None)
        what = "table-driven parser" if flavour == "tailcall" else "default parser"
        return Target(
            f"pbpeer-{flavour}", (*sorted(gen.glob("*.pb.cc")), DIR / "cpp_adapter.cc"),
            defines=(f'PBPEER_PACKAGE="{package}"', f'PBPEER_FLAVOUR="{what}"'),
            include_dirs=(gen, DIR), cflags=("-Wl,-Bsymbolic",), libs=("protobuf",),
            shared=True, meta={"generated": str(gen)})

    def kernel_target(self) -> Target:
        return Target("pb_bench", (DIR / "pb_bench.c",), include_dirs=(DIR,), libs=("dl",))

    def targets(self) -> dict[str, Target]:
        return {"pb-tailcall": self.pb_target(True), "pb-trampoline": self.pb_target(False)}

    def hot_symbols(self, variant: str) -> list[str]:
        return ["pb_fast_*"]

    # ---- running ---------------------------------------------------------------------

    def impls(self, ctx: Context, upbs: Iterable[UpbPeer] = ()) -> tuple[list[Impl], list[Case]]:
        """What to load into the kernel for each build config; C++ code generation that
        failed becomes a failed case. Native upb peers are built with clang (fasttable
        needs musttail), so they join the clang configs only."""
        out, failed = [], []
        for cfg in ctx.configs:
            clang = cfg.toolchain.family == "clang"
            if clang:
                out.append(Impl("pb-tailcall", cfg, self.pb_target(True)))
            out.append(Impl("pb-trampoline", cfg, self.pb_target(False)))
            if clang:
                out += [Impl(peer.name, cfg, peer.target()) for peer in upbs]
            for flavour in ("default", "tailcall") if clang else ("default",):
                try:
                    out.append(Impl(f"cpp-{flavour}", cfg, self.cpp_target(flavour, cfg)))
                except payloads.PayloadError as e:
                    failed.append(Case(f"cpp-{flavour}", cfg.as_dict(), error=str(e)))
        return out, failed

    def run(self, ctx: Context) -> list[Case]:
        try:
            manifest = payloads.make_bench_data()
        except payloads.PayloadError as e:
            ctx.note(f"no payloads: {e}")
            return [Case("payloads", None, error=str(e))]
        _, files = payloads.read_manifest(manifest)
        sizes = {name: path.stat().st_size for name, (_, path) in files.items()}
        upbs = upb_peers(ctx) if any(c.toolchain.family == "clang" for c in ctx.configs) else []
        if not upbs:
            ctx.note("no native upb measured: the verdicts against upb are unmeasurable")
        impls, cases = self.impls(ctx, upbs)
        kernel_cfg = next((c for c in ctx.configs if c.toolchain.family == "clang"),
                          ctx.configs[0])
        arts = ctx.build([(self.kernel_target(), kernel_cfg),
                          *((i.target, i.config) for i in impls)])
        kernel, built = arts[0], dict(zip(impls, arts[1:], strict=True))
        for impl, art in built.items():
            if not art.ok:
                cases += [Case(impl.name, impl.config.as_dict(), {"payload": p},
                               error=f"build failed: {art.error}") for p in sizes]
        if not kernel.ok:
            return cases + [Case("pb_bench", kernel_cfg.as_dict(),
                                 error=f"kernel build failed: {kernel.error}")]
        loaded = [i for i in impls if built[i].ok]
        programs = self.programs(ctx, kernel, built, loaded, manifest)
        outcomes = ctx.measure(programs)
        by_label = {i.label: i for i in loaded}
        for key, outcome in outcomes.items():
            cases += _cases(key, outcome, by_label, sizes)
        return cases

    def programs(self, ctx: Context, kernel: Artifact, built: dict[Impl, Artifact],
                 loaded: list[Impl], manifest: Path) -> list[Program]:
        """One kernel process per optimisation level (all compilers' builds side by
        side in it) and the Python process for upb."""
        decoders = DECODERS[ctx.profile.name]
        programs = []
        for opt in dict.fromkeys(i.config.opt for i in loaded):
            spec = ",".join(f"{i.label}={built[i].path}" for i in loaded if i.config.opt == opt)
            programs.append(Program([
                str(kernel.path), "--param", f"manifest={manifest}", "--param", f"impls={spec}",
                "--param", f"decoders={decoders}", *ctx.profile.harness_args()],
                key=f"pb_bench|{opt}"))
        programs.append(Program([
            sys.executable, "-m", "cpulab.experiments.protobuf.upb", "--manifest",
            str(manifest), "--reps", str(ctx.profile.reps),
            "--target-ms", str(ctx.profile.target_ms)], key=UPB_LABEL))
        return programs

    # ---- evidence from the machine code ------------------------------------------------

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        ev: dict = {"fast-path frames": {}, "protobuf C++ parsers": {}}
        pairs = [(self.pb_target(c.toolchain.family == "clang"), c) for c in ctx.configs]
        for art in ctx.build(pairs):  # already built by run(): a cache hit
            label = f"{art.target.name.removeprefix('pbbench-')} {art.config.label}"
            ev["fast-path frames"][label] = fast_path_frames(art.path) if art.ok else \
                {"error": f"build failed: {art.error}"}
        impls, _ = self.impls(ctx)
        for i in impls:
            if "generated" in i.target.meta:
                ev["protobuf C++ parsers"][i.label] = \
                    generated_parsers(Path(i.target.meta["generated"]))
        ev["protobuf C++ parsers"]["libprotobuf"] = libprotobuf_parser()
        try:
            ev["protobuf C++ parsers"]["protoc"] = payloads.protoc_version().strip()
        except payloads.PayloadError as e:
            ev["protobuf C++ parsers"]["protoc"] = str(e)
        return Evidence(facts=ev)

    # ---- verdicts (pure) -------------------------------------------------------------

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        ok = [c for c in cases if not c.error]
        return [_two_gbs(ok), _beats_cpp(ok, evidence.facts.get("protobuf C++ parsers", {})),
                _beats_upb(ok), _beats_upb_fasttable(ok), _beats_switch(ok),
                _frameless(evidence.facts.get("fast-path frames", {}))]


# ---- turning the programs' output into cases ----------------------------------------------

def _cases(key: str, outcome: Outcome, impls: dict[str, Impl],
           sizes: dict[str, int]) -> list[Case]:
    if outcome.error or outcome.output is None:
        why = outcome.error or "no output"
        if key == UPB_LABEL:
            return [Case(f"{UPB_LABEL} FromString python fresh", None, {"payload": p},
                         error=why) for p in sizes]
        opt = key.split("|")[1]
        return [Case(i.name, i.config.as_dict(), {"payload": p}, error=why)
                for i in impls.values() if i.config.opt == opt for p in sizes]
    out = []
    for name in outcome.output.cases():
        payload, label, decoder, strings, arena = name.split("/")
        impl = impls.get(label)
        metrics, unavailable = case_metrics(outcome.output, name)
        metrics.update(_per_message(metrics["time"], sizes[payload]))
        variant = f"{impl.name if impl else label} {decoder} {strings} {arena}"
        out.append(Case(variant, impl.config.as_dict() if impl else None,
                        {"payload": payload, "bytes": sizes[payload]}, metrics, unavailable))
    return out


def _per_message(ns_per_byte: Metric, size: int) -> dict[str, Metric]:
    """GB/s (10^9 bytes per second = bytes per ns) and ns per message, per repetition."""
    return {
        "throughput": ns_per_byte.derive(lambda v: 1 / v, "GB/s (10^9 B/s)"),
        "ns/message": ns_per_byte.derive(lambda v: v * size, "ns/message"),
    }


def fast_path_frames(binary: Path) -> dict:
    """Which pb_fast_* functions push, pop, spill or move the stack pointer (asm)."""
    try:
        fns = find_functions(binary, ["pb_fast_*"])
    except DisasmError as e:
        return {"error": str(e)}
    mixes = {f.name: instruction_mix(f) for f in fns}
    single = sorted(n for n in mixes if _SINGLE_FIELD.match(n))
    return {
        "source": "asm",
        "functions": len(mixes),
        "single-field": single,
        "framed": sorted(n for n, m in mixes.items() if has_frame(m)),
        "instructions": {n: mixes[n]["instructions"] for n in single},
        "ret": sorted(n for n in single if mixes[n]["ret"]),
    }


def generated_parsers(gen: Path) -> dict:
    """How many messages protoc gave the table-driven parser (TcParser::ParseLoop) and
    how many a generated switch loop, counted in the generated code."""
    text = "".join(p.read_text() for p in sorted(gen.glob("*.pb.cc")))
    return {"generated": str(gen), "table-driven": text.count("TcParser::ParseLoop("),
            "switch": text.count("_InternalParse(const char* ptr"), "source": "protoc"}


def libprotobuf_parser() -> dict:
    """The table-driven parser's functions live in libprotobuf.so, built by Debian (with
    gcc, which has no musttail); whether this lab can read their machine code."""
    try:
        fns = find_functions(LIBPROTOBUF, ["*TcParser*Fast*"])
    except DisasmError as e:
        return {"unavailable": str(e), "source": "asm"}
    mixes = [instruction_mix(f) for f in fns]
    return {"fast functions": len(fns), "ending in ret": sum(bool(m["ret"]) for m in mixes),
            "source": "asm"}


# ---- verdict helpers (pure) --------------------------------------------------------------

def _parts(c: Case) -> tuple[str, str, str, str]:
    impl, decoder, strings, arena = c.variant.split()
    return impl, decoder, strings, arena


def _select(cases: Iterable[Case], payload: str, impl: str, decoder: str | None = None,
            strings: str | None = None, arena: str | None = None) -> list[Case]:
    out = []
    for c in cases:
        if c.params.get("payload") != payload or "time" not in c.metrics:
            continue
        i, d, s, a = _parts(c)
        if _named(i, impl) and \
                decoder in (None, d) and strings in (None, s) and arena in (None, a):
            out.append(c)
    return out


def _named(impl: str, pattern: str) -> bool:
    """`impl` is `pattern`, or starts with it when it ends in `*` (cpp-*)."""
    return impl == pattern or (pattern.endswith("*") and impl.startswith(pattern[:-1]))


def _fastest(cases: list[Case]) -> Case | None:
    return min(cases, key=lambda c: c.metrics["time"].median, default=None)


def _payloads(cases: Iterable[Case]) -> list[str]:
    return list(dict.fromkeys(c.params["payload"] for c in cases if "payload" in c.params))


def _speedup(slow: Case, fast: Case) -> Ratio | None:
    """time(slow)/time(fast): how many times faster `fast` is, with its interval."""
    return median_ratio(slow, fast, "time")


def _name(c: Case) -> str:
    return f"{c.variant} ({c.build_label})" if c.build else c.variant


def _at_least(claim: str, seed: str, target: float,
              rows: list[tuple[str, Ratio | None]]) -> Verdict:
    measured = [(what, r) for what, r in rows if r is not None]
    missing = [what for what, r in rows if r is None]
    tail = f"; not measured: {', '.join(missing)}" if missing else ""
    if not measured:
        return Verdict(claim, "unmeasurable", "no pair of cases to compare" + tail, seed)
    tally = Tally.of((r for _, r in measured), target)
    kind = tally.every()
    if missing and kind == "confirmed":
        kind = "inconclusive"  # "every payload" is not shown by some of them
    worst = min(measured, key=lambda p: p[1].value)
    head = (f"target {target:g}x; lowest {worst[1].value:.3f}x ({worst[0]}); "
            f"{tally.above} of {tally.n} intervals at or above it: ")
    return Verdict(claim, kind, head + "; ".join(f"{w}: {r}" for w, r in measured) + tail,
                   seed)


def _two_gbs(cases: list[Case]) -> Verdict:
    claim = (f"(a) the tail-call decoder reads descriptor.proto's FileDescriptorSet at "
             f"{TARGET_GBS:g} GB/s or more, strings copied, a fresh arena per message")
    seed = "upb, musttail, descriptor.proto: more than 2 GB/s"
    fresh = _fastest(_select(cases, "descriptor", "pb-tailcall", "fast", "copy", "fresh"))
    if fresh is None or "throughput" not in fresh.metrics:
        return Verdict(claim, "unmeasurable", "no tail-call (musttail) build measured on the "
                       "descriptor payload (needs clang with musttail)", seed)
    gbs = fresh.metrics["throughput"]
    r = ratio_to(gbs.sample, TARGET_GBS)
    kind = Tally.of([r]).every()
    ev = (f"{_name(fresh)}: {gbs.median:.3f} GB/s (clock, GB = 10^9 bytes; "
          f"{fresh.value('ns/message'):.0f} ns per {fresh.params['bytes']}-byte message), "
          f"{r} of the target")
    reused = _fastest(_select(cases, "descriptor", "pb-tailcall", "fast", "copy", "reused"))
    if reused is not None and "throughput" in reused.metrics:
        ev += f"; with a reused arena {reused.value('throughput'):.3f} GB/s"
    return Verdict(claim, kind, ev, seed)


def _beats_cpp(cases: list[Case], parsers: dict) -> Verdict:
    claim = (f"(b) the tail-call decoder (copy mode) is at least {VS_CPP:g}x the best "
             "protobuf C++ configuration on every payload: fresh arenas against a fresh "
             "arena; a reused arena against C++'s reused arena or reused heap message "
             "(Clear() then parse), whichever is faster")
    seed = "upb's tail-call parser: over twice the best previous parser"
    rows = []
    for p in _payloads(cases):
        for arena, theirs in (("fresh", ("fresh",)), ("reused", ("reused", "heap"))):
            ours = _fastest(_select(cases, p, "pb-tailcall", "fast", "copy", arena))
            cpp = _fastest([c for a in theirs for c in _select(cases, p, "cpp-*", arena=a)])
            what = f"{p} {arena}" + (f" vs {_name(cpp)}" if cpp else "")
            rows.append((what, _speedup(cpp, ours) if ours and cpp else None))
    v = _at_least(claim, seed, VS_CPP, rows)
    v.evidence += ". " + _cpp_parsers(parsers)
    return v


def _cpp_parsers(parsers: dict) -> str:
    """What the C++ flavours really were: protoc's choice per message, and the parser
    library's machine code (or why it could not be read)."""
    gen = [f"{label}: {p['table-driven']} messages table-driven, {p['switch']} switch"
           for label, p in parsers.items() if isinstance(p, dict) and "table-driven" in p]
    lib = parsers.get("libprotobuf", {})
    if "unavailable" in lib:
        lib_text = f"libprotobuf's TcParser code not inspected: {lib['unavailable']}"
    elif lib:
        lib_text = (f"libprotobuf (asm): {lib['ending in ret']} of {lib['fast functions']} "
                    "TcParser fast functions end in ret (no tail calls)")
    else:
        lib_text = ""
    head = f"{parsers['protoc']}, generated parsers (protoc): " if "protoc" in parsers else ""
    return head + ("; ".join(gen) or "none measured") + (f"; {lib_text}" if lib_text else "")


def _against_upb(cases: list[Case], peer: str, target: float, claim: str,
                 seed: str) -> Verdict:
    """pb's tail-call decoder against the fastest native upb named by `peer`, pairing the
    same string and arena modes on every payload."""
    rows = []
    for p in _payloads(cases):
        for strings in ("copy", "alias"):
            for arena in ("fresh", "reused"):
                ours = _fastest(_select(cases, p, "pb-tailcall", "fast", strings, arena))
                upb = _fastest(_select(cases, p, peer, "parse", strings, arena))
                which = f" vs {_parts(upb)[0]}" if upb and peer.endswith("*") else ""
                rows.append((f"{p} {strings} {arena}{which}",
                             _speedup(upb, ours) if ours and upb else None))
    if not any(_named(_parts(c)[0], peer) for c in cases):
        return Verdict(claim, "unmeasurable", f"{peer} was not measured (the run's notes "
                       "say why; native/kernels/protobuf/build_upb_peer.sh builds it)", seed)
    return _at_least(claim, seed, target, rows)


def _beats_upb(cases: list[Case]) -> Verdict:
    claim = (f"(c) the tail-call decoder is at least {VS_UPB:g}x native upb's generic "
             "decoder on every payload, strings copied or aliased, fresh or reused arena")
    seed = "upb itself is the seed's parser (> 2 GB/s from C)"
    v = _against_upb(cases, "upb-generic", VS_UPB, claim, seed)
    python = []
    for p in _payloads(cases):
        ours = _fastest(_select(cases, p, "pb-tailcall", "fast", "copy", "fresh"))
        upb = _fastest(_select(cases, p, UPB_LABEL))
        if ours and upb:
            python.append(f"{p}: {_speedup(upb, ours)}")
    if python:
        v.evidence += (". Not judged, upb through Python (FromString, call overhead "
                       "included) against copy mode, fresh arena: " + "; ".join(python))
    return v


def _beats_upb_fasttable(cases: list[Case]) -> Verdict:
    claim = (f"(d) the tail-call decoder is at least {VS_UPB_FAST:g}x upb's fasttable "
             "parser (the seed's own, \"over twice the best previous parser\") on every "
             "payload, strings copied or aliased, fresh or reused arena")
    seed = "upb's fasttable parser: over twice the best previous parser"
    # The faster of the PyPI-vendored fasttable and, where one was built, the repository's.
    return _against_upb(cases, "upb-fasttable*", VS_UPB_FAST, claim, seed)


def _beats_switch(cases: list[Case]) -> Verdict:
    claim = (f"(e) the tail-call field functions are at least {VS_SWITCH:g}x the switch "
             "loop over the same tables, same build, on every payload (copy mode)")
    seed = "without guaranteed tail calls the same code is \"catastrophically pessimised\""
    rows, trampoline = [], []
    for p in _payloads(cases):
        for arena in ("fresh", "reused"):
            for fast in _select(cases, p, "pb-tailcall", "fast", "copy", arena):
                sw = [c for c in _select(cases, p, "pb-tailcall", "switch", "copy", arena)
                      if c.build_label == fast.build_label]
                rows.append((f"{p} {arena} {fast.build_label}",
                             _speedup(sw[0], fast) if sw else None))
        for fast in _select(cases, p, "pb-trampoline", "fast", "copy", "fresh"):
            sw = [c for c in _select(cases, p, "pb-trampoline", "switch", "copy", "fresh")
                  if c.build_label == fast.build_label]
            if sw:
                trampoline.append(f"{p} {fast.build_label}: {_speedup(sw[0], fast)}")
    v = _at_least(claim, seed, VS_SWITCH, rows)
    if trampoline:
        v.evidence += ". Not judged, the trampoline builds' fast/switch: " + \
            "; ".join(trampoline)
    return v


def _frameless(frames: dict) -> Verdict:
    claim = ("(f) each single-field fast-path function of the tail-call build compiles to "
             "a handful of instructions with no prologue, epilogue or stack use")
    seed = "upb: each fast path is a handful of instructions, no prologue/epilogue/stack use"
    tail = {k: v for k, v in frames.items() if k.startswith("tailcall ")}
    if not tail:
        return Verdict(claim, "unmeasurable", "no tail-call build (needs clang)", seed)
    rows, framed_any, measured = [], False, False
    for label, f in tail.items():
        if "error" in f or not f.get("single-field"):
            rows.append(f"{label}: {f.get('error', 'no single-field fast functions found')}")
            continue
        measured = True
        single = f["single-field"]
        framed = [n for n in f["framed"] if n in single]
        framed_any |= bool(framed) or bool(f["ret"])
        sizes = sorted(f["instructions"].values())
        others = [n for n in f["framed"] if n not in single]
        rows.append(
            f"{label} (asm): {len(single) - len(framed)} of {len(single)} single-field "
            f"functions without a frame, {sizes[0]}-{sizes[-1]} instructions each "
            f"(slow branches included), {len(f['ret'])} ending in ret"
            + (f"; framed: {', '.join(framed)}" if framed else "")
            + (f". With a frame, as expected, {len(others)} of {f['functions']} pb_fast_* "
               "functions that loop or call out (sub-messages, UTF-8, packed varints, "
               "the fallback)" if others else ""))
    if not measured:
        return Verdict(claim, "unmeasurable", "; ".join(rows), seed)
    return Verdict(claim, "refuted" if framed_any else "confirmed", "; ".join(rows), seed)


EXPERIMENT = Protobuf()
