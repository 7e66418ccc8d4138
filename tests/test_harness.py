"""The native harness (native/harness/cpulab_harness.h), through its self-test kernel.

Builds native/kernels/selftest with gcc and clang and checks the JSON-lines contract of
native/harness/README.md: the meta line, counters either available (and then in every
rep) or unavailable with a reason (and then in no rep), ABAB order, exact --iters,
--case / --list / --param, errors as JSON with exit 2, page faults counted on "touch",
and two sanity ratios with wide margins (TSC rate, a 1000-op chain against an empty loop).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import pytest

from cpulab.build import BuildConfig, Target, build_one, find_toolchain
from cpulab.paths import KERNELS

CASES = ["empty", "work", "touch"]
COUNTERS = [
    "cycles", "instructions", "branches", "branch-misses",
    "task-clock", "page-faults", "context-switches",
]
HW = COUNTERS[:4]
QUICK = ["--target-ms", "5", "--reps", "3"]


@pytest.fixture(scope="module", params=["gcc", "clang"])
def exe(request) -> Path:
    tc = find_toolchain(request.param)
    if tc is None:
        pytest.skip(f"{request.param} not installed")
    src = KERNELS / "selftest" / "selftest.c"
    return build_one(Target("selftest", (src,)), BuildConfig(tc, "O2"))


@pytest.mark.parametrize("cc", ["gcc", "clang"])
@pytest.mark.parametrize("opt", ["O0", "O3"])
def test_header_builds_without_warnings(cc, opt):
    tc = find_toolchain(cc)
    if tc is None:
        pytest.skip(f"{cc} not installed")
    src = KERNELS / "selftest" / "selftest.c"
    target = Target("selftest-werror", (src,), cflags=("-Wextra", "-Werror"))
    assert build_one(target, BuildConfig(tc, opt)).exists()


def run(exe: Path | str, *args: str | bytes, expect: int | None = 0, user: int | None = None):
    """Run the kernel; return (exit status, parsed stdout lines, stderr)."""
    cmd = [str(exe), *args]
    if user is not None:
        cmd = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *cmd]
    p = subprocess.run(cmd, capture_output=True, timeout=60)
    out = p.stdout.decode("utf-8")  # must be valid UTF-8 whatever the arguments were
    lines = [json.loads(line) for line in out.splitlines()]
    if expect is not None:
        assert p.returncode == expect, (p.returncode, out, p.stderr)
    return p.returncode, lines, p.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def quick(exe):
    return run(exe, *QUICK)[1]


@pytest.fixture(scope="module")
def no_pmu(exe):
    return run(exe, "--no-pmu", "--iters", "300", "--reps", "2")[1]


def reps(lines):
    return [x for x in lines if x["type"] == "rep"]


def test_meta_line_well_formed(quick):
    meta = quick[0]
    assert meta["type"] == "meta"
    assert sum(x["type"] == "meta" for x in quick) == 1
    assert meta["schema"] == 1
    assert meta["harness"].startswith("cpulab_harness.h")
    assert meta["argv"][1:] == QUICK
    assert meta["target_ms"] == 5 and isinstance(meta["target_ms"], int)
    assert meta["reps"] == 3 and meta["iters"] is None
    pin = meta["pinning"]
    if pin["pinned"]:
        assert isinstance(pin["cpu"], int) and 0 <= pin["cpu"] < 1024
    else:
        assert pin["reason"]
    assert meta["clock"]["id"] == "CLOCK_MONOTONIC"
    tsc = meta["tsc"]
    assert isinstance(tsc["available"], bool)
    assert tsc["available"] or tsc["reason"]
    assert list(meta["counters"]) == COUNTERS
    for name, c in meta["counters"].items():
        assert c["source"] == ("pmu" if name in HW else "sw")
        assert isinstance(c["available"], bool)
    assert meta["mode"] in ("user", "user+kernel", None)
    assert meta["params"] == {"chain": 1000, "write": 0}
    assert [c["name"] for c in meta["cases"]] == CASES
    for c in meta["cases"]:
        assert c["iters_from"] == "calibration" and c["iters"] >= 1
    assert {c["name"]: c["units_per_iter"] for c in meta["cases"]} == {
        "empty": 1, "work": 1000, "touch": 1,
    }


def check_counters(lines):
    meta, rs = lines[0], reps(lines)
    assert rs
    for name, c in meta["counters"].items():
        if c["available"]:
            assert c["mode"] in ("user", "user+kernel")
            for r in rs:
                assert name in r["counters"], (name, r)
                v = r["counters"][name]
                # null only for a counter multiplexed out for the whole call
                assert (isinstance(v, int) and v >= 0) or (v is None and r["scaled"])
        else:
            assert isinstance(c["reason"], str) and c["reason"].strip()
            assert "mode" not in c
            for r in rs:
                assert name not in r["counters"], (name, r)
    for r in rs:
        assert set(r["counters"]) <= set(COUNTERS)
        assert isinstance(r["scaled"], bool)


def test_counters_available_everywhere_or_absent_everywhere(quick, no_pmu):
    check_counters(quick)
    check_counters(no_pmu)


def test_no_pmu_reports_hardware_counters_unavailable(no_pmu):
    meta = no_pmu[0]
    for name in HW:
        assert meta["counters"][name] == {
            "available": False, "source": "pmu", "reason": "disabled by --no-pmu",
        }


def test_unavailable_hardware_counter_names_the_syscall(quick):
    for name in HW:
        c = quick[0]["counters"][name]
        if not c["available"]:
            assert c["reason"].startswith(f"perf_event_open({name}): ")


def test_reps_interleaved_abab(quick):
    order = [(r["case"], r["rep"]) for r in reps(quick)]
    assert order == [(c, i) for i in range(3) for c in CASES]


def test_reps_well_formed_and_count_fixed_per_case(quick):
    meta = quick[0]
    per_case = {c["name"]: c for c in meta["cases"]}
    for r in reps(quick):
        c = per_case[r["case"]]
        assert r["iters"] == c["iters"]
        assert r["units"] == r["iters"] * c["units_per_iter"]
        assert r["unit"] == c["unit"]
        assert isinstance(r["ns"], int) and r["ns"] > 0
        assert ("tsc" in r) == meta["tsc"]["available"]


def test_iters_flag_gives_exactly_that_count(exe):
    lines = run(exe, "--iters", "777", "--reps", "2")[1]
    assert lines[0]["iters"] == 777
    assert all(c["iters"] == 777 and c["iters_from"] == "--iters" for c in lines[0]["cases"])
    rs = reps(lines)
    assert len(rs) == 2 * len(CASES)
    for r in rs:
        assert r["iters"] == 777
        assert r["units"] == 777 * (1000 if r["case"] == "work" else 1)


def test_case_filter_keeps_program_order(exe):
    lines = run(exe, "--case", "touch", "--case", "empty", "--iters", "10", "--reps", "2")[1]
    assert [c["name"] for c in lines[0]["cases"]] == ["empty", "touch"]
    assert [r["case"] for r in reps(lines)] == ["empty", "touch", "empty", "touch"]


def test_list(exe):
    lines = run(exe, "--list")[1]
    assert lines == [
        {"type": "case", "name": "empty", "unit": "iter", "units_per_iter": 1},
        {"type": "case", "name": "work", "unit": "op", "units_per_iter": 1000},
        {"type": "case", "name": "touch", "unit": "page", "units_per_iter": 1},
    ]
    assert run(exe, "--list", "--case", "work")[1] == [lines[1]]


def test_param_is_used_and_echoed(exe):
    lines = run(exe, "--param", "chain=10", "--case", "work", "--iters", "5", "--reps", "1")[1]
    assert lines[0]["params"] == {"chain": 10, "write": 0}
    assert lines[0]["cases"][0]["units_per_iter"] == 10
    assert reps(lines)[0]["units"] == 50


@pytest.mark.parametrize(
    "args, words",
    [
        (["--bogus"], "--bogus"),
        (["--reps", "0"], "--reps"),
        (["--reps"], "--reps"),
        (["--reps", "--iters", "3"], "--reps"),
        (["--iters", "x"], "--iters"),
        (["--iters", "-5"], "--iters"),
        (["--target-ms", "0"], "--target-ms"),
        (["--target-ms", "nan"], "--target-ms"),
        (["--cpu", "-2"], "--cpu"),
        (["--cpu", "100000"], "--cpu"),
        (["--case", "nope"], "nope"),
        (["--param", "chain"], "chain"),
        (["--param", "chain=abc"], "chain=abc"),
        (["--param", "chain=1", "--param", "chain=2"], "twice"),
        (["--param", "nosuch=1"], "nosuch"),
        (["--param", "chain=0"], "chain=0"),
        (["--list=yes"], "--list"),
        (["stray"], "stray"),
    ],
)
def test_bad_flag_gives_error_json_and_exit_2(exe, args, words):
    rc, lines, err = run(exe, *args, expect=2)
    assert len(lines) == 1 and lines[0]["type"] == "error"
    assert words in lines[0]["message"]
    assert lines[0]["message"] in err


def test_error_message_is_escaped_json(exe):
    name = b'a"b\\c\x01\td\xc3\xa9\xff'  # quote, backslash, control chars, UTF-8, a bad byte
    _, lines, _ = run(exe, "--case", name, expect=2)
    assert 'unknown case \'a"b\\c\x01\td\u00e9\ufffd\'' in lines[0]["message"]


def test_pinning(exe):
    meta = run(exe, "--cpu", "0", "--iters", "1", "--reps", "1", "--case", "empty")[1][0]
    assert meta["pinning"] == {"pinned": True, "cpu": 0, "chosen_by": "--cpu"}
    meta = run(exe, "--cpu", "-1", "--iters", "1", "--reps", "1", "--case", "empty")[1][0]
    assert meta["pinning"] == {"pinned": False, "reason": "not pinned: --cpu -1"}


@pytest.mark.parametrize("write", ["0", "1"])
def test_touch_page_faults_at_least_pages_touched(exe, write):
    lines = run(exe, "--case", "touch", "--iters", "2000", "--reps", "2",
                "--param", f"write={write}")[1]
    if not lines[0]["counters"]["page-faults"]["available"]:
        pytest.skip("page-faults counter unavailable: " +
                    lines[0]["counters"]["page-faults"]["reason"])
    for r in reps(lines):
        assert r["units"] == 2000
        assert r["counters"]["page-faults"] >= 2000


def test_empty_case_takes_no_page_faults_per_iteration(no_pmu):
    # The counter is live (touch counts faults) and "empty" touches nothing new: a few
    # stray faults at most, never one per iteration.
    if not no_pmu[0]["counters"]["page-faults"]["available"]:
        pytest.skip("page-faults counter unavailable")
    for r in reps(no_pmu):
        if r["case"] == "empty":
            assert r["counters"]["page-faults"] < 50
        if r["case"] == "touch":
            assert r["counters"]["page-faults"] >= 300


def test_tsc_rate_is_plausible(quick):
    if not quick[0]["tsc"]["available"]:
        pytest.skip(quick[0]["tsc"]["reason"])
    for r in reps(quick):
        assert 0.1 <= r["tsc"] / r["ns"] <= 10, r  # 0.1 .. 10 GHz


def test_work_chain_costs_far_more_than_empty_loop(quick):
    # 1000 dependent adds against one barrier per iteration: ~1000x apart; 10x is a
    # sanity bound with a huge margin, not a timing claim.
    def per_iter(case):
        return statistics.median(r["ns"] / r["iters"] for r in reps(quick) if r["case"] == case)

    assert per_iter("work") >= 10 * per_iter("empty")


def _paranoid() -> int | None:
    try:
        return int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        return None


@pytest.mark.skipif(
    os.geteuid() != 0 or (_paranoid() or 0) < 2 or not shutil.which("setpriv"),
    reason="needs root (to drop to an unprivileged user) and kernel.perf_event_paranoid >= 2",
)
def test_unprivileged_run_counts_user_space_only(exe):
    # perf_event_paranoid >= 2 refuses kernel counting to unprivileged users: the
    # harness must retry user-only and say so, not lose the counters.
    d = tempfile.mkdtemp()
    try:
        os.chmod(d, 0o755)
        copy = Path(d) / "selftest"
        shutil.copy(exe, copy)
        os.chmod(copy, 0o755)
        lines = run(copy, "--case", "touch", "--iters", "100", "--reps", "1", user=65534)[1]
    finally:
        shutil.rmtree(d)
    meta = lines[0]
    avail = [n for n, c in meta["counters"].items() if c["available"]]
    if not avail:
        pytest.skip("no counter available to an unprivileged user")
    assert meta["mode"] == "user"
    assert all(meta["counters"][n]["mode"] == "user" for n in avail)
    check_counters(lines)
