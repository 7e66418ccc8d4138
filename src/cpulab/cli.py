"""`cpulab`: the command line. Parses, calls the layers below, prints; errors from every
layer are turned into one line and an exit status here, in one place."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from cpulab import experiments
from cpulab.asm import DisasmError, disassemble, find_functions, instruction_mix
from cpulab.build import BuildConfig, BuildError, build_one, find_toolchain
from cpulab.commands import TRAVEL_ERRORS, add_travel_parsers
from cpulab.commands.common import (
    CommandError,
    UsageError,
    add_db_argument,
    err,
    open_store,
    out,
)
from cpulab.commands.common import dump as _dump
from cpulab.commands.progress import ProgressBar
from cpulab.commands.regression import REGRESSION_STATUS, add_fail_on_regression
from cpulab.comparison import ComparisonError
from cpulab.context import PROFILES
from cpulab.described import DescriptionError
from cpulab.lab import LabError, Selection, run_experiment
from cpulab.report.export import ExportError, check_folder
from cpulab.report.plot import PlotError
from cpulab.store import Store, StoreError


def _list_arg(text: str) -> list[str]:
    return [w.strip() for w in text.split(",") if w.strip()]


def _opt_arg(text: str) -> list[str]:
    opts = [w.removeprefix("-") for w in _list_arg(text)]
    bad = [o for o in opts if o not in ("O0", "O1", "O2", "O3", "Os", "Oz", "Og", "Ofast")]
    if bad:
        raise argparse.ArgumentTypeError(f"not an optimisation level: {', '.join(bad)} "
                                         "(use O1,O2,O3,...)")
    return opts


# ---- env --------------------------------------------------------------------------------

def cmd_env(args) -> int:
    from cpulab.machine import fingerprint, fingerprint_key
    from cpulab.report.machine import render_fingerprint

    fp = fingerprint()
    if args.json:
        _dump({"key": fingerprint_key(fp), **fp})
    else:
        render_fingerprint(fp, fingerprint_key(fp), out)
    return 0


# ---- list -------------------------------------------------------------------------------

def cmd_list(args) -> int:
    rows = [{"name": e.name, "seed_row": e.seed_row, "title": e.title, "summary": e.summary,
             "compilers": list(e.compilers), "opts": list(e.opts), "pgo": list(e.pgo_opts),
             "variants": e.variants()} for e in experiments.all_experiments()]
    if args.json:
        _dump(rows)
        return 0
    from rich.table import Table

    t = Table(header_style="bold")
    for c in ("experiment", "seed", "what it measures", "variants", "default builds"):
        t.add_column(c)
    for r in rows:
        builds = f"{'/'.join(r['compilers'])} x {'/'.join('-' + o for o in r['opts'])}"
        if r["pgo"]:
            builds += f", +pgo at {'/'.join('-' + o for o in r['pgo'])}"
        t.add_row(r["name"], r["seed_row"], r["title"], ", ".join(r["variants"]), builds)
    out.print(t)
    return 0


# ---- run --------------------------------------------------------------------------------

def _experiment(word: str):
    """A built-in experiment by name, or the one a folder or .toml file describes."""
    from cpulab import described

    if word in experiments.names():
        return experiments.get(word)
    if described.looks_like_path(word) or Path(word).exists():
        return described.load_experiment(word)
    raise UsageError(f"unknown experiment {word}; known: {', '.join(experiments.names())}, "
                     "or the path of a folder or .toml file that describes one "
                     "(`cpulab new NAME` writes one)")


def _experiment_of(rec):
    """The experiment a stored run came from, where this cpulab (or its description
    file) still has it; None for a run of an experiment known only by its record."""
    from cpulab import described

    if rec.experiment in experiments.names():
        return experiments.get(rec.experiment)
    return described.from_record(rec)


def _discovered():
    """The repository's own experiments (cpulab/*.toml) when `run` is given no name."""
    from cpulab import described
    from cpulab.described.discovery import discover

    folder, found = discover(Path.cwd())
    if not found:
        raise UsageError(f"name an experiment (see `cpulab list`), a folder or .toml file "
                         f"that describes one, or give --all or --cmd; no description in "
                         f"{folder}")
    err.print(f"[dim]{len(found)} experiment(s) found in {folder}[/]")
    return [described.load_experiment(p) for p in found]


def _commands_experiment(args):
    """`--cmd A --cmd B [--param k=v1,v2]`: whole commands as one experiment."""
    from cpulab.described.command_experiment import Around, CommandExperiment
    from cpulab.described.description import builtin_name_clash

    if args.experiments or args.all:
        raise UsageError("--cmd times whole commands: give no experiment and no --all with it")
    if args.cc or args.opt:
        raise UsageError("--cc and --opt choose how kernels are built; --cmd builds nothing")
    params: dict[str, list[str]] = {}
    for text in args.param or ():
        key, sep, values = text.partition("=")
        if not sep or not key or not _list_arg(values):
            raise UsageError(f"--param {text!r}: expected KEY=V1,V2,...")
        if key in params:
            raise UsageError(f"--param {key}: given twice")
        around = (args.setup, args.prepare, args.cleanup)
        if not any("{" + key + "}" in c for c in (*args.commands, *around) if c):
            raise UsageError(f"--param {key}: no --cmd (or --setup, --prepare, --cleanup) "
                             f"uses {{{key}}}")
        params[key] = _list_arg(values)
    if len(set(args.commands)) != len(args.commands):
        raise UsageError("--cmd: the same command twice")
    clash = builtin_name_clash(args.name)
    if clash:
        raise UsageError(f"--name {clash}")
    for flag, path in _exports(args):
        try:
            check_folder(path)
        except ExportError as e:  # said before the commands are run, not after
            raise UsageError(f"{flag} {e}") from None
    return CommandExperiment(args.commands, params, args.warmup, args.name,
                             ignore_failure=args.ignore_failure,
                             around=Around(args.setup, args.prepare, args.cleanup))


def _exports(args) -> list[tuple[str, Path]]:
    """(flag, file) of each export asked for."""
    return [(f"--export-{fmt}", Path(path)) for fmt, path in
            (("markdown", args.export_markdown), ("csv", args.export_csv)) if path]


def _write_exports(args, rec) -> list[str]:
    """Write the exports asked for; what could not be written (the run is stored)."""
    from cpulab.report.export import SERIALIZERS, command_summaries, write_export

    rows, failed = command_summaries(rec), []
    for flag, path in _exports(args):
        try:
            write_export(path, SERIALIZERS[flag.removeprefix("--export-")](rows))
        except ExportError as e:
            failed.append(f"{flag} {e}")
            continue
        err.print(f"[dim]{flag.removeprefix('--export-')}: {path}[/]")
    return failed


def _command_flags(args) -> list[str]:
    """The flags given that only whole commands take."""
    given = {"--ignore-failure": args.ignore_failure, "--setup": args.setup,
             "--prepare": args.prepare, "--cleanup": args.cleanup,
             "--export-markdown": args.export_markdown, "--export-csv": args.export_csv}
    return [flag for flag, value in given.items() if value]


def cmd_run(args) -> int:
    if args.commands:
        exps = [_commands_experiment(args)]
    elif args.param:
        raise UsageError("--param goes with --cmd (a described experiment's parameters "
                         "are in its description)")
    elif _command_flags(args):
        raise UsageError(f"{_command_flags(args)[0]} goes with --cmd")
    elif args.all:
        exps = experiments.all_experiments()
    elif args.experiments:
        # Every description is read and checked before the first build starts.
        exps = [_experiment(w) for w in args.experiments]
    else:
        exps = _discovered()
    profile = args.profile
    sel = Selection(args.cc, args.opt, pgo=not args.no_pgo)
    records, regressed, errors = [], [], []
    with Store(args.db) as store:
        for at, exp in enumerate(exps):
            rec = None
            try:
                with ProgressBar(exp.name, err) as progress:
                    rec = run_experiment(exp, profile, sel, reporter=progress)
                store.add(rec)
                records.append(rec)
                errors += [f"{exp.name}: {e}" for e in exp.run_errors(rec.cases)]
                if args.fail_on_regression is not False:
                    from cpulab.commands.regression import regressions

                    regressed += regressions(store, rec, exp.table_metrics,
                                             args.fail_on_regression)
                figures = _figures(rec, exp, store.path.parent / "plots")
                if not args.json:
                    render_record(rec, exp, str(store.path))
                    for f in figures:
                        out.print(f"[dim]figure: {f}[/]")
                errors += _write_exports(args, rec)
            except KeyboardInterrupt:
                err.print(_interrupted(store, exp.name, rec, records, exps[at + 1:]),
                          style="yellow", markup=False, soft_wrap=True)
                return 130
    if args.json:
        _dump({"db": str(store.path), "runs": [r.as_dict() for r in records]})
    for line in errors:
        print(f"cpulab run: {line}", file=sys.stderr)
    failed = [r.experiment for r in records if r.status == "failed"]
    if failed or errors:
        return 1
    if regressed:
        for line in regressed:
            err.print(f"[bold red]regression[/] {line}", soft_wrap=True)
        return REGRESSION_STATUS
    return 0


def _interrupted(store: Store, name: str, rec, records: list, not_run: list) -> str:
    """What a Ctrl-C left: the experiment at hand stored or not (a Ctrl-C while its report
    is printed comes after the run was stored), the runs stored before it, those not run."""
    stored = store.id_of(rec) if rec is not None else None
    if stored is None:
        said = [f"interrupted during {name}: it was not stored"]
    else:
        said = [f"interrupted after run #{stored} of {name} was stored (`cpulab show "
                f"{stored}` prints it)"]
    before = [f"#{r.id} {r.experiment}" for r in records if r.id != stored]
    if before:
        said.append(f"stored before it: {', '.join(before)}")
    if not_run:
        said.append(f"not run: {', '.join(e.name for e in not_run)}")
    return "; ".join(said) + f" (database {store.path})"


def _figures(rec, exp, out_dir: Path) -> list[Path]:
    """The experiment's figures of a fresh run; a figure that cannot be drawn is a
    warning, not a failed run (the measurements are stored already)."""
    from cpulab.report.plot import PlotError, plot_run

    if not exp.plots or rec.status != "complete":
        return []
    try:
        return plot_run(rec, exp.plots, out_dir)
    except (PlotError, ImportError, OSError, ValueError) as e:
        print(f"cpulab: no figure for run #{rec.id}: {e}", file=sys.stderr)
        return []


def render_record(rec, exp, where: str | None) -> None:
    from cpulab.report import render_record as render

    render(rec, out, table_metrics=exp.table_metrics if exp else None, where=where)


# ---- runs / show ------------------------------------------------------------------------

def cmd_runs(args) -> int:
    from cpulab.report import render_runs

    with open_store(args.db) as store:
        rows = list(store.runs(args.experiment, args.limit))
        if args.json:
            _dump({"db": str(store.path), "runs": rows})
        elif not rows:
            out.print(f"no runs stored in {store.path} yet: `cpulab run --all` makes some")
        else:
            render_runs(rows, out)
            out.print(f"[dim]{store.path}; `cpulab show ID` prints one run[/]")
    return 0


def cmd_show(args) -> int:
    with open_store(args.db) as store:
        rec = store.get(args.id)
    if args.json:
        _dump(rec.as_dict())
    else:
        render_record(rec, _experiment_of(rec), None)
    return 0


def cmd_plot(args) -> int:
    from cpulab.report.plot import plot_run
    from cpulab.results.primary_metric import primary_metric

    with open_store(args.db) as store:
        rec = store.get(args.id)
        out_dir = args.out or store.path.parent / "plots"
    exp = _experiment_of(rec)
    if exp is None:
        raise UsageError(f"run #{rec.id} is of {rec.experiment}, which this cpulab lacks")
    for path in plot_run(rec, exp.plots, Path(out_dir),
                         bars_metric=primary_metric([rec], exp.table_metrics)):
        out.print(str(path))
    return 0


# ---- asm --------------------------------------------------------------------------------

def cmd_asm(args) -> int:
    from cpulab.report.asm import render_listing, render_mix

    exp = _experiment(args.experiment)
    targets = exp.targets()
    if args.variant not in targets:
        raise UsageError(f"{exp.name} has no variant {args.variant!r}; variants: "
                         f"{', '.join(targets)}")
    tc = find_toolchain(args.cc)
    if tc is None:
        raise UsageError(f"--cc {args.cc}: compiler not found")
    cfg = BuildConfig(tc, args.opt, pgo=args.pgo)
    exe = build_one(targets[args.variant], cfg)
    symbols = args.symbol or exp.hot_symbols(args.variant)
    if not symbols:
        raise UsageError(f"{exp.name} names no hot functions for {args.variant}; give --symbol")
    fns = find_functions(exe, symbols)
    if not fns:
        raise UsageError(f"no function matching {', '.join(symbols)} in {exe}")
    mixes = {f.name: instruction_mix(f) for f in fns}
    if args.json:
        _dump({"experiment": exp.name, "variant": args.variant, "build": cfg.as_dict(),
               "binary": str(exe), "source": "asm",
               "functions": [{"name": f.name, "address": f.address, "size": f.size,
                              "mix": mixes[f.name],
                              **({"listing": [str(i) for i in disassemble(f)]}
                                 if args.listing else {})} for f in fns]})
        return 0
    if args.listing:
        for f in fns:
            render_listing(f.name, [str(i) for i in disassemble(f)], out)
    render_mix(f"{exp.name} {args.variant}, {cfg.label}: instruction mix (static, from the "
               "machine code)", mixes, out)
    return 0


# ---- the parser -------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cpulab",
        description="A laboratory for low-level performance: the seed articles' experiments, "
                    "measured side by side on this machine.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    e = sub.add_parser("env", help="this machine's fingerprint: CPU, caches, TSC, PMU, "
                       "compilers")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=cmd_env)

    li = sub.add_parser("list", help="the experiments, their seed rows and variants")
    li.add_argument("--json", action="store_true", help="print JSON")
    li.set_defaults(func=cmd_list)

    r = sub.add_parser(
        "run", help="build, measure and judge experiments; store the results",
        description="Build each experiment's variants across its compiler x flags matrix, "
                    "measure them interleaved, compute the verdicts, print a report and "
                    "store the run.")
    r.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                   help="a built-in experiment, or a folder or .toml file describing one "
                        "(`cpulab new`); none: the repository's cpulab/*.toml")
    r.add_argument("--all", action="store_true", help="every experiment")
    how_much = r.add_mutually_exclusive_group()
    how_much.add_argument(
        "--profile", choices=list(PROFILES), default="default",
        help="how much to measure: quick (tests and a first look), default (every "
             "experiment within minutes; `make lab`), full (the long sweeps: 1 GiB files, "
             "10,000-object builds, every pattern and thread count)")
    how_much.add_argument("--quick", action="store_const", dest="profile", const="quick",
                          help=f"--profile quick: {PROFILES['quick'].rounds} processes x "
                               f"{PROFILES['quick'].reps} reps x "
                               f"{PROFILES['quick'].target_ms} ms")
    r.add_argument("--cc", type=_list_arg, metavar="LIST",
                   help="compilers, comma-separated: gcc, clang, clang-19, a path "
                        "(default: the experiment's)")
    r.add_argument("--opt", type=_opt_arg, metavar="LIST",
                   help="optimisation levels, comma-separated: O1,O2,O3 (default: the "
                        "experiment's)")
    r.add_argument("--no-pgo", action="store_true", help="skip profile-guided builds")
    add_db_argument(r)
    r.add_argument("--json", action="store_true", help="print the runs as JSON")
    add_fail_on_regression(r, "in the previous run of the experiment on this machine",
                           also="; a refuted claim too")
    w = r.add_argument_group("whole commands", "time shell commands as processes, "
                             "interleaved, instead of an experiment's kernels")
    w.add_argument("--cmd", action="append", dest="commands", metavar="COMMAND",
                   help="a command (run by /bin/sh, output discarded); repeatable")
    w.add_argument("--param", action="append", metavar="KEY=V1,V2",
                   help="run every command once per value, with {KEY} replaced; repeatable")
    w.add_argument("--warmup", type=int, default=1, metavar="N",
                   help="untimed runs of each command first (default 1)")
    w.add_argument("--setup", metavar="CMD",
                   help="run once before all runs of each command, untimed ({KEY} too)")
    w.add_argument("--prepare", metavar="CMD",
                   help="run before each run of each command, untimed ({KEY} too): to clear "
                        "a cache, restore a file")
    w.add_argument("--cleanup", metavar="CMD",
                   help="run once after all runs of each command, untimed ({KEY} too)")
    w.add_argument("-i", "--ignore-failure", action="store_true",
                   help="time a command that exits non-zero instead of calling it failed "
                        "(without it, a failed command makes the run exit with status 1)")
    w.add_argument("--export-markdown", metavar="FILE",
                   help="also write a Markdown table of the commands: mean ± standard "
                        "deviation, median, min, max, and the ratio to the fastest")
    w.add_argument("--export-csv", metavar="FILE",
                   help="the same table as CSV, times in seconds (hyperfine's columns)")
    w.add_argument("--name", default="cmd", metavar="NAME",
                   help="the name the run is stored under (default cmd): give the same "
                        "one to compare runs across machines")
    r.set_defaults(func=cmd_run)

    rs = sub.add_parser("runs", help="the runs stored in the results database")
    rs.add_argument("--experiment", metavar="NAME", help="only this experiment's runs")
    rs.add_argument("--limit", type=int, default=50, help="newest N runs (default 50)")
    add_db_argument(rs)
    rs.add_argument("--json", action="store_true", help="print JSON")
    rs.set_defaults(func=cmd_runs)

    s = sub.add_parser("show", help="print one stored run again")
    s.add_argument("id", type=int, metavar="ID", help="run id (see `cpulab runs`)")
    add_db_argument(s)
    s.add_argument("--json", action="store_true", help="print the run's record as JSON")
    s.set_defaults(func=cmd_show)

    pl = sub.add_parser("plot", help="draw a stored run's figures (PNG): its leading metric "
                        "per case with 95%% intervals, a metric against a swept size (log "
                        "axes, fitted growth)")
    pl.add_argument("id", type=int, metavar="ID", help="run id (see `cpulab runs`)")
    pl.add_argument("--out", type=Path, metavar="DIR",
                    help="folder for the PNG files (default: plots/ beside the database)")
    add_db_argument(pl)
    pl.set_defaults(func=cmd_plot)

    a = sub.add_parser("asm", help="instruction mix (and listing) of a variant's hot code")
    a.add_argument("experiment", metavar="EXPERIMENT",
                   help="a built-in experiment, or a described one's folder or .toml file")
    a.add_argument("variant", metavar="VARIANT")
    a.add_argument("--cc", default="gcc", help="compiler (default gcc)")
    a.add_argument("--opt", default="O2", type=lambda s: _opt_arg(s)[0],
                   help="optimisation level (default O2)")
    a.add_argument("--pgo", action="store_true", help="the profile-guided build")
    a.add_argument("--symbol", action="append", metavar="GLOB",
                   help="functions to show instead of the experiment's hot ones (repeatable)")
    a.add_argument("--listing", action="store_true", help="print the disassembly too")
    a.add_argument("--json", action="store_true", help="print JSON")
    a.set_defaults(func=cmd_asm)

    from cpulab.opprof.cli import add_parser as add_opprof

    add_opprof(sub)
    add_travel_parsers(sub)
    return p


def _terminate(signum, frame) -> None:
    """SIGTERM (a CI timeout, `kill`) takes the Ctrl-C path: scratch files and the
    processes of the case at hand are cleaned up, and nothing half-done is stored."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _terminate)
    if args.cmd in ("list", "run"):
        for module, why in experiments.import_errors().items():
            print(f"cpulab: experiment module {module} cannot be loaded, skipped: {why}",
                  file=sys.stderr)
    try:
        return args.func(args)
    except (UsageError, DescriptionError) as e:
        print(f"cpulab {args.cmd}: {e}", file=sys.stderr)
        return 2
    except (LabError, StoreError, BuildError, DisasmError, ComparisonError, PlotError,
            CommandError, *TRAVEL_ERRORS) as e:
        print(f"cpulab {args.cmd}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        err.print("cpulab: interrupted", markup=False)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
