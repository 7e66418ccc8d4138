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

from cpulab.build import BuildConfig, BuildError, Target, go_build, go_listing
from cpulab.claims import ClaimSpec
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.experiments.goalloc import listing
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Program
from cpulab.results import Case, Evidence, EvidenceTable, SeedTable

PACKAGE = "bench/goalloc"
WAYS = {"New": "new", "AddrOf": "addr-of", "Copied": "copied"}  # Go function -> variant
SIZES = {"Small": 64, "Large": 64 << 10}
SEED = ("Go 1.2.2, 6g: new(container) 13.9 ns/op (runtime.new only); &container{} 25.9 "
        "ns/op (runtime.new + REP STOSQ re-zeroing); c := container{}; return &c 17.2 ns/op "
        "(runtime.new + two REP MOVSQ from a zero template)")


# Exact figures from the compiler's listing of each case's function (source asm): every
# feature `listing` counts, and the zeroing and copying beyond the allocator call.
ASM = {k: f"asm {k}" for k in listing.FEATURES}
ZEROING, COPYING = "asm zeroing", "asm copying"
EXTRA = "asm zeroing+copying"
SMALL = {"size": (str(SIZES["Small"]),)}  # the seed's 64-byte struct


def benchmark(way: str, size: str) -> str:
    return f"{way}{size}"


def _extra_claims(way: str, metric: str, kinds: tuple[str, ...], does: str
                  ) -> tuple[ClaimSpec, ClaimSpec]:
    """(b) and (c): the extra work is in the 64-byte function's code, and it costs time."""
    letter = "b" if way == "addr-of" else "c"
    return (ClaimSpec("at-least", way, metric=metric, value=1, where=SMALL, seed=SEED,
                      text=f"({letter}) {way} {does} ({' / '.join(kinds)}) beyond the "
                           "allocator (64-byte struct, from the listing)"),
            ClaimSpec("faster", "new", than=way, metric="time", where=SMALL, seed=SEED,
                      text=f"({letter}) {way} is slower than new(T) (64-byte struct)"))


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
    # Each seed claim is two: what the code does (exact, from the listing) and its time.
    claims = (
        ClaimSpec("at-most", "new", metric=EXTRA, value=0, seed=SEED,
                  text="(a) new(T) compiles to the allocator call alone, with no zeroing or "
                       "copying"),
        ClaimSpec("at-least", "new", metric=ASM["allocator calls"], value=1, seed=SEED,
                  text="(a) new(T) calls the allocator (the object is on the heap)"),
        *_extra_claims("addr-of", ZEROING, listing.ZEROING, "re-zeroes"),
        *_extra_claims("copied", COPYING, listing.COPYING, "copies from a zero template"),
    )

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
            programs = {benchmark(w, s): Program([
                str(exe), "-test.run", "^$", "-test.bench", f"^Benchmark{benchmark(w, s)}$",
                "-test.benchmem", "-test.count", str(ctx.profile.reps),
                "-test.benchtime", f"{ms}ms"], output="gobench",
                variant=v, build=build, params={"size": n})
                for s, n in SIZES.items() for w, v in WAYS.items()}
            outcomes = ctx.measure(list(programs.values()))
            code = _listing(ctx, cfg)
            for name, p in programs.items():
                for case in cases_of(p, outcomes[p.key], case_names=[name]):
                    if not case.error:
                        _add_code(case, code if isinstance(code, str) else code.get(name))
                    cases.append(case)
        return cases

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        """The listing's counts per function, from the cases' exact asm figures."""
        rows = [[c.build_label, c.variant, f"{c.params['size']:,} B",
                 *(f"{c.value(ASM[k]):.0f}" for k in listing.FEATURES)]
                for c in cases if ASM["instructions"] in c.metrics]
        table = EvidenceTable("The compiler's code for each function (go build -gcflags=-S, "
                              "source asm): counts of instructions",
                              ["build", "way", "size", *listing.FEATURES], rows)
        return Evidence([table])


def _listing(ctx: Context, cfg: BuildConfig) -> dict[str, dict[str, int]] | str:
    """Go function -> the features of its listing, or why there is no listing."""
    try:
        text = go_listing(cfg, PACKAGE)
    except BuildError as e:
        why = f"no listing of {PACKAGE}: {str(e).splitlines()[0]}"
        ctx.note(why)
        return why
    fns = listing.functions(text, f"cpulab/gorep/{PACKAGE}")
    return {name: listing.features(body) for name, body in fns.items()}


def _add_code(case: Case, features: dict[str, int] | str | None) -> None:
    """The function's listing counts as exact figures of its case, or why they are
    missing (never zeros)."""
    if not isinstance(features, dict):
        why = features or "the function is not in the listing"
        for m in (*ASM.values(), ZEROING, COPYING, EXTRA):
            case.unavailable[m] = {"source": "asm", "reason": why}
        return
    zeroing = sum(features[k] for k in listing.ZEROING)
    copying = sum(features[k] for k in listing.COPYING)
    for k, n in features.items():
        case.metrics[ASM[k]] = Metric.exact(n, "instructions", "asm")
    for m, n in ((ZEROING, zeroing), (COPYING, copying), (EXTRA, zeroing + copying)):
        case.metrics[m] = Metric.exact(n, "instructions", "asm")


EXPERIMENT = GoAlloc()
