"""The Go experiments' parts that need no clock: reading `go test -bench` output, the Go
toolchain in the build record, the compiler listing's features, and the verdicts of
goalloc, fanin, gorep and fileread's Go row on fixed cases."""

from __future__ import annotations

import pytest

from cpulab.build import BuildConfig, find_toolchain, matrix
from cpulab.context import PROFILES
from cpulab.experiments import fanin
from cpulab.experiments.goalloc import experiment as goalloc
from cpulab.experiments.goalloc import listing
from cpulab.experiments.gorep import commands, corpus
from cpulab.experiments.gorep import experiment as gorep
from cpulab.measure.gobench import parse_gobench
from cpulab.measure.kernel_output import KernelOutputError
from cpulab.measure.metrics import Metric, case_metrics
from cpulab.results import Case, Evidence

GO = find_toolchain("go")

BENCH = """goos: linux
goarch: amd64
pkg: cpulab/gorep/bench/goalloc
BenchmarkNewSmall-2   	10152240	       119.4 ns/op	      64 B/op	       1 allocs/op
BenchmarkNewSmall-2   	10000000	       120.0 ns/op	      64 B/op	       1 allocs/op
PASS
"""


def test_go_bench_lines_become_reps_with_runtime_counters():
    out = parse_gobench(BENCH)
    assert [r.case for r in out.reps] == ["NewSmall", "NewSmall"]
    assert out.reps[0].iters == 10152240 and out.reps[0].ns == pytest.approx(119.4 * 10152240)
    metrics, unavailable = case_metrics(out, "NewSmall")
    assert metrics["time"].median == pytest.approx(119.7)
    assert metrics["bytes"].median == 64 and metrics["bytes"].source == "runtime"
    assert metrics["allocs"].median == 1 and metrics["allocs"].unit == "allocs/op"
    assert "go test -bench" in unavailable["tsc"]["reason"]


def test_a_failed_benchmark_is_an_error():
    with pytest.raises(KernelOutputError):
        parse_gobench("--- FAIL: BenchmarkX\nFAIL\n")
    with pytest.raises(KernelOutputError):
        parse_gobench("PASS\n")


@pytest.mark.needs("go")
def test_go_is_a_toolchain_with_one_build():
    assert GO.name.startswith("go-1.") and GO.version.count(".") >= 1
    cfgs = matrix([GO], ["O1", "O2"], ["O1"])
    assert len(cfgs) == 1 and cfgs[0].label == GO.name and cfgs[0].flags == ()
    assert BuildConfig(GO).as_dict()["compiler_version"] == GO.version


LISTING = """# cpulab/gorep/bench/goalloc
cpulab/gorep/bench/goalloc.NewSmall STEXT size=40 args=0x0 locals=0x18 funcid=0x0 align=0x0
\t0x0000 00000 (alloc.go:23)\tTEXT\tcpulab/gorep/bench/goalloc.NewSmall(SB), ABIInternal, $24-0
\t0x0015 00021 (alloc.go:23)\tCALL\truntime.newobject(SB)
\t0x0021 00033 (alloc.go:23)\tRET
\trel 22+4 t=R_CALL runtime.newobject+0
cpulab/gorep/bench/goalloc.AddrOfSmall STEXT size=60 args=0x0 locals=0x18
\t0x0015 00021 (alloc.go:26)\tCALL\truntime.newobject(SB)
\t0x0019 00025 (alloc.go:26)\tREP
\t0x001a 00026 (alloc.go:26)\tSTOSQ
"""


def test_listing_features_per_function():
    fns = listing.functions(LISTING, "cpulab/gorep/bench/goalloc")
    assert set(fns) == {"NewSmall", "AddrOfSmall"}
    new, addr = listing.features(fns["NewSmall"]), listing.features(fns["AddrOfSmall"])
    assert new["allocator calls"] == 1 and new["REP STOSQ"] == 0 and new["instructions"] == 2
    assert addr["REP STOSQ"] == 1


def _case(variant, t, params=None, build="go-1.26"):
    m = Metric.of([t * 0.99, t, t * 1.01] * 3, "ns/op", "clock")
    return Case(variant, {"compiler": build, "flags": "", "pgo": False}, params or {},
                {"time": m})


CLEAN = {"allocator calls": 1, "REP STOSQ": 0, "REP MOVSQ": 0, "DUFFZERO": 0,
         "DUFFCOPY": 0, "vector zero stores": 0, "instructions": 14}


def _goalloc(times: dict[str, float], code: dict[str, dict | str], size: int = 64):
    """One case per way with its time and its function's listing counts (or why none)."""
    cases = [_case(v, t, {"size": size}) for v, t in times.items()]
    for c in cases:
        goalloc._add_code(c, code.get(c.variant))
    return cases


def _goalloc_verdicts(cases):
    """By letter; each seed claim is two verdicts: its code, then its time or calls."""
    got = goalloc.EXPERIMENT.verdicts(cases, Evidence())
    assert [v.claim[:3] for v in got] == ["(a)", "(a)", "(b)", "(b)", "(c)", "(c)"]
    return {f"{v.claim[1]}{i % 2}": v for i, v in enumerate(got)}


def test_goalloc_verdicts_follow_the_code():
    code = {"new": CLEAN, "addr-of": {**CLEAN, "DUFFZERO": 1}, "copied": CLEAN}
    got = _goalloc_verdicts(_goalloc({"new": 10, "addr-of": 20, "copied": 10}, code))
    assert got["a0"].verdict == got["a1"].verdict == "confirmed"
    assert "asm zeroing+copying of new at most 0 in 1 of 1" in got["a0"].evidence
    assert got["b0"].verdict == got["b1"].verdict == "confirmed"  # zeroes, and 2x slower
    assert "go-1.26, size=64: 1 instructions" in got["b0"].evidence
    assert got["c0"].verdict == "refuted"  # no copy in the code at all
    assert got["c1"].verdict == "inconclusive"  # as fast as new(T): neither way
    assert got["a0"].seed == goalloc.SEED


def test_goalloc_refuted_by_the_code_or_the_clock():
    code = {"new": {**CLEAN, "REP STOSQ": 1, "allocator calls": 0},
            "addr-of": {**CLEAN, "REP STOSQ": 1}, "copied": {**CLEAN, "DUFFCOPY": 2}}
    got = _goalloc_verdicts(_goalloc({"new": 20, "addr-of": 10, "copied": 30}, code))
    assert got["a0"].verdict == got["a1"].verdict == "refuted"
    assert got["b0"].verdict == "confirmed" and got["b1"].verdict == "refuted"
    assert got["c0"].verdict == got["c1"].verdict == "confirmed"
    # the 64 KiB struct is not the seed's: its code and times are not judged
    large = _goalloc({"new": 10, "addr-of": 5, "copied": 5}, {}, size=64 << 10)
    assert all(v.verdict == "unmeasurable" for v in goalloc.EXPERIMENT.verdicts(
        large, Evidence()))


def test_goalloc_without_a_listing_is_unmeasurable_and_says_why():
    why = "no listing of bench/goalloc: go: not found"
    cases = _goalloc({"new": 10, "addr-of": 20, "copied": 10}, dict.fromkeys(
        ("new", "addr-of", "copied"), why))
    got = _goalloc_verdicts(cases)
    for k in ("a0", "a1", "b0", "c0"):
        assert got[k].verdict == "unmeasurable" and "go: not found" in got[k].evidence
    assert got["b1"].verdict == "confirmed"  # the clock still speaks
    assert goalloc.EXPERIMENT.evidence(None, cases).tables[0].rows == []
    got = _goalloc_verdicts(_goalloc({"new": 10}, {}))
    assert "not in the listing" in got["a0"].evidence


def test_goalloc_evidence_table_is_read_from_the_cases():
    cases = _goalloc({"new": 10}, {"new": CLEAN})
    (table,) = goalloc.EXPERIMENT.evidence(None, cases).tables
    assert table.rows == [["go-1.26", "new", "64 B", "1", "0", "0", "0", "0", "0", "14"]]


def test_fanin_claims_tally_every_group():
    cases = [_case(w, t, {"n": n, "procs": 1}) for n in (2, 4)
             for w, t in (("reflect-select", 50), ("select-done", 10),
                          ("forward-waitgroup", 5))]
    a, b = fanin.EXPERIMENT.verdicts(cases, Evidence())
    assert a.verdict == "confirmed" and "reached in 2 of 2" in a.evidence
    assert b.verdict == "refuted" and a.seed == fanin.SEED


def test_fanin_sweeps_past_128_producers_in_the_full_profile_only():
    assert fanin.NS["full"] == tuple(2**k for k in range(1, 11))
    assert max(fanin.NS["default"]) == 128 and set(fanin.NS["default"]) < set(fanin.NS["full"])
    assert len(fanin.NS["default"]) >= 3  # a growth to see, and groups for both verdicts


def _gorep_case(variant, t, params):
    """A command's case: wall time and CPU time (the same figures here)."""
    case = _case(variant, t, params)
    case.metrics["child-cpu"] = Metric.of([t * 0.99, t, t * 1.01] * 3, "ms/run", "sw")
    return case


def _gorep_cases(rg=9.0, patterns=("p1", "p2"), names=None):
    cases = []
    for pat in patterns:
        params = {"corpus": "go-tree", "pattern": pat, "threads": 1}
        cases += [_gorep_case("gorep", 10, params), _gorep_case("rg", rg, params),
                  _gorep_case("grep", 30, params), _gorep_case("ag", 8, params)]
    if names:
        params = {"corpus": "go-tree", "pattern": "gopher", "threads": 2}
        cases += [_gorep_case(tool, t, params) for tool, t in names.items()]
    return cases


def test_gorep_verdicts():
    a, b, c, d, e = gorep.EXPERIMENT.verdicts(_gorep_cases(), Evidence())
    assert a.verdict == "confirmed" and "reached in 2 of 2" in a.evidence
    assert b.verdict == "refuted"
    assert c.verdict == "confirmed", c.evidence
    assert "geometric mean over pattern" in c.evidence and "corpus=go-tree" in c.evidence
    assert d.verdict == "confirmed", d.evidence
    assert e.verdict == "unmeasurable" and "no case of" in e.evidence
    assert gorep.slow_patterns(_gorep_cases()) == []
    slow = _gorep_cases(rg=5.0)
    assert [p[:2] for p in gorep.slow_patterns(slow)] == [("go-tree", "p1"), ("go-tree", "p2")]


def test_gorep_no_case_above_twice_ripgrep():
    # one pattern 2.5x slower than ripgrep refutes it, whatever the geometric mean
    cases = _gorep_cases(patterns=("p1",)) + _gorep_cases(rg=4.0, patterns=("p2",))
    d = gorep.EXPERIMENT.verdicts(cases, Evidence())[3]
    assert d.verdict == "refuted", d.evidence
    assert gorep.EXPERIMENT.verdicts(_gorep_cases(rg=6.0), Evidence())[3].verdict == \
        "confirmed"


def test_gorep_against_a_missing_tool_is_unmeasurable_with_the_reason():
    cases = [c for c in _gorep_cases() if c.variant != "ag"] + [
        Case("ag", None, {"corpus": "go-tree", "pattern": p, "threads": 1},
             error="ag is not installed (make setup)") for p in ("p1", "p2")]
    b = gorep.EXPERIMENT.verdicts(cases, Evidence())[1]
    assert b.verdict == "unmeasurable" and "not installed" in b.evidence


def test_gorep_near_ripgrep_is_one_sided():
    # gorep 2x ripgrep: refuted; gorep far faster than ripgrep is still within 1.3x
    assert gorep.EXPERIMENT.verdicts(_gorep_cases(rg=5.0), Evidence())[2].verdict == "refuted"
    assert gorep.EXPERIMENT.verdicts(_gorep_cases(rg=40.0), Evidence())[2].verdict == \
        "confirmed"
    # at the edge (1.3x) the interval straddles the target: inconclusive
    edge = gorep.EXPERIMENT.verdicts(_gorep_cases(rg=10 / 1.3), Evidence())[2]
    assert edge.verdict == "inconclusive", edge.evidence


def test_gorep_names_against_the_faster_pipeline():
    both = _gorep_cases(names={"gorep-names": 10, "find+grep": 30, "rg-files+rg": 15})
    e = gorep.EXPERIMENT.verdicts(both, Evidence())[4]
    assert e.verdict == "confirmed" and "against rg-files+rg" in e.evidence
    one = _gorep_cases(names={"gorep-names": 10, "find+grep": 30, "rg-files+rg": 8})
    assert gorep.EXPERIMENT.verdicts(one, Evidence())[4].verdict == "refuted"


def test_gorep_searches_the_1_gib_file_with_every_case_in_the_full_profile_only():
    searches = {name: gorep.SEARCHES[name] for name in PROFILES}
    full = searches["full"]
    assert full.patterns == gorep.PATTERNS and full.large == 1 << 30
    assert 1 in full.threads and gorep.ALL_THREADS in full.threads and full.c_tree
    default = searches["default"]
    assert default.large < 1 << 30 and set(default.patterns) < set(gorep.PATTERNS)
    assert full.c_tree and not default.c_tree and not searches["quick"].c_tree
    assert searches["quick"].large < default.large
    # every verdict stays measurable: a pattern to compare the tools on, in each corpus
    assert default.patterns and default.threads
    # the suite's cases: a literal, -i, -w, a literal suffix, an alternation and its -i,
    # a Unicode class, a Unicode word pattern, no literal, a rare word
    flags = [p[:-1] for p in gorep.PATTERNS]
    assert ("-i",) in flags and ("-w",) in flags and len(gorep.PATTERNS) == 10
    assert [p for p in gorep.PATTERNS if p[-1] == gorep.ALTERNATION] == \
        [(gorep.ALTERNATION,), ("-i", gorep.ALTERNATION)]
    assert gorep.ALTERNATION.count("|") == 4


def test_outputs_compare_as_sorted_relative_lines(tmp_path):
    got = commands.lines(f"{tmp_path}/b:2:x\n{tmp_path}/a:1:y\n", tmp_path)
    assert got == ["a:1:y", "b:2:x"]
    assert commands.difference(got, got) is None
    assert "1 only here" in commands.difference(got + ["c:1:z"], got)


def test_large_file_is_the_text_of_the_sources_repeated(tmp_path):
    import gzip

    docs = tmp_path / "doc"
    (docs / "pkg" / "not_a_file.txt").mkdir(parents=True)  # a folder named like a file
    (docs / "pkg" / "a.txt").write_text("first line\nno newline")
    (docs / "pkg" / "b.1.gz").write_bytes(gzip.compress(b"man page\n"))
    (docs / "pkg" / "c.bin").write_bytes(b"binary\0data\n")  # not text: skipped
    sources = corpus.text_sources([docs])
    out = corpus.large_file(sources, tmp_path / "big.txt", 40)
    text = out.read_text()
    assert len(text) >= 40 and "\0" not in text
    assert text.startswith("first line\nno newline\nman page\nfirst line\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "doc"]  # no tmp left
