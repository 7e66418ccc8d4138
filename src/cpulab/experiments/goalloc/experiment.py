"""Experiment `goalloc` (seed row S7, the Go side): the seed's three ways of getting a
zeroed 64-byte struct on the heap in Go, and a 64 KiB one, on today's Go.

gorep/bench/goalloc holds new(T), &T{} and a composite literal copied to the heap
(`c := T{}; return &c`), each for a 64-byte and a 64 KiB struct. Their benchmarks run
through `go test -bench -benchmem`, one benchmark per process, interleaved (the test
binary is built once); the figures are ns/op (clock), B/op and allocs/op (the Go
runtime's own counts). The compiler's listing (`go build -gcflags=-S`) shows, per
function, the allocator calls and any REP STOSQ / DUFFZERO zeroing or REP MOVSQ /
DUFFCOPY copying, which is what the seed's claims are about. The C analogues
(calloc, malloc+memset, malloc+memcpy) are the `alloc` experiment.
"""

from __future__ import annotations

from cpulab.build import BuildError, Target, go_build, go_listing
from cpulab.context import Context, cases_from_outcome
from cpulab.experiments.base import Experiment
from cpulab.experiments.goalloc import listing
from cpulab.measure.schedule import Program
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable, Verdict
from cpulab.results.ratios import format_ratio, median_ratio

PACKAGE = "bench/goalloc"
WAYS = {"New": "new", "AddrOf": "addr-of", "Copied": "copied"}  # Go function -> variant
SIZES = {"Small": 64, "Large": 64 << 10}
SEED = ("Go 1.2.2, 6g: new(container) 13.9 ns/op (runtime.new only); &container{} 25.9 "
        "ns/op (runtime.new + REP STOSQ re-zeroing); c := container{}; return &c 17.2 ns/op "
        "(runtime.new + two REP MOVSQ from a zero template)")


def benchmark(way: str, size: str) -> str:
    return f"{way}{size}"


class GoAlloc(Experiment):
    name = "goalloc"
    seed_row = "S7"
    title = "Go: new(T) against &T{} against a copied composite literal"
    summary = (
        "S7 found Go 1.2.2 re-zeroing &T{} with REP STOSQ (25.9 ns/op) and copying a "
        "composite literal from a zero template with REP MOVSQ (17.2 ns/op), where new(T) "
        "took 13.9 ns/op. Times all three for a 64-byte and a 64 KiB struct with go test "
        "-bench (ns/op, B/op, allocs/op) and reads the compiler's listing for the "
        "zeroing and copying."
    )
    compilers = ("go",)
    table_metrics = ("time", "bytes", "allocs")

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S7: a 64-byte struct on the heap, Go 1.2.2 (go tool 6g -S)",
            ["Go code", "ns/op", "machine code"],
            [["return new(container)", "13.9", "runtime.new"],
             ["return &container{}", "25.9", "runtime.new + REP STOSQ (re-zeroing)"],
             ["c := container{}; return &c", "17.2", "runtime.new + 2 x REP MOVSQ (copy)"]],
        )]

    def targets(self) -> dict[str, Target]:
        return {}  # Go code: built by the Go toolchain (build.golang), not by ninja

    def variants(self) -> list[str]:
        return list(WAYS.values())

    def run(self, ctx: Context) -> list[Case]:
        cases: list[Case] = []
        for cfg in ctx.configs:
            build = cfg.as_dict()
            try:
                exe = go_build(cfg, PACKAGE, test=True)
            except BuildError as e:
                ctx.note(str(e).splitlines()[0])
                cases += [Case(v, build, {"size": n}, error=f"build failed: {e}")
                          for v in WAYS.values() for n in SIZES.values()]
                continue
            ms = ctx.profile.target_ms * 5  # b.N calibration wants a longer run than ours
            programs = [Program([
                str(exe), "-test.run", "^$", "-test.bench", f"^Benchmark{benchmark(w, s)}$",
                "-test.benchmem", "-test.count", str(ctx.profile.reps),
                "-test.benchtime", f"{ms}ms"], output="gobench",
                key=f"{cfg.label}|{benchmark(w, s)}")
                for s in SIZES for w in WAYS]
            outcomes = ctx.measure(programs)
            for s, n in SIZES.items():
                for w, v in WAYS.items():
                    name = benchmark(w, s)
                    cases += cases_from_outcome(outcomes[f"{cfg.label}|{name}"],
                                                lambda _, v=v: v, build, {"size": n}, [name])
        return cases

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        asm: dict[str, dict[str, dict[str, int]]] = {}
        rows = []
        for cfg in ctx.configs:
            try:
                text = go_listing(cfg, PACKAGE)
            except BuildError as e:
                ctx.note(f"no listing of {PACKAGE}: {str(e).splitlines()[0]}")
                continue
            fns = listing.functions(text, f"cpulab/gorep/{PACKAGE}")
            per = {}
            for s, n in SIZES.items():
                for w, v in WAYS.items():
                    body = fns.get(benchmark(w, s))
                    if body is None:
                        continue
                    f = listing.features(body)
                    per[f"{v}|{n}"] = f
                    rows.append([cfg.label, v, f"{n:,} B",
                                 *(str(f[k]) for k in listing.FEATURES)])
            asm[cfg.label] = per
        table = EvidenceTable("The compiler's code for each function (go build -gcflags=-S, "
                              "source asm): counts of instructions",
                              ["build", "way", "size", *listing.FEATURES], rows)
        return Evidence([table], {"asm": asm})

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        asm = evidence.facts.get("asm", {})
        return [_new_only(asm), _extra("addr-of", listing.ZEROING, "re-zeroes", cases, asm),
                _extra("copied", listing.COPYING, "copies from a zero template", cases, asm)]


def _new_only(asm: dict) -> Verdict:
    claim = "(a) new(T) compiles to the allocator call alone, with no zeroing or copying"
    facts = [(b, k, f) for b, per in asm.items() for k, f in per.items() if k.startswith("new|")]
    if not facts:
        return Verdict(claim, "unmeasurable", "no compiler listing", SEED)
    clean = all(f["allocator calls"] >= 1 and not any(f[x] for x in (*listing.ZEROING,
                                                                      *listing.COPYING))
                for _, _, f in facts)
    ev = "; ".join(f"{b}, {int(k.split('|')[1]):,} B: {f['allocator calls']} allocator "
                   "call(s), "
                   f"{sum(f[x] for x in listing.ZEROING)} zeroing, "
                   f"{sum(f[x] for x in listing.COPYING)} copying instructions"
                   for b, k, f in facts)
    return Verdict(claim, "confirmed" if clean else "refuted", ev + " (asm)", SEED)


def _extra(way: str, kinds: tuple[str, ...], does: str, cases: list[Case], asm: dict) -> Verdict:
    claim = (f"({'b' if way == 'addr-of' else 'c'}) {way} {does} ({' / '.join(kinds)}) "
             "beyond the allocator, and is slower than new(T)")
    code, timing = [], []
    extra_found = None
    for b, per in asm.items():
        for key, f in per.items():
            w, size = key.split("|")
            if w != way:
                continue
            n = sum(f[k] for k in kinds)
            extra_found = bool(extra_found) or n > 0
            code.append(f"{b}, {int(size):,} B: {n} {'/'.join(kinds)}, "
                        f"{f['allocator calls']} allocator call(s), "
                        f"{f['instructions']} instructions")
    ok = [c for c in cases if not c.error]
    for size in SIZES.values():
        this = [c for c in ok if c.variant == way and c.params.get("size") == size]
        new = [c for c in ok if c.variant == "new" and c.params.get("size") == size]
        for c in this:
            base = next((n for n in new if n.build_label == c.build_label), None)
            r = median_ratio(c, base, "time") if base else None
            if r:
                timing.append((r, f"{c.build_label}, {size:,} B: {way}/new time = "
                                  f"{format_ratio(r)} ({c.value('time'):.1f} vs "
                                  f"{base.value('time'):.1f} ns/op)"))
    if extra_found is None:
        return Verdict(claim, "unmeasurable", "no compiler listing", SEED)
    small = [r for r, text in timing if text.split(", ")[1].startswith("64 B")]
    if not extra_found:
        kind = "refuted"  # the claimed work is not in the code at all
    elif small and all(r.above(1) for r in small):
        kind = "confirmed"
    else:
        kind = "inconclusive"
    ev = ("machine code: " + "; ".join(code) + ". Time (clock, go test -bench): "
          + ("; ".join(t for _, t in timing) or "not measured"))
    return Verdict(claim, kind, ev, SEED)


EXPERIMENT = GoAlloc()
