"""`cpulab check aa EXPERIMENT`: the lab's statistics put to the A/A test on this machine.
Runs the unchanged experiment (its own build matrix) several times back to back,
compares every pair as `cpulab compare` would, and reports how many cases and verdicts
it would have called different; `--slower PCT` adds runs whose kernels are made PCT
percent slower (the harness's CPULAB_SLOWER) and reports whether the change is found.
The runs are not stored unless asked: they would mark change points in the experiment's
history."""

from __future__ import annotations

import os

from cpulab.commands.common import (
    UsageError,
    add_db_argument,
    add_noise_argument,
    dump,
    err,
    open_store,
    out,
    percentage,
)
from cpulab.commands.regression import REGRESSION_STATUS

# Exit status when the lab raised false alarms (or missed the known change): as for a
# regression, neither an error (1) nor a usage error (2).
FAILED_STATUS = REGRESSION_STATUS


def cmd_check_aa(args) -> int:
    from cpulab import experiments
    from cpulab.aa_check import NOMINAL, judge
    from cpulab.commands.progress import ProgressBar
    from cpulab.lab import Selection, run_experiment
    from cpulab.results.primary_metric import primary_metric

    if args.experiment not in experiments.names():
        raise UsageError(f"unknown experiment {args.experiment}; known: "
                         f"{', '.join(experiments.names())}")
    if args.runs < 2:
        raise UsageError("--runs: at least 2, to have a pair to compare")
    exp = experiments.get(args.experiment)
    profile = "quick" if args.quick else "default"
    # The experiment's own matrix, as `cpulab run` measures it: the A/A test is of what a
    # user compares; --cc narrows it.
    sel = Selection(args.cc or None)
    plan = [False] * args.runs + ([True] * args.runs if args.slower else [])
    records = []
    for i, slowed in enumerate(plan):
        label = f"{exp.name} run {i + 1}/{len(plan)}" + (f" (+{args.slower:g}%)" if slowed
                                                         else "")
        env = {"CPULAB_SLOWER": f"{args.slower:g}"} if slowed else {}
        with _environment(env), ProgressBar(label, err) as progress:
            rec = run_experiment(exp, profile, sel, reporter=progress)
        if rec.status != "complete":
            err.print(f"[red]{label} failed: {'; '.join(rec.notes[-2:])}[/]")
            return 1
        records.append(rec)
    if args.store:
        with open_store(args.db, create=True) as store:
            for rec in records:
                store.add(rec)
    metric = args.metric or primary_metric(records, exp.table_metrics) or "time"
    slowed = {i for i, s in enumerate(plan) if s}
    pairs = judge(records, metric, slowed, args.noise_threshold / 100)
    aa = [p for p in pairs if not p.slowed]
    ab = [p for p in pairs if p.slowed]
    conditions = [r.conditions.as_dict() if r.conditions else None for r in records]
    if args.json:
        dump({"experiment": exp.name, "profile": profile, "metric": metric,
              "noise_threshold": args.noise_threshold, "slower_pct": args.slower,
              "runs": [{"run": i + 1, "slowed": s, "duration_s": r.duration_s,
                        "conditions": c}
                       for i, (s, r, c) in enumerate(zip(plan, records, conditions,
                                                         strict=True))],
              "pairs": [p.as_dict() for p in pairs],
              "passed": all(p.passed for p in pairs)})
    else:
        _render(exp.name, profile, metric, pairs, records, plan, NOMINAL)
    return 0 if all(p.passed for p in aa + ab) else FAILED_STATUS


class _environment:
    """os.environ with `env` added for the duration (the kernels inherit it)."""

    def __init__(self, env: dict[str, str]):
        self.env, self.saved = env, {}

    def __enter__(self):
        self.saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _render(name, profile, metric, pairs, records, plan, nominal) -> None:
    from rich.table import Table

    t = Table(title=f"{name} ({profile} profile): every pair of runs compared on {metric}",
              header_style="bold")
    for c in ("pair", "kind", "cases", "called faster", "called slower", "share",
              "variants changed", "verdicts flipped", "verdicts moved", "result"):
        t.add_column(c, justify="right" if c in ("cases", "called faster", "called slower",
                                                 "share") else "left")
    for p in pairs:
        kind = "A/B (+slower)" if p.slowed else "A/A"
        if p.error:
            t.add_row(f"{p.old + 1} vs {p.new + 1}", kind, "-", "-", "-", "-", "-", "-", "-",
                      f"[red]not compared: {p.error}[/]")
            continue
        share = (p.slower if p.slowed else p.changed) / p.cases if p.cases else 0.0
        t.add_row(f"{p.old + 1} vs {p.new + 1}", kind, f"{p.cases:,}", f"{p.faster:,}",
                  f"{p.slower:,}", f"{share:.0%}", f"{p.variants_changed} of {p.variants}",
                  str(len(p.flips)), str(len(p.moved)),
                  "[green]passed[/]" if p.passed else "[bold red]failed[/]")
    out.print(t)
    for p in pairs:
        for f in p.flips:
            out.print(f"[red]runs {p.old + 1} and {p.new + 1}: {f}[/]", soft_wrap=True)
    durations = ", ".join(f"{r.duration_s:.0f} s" for r in records)
    out.print(f"runs took {durations}")
    for i, r in enumerate(records):
        if r.conditions and r.conditions.disturbed:
            out.print(f"[yellow]run {i + 1} measured on a disturbed machine: "
                      f"{'; '.join(r.conditions.disturbed)}[/]", soft_wrap=True)
    out.print(f"A/A passes when at most {nominal:.0%} of cases are called different and no "
              "verdict turns between confirmed and refuted; A/B when at least 90% of cases "
              "are called slower.")


def add_parser(sub) -> None:
    c = sub.add_parser("check", help="checks of the lab itself on this machine: `check aa`")
    checks = c.add_subparsers(dest="check", required=True, metavar="CHECK")
    aa = checks.add_parser(
        "aa", help="A/A test: runs of one unchanged build compared, to count false alarms",
        description="Run EXPERIMENT, unchanged, --runs times back to back and compare "
                    "every pair as `cpulab compare` does. Nothing changed, so each case "
                    "called faster or slower is a false alarm: it passes when at most 5% "
                    "of cases are, and no verdict turns between confirmed and refuted. "
                    "--slower PCT adds as many runs whose kernels are made PCT percent "
                    "slower (a spin inside each timed call) and checks that the comparison "
                    "calls at least 90% of cases slower. The runs are not stored unless "
                    "--store is given.")
    aa.add_argument("experiment", metavar="EXPERIMENT", help="a built-in experiment")
    aa.add_argument("--runs", type=int, default=3, metavar="N",
                    help="unchanged runs, back to back (default 3: three pairs)")
    aa.add_argument("--quick", action="store_true", help="the quick profile")
    aa.add_argument("--slower", type=percentage, metavar="PCT",
                    help="also N runs with every harness kernel PCT percent slower, each "
                         "compared against each unchanged run")
    aa.add_argument("--cc", type=lambda s: [w for w in s.split(",") if w], metavar="LIST",
                    help="compilers, comma-separated (default: the experiment's)")
    aa.add_argument("--metric", help="metric to compare (default: the experiment's "
                                     "leading figure)")
    add_noise_argument(aa)
    aa.add_argument("--store", action="store_true", help="keep the runs in the database")
    add_db_argument(aa)
    aa.add_argument("--json", action="store_true", help="print JSON")
    aa.set_defaults(func=cmd_check_aa)
