"""`cpulab report`: stored runs (or bundles) as one self-contained HTML file. The HTML
renderer (Jinja2, the template, the embedded scripts) is imported when a report is
written, not when the parser is built: `cpulab run` builds the same parser and never
renders HTML."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cpulab import experiments
from cpulab.commands.common import (
    CommandError,
    UsageError,
    add_db_argument,
    err,
    out,
)
from cpulab.commands.experiment_names import experiment_of, find
from cpulab.commands.history import machine_label, runs_on_one_machine
from cpulab.commands.refs import RunRef, database_for, resolve
from cpulab.history import history
from cpulab.store import Store

if TYPE_CHECKING:
    from cpulab.report.html import Listing, Presentation

DEFAULT_OUTPUT = Path("cpulab-report.html")


def _presentation(rec) -> Presentation:
    from cpulab.report.html import Presentation

    exp = experiment_of(rec)
    if exp is None:
        return Presentation()  # a run of an experiment this cpulab lacks: tables only
    return Presentation(exp.plots, exp.table_metrics)


def _histories(store: Store, refs: list[RunRef], metric_of) -> dict:
    """Per experiment, the history on the machine of its first run in the report, when
    the database holds two or more runs of it there."""
    out = {}
    for ref in refs:
        rec = ref.record
        if rec.experiment in out or ref.bundle is not None:
            continue
        runs = runs_on_one_machine(store, rec.experiment, rec.origin or rec.machine_key)
        runs = [r for r in runs if (r.machine_key, r.origin) == (rec.machine_key, rec.origin)]
        metric = metric_of(rec.experiment, runs)
        if len(runs) >= 2 and metric:
            out[rec.experiment] = history(runs, metric, machine_label(rec))
    return out


def _listing(text: str, cc: str, opt: str, db) -> Listing:
    from cpulab.asm import disassemble, find_functions
    from cpulab.build import BuildConfig, build_one, find_toolchain
    from cpulab.report.html import Listing

    name, _, variant = text.rpartition(":")
    exp = find(name, db) if name and variant else None
    if exp is None:
        raise UsageError(f"--listing {text!r}: give EXPERIMENT:VARIANT of a known experiment "
                         f"({', '.join(experiments.names())}) or PATH:VARIANT (or "
                         "NAME:VARIANT) of a described one")
    targets = exp.targets()
    if variant not in targets:
        raise UsageError(f"--listing {text!r}: {name} has no variant {variant!r}; variants: "
                         f"{', '.join(targets)}")
    tc = find_toolchain(cc)
    if tc is None:
        raise UsageError(f"--cc {cc}: compiler not found")
    cfg = BuildConfig(tc, opt.removeprefix("-"))
    symbols = exp.hot_symbols(variant)
    if not symbols:
        raise UsageError(f"--listing {text!r}: {name} names no hot functions for {variant}")
    fns = find_functions(build_one(targets[variant], cfg), symbols)
    if not fns:
        raise CommandError(f"--listing {text!r}: no function matching {', '.join(symbols)}")
    return Listing(exp.name, variant, cfg.label, [(f.name, [str(i) for i in disassemble(f)])
                                              for f in fns],
                   note="built now from this checkout with the compiler named; the run "
                        "measured its own build, which may differ")


def cmd_report(args) -> int:
    from cpulab.report.html import ReportInput, write_report
    from cpulab.results.primary_metric import primary_metric

    with database_for(args.runs, args.db) as store:
        if args.runs and args.latest:
            raise UsageError("give runs or --latest, not both")
        if args.runs:
            refs = [ref for text in args.runs for ref in resolve(text, store)]
            source = ", ".join(args.runs)
        else:
            refs = [resolve(str(i), store)[0] for i in store.latest()]
            source = f"{store.path} (the newest run of each experiment on each machine)"
        if not refs:
            raise UsageError(f"{store.path} holds no run yet: `cpulab run --all` makes some, "
                             "or name bundles")
        pres = {r.record.experiment: _presentation(r.record) for r in refs}
        histories = {} if args.no_history else _histories(
            store, refs, lambda e, runs: primary_metric(runs, pres[e].table_metrics))
    listings = [_listing(t, args.cc, args.opt, args.db) for t in args.listing or ()]
    err.print(f"[dim]rendering {len(refs)} run(s) of {len(pres)} experiment(s)...[/]")
    inp = ReportInput([(r.label, r.record) for r in refs], pres, histories, listings, source)
    try:
        path = write_report(args.output, inp)
    except OSError as e:
        raise CommandError(f"{args.output}: cannot write the report: {e}") from e
    out.print(f"{path} ({path.stat().st_size / 1024:.0f} KiB): {len(refs)} run(s) of "
              f"{', '.join(sorted(pres))}; open it in a browser (it needs no network)")
    return 0


def add_parser(sub) -> None:
    r = sub.add_parser(
        "report", help="stored runs as one self-contained HTML file (offline, with plots)",
        description="Write one HTML file that works from file:// without network: an overview "
                    "with every experiment's verdicts, then per experiment the seed's claims "
                    "and figures beside this machine's, sortable and filterable tables of "
                    "cases, figures (bars with intervals, size sweeps with fitted growth), "
                    "the evidence, the machine and what it could not measure, several "
                    "runs side by side and compared, and the history of runs on one machine.")
    r.add_argument("runs", nargs="*", metavar="RUN",
                   help="ids, EXPERIMENT, EXPERIMENT@MACHINE, @MACHINE or bundle files "
                        "(see `cpulab compare`); default --latest")
    r.add_argument("--latest", action="store_true",
                   help="the newest run of each experiment on each machine (the default)")
    r.add_argument("-o", "--output", type=Path, default=DEFAULT_OUTPUT, metavar="FILE",
                   help=f"the HTML file to write (default {DEFAULT_OUTPUT})")
    r.add_argument("--listing", action="append", metavar="EXPERIMENT:VARIANT",
                   help="add the disassembly of a variant's hot functions (built now with "
                        "--cc and --opt); EXPERIMENT may be a described one's folder or "
                        "name; repeatable")
    r.add_argument("--cc", default="gcc", help="compiler of --listing (default gcc)")
    r.add_argument("--opt", default="O2", help="optimisation level of --listing (default O2)")
    r.add_argument("--no-history", action="store_true",
                   help="leave out the history of each experiment's runs")
    add_db_argument(r)
    r.set_defaults(func=cmd_report)
