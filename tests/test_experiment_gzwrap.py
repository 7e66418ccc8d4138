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
    INFLATE,
    RECOMPRESS,
    RECOMPRESS_MAX,
    REWRAP,
    SIZES,
    VARIANTS,
    schedule,
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


def _group(times: dict[str, float], kind="text", size=MiB, identical=1) -> list[Case]:
    out = []
    for v, ns in times.items():
        m = {"time": Metric.of(_series(ns), "ns/byte", "clock")}
        if v.startswith("rewrap"):
            m["payload-identical"] = Metric.exact(identical, "1", "output")
            m["decodes"] = Metric.exact(1, "1", "output")
            m["payload-bytes"] = Metric.exact(1000, "bytes", "output")
        out.append(Case(v, BUILD, {"kind": kind, "size": size}, m))
    return out


FAST = {"rewrap-gzip-zlib": 1.0, "rewrap-zlib-gzip": 1.0, "inflate-isal": 0.95,
        "inflate-zlib": 2.5, "inflate-libdeflate": 0.97, "recompress-zlib6": 40.0,
        "recompress-libdeflate6": 30.0, "recompress-igzip": 12.0}


def _verdicts(cases, evidence=None):
    return {v.claim[:3]: v for v in EXP.verdicts(cases, evidence or Evidence())}


def test_floor_and_recompression_targets():
    v = _verdicts(_group(FAST))
    assert v["(b)"].verdict == "confirmed" and "inflate-isal" in v["(b)"].evidence
    assert v["(c)"].verdict == "confirmed" and "recompress-igzip" in v["(c)"].evidence
    slow = _verdicts(_group({**FAST, "rewrap-zlib-gzip": 1.5}))
    assert slow["(b)"].verdict == "refuted" and "rewrap-zlib-gzip: 0.633x" in slow["(b)"].evidence
    # the floor is the fastest plain inflate, whole-buffer libdeflate included
    ld = _verdicts(_group({**FAST, "inflate-libdeflate": 0.5}))
    assert ld["(b)"].verdict == "refuted" and "vs inflate-libdeflate" in ld["(b)"].evidence
    close = _verdicts(_group({**FAST, "recompress-igzip": 8.0}))
    assert close["(c)"].verdict == "refuted"


def test_identical_payload_and_fastest_inflater():
    assert _verdicts(_group(FAST))["(d)"].verdict == "confirmed"
    assert _verdicts(_group(FAST, identical=0))["(d)"].verdict == "refuted"
    assert _verdicts(_group(FAST))["(e)"].verdict == "confirmed"
    zlib_faster = _verdicts(_group({**FAST, "inflate-zlib": 0.5}))["(e)"]
    assert zlib_faster.verdict == "refuted"


def test_sql_claim_from_the_servers_answers():
    base = [["gzip CRC-32 (little-endian, as stored)", "NULL"], ["zeros", "NULL"],
            ["the true Adler-32 (computed outside SQL)", "data"], ["gzwrap", "data"]]
    ev = Evidence(facts={"sql_attempts": base, "mariadb": "10.11"})
    assert _verdicts([], ev)["(a)"].verdict == "confirmed"
    broken = [[w, "data" if w == "zeros" else r] for w, r in base]
    assert _verdicts([], Evidence(facts={"sql_attempts": broken}))["(a)"].verdict == "refuted"
    no_control = [[w, "NULL" if w == "gzwrap" else r] for w, r in base]
    assert _verdicts([], Evidence(facts={"sql_attempts": no_control}))["(a)"].verdict == \
        "inconclusive"
    assert _verdicts([])["(a)"].verdict == "unmeasurable"


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
    cases = [c for c in run["cases"] if not c.get("error")]
    seen = {(c["variant"], c["params"]["kind"], c["params"]["size"]) for c in cases}
    for kind, size in (("text", MiB), ("binary", MiB), ("random", MiB)):
        for v in (*REWRAP, *INFLATE, *RECOMPRESS):
            assert (v, kind, size) in seen, (v, kind, size)
    assert {c["variant"] for c in cases} == set(VARIANTS)
    for c in cases:
        assert c["metrics"]["throughput"]["unit"] == "GB/s"
        if c["variant"].startswith("rewrap"):
            assert c["metrics"]["payload-identical"]["median"] == 1
            assert c["metrics"]["decodes"]["median"] == 1
    verdicts = {v["claim"][:3]: v["verdict"] for v in run["verdicts"]}
    assert list(verdicts) == ["(a)", "(b)", "(c)", "(d)", "(e)"]
    assert verdicts["(d)"] == "confirmed"
    assert verdicts["(a)"] == ("unmeasurable" if missing() else "confirmed")
    assert all(v != "unmeasurable" for k, v in verdicts.items() if k != "(a)")


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
