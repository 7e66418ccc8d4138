"""`cpulab opprof`: the command line (argparse); errors are printed and turned into the
exit status here, in one place."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cpulab.opprof.errors import OpprofError
from cpulab.opprof.functions import DEFAULT_HANDLER_PATTERN
from cpulab.opprof.markers import DEFAULT_PATTERNS

# --inclusive copies 16 KiB of stack a sample: 1 kHz keeps perf.data near 16 MB a second
INCLUSIVE_FREQ = 1000

HELP = "cost per VM instruction of an interpreter, from perf samples and DWARF"

EPILOG = f"""\
mapping (one of):
  default         markers in the interpreter's source, found through DWARF (or --source):
                  {', '.join(DEFAULT_PATTERNS)},
                  and labels whose address is taken (&&NAME);
                  else DWARF labels; else handler function names
  --markers RX    a regular expression whose first group is the instruction's name,
                  e.g. 'INSTRUCTION\\((\\w+)\\)' (repeatable)
  --by-function   one function per instruction (tail-call interpreters); names matching
                  --functions RX (default {DEFAULT_HANDLER_PATTERN})
  --no-flow       attribute by source line alone (no control-flow analysis of the
                  machine code: code the compiler merged counts for whichever line it kept)
  --by-label      DWARF labels (computed-goto interpreters, without the source)

output:
  a table (names in full at any width; piped output is not cut to 80 columns), or
  --json: one object, schema cpulab.opprof/1: event, mapping, samples (total, vm,
  instructions, dispatch_other, rest), instructions [name, samples, share, share_vm,
  shared_samples, hot_lines], dispatch_other, shared, rest [symbol, dso, samples,
  share], binaries, warnings, seconds [record, script, post]; shares are fractions
  in [0, 1]

example:  cpulab opprof -- ./lua bench.lua
"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("opprof", help=HELP, description=HELP, epilog=EPILOG,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--markers", metavar="PATTERN", action="append", default=[],
                      help="marker regular expression (first group: the instruction name)")
    mode.add_argument("--by-function", action="store_true",
                      help="map by handler function name")
    mode.add_argument("--by-label", action="store_true", help="map by DWARF labels")
    p.add_argument("--functions", metavar="REGEX", default=None,
                   help="handler function names for --by-function")
    p.add_argument("--source", metavar="DIR", action="append", type=Path, default=[],
                   help="where the interpreter's sources are (repeatable; default: the "
                        "paths in DWARF)")
    p.add_argument("--no-flow", action="store_true",
                   help="attribute by source line alone, without control-flow analysis")
    p.add_argument("--inclusive", action="store_true",
                   help="charge time in functions an instruction calls to it (perf "
                        "record --call-graph dwarf; default -F 1000)")
    p.add_argument("--json", action="store_true",
                   help="print the profile as JSON (schema cpulab.opprof/1, below) "
                        "instead of a table")
    p.add_argument("-F", "--freq", type=int, default=None,
                   help="samples per second (default 10000, or the kernel's ceiling)")
    p.add_argument("--event", default="cycles",
                   help="perf event (default: cycles where the PMU counts them, "
                        "else cpu-clock)")
    p.add_argument("--limit", type=int, default=40, help="instructions shown in the table")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND...",
                   help="the interpreter and its arguments")
    p.set_defaults(func=main)
    return p


def options_from(args: argparse.Namespace):
    from cpulab.opprof.perf_record import DEFAULT_FREQ
    from cpulab.opprof.run import Options

    if args.functions and not args.by_function and not args.markers and not args.by_label:
        args.by_function = True
    mode = ("markers" if args.markers else "function" if args.by_function else
            "label" if args.by_label else "auto")
    for d in args.source:
        if not d.is_dir():
            raise OpprofError(f"--source {d}: not a folder")
    return Options(mode=mode, patterns=list(args.markers),
                   function_pattern=args.functions or DEFAULT_HANDLER_PATTERN,
                   source_dirs=list(args.source),
                   freq=args.freq or (INCLUSIVE_FREQ if args.inclusive else DEFAULT_FREQ),
                   event=args.event, flow=not args.no_flow, inclusive=args.inclusive)


def main(args: argparse.Namespace) -> int:
    from cpulab.opprof.render import print_table, to_dict
    from cpulab.opprof.run import profile_command

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    try:
        import re

        for pat in args.markers:
            try:
                re.compile(pat)
            except re.error as e:
                raise OpprofError(f"--markers {pat!r}: not a regular expression: {e}") from e
        opts = options_from(args)
        prof = profile_command(command, opts)
    except OpprofError as e:
        print(f"cpulab opprof: {e}", file=sys.stderr)
        return 2
    if args.json:
        json.dump(to_dict(prof), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(prof, limit=args.limit)
    return 0


def run_standalone(argv: list[str] | None = None) -> int:
    """`python -m cpulab.opprof ...`: the same command without the `cpulab` front end."""
    parser = argparse.ArgumentParser(prog="cpulab")
    sub = parser.add_subparsers(dest="cmd", required=True)
    add_parser(sub)
    ns = parser.parse_args(argv)
    return ns.func(ns)
