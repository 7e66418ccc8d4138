"""Experiment `gzwrap` (seed row S6): a gzip stream handed to MariaDB's UNCOMPRESS(), and
re-wrapping without recompressing at the speed of one inflate.

native/kernels/gzwrap/gzwrap_bench.c takes one gzip member (zlib -6 of man-page text,
shared libraries or random bytes, 1 MiB to 1 GiB in the full profile, to 256 MiB in the
default; data.py) and, interleaved in one
process: re-wraps it gzip -> zlib and zlib -> gzip with native/lib/gzwrap (its automatic
choice of inflater and checksums, into a buffer and streamed from memory to a writer that
keeps nothing, and on zlib alone); inflates the same deflate stream
with ISA-L (the system's, and the one gzwrap bundles where built: the igzip that stops at
block boundaries), zlib and libdeflate, each with its CRC-32 (the floor of the work); and
decompresses and recompresses it with zlib -6, libdeflate -6 and igzip's default level
(up to 4 MiB: zlib -6 is ~40x slower); re-wraps bgzip's many members of the same text
(to 16 MiB); and runs each checksum alone over the data in a conversion's 256 KiB pieces:
gzwrap's own CRC-32 and Adler-32 (its automatic choice, and both sums at once as a
gzip <-> zlib conversion needs them) beside zlib's, libdeflate's and ISA-L's. Figures:
GB/s of uncompressed data (clock), and from an untimed pass of each re-wrap the deflate
bytes compared with the input's and the output decoded by zlib.

On a private MariaDB server (mariadb.py) it then shows the seed's claim: UNCOMPRESS() of
what SQL string functions can build from a gzip blob is NULL, and of gzwrap's output is
the data (sqlproof.py).
"""

from __future__ import annotations

import gzip
import subprocess
from collections.abc import Iterable

from cpulab.build import BuildConfig, Target, build_one, find_toolchain, library
from cpulab.claims import ClaimSpec, Requirement
from cpulab.context import Context, Profile
from cpulab.context import cases_of as program_cases
from cpulab.experiments.base import Experiment
from cpulab.experiments.gzwrap import data, sqlproof
from cpulab.experiments.gzwrap.mariadb import MariaDB, MariaDBError, missing
from cpulab.measure.metrics import Metric
from cpulab.measure.schedule import Outcome, Program
from cpulab.measure.stats import MIN_PROCESSES
from cpulab.paths import KERNELS
from cpulab.results import Case, Evidence, EvidenceTable, PlotSpec, SeedTable
from cpulab.results.ratios import format_ratio, median_ratio

GZWRAP = library("gzwrap")
MiB, GiB = data.MiB, data.GiB
REWRAP = ("rewrap-gzip-zlib", "rewrap-zlib-gzip")
# each re-wrap's streamed form: the input read in place, the output handed to a writer in
# pieces (gzwrap_memory_convert), as the streaming inflates write into one 256 KiB buffer
STREAMED = {"rewrap-gzip-zlib": "rewrap-gzip-zlib-stream",
            "rewrap-zlib-gzip": "rewrap-zlib-gzip-stream"}
PORTABLE = "rewrap-gzip-zlib-zlib"
# inflate-isal-stops: the ISA-L that gzwrap bundles (the igzip that stops at block
# boundaries), where the library is built with it: its own inflater is among the peers
INFLATE = ("inflate-isal", "inflate-isal-stops", "inflate-zlib", "inflate-libdeflate")
STREAMING = ("inflate-isal", "inflate-isal-stops", "inflate-zlib")  # constant memory
RECOMPRESS = ("recompress-zlib6", "recompress-libdeflate6", "recompress-igzip")
MULTI = "rewrap-bgzip-zlib"  # bgzip's members of the same data, joined
# the same file, plainly
MULTI_INFLATE = ("inflate-bgzip-isal", "inflate-bgzip-isal-stops", "inflate-bgzip-libdeflate")
ADLER32 = ("adler32-gzwrap", "adler32-zlib", "adler32-libdeflate", "adler32-isal")
CRC32 = ("crc32-gzwrap", "crc32-zlib", "crc32-libdeflate", "crc32-isal")
SUMS = ("sums-gzwrap", "sums-peers")
CHECKSUMS = (*ADLER32, *CRC32, *SUMS)
VARIANTS = (*REWRAP, *STREAMED.values(), PORTABLE, *INFLATE, MULTI, *MULTI_INFLATE, *CHECKSUMS,
            *RECOMPRESS)
# Bytes of data per kind, per profile. Past the 32 MiB L3 of this project's machines a
# size adds passes, not behaviour: a 1 GiB case reads 3 GiB at least (3 processes x
# warm-up, calibration and 2 reps). The full profile took 269 s here (2 cores), 190 s
# of it on the 256 MiB and 1 GiB data, which take 44 s to make once; the default keeps
# 256 MiB of text, stops the other kinds at 16 MiB, and took 56-77 s.
SIZES = {
    "quick": {"text": (MiB, 4 * MiB), "binary": (MiB,), "random": (MiB,)},
    "default": {"text": (MiB, 16 * MiB, 256 * MiB), "binary": (MiB, 16 * MiB),
                "random": (MiB, 16 * MiB)},
    "full": {"text": (MiB, 16 * MiB, 256 * MiB, GiB), "binary": (MiB, 16 * MiB, 256 * MiB),
             "random": (MiB, 16 * MiB, 256 * MiB)},
}
RECOMPRESS_MAX = 4 * MiB  # zlib -6 runs at ~1/40 of a re-wrap: 16 MiB took minutes
MULTI_MAX = 16 * MiB  # bgzip files of text up to this size
MULTI_TARGET = 1.2  # bgzip input at most 1.2x the time of the same data in one member
CRC_TIE = 0.97  # gzwrap's CRC-32 at the fastest peer's pace: at most 3% slower
FLOOR_TARGET = 0.9  # re-wrapping at >= 0.9x the fastest plain inflate
RECOMPRESS_TARGET = 10.0  # and >= 10x the fastest decompress-and-recompress
BUDGET = 3 * GiB  # uncompressed bytes one case may process per size, over all its calls
DIR = KERNELS / "gzwrap"
# 1 where a re-wrap's deflate bytes are the input's and zlib decodes its output (claim d)
FAITHFUL = "identical-and-decodes"
# Claim (a): the SQL-only guesses, and the two controls (the true Adler-32 computed
# outside SQL, and gzwrap's COMPRESS() output), each a case of the server's answers.
SQL_GUESSES, SQL_CONTROLS = "sql-guesses", "controls"
NOT_NULL, GIVES_DATA = "answers other than NULL", "answers that are the data"
_WAY = {"rewrap-gzip-zlib": "gzip -> zlib", "rewrap-zlib-gzip": "zlib -> gzip",
        "rewrap-gzip-zlib-stream": "gzip -> zlib, streamed",
        "rewrap-zlib-gzip-stream": "zlib -> gzip, streamed",
        PORTABLE: "gzip -> zlib on zlib alone"}


def _claims() -> tuple[ClaimSpec, ...]:
    """(a) from a MariaDB server's answers, exact, judged only where both controls give
    the data; (b)-(e), one claim per re-wrap direction where the seed's claim covers
    each: one variant against the fastest of its peers in each build, kind and size."""
    sql = ClaimSpec(
        "at-most", SQL_GUESSES, metric=NOT_NULL, value=0,
        requires=(Requirement(SQL_CONTROLS, GIVES_DATA, "==", 2),),
        seed="impossible with SQL string functions: the Adler-32 of the uncompressed data "
             "is not in the gzip stream",
        text="(a) S6: no SQL string expression turns a gzip blob into UNCOMPRESS() input "
             "(its ISIZE, 78 9C, the deflate bytes and any SQL-computable guess for the "
             "Adler-32 give NULL), while gzwrap's COMPRESS() output gives the data")
    floor = tuple(ClaimSpec(
        "faster", v, than=INFLATE, by=FLOOR_TARGET, metric="time", family=(STREAMED[v],),
        seed="no figure: the seed found no way to convert at all",
        text=f"(b) re-wrapping ({_WAY[v]}; into a buffer or streamed to a writer, the faster "
             f"form, as the peers' fastest form counts: whole into memory, or streamed into "
             f"256 KiB) runs at >= {FLOOR_TARGET}x the fastest plain "
             "inflate of the same stream with its checksum (ISA-L, the bundled ISA-L, zlib "
             "or libdeflate, whichever is fastest for that data)") for v in REWRAP)
    recompression = tuple(ClaimSpec(
        "faster", v, than=RECOMPRESS, by=RECOMPRESS_TARGET, metric="time", seed="no figure",
        text=f"(c) re-wrapping ({_WAY[v]}) is >= {RECOMPRESS_TARGET:.0f}x faster than the "
             "fastest decompress-and-recompress (zlib -6, libdeflate -6, igzip -2)")
        for v in REWRAP)
    identical = tuple(ClaimSpec(
        "at-least", v, metric=FAITHFUL, value=1,
        text=f"(d) the output's deflate bytes are the input's, byte for byte, and zlib "
             f"decodes the output to the data ({_WAY[v]}, every data set)")
        for v in (*REWRAP, *STREAMED.values(), PORTABLE))
    inflater = ClaimSpec(
        "faster", "inflate-isal", than="inflate-zlib", metric="time",
        text="(e) the inflater gzwrap picks by itself (ISA-L where built in) is the fastest "
             "streaming inflater measured here, in every data set")
    multi = ClaimSpec(
        "faster", MULTI, than="rewrap-gzip-zlib", by=1 / MULTI_TARGET, metric="time",
        text=f"(f) bgzip's members of the same text re-wrap (gzip -> zlib, joined into one "
             f"stream) in at most {MULTI_TARGET}x the time of one member")
    multi_floor = ClaimSpec(
        "faster", MULTI, than=MULTI_INFLATE, by=FLOOR_TARGET, metric="time",
        text=f"(j) re-wrapping the bgzip file (joined into one stream) runs at >= "
             f"{FLOOR_TARGET}x the fastest plain inflate of that same file, member by member "
             "with each member's CRC-32 (ISA-L's gzip mode, as igzip -d, the bundled "
             "ISA-L's, or libdeflate's)")
    adler = ClaimSpec(
        "faster", "adler32-gzwrap", than=ADLER32[1:], metric="time",
        text="(g) gzwrap's own Adler-32 (its automatic choice: AVX-512 VNNI, AVX-512 BW, "
             "AVX2 or portable, by this CPU) is faster than the fastest of zlib's, "
             "libdeflate's and ISA-L's, in every data set")
    crc = ClaimSpec(
        "faster", "crc32-gzwrap", than=CRC32[1:], by=CRC_TIE, metric="time",
        text="(h) gzwrap's automatic CRC-32 (its own VPCLMULQDQ one where the CPU has it) "
             "keeps the fastest peer's pace (zlib, libdeflate, ISA-L; at most 3% slower)")
    sums = ClaimSpec(
        "faster", "sums-gzwrap", than="sums-peers", metric="time",
        text="(i) the CRC-32 and Adler-32 a gzip <-> zlib conversion needs, in gzwrap's one "
             "pass, are faster than the fastest peers' (ISA-L's CRC-32, then libdeflate's "
             "Adler-32)")
    return (sql, *floor, *recompression, *identical, inflater, multi, adler, crc, sums,
            multi_floor)


def schedule(size: int, profile: Profile) -> tuple[int, int]:
    """(rounds, reps): the profile's, fewer where a case would process more than BUDGET
    bytes (each process adds a warm-up and a calibration call per case)."""
    rounds, reps = profile.rounds, profile.reps
    while reps > 2 and rounds * (reps + 2) * size > BUDGET:
        reps -= 1
    while rounds > MIN_PROCESSES and rounds * (reps + 2) * size > BUDGET:
        rounds -= 1
    return rounds, reps


class GzWrap(Experiment):
    name = "gzwrap"
    seed_row = "S6"
    title = "gzip as zlib / COMPRESS() without recompressing, and UNCOMPRESS() on a real MariaDB"
    summary = (
        "S6 wanted gzip data in MySQL's UNCOMPRESS() and found it impossible with SQL string "
        "functions: the zlib trailer needs the Adler-32 of the data, which gzip does not "
        "carry. Shows that on a real MariaDB, and measures gzwrap, which copies the deflate "
        "bytes and computes the trailer by one inflate: GB/s of uncompressed data "
        "against a plain inflate (ISA-L, zlib, libdeflate) and against decompressing and "
        "recompressing (zlib -6, libdeflate -6, igzip), on text, binaries and random data "
        "from 1 MiB to 1 GiB."
    )
    compilers = ("gcc",)
    opts = ("O2",)
    table_metrics = ("throughput", "time", "payload-identical", "out-bytes")
    claims = _claims()
    plots = tuple(PlotSpec(kind, f"GB/s against size, {kind} data", x="size",
                           metric="throughput", x_label="bytes of data", log_y=False,
                           where=(("kind", kind),)) for kind in data.KINDS)

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable(
            "S6: the formats, and the seed's conclusion (no figures)",
            ["format", "layout"],
            [["gzip", "1F 8B 08 FLG MTIME XFL OS [fields] + deflate + CRC-32 + ISIZE"],
             ["zlib", "CMF FLG (78 9C will do) + deflate + Adler-32"],
             ["COMPRESS()", "4-byte length + zlib; UNCOMPRESS() gives NULL for a wrong "
                            "Adler-32; the length need not be exact"],
             ["conclusion", "gzip cannot become UNCOMPRESS() input with SQL string functions "
                            "alone: the Adler-32 of the data is not in the gzip stream"]],
        )]

    def target(self) -> Target:
        return GZWRAP.target("gzwrap-bench", (DIR / "gzwrap_bench.c",
                                              DIR / "isal_stops_inflate.c"),
                             libs=("isal", "deflate", "z"))

    def cli_target(self) -> Target:
        return GZWRAP.command_target()

    def targets(self) -> dict[str, Target]:
        return dict.fromkeys(VARIANTS, self.target())

    def hot_symbols(self, variant: str) -> list[str]:
        if variant.startswith("rewrap"):
            return ["gzwrap_stream_convert", "gzw_*"]
        return [f"c_{variant.replace('-', '_')}"]

    # ---- running ---------------------------------------------------------------------

    def run(self, ctx: Context) -> list[Case]:
        arts = ctx.build((self.target(), cfg) for cfg in ctx.configs)
        cases = [Case(v, a.config.as_dict(), error=f"build failed: {a.error}")
                 for a in arts if not a.ok for v in VARIANTS]
        built = [a for a in arts if a.ok]
        if not built:
            return cases
        sizes = SIZES[ctx.profile.name]
        ctx.reporter.phase("making the test data (once; kept in the build folder)")
        files = {(k, s): data.gzip_file(k, s) for k, ss in sizes.items() for s in ss}
        groups: dict[tuple[int, int], list[Program]] = {}
        for (kind, size), path in files.items():
            rounds, reps = schedule(size, ctx.profile)
            multi: list[str] = []
            if kind == "text" and size <= MULTI_MAX:
                bgz = data.bgzip_file(kind, size)
                if isinstance(bgz, str):
                    ctx.note(f"gzwrap: no multi-member case: {bgz}")
                else:
                    multi = ["--param", f"bgz={bgz}"]
            for a in built:
                argv = [str(a.path), "--reps", str(reps), "--target-ms",
                        str(ctx.profile.target_ms), "--param", f"gz={path}", *multi,
                        "--param", f"recompress={int(size <= RECOMPRESS_MAX)}"]
                groups.setdefault((rounds, reps), []).append(Program(
                    argv, build=a.config.as_dict(), params={"kind": kind, "size": size}))
        for (rounds, _), group in sorted(groups.items()):
            outcomes = ctx.measure(group, rounds=rounds)
            for program in group:
                cases += cases_of(program, outcomes[program.key])
        return cases + self._sql_cases(ctx)

    def _sql_cases(self, ctx: Context) -> list[Case]:
        """Claim (a)'s cases: how many SQL-only guesses a private MariaDB server answers
        with anything but NULL, and how many of the two controls give the data; failed
        cases with the reason where no server runs. The answers themselves are kept for
        the evidence table."""
        self._sql_answers: list[list[str]] = []
        why = missing()
        if why:
            ctx.note(f"gzwrap: no MariaDB server: {why}; the SQL claim is unmeasurable")
            return [Case(v, None, error=f"no MariaDB server: {why}")
                    for v in (SQL_GUESSES, SQL_CONTROLS)]
        tc = find_toolchain("gcc")
        try:
            cli = build_one(self.cli_target(), BuildConfig(tc, "O2")) if tc else None
            if cli is None:
                raise MariaDBError("gcc not found: cannot build the gzwrap command")
            sample = sqlproof.sample()
            p = subprocess.run([str(cli), "--to", "mysql"], capture_output=True, timeout=60,
                               input=gzip.compress(sample, mtime=0))
            if p.returncode != 0:
                raise MariaDBError(f"gzwrap --to mysql: {p.stderr.decode()[-500:]}")
            ctx.reporter.phase("asking a private MariaDB server (UNCOMPRESS)")
            with MariaDB.start() as db:
                server = db.version()
                tried = sqlproof.attempts(db, p.stdout, sample)
        except (MariaDBError, OSError, subprocess.SubprocessError) as e:
            ctx.note(f"gzwrap: the MariaDB part failed: {e}")
            return [Case(v, None, error=f"the MariaDB part failed: {e}")
                    for v in (SQL_GUESSES, SQL_CONTROLS)]
        self._sql_answers = [[f"MariaDB {server}", t.what, t.result] for t in tried]
        return sql_cases({t.what: t.result for t in tried}, server)

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        tables = [throughput_table(cases, (*REWRAP, *STREAMED.values(), PORTABLE, *INFLATE,
                                           MULTI, *MULTI_INFLATE, *RECOMPRESS)),
                  ratio_table(cases),
                  throughput_table(cases, CHECKSUMS, "the checksums alone: GB/s over the data "
                                   "in a conversion's 256 KiB pieces (median; clock)")]
        answers = getattr(self, "_sql_answers", [])
        if answers:
            tables.append(EvidenceTable(
                f"UNCOMPRESS() on {answers[0][0]} of a gzip blob's deflate bytes behind its "
                "ISIZE and 78 9C, with each candidate for the Adler-32",
                ["the last four bytes", "UNCOMPRESS() gives"], [a[1:] for a in answers]))
        return Evidence(tables)


def sql_cases(answers: dict[str, str], server: str) -> list[Case]:
    """Claim (a)'s two cases from the server's answer to each attempt ("NULL", "data" or
    "wrong data"): the SQL-only guesses, and the controls (the true Adler-32, gzwrap)."""
    control = {w: r for w, r in answers.items()
               if w == "gzwrap" or w.startswith("the true Adler-32")}
    guesses = [r for w, r in answers.items() if w not in control]
    params = {"server": server}
    return [
        Case(SQL_GUESSES, None, dict(params), {NOT_NULL: Metric.exact(
            sum(r != "NULL" for r in guesses), f"of {len(guesses)}", "output")}),
        Case(SQL_CONTROLS, None, dict(params), {GIVES_DATA: Metric.exact(
            sum(r == "data" for r in control.values()), f"of {len(control)}", "output")}),
    ]


def cases_of(program: Program, outcome: Outcome) -> list[Case]:
    """The kernel's cases with GB/s, and each re-wrap's and recompressor's output checks."""
    cases = program_cases(program, outcome, case_names=VARIANTS)
    if outcome.output is None:
        return cases
    checks = {x["case"]: x for x in outcome.output.extra
              if x.get("type") in ("payload", "recompressed", "joined")}
    for c in cases:
        if c.error:
            continue
        t = c.metrics["time"]  # ns per byte of data
        c.metrics["throughput"] = t.derive(lambda v: 1 / v, "GB/s", "clock")
        x = checks.get(c.variant)
        if x is None:
            continue
        c.metrics["out-bytes"] = Metric.exact(x["out_bytes"], "bytes", "output")
        c.metrics["decodes"] = Metric.exact(int(x["decodes"]), "1 = zlib decodes it", "output")
        if x["type"] == "joined":
            c.metrics["members"] = Metric.exact(x["members"], "members", "output")
        if x["type"] == "payload":
            c.metrics["payload-identical"] = Metric.exact(
                int(x["identical"]), "1 = deflate bytes identical", "output")
            c.metrics["payload-bytes"] = Metric.exact(x["out"], "bytes", "output")
            c.metrics[FAITHFUL] = Metric.exact(
                int(bool(x["identical"]) and bool(x["decodes"])),
                "(1: yes)", "output")
    return cases


# ---- comparisons ------------------------------------------------------------------------

Group = tuple[str, str, int]  # build label, kind, size


def _groups(cases: Iterable[Case]) -> dict[Group, dict[str, Case]]:
    out: dict[Group, dict[str, Case]] = {}
    for c in cases:
        if "kind" in c.params:  # a data set's case, not the SQL claim's
            out.setdefault((c.build_label, c.params["kind"], c.params["size"]),
                           {})[c.variant] = c
    return out


def _fastest(group: dict[str, Case], names: tuple[str, ...]) -> Case | None:
    present = [group[n] for n in names if n in group and group[n].value("time")]
    return min(present, key=lambda c: c.value("time") or 0) if present else None


def size_label(size: int) -> str:
    return f"{size // GiB} GiB" if size >= GiB else f"{size // MiB} MiB"


def _label(g: Group) -> str:
    return f"{g[1]} {size_label(g[2])}"


def throughput_table(cases: list[Case], variants: tuple[str, ...],
                     title: str = "GB/s of uncompressed data (median; clock)") -> EvidenceTable:
    rows = []
    for g, group in sorted(_groups(c for c in cases if not c.error).items(),
                           key=lambda x: (x[0][1], x[0][2])):
        rows.append([_label(g), *(f"{group[v].value('throughput'):.3f}"
                                  if v in group and group[v].value("throughput") else "-"
                                  for v in variants)])
    return EvidenceTable(title, ["data", *variants], rows)


def ratio_table(cases: list[Case]) -> EvidenceTable:
    rows = []
    for g, group in sorted(_groups(c for c in cases if not c.error).items(),
                           key=lambda x: (x[0][1], x[0][2])):
        floor, stream = _fastest(group, INFLATE), _fastest(group, STREAMING)
        rec = _fastest(group, RECOMPRESS)
        for v in (*REWRAP, *STREAMED.values()):
            if v not in group:
                continue
            r = group[v]
            cells = [_label(g), v]
            for peer in (floor, stream, rec):
                ratio = median_ratio(peer, r, "time") if peer else None
                cells.append(f"{format_ratio(ratio)} vs {peer.variant}" if ratio and peer
                             else "-")
            rows.append(cells)
        if MULTI in group:  # the bgzip file against its own plain inflates
            peer = _fastest(group, MULTI_INFLATE)
            ratio = median_ratio(peer, group[MULTI], "time") if peer else None
            rows.append([_label(g), MULTI, f"{format_ratio(ratio)} vs {peer.variant}"
                         if ratio and peer else "-", "-", "-"])
    return EvidenceTable(
        "re-wrap speed against its peers: time(peer) / time(re-wrap), above 1 = re-wrap faster",
        ["data", "re-wrap", "vs the fastest plain inflate", "vs the fastest streaming inflate",
         "vs the fastest recompression"], rows)


EXPERIMENT = GzWrap()
