"""The experiment `fileread` (S8): reading a file by read(), mmap and fread, and many
small files the same ways.

The kernel is checked by what it must compute, never by how fast: every strategy's sum
equals the test file's known sum (on sizes that end mid-chunk too), pre-faulted and
buffered reads take no page faults while plain mmap does, eviction is confirmed by
mincore, and bad parameters are usage errors; for many small files, the sums agree and
mmap takes a fault per file where read() takes none. The schedule, the cases built from
the kernel's extra lines and the verdicts are tested on fake data; the quick profile runs
end to end with every case and verdict present.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from cpulab import cli
from cpulab.build import BuildConfig, build_one
from cpulab.context import PROFILES
from cpulab.experiments.fileread import experiment, smallfiles, strategies, testfile
from cpulab.measure.kernel_output import parse
from cpulab.measure.metrics import Metric
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Outcome, Program, run_interleaved
from cpulab.measure.stats import MIN_PROCESSES
from cpulab.paths import build_dir
from cpulab.results import Case, Evidence

MiB, GiB = strategies.MiB, strategies.GiB


def run(exe: Path, *args: str) -> tuple[int, list[dict]]:
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=120)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines()]


# ---- the test file -----------------------------------------------------------------------

@pytest.mark.parametrize("size", [8, 4096 + 24, 3 * 8 * (1 << 21) + 8])
def test_expected_sum_is_the_sum_of_the_written_words(tmp_path, size):
    path = tmp_path / "f.bin"
    total = testfile.write(path, size)
    data = np.fromfile(path, dtype="<u8")
    assert path.stat().st_size == size and data.size == size // 8
    assert int(data.sum(dtype=np.uint64)) == total == testfile.expected_sum(size)
    assert len(np.unique(data)) == data.size  # every word differs: a skipped chunk shows


def test_words_do_not_depend_on_the_file_size():
    assert testfile.words(0, 3).tolist() == [(i * testfile.FACTOR) % (1 << 64)
                                              for i in (1, 2, 3)]
    assert testfile.words(5, 8).tolist() == testfile.words(0, 8).tolist()[5:]


@pytest.mark.parametrize("size", [0, 12, -8])
def test_a_test_file_is_a_positive_multiple_of_a_word(size):
    with pytest.raises(ValueError, match="multiple of 8"):
        testfile.expected_sum(size)


def test_many_files_are_one_test_file_cut_into_pieces(tmp_path):
    total = testfile.write_many(tmp_path / "d", 3, 4096 + 8)
    files = [np.fromfile(tmp_path / "d" / f"{k}.bin", dtype="<u8") for k in range(3)]
    assert [f.size for f in files] == [(4096 + 8) // 8] * 3
    whole = np.concatenate(files)
    assert whole.tolist() == testfile.words(0, whole.size).tolist()  # no file repeats
    assert int(whole.sum(dtype=np.uint64)) == total == testfile.expected_sum(3 * (4096 + 8))
    # The first k files alone: what a cold pass over a share of the folder must sum to.
    assert int(files[0].sum(dtype=np.uint64)) == testfile.expected_sum(4096 + 8)


@pytest.mark.parametrize("files,size", [(0, 4096), (2, 12)])
def test_a_folder_of_test_files_is_whole_words(tmp_path, files, size):
    with pytest.raises(ValueError):
        testfile.write_many(tmp_path / "d", files, size)


def test_scratch_dir_is_removed_on_error_and_stale_ones_first(tmp_path):
    stale = tmp_path / "run-999999999-x"  # no such process
    stale.mkdir()
    live = tmp_path / f"run-{os.getppid()}-y"  # a running process's folder stays
    live.mkdir()
    with pytest.raises(RuntimeError), testfile.scratch_dir(tmp_path) as d:
        (d / "big.bin").write_bytes(b"x" * 64)
        assert not stale.exists() and live.exists()
        raise RuntimeError("a case failed")
    assert not d.exists() and live.exists()


# ---- the kernel ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exe(gcc) -> Path:
    return build_one(experiment.EXPERIMENT.target(), BuildConfig(gcc, "O2"))


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[Path, int]:
    # 1 MiB + 24 bytes: the last chunk of every buffer size is short, and not page-sized.
    path = tmp_path_factory.mktemp("fileread") / "f.bin"
    return path, testfile.write(path, MiB + 24)


def cases_run(lines: list[dict]) -> set[str]:
    return {r["case"] for r in lines if r["type"] == "rep"}


def faults_per_page(lines: list[dict]) -> dict[str, float]:
    """case -> the most page faults per 4 KiB page of the file over its reps (sw)."""
    out: dict[str, float] = {}
    for r in lines:
        if r["type"] == "rep":
            f = r["counters"]["page-faults"] / (r["units"] / 4096)
            out[r["case"]] = max(out.get(r["case"], 0.0), f)
    return out


@pytest.mark.parametrize("cache", ["warm", "cold"])
def test_every_strategy_sums_the_file_correctly(exe, data, cache):
    path, total = data
    rc, lines = run(exe, "--target-ms", "1", "--reps", "2", "--param", f"path={path}",
                    "--param", f"sum={total}", "--param", f"cache={cache}")
    refused = {x["case"] for x in lines if x["type"] == "refused"}
    if cache == "cold" and rc == 1 and "eviction" in lines[-1]["message"]:
        pytest.skip(lines[-1]["message"])  # this file system cannot drop the file
    assert rc == 0, lines[-1]
    # Each pass checks its own sum against --param sum: a run that got here summed equal.
    assert cases_run(lines) | refused == set(strategies.VARIANTS)
    meta = next(x for x in lines if x["type"] == "meta")
    assert meta["params"] == {"path": str(path), "sum": total, "cache": cache}
    probed = {x["case"] for x in lines if x["type"] == "pmd-mapped"}
    assert probed | refused == {"mmap", "mmap-hugepage"}
    if cache == "cold":
        # One pass per call (a second would find the file cached), after an eviction that
        # mincore confirmed.
        fixed = {c["name"]: (c["iters"], c["iters_from"]) for c in meta["cases"]}
        assert all(v == (1, "case") for k, v in fixed.items() if k != "memory"), fixed
        (ev,) = [x for x in lines if x["type"] == "eviction"]
        assert ev["pages"] == (MiB + 24 + 4095) // 4096
        assert ev["resident"] * 100 <= ev["pages"]


def test_a_wrong_sum_fails_the_run(exe, data):
    path, total = data
    rc, lines = run(exe, "--iters", "1", "--reps", "1", "--param", f"path={path}",
                    "--param", f"sum={total ^ 1}")
    assert rc == 1
    assert f"expected {total ^ 1}" in lines[-1]["message"]


def test_page_faults_where_the_file_is_mapped_and_nowhere_else(exe, data):
    path, total = data
    rc, lines = run(exe, "--iters", "4", "--reps", "3", "--param", f"path={path}",
                    "--param", f"sum={total}")
    assert rc == 0, lines[-1]
    meta = next(x for x in lines if x["type"] == "meta")
    if not meta["counters"]["page-faults"]["available"]:
        pytest.skip("no software page-fault counter: "
                    + meta["counters"]["page-faults"]["reason"])
    faults = faults_per_page(lines)
    # Plain mmap maps the page cache lazily: at least one fault per pass (fault-around and
    # large folios map up to 16 pages or a whole folio per fault), at most one per page.
    assert 1 / 257 <= faults["mmap"] <= 1.05, faults
    for c in ("read-4k", "read-64k", "read-1m", "read-4m", "fread", "mmap-populate",
              "memory"):
        assert faults[c] <= 0.01, (c, faults)


@pytest.mark.parametrize("args,message", [
    (["--param", "cache=lukewarm"], "want warm or cold"),
    ([], "--param path=FILE is required"),
    (["--param", "path=/nonexistent/f.bin"], "No such file"),
    (["--param", "path=/proc/self"], "not a regular file"),
])
def test_bad_params_are_usage_errors(exe, args, message):
    rc, lines = run(exe, "--list", *args)
    assert rc == 2
    assert message in lines[-1]["message"]


def test_a_file_that_is_not_whole_words_is_a_usage_error(exe, tmp_path):
    odd = tmp_path / "odd.bin"
    odd.write_bytes(b"x" * 12)
    rc, lines = run(exe, "--list", "--param", f"path={odd}")
    assert rc == 2 and "want a multiple of 8" in lines[-1]["message"]


# ---- the kernel for many small files -------------------------------------------------------

SMALL_FILES, SMALL_SIZE = 64, 64 * 1024 + 8  # fread's last chunk is short, mmap's last page


@pytest.fixture(scope="module")
def small_exe(gcc) -> Path:
    return build_one(smallfiles.target(), BuildConfig(gcc, "O2"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> tuple[Path, int]:
    d = tmp_path_factory.mktemp("smallfiles") / "d"
    return d, testfile.write_many(d, SMALL_FILES, SMALL_SIZE)


def small_args(folder: tuple[Path, int], *extra: str, files: int = SMALL_FILES) -> list[str]:
    d, _ = folder
    return ["--param", f"dir={d}", "--param", f"files={files}", "--param",
            f"size={SMALL_SIZE}", "--param", f"sum={testfile.expected_sum(files * SMALL_SIZE)}",
            *extra]


@pytest.mark.parametrize("cache", ["warm", "cold"])
def test_every_small_files_strategy_sums_the_folder_correctly(small_exe, folder, cache):
    rc, lines = run(small_exe, "--target-ms", "1", "--reps", "2",
                    *small_args(folder, "--param", f"cache={cache}"))
    if cache == "cold" and rc == 1 and "eviction" in lines[-1]["message"]:
        pytest.skip(lines[-1]["message"])  # this file system cannot drop the files
    assert rc == 0, lines[-1]
    # Each pass checks its total against --param sum: a run that got here summed equal.
    assert cases_run(lines) == set(strategies.FILE_STRATEGIES)
    meta = next(x for x in lines if x["type"] == "meta")
    assert meta["params"]["files"] == SMALL_FILES and meta["params"]["cache"] == cache
    assert {c["unit"] for c in meta["cases"]} == {"file"}
    assert all(r["units"] == r["iters"] * SMALL_FILES for r in lines if r["type"] == "rep")
    if cache == "cold":
        (ev,) = [x for x in lines if x["type"] == "eviction"]
        assert ev["pages"] == SMALL_FILES * ((SMALL_SIZE + 4095) // 4096)
        assert ev["resident"] * 100 <= ev["pages"]


def test_a_share_of_the_folder_sums_to_its_own_total(small_exe, folder):
    rc, lines = run(small_exe, "--iters", "1", "--reps", "1", *small_args(folder, files=5))
    assert rc == 0, lines[-1]
    # The same share, given the whole folder's sum, fails: the pass counts its files.
    rc, lines = run(small_exe, "--iters", "1", "--reps", "1", "--case", "files-mmap",
                    *small_args(folder, files=5)[:-1], f"sum={folder[1]}")
    assert rc == 1 and f"expected {folder[1]}" in lines[-1]["message"]


def test_mmap_faults_once_per_small_file_and_read_never(small_exe, folder):
    rc, lines = run(small_exe, "--iters", "4", "--reps", "3", *small_args(folder))
    assert rc == 0, lines[-1]
    meta = next(x for x in lines if x["type"] == "meta")
    if not meta["counters"]["page-faults"]["available"]:
        pytest.skip("no software page-fault counter: "
                    + meta["counters"]["page-faults"]["reason"])
    per_file: dict[str, float] = {}
    for r in lines:
        if r["type"] == "rep":
            f = r["counters"]["page-faults"] / r["units"]
            per_file[r["case"]] = max(per_file.get(r["case"], 0.0), f)
    # A fresh mapping per file: at least one fault (fault-around maps up to 16 pages per
    # fault), at most one per page of the file (17 here).
    assert 1 <= per_file["files-mmap"] <= (SMALL_SIZE + 4095) // 4096, per_file
    for c in ("files-read", "files-fread", "files-mmap-populate"):
        assert per_file[c] <= 0.02, (c, per_file)


@pytest.mark.parametrize("extra,message", [
    (["--param", "files=0"], "--param files=0: want 1 to"),
    (["--param", "size=12"], "--param size=12: want a multiple of 8"),
    (["--param", "cache=lukewarm"], "want warm or cold"),
    (["--param", "size=4096"], "is not a regular file of 4096 bytes"),
    (["--param", "files=65", "--param", f"size={SMALL_SIZE}"], "64.bin: No such file"),
])
def test_bad_small_files_params_are_usage_errors(small_exe, folder, extra, message):
    rc, lines = run(small_exe, "--list", *small_args(folder)[:2], *extra)
    assert rc == 2
    assert message in lines[-1]["message"]


def test_small_files_without_a_folder_is_a_usage_error(small_exe):
    rc, lines = run(small_exe, "--list")
    assert rc == 2 and "--param dir=DIR is required" in lines[-1]["message"]


# ---- schedule and cases (pure) -----------------------------------------------------------

def test_quick_profile_keeps_its_rounds_and_reps():
    quick = PROFILES["quick"]
    for size in experiment.READING["quick"].sizes:
        for cache in strategies.CACHES:
            s = experiment.schedule(size, cache, quick)
            assert (s.rounds, s.reps) == (quick.rounds, quick.reps)


def test_the_seed_s_1_gib_file_is_read_by_the_full_profile_only():
    sizes = {name: experiment.READING[name].sizes for name in PROFILES}
    assert max(sizes["full"]) == GiB
    assert max(sizes["default"]) == 256 * MiB and max(sizes["quick"]) == 16 * MiB
    # each profile reads what the shorter one does, and more
    assert set(sizes["quick"]) < set(sizes["default"]) < set(sizes["full"])


@pytest.mark.parametrize("name", ["default", "full"])
def test_a_schedule_stays_within_its_profile_s_budget(name):
    profile, reading = PROFILES[name], experiment.READING[name]
    for size in reading.sizes:
        for cache, budget, extra in (("cold", reading.cold_budget, 1),
                                     ("warm", reading.warm_budget, 2)):
            s = experiment.schedule(size, cache, profile)
            # never fewer processes than an interval needs, even past the budget
            assert s.rounds >= MIN_PROCESSES and s.reps >= 1
            assert (s.rounds * (s.reps + extra) * size <= budget
                    or (s.rounds, s.reps) == (MIN_PROCESSES, 1))
    assert experiment.schedule(MiB, "cold", profile) == experiment.Schedule(
        profile.rounds, profile.reps)
    assert experiment.schedule(max(reading.sizes), "cold", profile) == experiment.Schedule(
        MIN_PROCESSES, 1)


META = {"type": "meta", "schema": 1, "counters": {
    "cycles": {"available": False, "source": "pmu", "reason": "no PMU here"},
    "page-faults": {"available": True, "source": "sw", "unit": "count"}}}


def fake_outcome(ns: dict[str, list[int]], extra: list[dict], size: int = MiB,
                 unit: str = "byte") -> Outcome:
    lines = [META, *extra]
    for case, values in ns.items():
        lines += [{"type": "rep", "case": case, "rep": i, "iters": 1, "units": size,
                   "unit": unit, "ns": v, "counters": {"page-faults": 16}}
                  for i, v in enumerate(values)]
    return Outcome(output=parse("\n".join(json.dumps(x) for x in lines)))


def cases_of(out: Outcome, build: dict, params: dict,
             variants: tuple[str, ...] = strategies.VARIANTS) -> list[Case]:
    """The cases of one program of `build` and `params` that printed `out`."""
    return experiment.program_cases(Program(["fileread"], build=build, params=params), out,
                                    variants)


def test_cases_carry_rates_refusals_and_probes():
    out = fake_outcome({"mmap": [500_000, 250_000], "memory": [50_000, 50_000]}, [
        {"type": "refused", "case": "mmap-hugepage", "reason": "madvise: Invalid argument"},
        {"type": "pmd-mapped", "case": "mmap", "bytes": MiB, "file_pmd_mapped": MiB // 2},
        {"type": "eviction", "pages": 256, "resident": 1}])
    cases = {c.variant: c for c in cases_of(out, {"compiler": "gcc-12",
                                                              "flags": "-O2"},
                                                       {"size": MiB, "cache": "cold"})}
    assert set(cases) == {"mmap", "memory", "mmap-hugepage"}
    assert cases["mmap-hugepage"].error == "refused by the kernel: madvise: Invalid argument"
    m = cases["mmap"]
    assert m.metrics["throughput"].unit == "GB/s"
    assert sorted(m.metrics["throughput"].values) == [MiB / 500_000, MiB / 250_000]
    assert m.metrics["faults-per-gib"].median == pytest.approx(16 * 1024)
    assert m.metrics["faults-per-gib"].source == "sw"
    assert m.metrics["huge-mapped"].median == 50.0
    assert m.metrics["resident-after-eviction"].median == pytest.approx(100 / 256)
    assert "resident-after-eviction" not in cases["memory"].metrics
    assert "cycles" in m.unavailable and "cycles" not in m.metrics


def test_warm_cases_carry_the_pages_read_back():
    out = fake_outcome({"read-4k": [100_000]}, [
        {"type": "rewarm", "pages": 256, "calls": 3, "most_missing": 2}])
    (c,) = cases_of(out, {"compiler": "gcc-12", "flags": "-O2"},
                               {"size": MiB, "cache": "warm"})
    assert c.metrics["rewarmed-calls"].median == 3
    assert c.metrics["missing-before-pass"].median == pytest.approx(200 / 256)
    (_, _, _, cache) = experiment.EXPERIMENT.evidence(None, [c]).tables
    assert cache.rows == [["1 MiB", "warm", "gcc-12 -O2", "pages missing before 3 calls "
                              "(at most 0.781%), read back untimed"]]


def over_rounds(*extras: list[dict]) -> Outcome:
    """The outcome of one program over as many interleaved processes as `extras`, each
    printing one mmap pass and its own extra lines."""
    outputs = iter(extras)

    def script(argv):
        lines = [META, *next(outputs), {"type": "rep", "case": "mmap", "rep": 0, "iters": 1,
                                        "units": MiB, "unit": "byte", "ns": 250_000}]
        return 0, "\n".join(json.dumps(x) for x in lines)

    runner = FakeRunner(script)
    return run_interleaved([Program(["fileread"], key="p")], runner, len(extras), 1)["p"]


def test_extra_lines_of_every_process_count():
    refused = {"type": "refused", "case": "mmap-hugepage", "reason": "madvise: EINVAL"}
    out = over_rounds(
        [refused, {"type": "pmd-mapped", "case": "mmap", "bytes": MiB, "file_pmd_mapped": 0},
         {"type": "eviction", "pages": 256, "resident": 1}],
        [refused, {"type": "pmd-mapped", "case": "mmap", "bytes": MiB,
                   "file_pmd_mapped": MiB // 2},
         {"type": "eviction", "pages": 256, "resident": 2}])
    cases = cases_of(out, {"compiler": "gcc-12", "flags": "-O2"},
                                {"size": MiB, "cache": "cold"})
    assert [c.variant for c in cases] == ["mmap", "mmap-hugepage"]  # one refusal, not two
    m = cases[0]
    assert m.metrics["huge-mapped"].values == (0.0, 50.0)  # each process's untimed pass
    assert m.metrics["resident-after-eviction"].median == pytest.approx(200 / 256)  # worst


def test_rewarmed_calls_are_summed_over_the_processes():
    out = over_rounds([{"type": "rewarm", "pages": 256, "calls": 3, "most_missing": 2}],
                     [{"type": "rewarm", "pages": 256, "calls": 1, "most_missing": 8}],
                     [{"type": "rewarm", "pages": 256, "calls": 0, "most_missing": 0}])
    (c,) = cases_of(out, {"compiler": "gcc-12", "flags": "-O2"},
                               {"size": MiB, "cache": "warm"})
    assert c.metrics["rewarmed-calls"].median == 4
    assert c.metrics["missing-before-pass"].median == pytest.approx(800 / 256)


def test_huge_mapped_unknown_in_any_process_is_unavailable():
    probe = {"type": "pmd-mapped", "case": "mmap", "bytes": MiB}
    out = over_rounds([{**probe, "file_pmd_mapped": 0}], [{**probe, "file_pmd_mapped": -1}])
    (c,) = cases_of(out, {"compiler": "gcc-12", "flags": "-O2"},
                               {"size": MiB, "cache": "warm"})
    assert "huge-mapped" not in c.metrics and "smaps" in c.unavailable["huge-mapped"]["reason"]


def test_a_failed_program_fails_every_variant():
    why = "exit status 1: eviction without effect: posix_fadvise left 256 of 256 pages"
    cases = cases_of(Outcome(error=why), {"compiler": "gcc-12", "flags": "-O2"},
                                {"size": MiB, "cache": "cold"})
    assert [c.variant for c in cases] == list(strategies.VARIANTS)
    assert all(c.error == why for c in cases)


def test_small_file_cases_carry_rates_per_file():
    size = 16 * 1024
    out = fake_outcome({"files-mmap": [8_000, 10_000], "files-read": [4_000, 4_000]},
                       [{"type": "rewarm", "pages": 400 * 4, "calls": 0, "most_missing": 0}],
                       size=1, unit="file")  # one file per rep, 16 faults in it
    cases = {c.variant: c for c in cases_of(
        out, {"compiler": "gcc-12", "flags": "-O2"},
        {"size": size, "files": 400, "cache": "warm"}, strategies.FILE_STRATEGIES)}
    m = cases["files-mmap"]
    assert m.metrics["time"].unit == "ns/file"
    assert sorted(m.metrics["throughput"].values) == [size / 10_000, size / 8_000]  # GB/s
    assert m.metrics["page-faults"].unit == "faults/file"
    assert m.metrics["faults-per-gib"].median == pytest.approx(16 * GiB / size)


def test_small_files_schedule_is_bounded():
    for profile in PROFILES.values():
        cold, warm = (smallfiles.files_read(c, profile) for c in ("cold", "warm"))
        assert 0 < cold * smallfiles.COLD_SHARE <= warm
        for cache in strategies.CACHES:
            rounds, reps = smallfiles.rounds_reps(cache, profile)
            assert 2 <= rounds <= 3 and 1 <= reps <= profile.reps
    assert smallfiles.files_read("warm", PROFILES["default"]) >= 1000  # "thousands"


# ---- verdicts on fake cases ------------------------------------------------------------

BUILD = {"compiler": "gcc-12", "flags": "-O2", "pgo": False}


def case(variant: str, ns_per_byte: float, size: int, cache: str) -> Case:
    c = Case(variant, BUILD, {"size": size, "cache": cache})
    c.metrics["time"] = Metric.of([ns_per_byte * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)],
                                  "ns/byte", "clock")
    return c


def group(size: int, cache: str, read: float, mapped: float, **others: float) -> list[Case]:
    cs = [case("read-64k", read, size, cache), case("mmap", mapped, size, cache)]
    return cs + [case(v.replace("_", "-"), t, size, cache) for v, t in others.items()]


def verdicts_of(cases: list[Case]) -> dict[str, object]:
    """The experiment's verdicts by letter ("(a)"); the three Go verdicts as "(e)" in a list."""
    out: dict[str, object] = {}
    for v in experiment.EXPERIMENT.verdicts(cases, Evidence()):
        letter = v.claim[:3]
        if letter == "(e)":
            out.setdefault(letter, []).append(v)  # type: ignore[union-attr]
        else:
            out[letter] = v
    return out


def test_seed_claim_warm_confirmed_cold_refuted():
    cases = (group(MiB, "warm", 0.05, 0.025) + group(GiB, "warm", 0.05, 0.04)
             + group(MiB, "cold", 0.3, 0.6))
    v = verdicts_of(cases)
    a, b = v["(a)"], v["(b)"]
    assert (a.verdict, b.verdict) == ("confirmed", "refuted"), (a.evidence, b.evidence)
    assert "2.000x" in a.evidence and "in 2 of 2" in a.evidence
    assert "cache=warm" in a.evidence and "cache=cold" not in a.evidence
    assert "1.70 s" in a.seed and "0.83 s" in a.seed
    assert "0.500x" in b.evidence


def test_seed_claim_is_judged_by_most_sizes_and_builds():
    # mmap wins at two sizes and loses at one: confirmed by most; a split decides nothing
    three = (group(MiB, "warm", 0.05, 0.025) + group(GiB, "warm", 0.05, 0.04)
             + group(16 * MiB, "warm", 0.02, 0.04))
    assert verdicts_of(three)["(a)"].verdict == "confirmed"
    split = group(MiB, "warm", 0.05, 0.025) + group(16 * MiB, "warm", 0.02, 0.04)
    assert verdicts_of(split)["(a)"].verdict == "inconclusive"


def test_rebuttal_judges_the_fastest_of_each_family():
    # read-64k loses to mmap, but read-1m beats every mmap flavour at 16 MiB.
    cases = group(MiB, "warm", 0.05, 0.025) + group(16 * MiB, "warm", 0.05, 0.04,
                                                    read_1m=0.02, mmap_populate=0.03)
    v = verdicts_of(cases)["(c)"]
    assert v.verdict == "confirmed", v.evidence
    assert "1.500x [1.466, 1.535] by read-1m against mmap-populate" in v.evidence
    assert "reached in 1 of 2" in v.evidence
    everywhere = verdicts_of(group(MiB, "warm", 0.05, 0.025))["(c)"]
    assert everywhere.verdict == "refuted", everywhere.evidence
    # a tie decides nothing: neither confirmed nor refuted
    tie = verdicts_of(group(MiB, "warm", 0.05, 0.025) + group(16 * MiB, "warm", 0.04, 0.04))
    assert tie["(c)"].verdict == "inconclusive", tie["(c)"].evidence


def test_cold_verdict_is_unmeasurable_with_the_reason_when_eviction_fails():
    failed = [Case(v, BUILD, {"size": MiB, "cache": "cold"},
                   error="eviction without effect: left 256 of 256 pages resident")
              for v in strategies.VARIANTS]
    v = verdicts_of(group(MiB, "warm", 0.05, 0.025) + failed)
    assert v["(a)"].verdict == "confirmed"
    assert v["(b)"].verdict == "unmeasurable" and "eviction without effect" in v["(b)"].evidence
    assert {v.verdict for v in experiment.EXPERIMENT.verdicts([], Evidence())} == {"unmeasurable"}


def test_ceiling_table_states_fractions_of_the_memory_pass():
    cases = group(MiB, "warm", 0.05, 0.025, memory=0.0125)
    (t, _, _, _) = experiment.EXPERIMENT.evidence(None, cases).tables
    fractions = {row[2]: row[5] for row in t.rows}
    assert fractions["read-64k"].startswith("0.250x") and fractions["mmap"].startswith("0.500x")
    assert fractions["memory"] == "1"


def small(size: int, cache: str, read: float, mapped: float) -> list[Case]:
    """files-read and files-mmap at `read` and `mapped` ns per file."""
    out = []
    for v, t in (("files-read", read), ("files-mmap", mapped)):
        c = Case(v, BUILD, {"size": size, "files": 4000, "cache": cache})
        c.metrics["time"] = Metric.of([t * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)],
                                      "ns/file", "clock")
        c.metrics["page-faults"] = Metric.exact(float(v == "files-mmap"), "faults/file", "sw")
        out.append(c)
    return out


def test_small_files_verdict_is_judged_warm():
    cases = (small(4096, "warm", 3000, 9000) + small(65536, "warm", 6000, 12000)
             + small(4096, "cold", 60000, 30000) + group(MiB, "warm", 0.05, 0.025))
    v = verdicts_of(cases)["(d)"]
    assert v.verdict == "confirmed", v.evidence
    assert "reached in 2 of 2, short in 0" in v.evidence
    assert "gcc-12 -O2, cache=warm, files=4000, size=4096: 3.000x" in v.evidence
    assert "cache=cold" not in v.evidence  # cold passes wait on the disk: not judged
    assert verdicts_of(small(4096, "warm", 9000, 3000))["(d)"].verdict == "refuted"
    assert verdicts_of(small(4096, "cold", 3000, 9000))["(d)"].verdict == "unmeasurable"


def test_small_files_verdict_is_unmeasurable_with_the_reason():
    failed = [Case(v, BUILD, {"size": 4096, "files": 4000, "cache": "warm"},
                   error="build failed: smallfiles.c: error") for v in strategies.FILE_STRATEGIES]
    v = verdicts_of(failed + group(MiB, "warm", 0.05, 0.025))["(d)"]
    assert v.verdict == "unmeasurable" and "build failed" in v.evidence


def go_group(size: int, cache: str, go: float, gcc: float, clang: float) -> list[Case]:
    """Each Go way at `go` ns per byte and the C way it mirrors in two builds."""
    out = []
    for go_way, c_way in strategies.GO_PAIRS:
        for variant, build, t in ((go_way, {"compiler": "go-1.19", "flags": "", "pgo": False},
                                   go), (c_way, BUILD, gcc),
                                  (c_way, {**BUILD, "compiler": "clang-19"}, clang)):
            c = Case(variant, build, {"size": size, "cache": cache})
            c.metrics["time"] = Metric.of([t * f for f in (0.98, 0.99, 1.0, 1.01, 1.02)],
                                          "ns/byte", "clock", range(5))
            out.append(c)
    return out


def test_go_is_judged_against_the_fastest_c_build_of_each_way():
    # gcc is slower than Go, clang faster: the fastest C build decides
    e = verdicts_of(go_group(MiB, "warm", 0.1, 0.2, 0.05))["(e)"]
    assert [v.verdict for v in e] == ["confirmed"] * 3, [v.evidence for v in e]
    assert "2.000x of read-64k (clang-19 -O2) against go-read-64k (go-1.19)" in e[0].evidence
    assert ["read() 64 KiB" in e[0].claim, "(mmap)" in e[1].claim,
            "bufio against fread" in e[2].claim] == [True] * 3
    faster = verdicts_of(go_group(MiB, "warm", 0.04, 0.2, 0.05))["(e)"]
    assert [v.verdict for v in faster] == ["refuted"] * 3
    none = verdicts_of(go_group(MiB, "warm", 0.1, 0.2, 0.05)[:1])["(e)"]
    assert [v.verdict for v in none] == ["unmeasurable"] * 3


def test_small_files_table_states_time_against_read():
    (_, _, t, cache) = experiment.EXPERIMENT.evidence(None, small(4096, "warm", 3000, 9000)).tables
    rows = {row[2]: row for row in t.rows}
    assert rows["files-read"][0] == "4,000 x 4 KiB" and rows["files-read"][6] == "1"
    assert rows["files-mmap"][6].startswith("3.000x") and rows["files-mmap"][7] == "1.00"
    assert rows["files-mmap"][4] == "9,000"  # ns/file
    assert cache.rows[0][0] == "4,000 x 4 KiB"


# ---- end to end --------------------------------------------------------------------------

@pytest.mark.needs("gcc")
def test_quick_run_end_to_end(results_db, capsys):
    rc = cli.main(["run", "fileread", "--quick", "--json", "--db", str(results_db)])
    (rec,) = json.loads(capsys.readouterr().out)["runs"]
    assert rc == 0 and rec["status"] == "complete", rec["notes"]
    builds = {f"{b['compiler']} {b['flags']}" for b in rec["builds"]}
    c_builds = {b for b in builds if not b.startswith("go-")}
    go_builds = builds - c_builds
    got = {(c["variant"], f"{c['build']['compiler']} {c['build']['flags']}",
            c["params"]["size"], c["params"]["cache"]) for c in rec["cases"]}
    one = {(v, b, s, cache) for v in strategies.VARIANTS for b in c_builds
           for s in experiment.READING["quick"].sizes for cache in strategies.CACHES}
    go = {(v, b, s, cache) for v in strategies.GO_VARIANTS for b in go_builds
          for s in experiment.READING["quick"].sizes for cache in strategies.CACHES}
    many = {(v, b, s, cache) for v in strategies.FILE_STRATEGIES for b in c_builds
            for s in smallfiles.SIZES for cache in strategies.CACHES}
    assert got == one | go | many
    assert len(rec["cases"]) == len(one | go | many)  # one case each
    for c in rec["cases"]:
        error = c.get("error") or ""
        allowed = error.startswith("refused by the kernel") or (
            c["params"]["cache"] == "cold" and "eviction" in error)
        assert allowed or not error, c
        if not error:
            assert c["metrics"]["throughput"]["unit"] == "GB/s"
            assert c["metrics"]["faults-per-gib"]["source"] == "sw"
            if c["variant"] in strategies.FILE_STRATEGIES:
                files = smallfiles.files_read(c["params"]["cache"], PROFILES["quick"])
                assert c["params"]["files"] == files
                assert c["metrics"]["time"]["unit"] == "ns/file"
                assert c["metrics"]["page-faults"]["unit"] == "faults/file"
            else:
                assert c["metrics"]["time"]["unit"] == "ns/byte"
    assert [v["claim"][:3] for v in rec["verdicts"]] == ["(a)", "(b)", "(c)", "(d)", "(e)",
                                                          "(e)", "(e)"]
    cold_refused = any("eviction" in (c.get("error") or "") for c in rec["cases"])
    for v in rec["verdicts"]:
        unmeasurable_ok = v["claim"].startswith("(b)") and cold_refused
        assert v["verdict"] in ("confirmed", "refuted", "inconclusive") or unmeasurable_ok, v
    # The test files are gone with their folder.
    assert not list((build_dir() / "fileread").glob(f"run-{os.getpid()}-*"))
