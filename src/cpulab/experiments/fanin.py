"""Experiment `fanin` (seed row S10): receiving from n producer goroutines until all are
done, three ways (gorep/internal/fanin, the code gorep itself uses): a select loop with
a done channel, one forwarding goroutine per channel with a WaitGroup, and
reflect.Select. gorep/bench/fanin times one whole fan-in per iteration, unbuffered
channels, a fixed number of messages in all split among the producers; figure: ns per
message (clock) and TSC ticks, for n = 2 .. 1024 producers (the full profile; the default
takes every fourth power of two up to 128) under GOMAXPROCS 1 and 2.
All three ways of one n and GOMAXPROCS run in one process, interleaved, in several
processes (rounds).
"""

from __future__ import annotations

from cpulab.build import BuildError, Target, go_build
from cpulab.claims import ClaimSpec
from cpulab.context import Context, cases_of
from cpulab.experiments.base import Experiment
from cpulab.measure.schedule import Program
from cpulab.results import Case, PlotSpec, SeedTable

PACKAGE = "bench/fanin"
WAYS = ("select-done", "forward-waitgroup", "reflect-select")
# Producers per profile. reflect.Select scans every channel per message, so a process
# of n = 1024 took ~25 s and one of 128 ~4.4 s on this project's 2-core machines (all
# three ways, 2^16 messages): the full profile's sweep, 2 .. 1024, took 747 s here, the
# default's 57-85 s.
NS = {"quick": (2, 32, 1024), "default": (2, 8, 32, 128),
      "full": tuple(2**k for k in range(1, 11))}
PROCS = (1, 2)
MESSAGES = 1 << 16  # per fan-in, split among the producers
QUICK_MESSAGES = 1 << 12
SEED = ("S10 names two ways without figures: a select loop with a done channel, or one "
        "goroutine per channel plus a WaitGroup")


class FanIn(Experiment):
    name = "fanin"
    seed_row = "S10"
    title = "Go fan-in: a select loop, forwarding goroutines with a WaitGroup, reflect.Select"
    summary = (
        "S10 receives from several goroutines' channels until all close, with a select "
        "loop and a done channel or one goroutine per channel plus a WaitGroup. Measures "
        "ns per message of both and of reflect.Select, for 2 to 1024 producers under "
        "GOMAXPROCS 1 and 2."
    )
    compilers = ("go",)
    table_metrics = ("time", "tsc")
    claims = (
        ClaimSpec("faster", "select-done", than="reflect-select", metric="time",
                  builds="most", seed=SEED,
                  text="(a) reflect.Select costs more per message than a select loop with "
                       "a done channel, for most n and GOMAXPROCS"),
        ClaimSpec("faster", "select-done", than="forward-waitgroup", metric="time",
                  builds="most", seed=SEED,
                  text="(b) one forwarding goroutine per channel (WaitGroup) costs more per "
                       "message than a select loop with a done channel (a second hand-over "
                       "per message), for most n and GOMAXPROCS"),
    )
    plots = tuple(PlotSpec(f"procs{p}", f"ns per message against producers, GOMAXPROCS={p}",
                           x="n", metric="time", x_label="producers", log_y=False,
                           where=(("procs", p),)) for p in PROCS)

    def seed_tables(self) -> list[SeedTable]:
        return [SeedTable("S10: fan-in in Go (no figures)", ["way", "the seed"],
                          [["select with a done channel", "named"],
                           ["one goroutine per channel + sync.WaitGroup", "named"]])]

    def targets(self) -> dict[str, Target]:
        return {}  # Go code: built by the Go toolchain (build.golang)

    def variants(self) -> list[str]:
        return list(WAYS)

    def run(self, ctx: Context) -> list[Case]:
        ns = NS[ctx.profile.name]
        total = QUICK_MESSAGES if ctx.profile.quick else MESSAGES
        cases: list[Case] = []
        for cfg in ctx.configs:
            build = cfg.as_dict()
            try:
                exe = go_build(cfg, PACKAGE)
            except BuildError as e:
                ctx.note(str(e).splitlines()[0])
                cases += [Case(w, build, {"n": n, "procs": p}, error=f"build failed: {e}")
                          for w in WAYS for n in ns for p in PROCS]
                continue
            programs = [Program(
                [str(exe), "--param", f"n={n}", "--param", f"messages={max(1, total // n)}",
                 "--param", f"procs={p}", "--cpu", "-1", *ctx.profile.harness_args()],
                build=build, params={"n": n, "procs": p}) for n in ns for p in PROCS]
            outcomes = ctx.measure(programs)
            for p in programs:
                cases += cases_of(p, outcomes[p.key], case_names=WAYS)
        return cases


EXPERIMENT = FanIn()
