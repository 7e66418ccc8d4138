"""Experiment `gzwrap` (S6): verdicts from fake cases, the schedule, and its quick run end
to end (the kernel's cases and output checks, and the SQL claim on a private MariaDB where
one can run), replayed from recorded kernel output (for real with CPULAB_FULL=1)."""

from __future__ import annotations

import json

import pytest

from cpulab import cli
from cpulab.context import PROFILES
from cpulab.experiments import get
from cpulab.experiments.gzwrap.experiment import (
    CHECKSUMS,
    FAITHFUL,
    INFLATE,
    MULTI,
    MULTI_INFLATE,
    RECOMPRESS,
    RECOMPRESS_MAX,
    REWRAP,
    SIZES,
    STREAMED,
    VARIANTS,
    schedule,
    sql_cases,
)
from cpulab.experiments.gzwrap.mariadb import missing
from cpulab.measure.metrics import Metric
from cpulab.measure.stats import MIN_PROCESSES
from cpulab.results import Case, Evidence
from replay import replay

EXP = get("gzwrap")
MiB, GiB = 1 << 20, 1 << 30
BUILD = {"compiler": "gcc-12", "compiler_version": "x", "flags": "-O2", "pgo": False}


def _series(v: float) -> list[float]:
    return [v * f for f in (0.99, 1.0, 1.01, 1.0, 0.995, 1.005)]


def _group(times: dict[str, float], kind="text", size=MiB, identical=1,
           build=BUILD) -> list[Case]:
    out = []
    for v, ns in times.items():
        m = {"time": Metric.of(_series(ns), "ns/byte", "clock")}
        if v.startswith("rewrap"):
            m["payload-identical"] = Metric.exact(identical, "1", "output")
            m["decodes"] = Metric.exact(1, "1", "output")
            m["payload-bytes"] = Metric.exact(1000, "bytes", "output")
            m[FAITHFUL] = Metric.exact(identical, "1", "output")
        out.append(Case(v, build, {"kind": kind, "size": size}, m))
    return out


FAST = {"rewrap-gzip-zlib": 1.0, "rewrap-zlib-gzip": 1.0, "rewrap-gzip-zlib-zlib": 1.1,
        "rewrap-gzip-zlib-stream": 1.0, "rewrap-zlib-gzip-stream": 1.0,
        "inflate-isal": 0.95, "inflate-zlib": 2.5, "inflate-libdeflate": 0.97,
        "recompress-zlib6": 40.0, "recompress-libdeflate6": 30.0, "recompress-igzip": 12.0}


def _verdicts(cases, evidence=None):
    """letter -> the verdicts of that letter, in order ((b), (c) and (d): one per re-wrap)."""
    out: dict = {}
    for v in EXP.verdicts(cases, evidence or Evidence()):
        out.setdefault(v.claim[:3], []).append(v)
    return out


def _kinds(verdicts) -> list[str]:
    return [v.verdict for v in verdicts]


def test_floor_and_recompression_targets():
    v = _verdicts(_group(FAST))
    assert _kinds(v["(b)"]) == ["confirmed"] * 2 and "against inflate-isal" in v["(b)"][0].evidence
    assert "gzip -> zlib" in v["(b)"][0].claim and "zlib -> gzip" in v["(b)"][1].claim
    assert _kinds(v["(c)"]) == ["confirmed"] * 2
    assert "against recompress-igzip" in v["(c)"][0].evidence
    slow = _verdicts(_group({**FAST, "rewrap-zlib-gzip": 1.5, "rewrap-zlib-gzip-stream": 1.6}))
    assert _kinds(slow["(b)"]) == ["confirmed", "refuted"] and "0.633x" in slow["(b)"][1].evidence
    # the faster form counts: the buffer's output all to memory, or streamed to a writer
    streamed = _verdicts(_group({**FAST, "rewrap-gzip-zlib": 1.5}))["(b)"]
    assert _kinds(streamed) == ["confirmed"] * 2
    assert "rewrap-gzip-zlib-stream" in streamed[0].evidence
    # the floor is the fastest plain inflate, whole-buffer libdeflate included
    ld = _verdicts(_group({**FAST, "inflate-libdeflate": 0.5}))["(b)"]
    assert _kinds(ld) == ["refuted"] * 2 and "against inflate-libdeflate" in ld[0].evidence
    close = _verdicts(_group({**FAST, "recompress-igzip": 8.0}))["(c)"]
    assert _kinds(close) == ["refuted"] * 2


def test_every_data_set_must_reach_the_floor():
    # fast on text, slow on random data in the same build: refuted, the set named
    cases = _group(FAST) + _group({**FAST, "rewrap-gzip-zlib": 1.5,
                                   "rewrap-gzip-zlib-stream": 1.5}, kind="random")
    b = _verdicts(cases)["(b)"][0]
    assert b.verdict == "refuted" and "reached in 1 of 2" in b.evidence
    assert "kind=random" in b.evidence
    # a spread across the target decides nothing
    noisy = [Case(c.variant, c.build, c.params,
                  {**c.metrics, "time": Metric.of([0.8, 1.25, 1.0, 0.9, 1.2], "ns/byte",
                                                  "clock")})
             if c.variant in ("rewrap-gzip-zlib", "rewrap-gzip-zlib-stream") else c
             for c in _group(FAST)]
    assert _verdicts(noisy)["(b)"][0].verdict == "inconclusive"


def test_recompression_without_recompressors_is_unmeasurable():
    # above RECOMPRESS_MAX the kernel runs no recompressor: no set to compare
    big = {k: t for k, t in FAST.items() if not k.startswith("recompress")}
    c = _verdicts(_group(big, size=16 * MiB))["(c)"]
    assert _kinds(c) == ["unmeasurable"] * 2
    failed = [Case(v, BUILD, error="build failed: isa-l missing") for v in VARIANTS]
    assert "isa-l missing" in _verdicts(failed)["(b)"][0].evidence


def test_identical_payload_and_fastest_inflater():
    assert _kinds(_verdicts(_group(FAST))["(d)"]) == ["confirmed"] * 5
    differs = _verdicts(_group(FAST, identical=0))["(d)"]
    assert _kinds(differs) == ["refuted"] * 5
    assert "identical-and-decodes of rewrap-gzip-zlib at least 1 in 0 of 1" in differs[0].evidence
    assert _kinds(_verdicts(_group(FAST))["(e)"]) == ["confirmed"]
    zlib_faster = _verdicts(_group({**FAST, "inflate-zlib": 0.5}))["(e)"]
    assert _kinds(zlib_faster) == ["refuted"]
    unchecked = [Case(c.variant, c.build, c.params, {"time": c.metrics["time"]})
                 for c in _group(FAST)]
    assert _kinds(_verdicts(unchecked)["(d)"]) == ["unmeasurable"] * 5


def test_sql_claim_from_the_servers_answers():
    base = {"gzip CRC-32 (little-endian, as stored)": "NULL", "zeros": "NULL",
            "the true Adler-32 (computed outside SQL)": "data", "gzwrap": "data"}
    v = _verdicts(sql_cases(base, "10.11"))["(a)"]
    assert _kinds(v) == ["confirmed"] and "0 of 2" in v[0].evidence
    broken = {**base, "zeros": "data"}
    v = _verdicts(sql_cases(broken, "10.11"))["(a)"]
    assert _kinds(v) == ["refuted"] and "1 of 2" in v[0].evidence
    # a control that fails says nothing about the guesses: not judged, and said why
    no_control = {**base, "gzwrap": "NULL"}
    v = _verdicts(sql_cases(no_control, "10.11"))["(a)"]
    assert _kinds(v) == ["unmeasurable"] and "controls's answers that are the data" in \
        v[0].evidence
    # no server: the reason the cases give
    gone = [Case(n, None, error="no MariaDB server: mariadbd not found")
            for n in ("sql-guesses", "controls")]
    v = _verdicts(gone)["(a)"]
    assert _kinds(v) == ["unmeasurable"] and "mariadbd not found" in v[0].evidence


def test_schedule_keeps_large_sizes_within_budget():
    d = PROFILES["default"]
    assert schedule(MiB, d) == (d.rounds, d.reps)
    rounds, reps = schedule(GiB, d)
    # never fewer processes than an interval needs: past the budget only at that floor
    assert rounds >= MIN_PROCESSES and reps >= 2
    assert rounds * (reps + 2) * GiB <= 8 * GiB or (rounds, reps) == (MIN_PROCESSES, 2)


def test_the_1_gib_data_are_re_wrapped_by_the_full_profile_only():
    def most(name: str) -> int:
        return max(max(sizes) for sizes in SIZES[name].values())

    assert most("full") == GiB and most("default") < GiB and most("quick") < most("default")
    for kind, sizes in SIZES["default"].items():
        assert set(sizes) <= set(SIZES["full"][kind])
    for name in PROFILES:  # every claim keeps its cases: recompression stops at 4 MiB
        assert all(min(sizes) <= RECOMPRESS_MAX for sizes in SIZES[name].values())



# ---- end to end, quick profile ---------------------------------------------------------
# Replayed from kernel output that `scripts/record-kernel-output gzwrap` recorded
# (tests/data/replay/gzwrap.json.gz): builds and machine code are this machine's, the
# programs' output the recording's. CPULAB_FULL=1 runs it for real.


def check_quick_run(run: dict) -> None:
    assert run["status"] == "complete"
    sql = [c for c in run["cases"] if c["variant"] in ("sql-guesses", "controls")]
    assert len(sql) == 2  # claim (a)'s, answered or failed with the reason
    cases = [c for c in run["cases"] if not c.get("error") and c not in sql]
    seen = {(c["variant"], c["params"]["kind"], c["params"]["size"]) for c in cases}
    for kind, size in (("text", MiB), ("binary", MiB), ("random", MiB)):
        for v in (*REWRAP, *STREAMED.values(), *INFLATE, *RECOMPRESS, *CHECKSUMS):
            assert (v, kind, size) in seen, (v, kind, size)
    for v in (MULTI, *MULTI_INFLATE):  # the bgzip file's: text only
        assert (v, "text", MiB) in seen and (v, "random", MiB) not in seen
    assert {c["variant"] for c in cases} == set(VARIANTS)
    for c in cases:
        assert c["metrics"]["throughput"]["unit"] == "GB/s"
        if c["variant"] == MULTI:  # bgzip's members, joined: decodes to the data
            assert c["metrics"]["members"]["median"] > 1
            assert c["metrics"]["decodes"]["median"] == 1
        elif c["variant"].startswith("rewrap"):
            assert c["metrics"]["payload-identical"]["median"] == 1
            assert c["metrics"]["decodes"]["median"] == 1
    letters = [v["claim"][:3] for v in run["verdicts"]]
    assert letters == ["(a)", "(b)", "(b)", "(c)", "(c)", "(d)", "(d)", "(d)", "(d)", "(d)",
                       "(e)", "(f)", "(g)", "(h)", "(i)", "(j)"]
    verdicts = {(v["claim"][:3], i): v["verdict"] for i, v in enumerate(run["verdicts"])}
    assert all(v == "confirmed" for (k, _), v in verdicts.items() if k == "(d)")
    assert verdicts[("(a)", 0)] == ("unmeasurable" if missing() else "confirmed")
    assert all(v != "unmeasurable" for (k, _), v in verdicts.items() if k != "(a)")


def test_quick_run_replayed():
    rec, _ = replay(EXP)
    check_quick_run(rec.as_dict())


@pytest.mark.full
def test_end_to_end_quick(results_db, capsys):
    rc = cli.main(["run", "gzwrap", "--quick", "--json", "--db", str(results_db)])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    (run,) = out["runs"]
    check_quick_run(run)
