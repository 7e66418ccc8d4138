"""`python -m cpulab.opprof -- COMMAND...` until the `cpulab` front end is wired."""

import sys

from cpulab.opprof.cli import run_standalone

sys.exit(run_standalone(["opprof", *sys.argv[1:]]))
