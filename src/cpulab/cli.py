"""`cpulab`: the command line. The parser is built from the subcommands' own modules
(commands/, and opprof/cli.py), each declaring its flags; errors from every layer are
turned into one line, `cpulab COMMAND: why`, and an exit status here, in one place:

  0    done
  1    a command could not do what was asked: a build, the database, a comparison...
  2    the command line (or an experiment's description) is at fault
  3    --fail-on-regression found one, or `check aa` failed (returned by the command)
  130  interrupted: Ctrl-C or SIGTERM
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence

from cpulab import experiments
from cpulab.asm import DisasmError
from cpulab.build import BuildError
from cpulab.commands import (
    asm,
    bundle,
    check,
    compare,
    env,
    fleet,
    history,
    list_experiments,
    new,
    plot,
    report,
    run,
    runs,
    show,
)
from cpulab.commands.common import CommandError, UsageError, err
from cpulab.comparison import ComparisonError
from cpulab.described import DescriptionError
from cpulab.lab import LabError
from cpulab.opprof.cli import add_parser as add_opprof_parser
from cpulab.report.plot import PlotError
from cpulab.store import BundleError, StoreError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cpulab",
        description="A laboratory for low-level performance: the seed articles' experiments, "
                    "measured side by side on this machine.")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    # The order `cpulab --help` lists them in: measure, read back, explain, then the
    # results that travel between machines and the checks of the lab itself.
    env.add_parser(sub)
    list_experiments.add_parser(sub)
    run.add_parser(sub)
    runs.add_parser(sub)
    show.add_parser(sub)
    plot.add_parser(sub)
    asm.add_parser(sub)
    add_opprof_parser(sub)
    new.add_parser(sub)
    report.add_parser(sub)
    compare.add_parser(sub)
    bundle.add_parsers(sub)
    history.add_parser(sub)
    fleet.add_parser(sub)
    check.add_parser(sub)
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
            BundleError, CommandError) as e:
        print(f"cpulab {args.cmd}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        err.print("cpulab: interrupted", markup=False)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
