"""Whole commands as an experiment (`cpulab run --cmd A --cmd B [--param k=v1,v2]`):
for code that is not a C function, such as two builds of a program. Nothing is built;
each command, with every combination of the parameters put in for `{k}`, is timed as a
process, interleaved with the others, with warm-up runs first (measure.process_timer).

The cases carry the lab's statistics per run: wall time (clock), CPU time, page faults,
context switches (sw, the kernel's rusage), and cycles, instructions and
branch misses (pmu) where the machine has them, else unavailable with the reason. The
evidence is each command against the fastest of its parameter set, a ratio (each run a process)
with its 95% interval, so that the fastest peer is always the one named.

Around each command, untimed and with the same `{k}` put in, hyperfine's setup (once
before its runs), prepare (before each run) and cleanup (once after them); one that
fails is an error for the command, naming it.

A command that exits non-zero is an error for that command, as in hyperfine: its case
carries the exit status and its last line on stderr, the claim is unmeasurable and the
run exits with status 1; `ignore_failure` (hyperfine's -i) times it anyway.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from cpulab.context import Context
from cpulab.experiments.base import Experiment
from cpulab.machine.pmu import probe_counters
from cpulab.measure.metrics import Metric
from cpulab.measure.process_timer import (
    HW_EVENTS,
    CommandJob,
    CommandTiming,
    time_interleaved,
)
from cpulab.results import OWN_SEED_ROW, Case, Evidence, EvidenceTable, Verdict
from cpulab.results.columns import column_format
from cpulab.results.ratios import format_ratio, median_ratio

DEFAULT_NAME = "cmd"
_UNIT = "run"


class CommandExperiment(Experiment):
    seed_row = OWN_SEED_ROW
    compilers: tuple[str, ...] = ()  # nothing to build
    opts: tuple[str, ...] = ()
    table_metrics = ("time", "cpu-time", "page-faults", "context-switches", "cycles",
                     "instructions")

    def __init__(self, commands: list[str], params: dict[str, list[str]] | None = None,
                 warmup: int = 1, name: str = DEFAULT_NAME, ignore_failure: bool = False,
                 around: Around | None = None):
        self.commands, self.params, self.warmup = list(commands), dict(params or {}), warmup
        self.name, self.ignore_failure = name, ignore_failure
        self.around = around or Around()
        self.title = "whole commands, timed interleaved: " + " vs ".join(
            f"`{c}`" for c in self.commands)
        self.summary = self.title

    def targets(self) -> dict:
        return {}

    def variants(self) -> list[str]:
        return list(self.commands)

    def grid(self) -> list[dict[str, str]]:
        keys = list(self.params)
        return [dict(zip(keys, combo, strict=True))
                for combo in itertools.product(*(self.params[k] for k in keys))]

    def run(self, ctx: Context) -> list[Case]:
        jobs = [(cmd, p, self.around.job(expand(cmd, p), p))
                for p in self.grid() for cmd in self.commands]
        runs = ctx.profile.rounds * ctx.profile.reps
        if self.around.described():
            ctx.note(f"untimed, around each command: {self.around.described()}")
        ctx.reporter.phase(f"timing {len(jobs)} commands, {runs} runs each, interleaved",
                           total=len(jobs) * runs)
        pmu = probe_counters()
        missing = [e for e in HW_EVENTS if not pmu.get(e, {}).get("available")]
        reason = pmu[missing[0]].get("reason", "not available") if missing else None
        timings = time_interleaved([j[2] for j in jobs], runs, self.warmup,
                                   ctx.profile.timeout_s, reason,
                                   progress=ctx.reporter.advance,
                                   ignore_status=self.ignore_failure)
        for (_, _, job), t in zip(jobs, timings, strict=True):
            statuses = sorted({r.exit_status for r in t.runs if r.exit_status})
            if statuses:
                ctx.note(f"`{job.command}` exited with status {', '.join(map(str, statuses))}; "
                         "timed anyway (--ignore-failure)")
        return [_case(cmd, p, t) for (cmd, p, _), t in zip(jobs, timings, strict=True)]

    def run_errors(self, cases: list[Case]) -> list[str]:
        """Every command that failed: hyperfine's exit status 1, for a script or CI."""
        return [f"`{c.variant}`{_params_suffix(c)}: {c.error}" for c in cases if c.error]

    def evidence(self, ctx: Context, cases: list[Case]) -> Evidence:
        rows, fastest = [], {}
        # One unit for the column, chosen from its figures: `149.8 ms`, `1.520 s`.
        fmt = column_format((c.value("time") for c in cases if "time" in c.metrics), "ns")
        for p, group in _by_params(cases, measured=False).items():
            measured = [c for c in group if not c.error and "time" in c.metrics]
            best = min(measured, key=lambda c: c.value("time"),  # type: ignore[arg-type,return-value]
                       default=None)
            complete = len(measured) == len(group)
            if best is not None and complete:
                fastest[p or "-"] = best.variant
            for c in group:
                if c not in measured:
                    rows.append([p or "-", c.variant, "failed", "-", ""])
                    continue
                r = median_ratio(c, best, "time")  # type: ignore[arg-type]
                rows.append([p or "-", c.variant, fmt.with_unit(c.value("time")),  # type: ignore[arg-type]
                             format_ratio(r) if r else "-",
                             "" if c is not best else "fastest" if complete
                             else "fastest of those that ran"])
        if not rows:
            return Evidence()
        return Evidence([EvidenceTable(
            "each command against the fastest of its parameters (wall time, ratio of "
            "medians with its 95% interval)", ["params", "command", "median", "x fastest",
                                               ""], rows)], {"fastest": fastest})

    def verdicts(self, cases: list[Case], evidence: Evidence) -> list[Verdict]:
        if len(self.commands) < 2:
            return []
        claim = "one command is faster than every other (wall time, 95% intervals)"
        failed = self.run_errors(cases)
        groups = _by_params(cases)
        if failed or not groups:
            # A command that failed has no time: which one is fastest is not known.
            return [Verdict(claim, "unmeasurable", "; ".join(failed) or "no runs")]
        rows, separated = [], 0
        for p, group in groups.items():
            best = min(group, key=lambda c: c.value("time"))  # type: ignore[arg-type,return-value]
            others = [median_ratio(c, best, "time") for c in group if c is not best]
            ok = bool(others) and all(r is not None and r.low > 1.0 for r in others)
            separated += ok
            worst_low = min((r.low for r in others if r), default=float("nan"))
            rows.append(f"{p + ': ' if p else ''}`{best.variant}` fastest, the next "
                        f"{worst_low:.3f}x or more its time at the interval's low end"
                        if ok else f"{p + ': ' if p else ''}`{best.variant}` fastest by "
                        "median, but an interval reaches 1")
        kind = "confirmed" if separated == len(groups) else "inconclusive"
        return [Verdict(claim, kind, "; ".join(rows))]


@dataclass(frozen=True)
class Around:
    """hyperfine's untimed commands around each timed one (None: none), `{k}` and all."""

    setup: str | None = None
    prepare: str | None = None
    cleanup: str | None = None

    def job(self, command: str, params: dict[str, str]) -> CommandJob:
        def x(text: str | None) -> str | None:
            return None if text is None else expand(text, params)
        return CommandJob(command, x(self.setup), x(self.prepare), x(self.cleanup))

    def described(self) -> str:
        return ", ".join(f"{k} `{v}`" for k, v in (("setup", self.setup), ("prepare",
                         self.prepare), ("cleanup", self.cleanup)) if v is not None)


def expand(command: str, params: dict[str, str]) -> str:
    """`{k}` replaced by the value (and nothing else: shell braces stay as they are)."""
    for k, v in params.items():
        command = command.replace("{" + k + "}", v)
    return command


def _typed(params: dict[str, str]) -> dict:
    out: dict = {}
    for k, v in params.items():
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def _case(command: str, params: dict[str, str], t: CommandTiming) -> Case:
    if t.error or not t.runs:
        return Case(command, None, _typed(params), error=t.error or "no run")
    u = _UNIT
    m = {
        "time": Metric.of([r.wall_ns for r in t.runs], f"ns/{u}", "clock"),
        "cpu-time": Metric.of([r.cpu_ns for r in t.runs], f"ns/{u}", "sw"),
        "page-faults": Metric.of([r.page_faults for r in t.runs], f"faults/{u}", "sw"),
        "context-switches": Metric.of([r.context_switches for r in t.runs],
                                      f"switches/{u}", "sw"),
    }
    unavailable = {}
    if t.counters_unavailable is None and t.counters:
        for k, values in t.counters.items():
            unit = {"cycles": "cycles", "instructions": "instructions",
                    "branch-misses": "misses"}[k]
            m[k] = Metric.of(values, f"{unit}/{u}", "pmu")
        if "cycles" in m and "instructions" in m:
            m["ipc"] = Metric.of([i / c for i, c in zip(t.counters["instructions"],
                                                        t.counters["cycles"], strict=True)
                                  if c], "instructions/cycle", "pmu")
    else:
        unavailable = {k: {"source": "pmu", "reason": t.counters_unavailable or "not counted"}
                       for k in HW_EVENTS}
    unavailable["tsc"] = {"source": "tsc", "reason": "a whole command is timed by the "
                          "clock around its process, not by the TSC"}
    return Case(command, None, _typed(params), m, unavailable)


def _params_suffix(c: Case) -> str:
    return f" ({', '.join(f'{k}={v}' for k, v in c.params.items())})" if c.params else ""


def _by_params(cases: list[Case], measured: bool = True) -> dict[str, list[Case]]:
    """Cases by their parameters; with `measured`, only those with a time."""
    groups: dict[str, list[Case]] = {}
    for c in cases:
        if measured and (c.error or "time" not in c.metrics):
            continue
        groups.setdefault(", ".join(f"{k}={v}" for k, v in c.params.items()), []).append(c)
    return groups
