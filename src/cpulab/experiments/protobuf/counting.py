"""Exact instructions per field (callgrind): what each decoder executes for one field on
the wire, beside the times, and where in its code those instructions go.

Counted: pbdyn's tail-call build (clang's: the musttail code that claim (d) judges), each
native upb peer that was built and both protobuf C++ parsers (their clang builds, beside
pbdyn's and upb's clang), each decoding every payload with strings copied into a fresh
arena per message. The benchmark kernel (pb_bench.c) loads one implementation and runs
that one case at two iteration counts under callgrind, collecting inside its timed
function (run_case: the arena set-up is part of each decode, as in the timed case); the
difference of the two counts over the difference of the decodes is one decode's exact
cost (cpulab.measure.valgrind). A field is one occurrence on the wire, counted from the
payload by payloads.wire_fields: every tag, those inside sub-messages included, a packed
run once; the packed payloads' figures are also given per value (each element of a run).

valgrind 3.19 has no AVX-512: pbdyn picks its packed-run kernels by cpuid, and under
valgrind it runs the AVX2 set (the portable loops on a CPU without AVX2), so a packed
varint count is the AVX2 kernels' even where the timed cases ran AVX-512. On the seed's
payload (descriptor.proto) each decoder's own functions are ranked by the instructions
they execute per message, callees apart.

Each decode's count is exact; protobuf C++'s can end in .5, its decodes differing by a
few instructions from one to the next. About 100 valgrind runs of ~0.5-1 s, 30-60 s on 2
cores by their load: the quick profile counts nothing and says so; the default and full
profiles count.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from cpulab.context import Context
from cpulab.experiments.protobuf.payloads import WireFields, read_manifest, wire_fields
from cpulab.measure.metrics import Metric
from cpulab.results import Case, EvidenceTable

# The implementations counted, in the tables' order (Impl.name; their clang builds).
COUNTED = ("pb-tailcall", "upb-generic", "upb-fasttable", "upb-fasttable-git",
           "cpp-tailcall", "cpp-default")
# Decodes per callgrind run: the counts of 60 less those of 10 are 50 decodes'.
ITERS = (10, 60)
COLLECT = "run_case"
PER_MESSAGE = "instructions (callgrind)"
PER_FIELD = "instructions/field (callgrind)"
PROFILED = "descriptor"  # the payload whose functions are ranked: the seed's
TOP = 8  # functions per decoder in that table
FACTS = 20  # functions per decoder kept in the run's evidence facts
QUICK_NOTE = ("callgrind's instructions per field are the default profile's: --quick "
              "counts nothing (about 100 valgrind runs, 30-60 s on 2 cores)")


def fields_of(manifest: Path) -> dict[str, WireFields]:
    """payload -> its fields and values on the wire."""
    schema, files = read_manifest(manifest)
    fds = schema.read_bytes()
    return {name: wire_fields(fds, type_name, path.read_bytes())
            for name, (type_name, path) in files.items()}


def counted(impls: Sequence) -> list:
    """The implementations (experiment.Impl) whose decoding is counted, in COUNTED order."""
    return sorted((i for i in impls if i.name in COUNTED
                   and i.config.toolchain.family == "clang"),
                  key=lambda i: (COUNTED.index(i.name), i.label))


def is_counted(decoder: str, strings: str, arena: str) -> bool:
    """Whether a kernel case is the counted one of its implementation: the tail-call
    field functions (pbdyn) or the one parser (peers), copy, fresh arena."""
    return decoder in ("fast", "parse") and strings == "copy" and arena == "fresh"


def _argv(kernel: Path, manifest: Path, impl_so: Path, payload: str
          ) -> Callable[[int], Sequence[str]]:
    def argv(iters: int) -> Sequence[str]:
        return [str(kernel), "--param", f"manifest={manifest}", "--param",
                f"impls=counted={impl_so}", "--param", "decoders=fast", "--param", "alias=0",
                "--param", "arenas=fresh", "--param", f"payloads={payload}",
                "--iters", str(iters), "--reps", "1", "--no-pmu", "--cpu", "-1"]
    return argv


def count(ctx: Context, kernel: Path, built: dict, impls: Sequence, manifest: Path,
          payloads: Sequence[str]) -> dict[tuple[str, str], dict[str, Metric] | str]:
    """(impl label, payload) -> callgrind's figures per message decoded and its
    instructions per field, or why not (`built`: Impl -> its adapter's Artifact)."""
    fields = fields_of(manifest)
    jobs = {f"{i.label}/{p}": _argv(kernel, manifest, built[i].path, p)
            for i in counted(impls) for p in payloads}
    out: dict[tuple[str, str], dict[str, Metric] | str] = {}
    for key, got in ctx.callgrind(jobs, ITERS, 1, "message", collect=COLLECT).items():
        label, payload = key.split("/")
        if not isinstance(got, str):
            n = fields[payload].fields
            got[PER_FIELD] = Metric.exact(got[PER_MESSAGE].median / n, "instructions/field",
                                          "callgrind")
        out[(label, payload)] = got
    return out


def add_counts(case: Case, got: dict[str, Metric] | str) -> None:
    """A counted case's callgrind figures, or why it has none."""
    if isinstance(got, str):
        case.unavailable[PER_MESSAGE] = case.unavailable[PER_FIELD] = \
            {"source": "callgrind", "reason": got}
    else:
        case.metrics.update(got)


def per_field_table(cases: list[Case], fields: dict[str, WireFields]) -> EvidenceTable | None:
    """Instructions per field of every counted decoder, one row per payload; the packed
    payloads also per value. None when nothing was counted."""
    got: dict[tuple[str, str], dict[str, float]] = {}
    for c in cases:
        m = c.metrics.get(PER_MESSAGE)
        if m is not None and m.source == "callgrind":
            key = (c.variant.split()[0], c.build_label)
            got.setdefault(key, {})[c.params["payload"]] = m.median
    if not got:
        return None
    columns = sorted(got, key=lambda k: (COUNTED.index(k[0]), k[1]))
    one_build = len({b for _, b in columns}) == 1
    rows = []
    for payload, f in fields.items():
        per = [got[k].get(payload) for k in columns]
        rows.append([payload, f"{f.fields:,}", *(_fig(v, f.fields) for v in per)])
        if f.values != f.fields:
            rows.append([f"  per value ({f.values:,})", "", *(_fig(v, f.values) for v in per)])
    return EvidenceTable(
        "instructions per field decoded (callgrind, exact; strings copied, a fresh arena "
        "per message, its set-up included): a field is one occurrence on the wire, "
        "sub-messages' included, a packed run once, and packed payloads also per value; "
        "under valgrind (no AVX-512) pbdyn's packed runs take its AVX2 kernels",
        ["payload", "fields", *(n if one_build else f"{n} {b}" for n, b in columns)], rows)


def _fig(per_message: float | None, n: int) -> str:
    return "-" if per_message is None else f"{per_message / n:,.1f}"


def profile(ctx: Context, kernel: Path, built: dict, impls: Sequence, manifest: Path
            ) -> dict[str, dict[str, float] | str]:
    """impl name -> its functions' own instructions per message of PROFILED (largest
    first), or why not; the implementations of one build (`impls`' first clang one)."""
    mine = counted(impls)
    jobs = {i.name: _argv(kernel, manifest, built[i].path, PROFILED) for i in mine
            if i.config == mine[0].config}
    return ctx.callgrind_functions(jobs, ITERS, 1, collect=COLLECT)


def functions_table(profiles: dict[str, dict[str, float] | str], fields: WireFields
                    ) -> EvidenceTable:
    """Each decoder's TOP functions on PROFILED, by their own instructions per message
    (callees apart), per field and as a share of the decoder's total; then the rest."""
    rows = []
    for name, fns in profiles.items():
        if isinstance(fns, str):
            rows.append([name, f"not counted: {fns}", "", "", ""])
            continue
        total = sum(fns.values())
        values = list(fns.values())
        for fn, v in list(fns.items())[:TOP]:
            rows.append([name, _short(fn), f"{v:,.0f}", f"{v / fields.fields:.1f}",
                         f"{v / total:.1%}"])
        if len(values) > TOP:
            rest = sum(values[TOP:])
            rows.append([name, f"the other {len(values) - TOP}", f"{rest:,.0f}",
                         f"{rest / fields.fields:.1f}", f"{rest / total:.1%}"])
        rows.append([name, "total", f"{total:,.0f}", f"{total / fields.fields:.1f}", ""])
    return EvidenceTable(
        f"where the instructions go on {PROFILED} ({fields.fields:,} fields per message): "
        "each decoder's functions by their own instructions per message, callees apart "
        "(callgrind, exact; clang builds)",
        ["decoder", "function", "instructions/message", "per field", "share"], rows)


def _short(fn: str) -> str:
    """A C++ function without its parameter list and template arguments
    (`std::basic_string<>::_M_replace`), a C one as it is."""
    if "(" in fn and not fn.startswith("("):
        fn = fn.split("(", 1)[0]
    while (shorter := re.sub(r"<[^<>]*>", "\0", fn)) != fn:  # innermost first
        fn = shorter
    return fn.replace("\0", "<>")
