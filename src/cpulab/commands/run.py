"""`cpulab run`: build, measure and judge experiments, store each run, print it. The
experiments are named (built-in ones, descriptions), found in the repository
(cpulab/*.toml), all of them (--all), or whole shell commands (--cmd). Every one is
read and checked before the first build; each run is stored as soon as it is measured,
so a Ctrl-C or a failure later loses none of the runs before it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cpulab import experiments
from cpulab.commands.common import (
    UsageError,
    add_db_argument,
    dump,
    err,
    list_arg,
    open_store,
    opt_arg,
    out,
)
from cpulab.commands.experiment_names import experiment
from cpulab.commands.progress import ProgressBar
from cpulab.commands.record import render_record
from cpulab.commands.regression import REGRESSION_STATUS, add_fail_on_regression, regressions
from cpulab.context import LEAST_ROUNDS, PROFILES
from cpulab.lab import Selection, run_experiment
from cpulab.report.export import ExportError, check_folder
from cpulab.store import Store


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
        if not sep or not key or not list_arg(values):
            raise UsageError(f"--param {text!r}: expected KEY=V1,V2,...")
        if key in params:
            raise UsageError(f"--param {key}: given twice")
        around = (args.setup, args.prepare, args.cleanup)
        if not any("{" + key + "}" in c for c in (*args.commands, *around) if c):
            raise UsageError(f"--param {key}: no --cmd (or --setup, --prepare, --cleanup) "
                             f"uses {{{key}}}")
        params[key] = list_arg(values)
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
        exps = [experiment(w, args.db) for w in args.experiments]
    else:
        exps = _discovered()
    profile = args.profile
    sel = Selection(args.cc, args.opt, pgo=not args.no_pgo, rounds=args.rounds)
    records, regressed, errors = [], [], []
    with open_store(args.db, create=True) as store:
        for at, exp in enumerate(exps):
            rec = None
            try:
                with ProgressBar(exp.name, err) as progress:
                    rec = run_experiment(exp, profile, sel, reporter=progress)
                store.add(rec)
                records.append(rec)
                errors += [f"{exp.name}: {e}" for e in exp.run_errors(rec.cases)]
                if args.fail_on_regression is not False:
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
        dump({"db": str(store.path), "runs": [r.as_dict() for r in records]})
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


def rounds_arg(text: str) -> int:
    """--rounds: at least LEAST_ROUNDS processes, the fewest a 95% interval rests on."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < LEAST_ROUNDS:
        raise argparse.ArgumentTypeError(f"{text!r}: a whole number, {LEAST_ROUNDS} or more "
                                         f"(an interval needs {LEAST_ROUNDS} processes)")
    return n


def add_parser(sub) -> None:
    r = sub.add_parser(
        "run", help="build, measure and judge experiments; store the results",
        description="Build each experiment's variants across its compiler x flags matrix, "
                    "measure them interleaved, compute the verdicts, print a report and "
                    "store the run.")
    r.add_argument("experiments", nargs="*", metavar="EXPERIMENT",
                   help="a built-in experiment, or a folder or .toml file describing one "
                        "(`cpulab new`), or its name; none: the repository's cpulab/*.toml")
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
    r.add_argument("--rounds", type=rounds_arg, metavar="N",
                   help=f"processes per program at least, instead of the profile's "
                        f"({LEAST_ROUNDS} or more: an interval needs them); fewer end a long "
                        "sweep sooner, with wider intervals")
    r.add_argument("--cc", type=list_arg, metavar="LIST",
                   help="compilers, comma-separated: gcc, clang, clang-19, a path "
                        "(default: the experiment's)")
    r.add_argument("--opt", type=opt_arg, metavar="LIST",
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
