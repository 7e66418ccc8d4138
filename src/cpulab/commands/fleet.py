"""`cpulab fleet run INVENTORY [EXPERIMENTS]`: the lab on many machines through Ansible
(ansible-core, the project's `fleet` dependency group) and `fleet/lab.yml`: set-up and
run on every host, the bundles fetched and imported, one report comparing the hosts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cpulab import experiments
from cpulab.commands.common import CommandError, UsageError, add_db_argument, out
from cpulab.paths import ROOT

PLAYBOOK = ROOT / "fleet" / "lab.yml"


def ansible_playbook() -> str:
    """The ansible-playbook of this environment (the fleet group), else one on PATH."""
    here = Path(sys.executable).parent / "ansible-playbook"
    found = str(here) if here.exists() else shutil.which("ansible-playbook")
    if not found:
        raise CommandError("ansible-playbook not found: install the fleet dependency group "
                           "(`uv sync --group fleet`; `make setup` does)")
    return found


def cmd_fleet_run(args) -> int:
    inventory = Path(args.inventory)
    if not inventory.exists():
        raise UsageError(f"inventory {inventory}: no such file (see "
                         "fleet/inventory.example.ini)")
    unknown = [n for n in args.experiments if n not in experiments.names()]
    if unknown:
        raise UsageError(f"unknown experiment {', '.join(unknown)}; known: "
                         f"{', '.join(experiments.names())}")
    results = args.out.resolve()
    extra = {"experiments": " ".join(args.experiments) or "--all", "quick": args.quick,
             "fleet_out": str(results),
             # this machine's cpulab imports and reports, in this same environment
             "cpulab": f"{sys.executable} -m cpulab.cli"}
    if args.db:
        extra["fleet_db"] = str(Path(args.db).resolve())
    cmd = [ansible_playbook(), "-i", str(inventory), str(PLAYBOOK), "-e", json.dumps(extra)]
    if args.limit:
        cmd += ["--limit", f"{args.limit},localhost"]
    out.print(f"[dim]{' '.join(cmd[:4])} -e '...'[/]")
    env = {**os.environ, "ANSIBLE_HOST_KEY_CHECKING": os.environ.get(
        "ANSIBLE_HOST_KEY_CHECKING", "True"), "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0"}
    try:
        p = subprocess.run(cmd, cwd=ROOT, env=env)
    except OSError as e:
        raise CommandError(f"{cmd[0]}: cannot start: {e}") from e
    report = results / "report.html"
    if p.returncode != 0:
        raise CommandError(f"ansible-playbook exited with status {p.returncode}; the hosts "
                           f"that finished left their bundles in {results / 'bundles'}")
    out.print(f"bundles in {results / 'bundles'}; report: {report}")
    return 0


def add_parser(sub) -> None:
    f = sub.add_parser("fleet", help="the lab on many machines (Ansible): run, collect, report")
    fsub = f.add_subparsers(dest="fleet_cmd", required=True, metavar="ACTION")
    r = fsub.add_parser(
        "run", help="set up and run the lab on every host of an inventory, then import and "
                    "report",
        description="Run fleet/lab.yml with Ansible: copy this checkout to every host of "
                    "INVENTORY, set it up with `make setup`, run the experiments, fetch each "
                    "host's bundle, import them into the results database and write one "
                    "report comparing the hosts (OUT/report.html).")
    r.add_argument("inventory", metavar="INVENTORY", help="an Ansible inventory file")
    r.add_argument("experiments", nargs="*", metavar="EXPERIMENT", help="default: all")
    r.add_argument("--quick", action="store_true", help="the quick profile on every host")
    r.add_argument("--out", type=Path, default=Path("fleet-results"), metavar="DIR",
                   help="folder for the bundles and the report (default fleet-results/)")
    r.add_argument("--limit", metavar="PATTERN", help="only these hosts (Ansible's --limit)")
    add_db_argument(r)
    r.set_defaults(func=cmd_fleet_run)
