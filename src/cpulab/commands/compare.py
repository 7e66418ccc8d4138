"""`cpulab compare A B [C...]`: each later run against the first, case by case, per
experiment; `--fail-on-regression [PCT]` turns a slowdown into an exit status for CI
(regression.py, shared with `cpulab run`)."""

from __future__ import annotations

import argparse

from cpulab.commands.common import (
    UsageError,
    add_db_argument,
    add_noise_argument,
    dump,
    err,
    out,
)
from cpulab.commands.refs import RunRef, database_for, resolve_all
from cpulab.commands.regression import (
    REGRESSION_STATUS,
    add_fail_on_regression,
    beyond,
    slower,
)
from cpulab.comparison import Comparison, ComparisonError, compare


def _pairs(groups: list[list[RunRef]]) -> tuple[list[tuple[RunRef, RunRef]], list[str]]:
    """(base, other) by experiment: each run of a later argument against the run of the
    same experiment in the first argument; and what had no partner."""
    base = {}
    for ref in groups[0]:
        base.setdefault(ref.record.experiment, ref)
    pairs, alone = [], []
    for group in groups[1:]:
        for ref in group:
            b = base.get(ref.record.experiment)
            if b is None:
                alone.append(f"{ref.label} ({ref.record.experiment}): no run of it in "
                             f"{groups[0][0].label if len(groups[0]) == 1 else 'the first'}")
            else:
                pairs.append((b, ref))
    return pairs, alone


def cmd_compare(args) -> int:
    from cpulab.report import render_comparison

    if len(args.runs) < 2:
        raise UsageError("give at least two runs: the first is the baseline")
    with database_for(args.runs, args.db) as store:
        groups = resolve_all(args.runs, store)
    pairs, alone = _pairs(groups)
    if not pairs:
        raise ComparisonError("no two runs of one experiment: " + "; ".join(alone))
    results: list[tuple[RunRef, RunRef, Comparison]] = []
    for base, other in pairs:
        c = compare(base.record, other.record, args.metric, force=args.force,
                    old_build=base.compiler, new_build=other.compiler,
                    noise=args.noise_threshold / 100)
        results.append((base, other, c))
    for _, other, c in results:
        for why in c.forced:
            err.print(f"[bold red]WARNING: {other.label} against its baseline means little: "
                      f"{why} (compared anyway: --force)[/]")
    if args.json:
        dump({"baseline": groups[0][0].label if len(groups[0]) == 1 else args.runs[0],
              "unpaired": alone,
              "comparisons": [{"experiment": o.record.experiment, "old": b.label,
                               "new": o.label, **c.as_dict()} for b, o, c in results]})
    else:
        for b, o, c in results:
            render_comparison(b.label, o.label, o.record.experiment, c, out)
        for a in alone:
            out.print(f"[dim]not compared: {a}[/]")
    if args.fail_on_regression is not False:
        pct = args.fail_on_regression
        worst = [(o, r) for _, o, c in results for r in slower(c, pct)]
        if worst:
            for o, r in worst:
                err.print(f"[bold red]regression[/] in {o.label} {o.record.experiment}: "
                          f"{r.variant} {r.build} {r.params} {r.ratio.value:.3f}x")
            err.print(f"{len(worst)} case(s) {beyond(pct)} than the baseline")
            return REGRESSION_STATUS
    return 0


def add_parser(sub) -> None:
    c = sub.add_parser(
        "compare", help="runs of one experiment case by case: another machine, compiler "
                        "or commit against a baseline",
        description="Each later run against the first (the baseline), case by case: the "
                    "ratio new/old with its 95% interval and Welch's t-test, both over the "
                    "runs' processes (a process is the unit: repetitions inside one are not "
                    "independent), faster/slower/same by the metric's direction, and the "
                    "geometric mean per variant. A case is called a change only when it is "
                    "significant after the Benjamini-Hochberg correction over the cases "
                    "and beyond the noise threshold. A run is named by id, "
                    "EXPERIMENT, EXPERIMENT@MACHINE, @MACHINE (every experiment), or a "
                    "bundle file (a described experiment's folder or .toml file stands for "
                    "its name); REF:COMPILER keeps one compiler's builds (12:gcc 12:clang "
                    "compares one run's two compilers). Runs measured differently (profile, "
                    "parameters, repetitions) are refused unless --force.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("runs", nargs="+", metavar="RUN", help="baseline first, then the others")
    c.add_argument("--metric", default="tsc",
                   help="metric to compare (default tsc; e.g. time, cycles, "
                        "'instructions (callgrind)', throughput)")
    c.add_argument("--force", action="store_true",
                   help="compare runs measured differently, with a warning per reason")
    add_noise_argument(c)
    add_fail_on_regression(c, "the baseline")
    add_db_argument(c)
    c.add_argument("--json", action="store_true", help="print JSON")
    c.set_defaults(func=cmd_compare)
