"""Fleets: `cpulab fleet run` drives fleet/lab.yml with Ansible. Against this machine with
Ansible's local connection, and against two hosts in network namespaces of their own
reached over ssh (when sshd can be started there): each host is set up as the README
says, runs an experiment, and its bundle comes back, is imported under the host's name
and reported; the controller then compares the hosts. The namespaces and sshd processes
are removed afterwards. Each runs the lab for real on its hosts (1-2 minutes): CPULAB_FULL=1
runs them; tests/test_fleet_inventory.py checks the inventories by default."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.lab import lab_revision
from cpulab.store import Store, read_bundle

pytestmark = pytest.mark.full

# overflow: the quickest experiment with builds by both compilers (~15 s quick)
EXPERIMENT = "overflow"


def _fleet_run(tmp_path: Path, inventory_lines: list[str], capsys) -> tuple[Path, Path]:
    inventory = tmp_path / "inventory.ini"
    inventory.write_text("[lab]\n" + "\n".join(inventory_lines) + "\n")
    out, db = tmp_path / "results", tmp_path / "controller.db"
    with capsys.disabled():  # Ansible's progress, for a person reading the test log
        status = cli.main(["fleet", "run", str(inventory), EXPERIMENT, "--quick",
                           "--out", str(out), "--db", str(db)])
    assert status == 0
    return out, db


def _check(out: Path, db: Path, hosts: list[str]) -> None:
    bundles = sorted(p.name for p in (out / "bundles").glob("*.json.gz"))
    assert bundles == sorted(f"{h}.json.gz" for h in hosts)
    for h in hosts:
        (rec,) = read_bundle(out / "bundles" / f"{h}.json.gz")
        assert (rec.experiment, rec.origin, rec.profile) == (EXPERIMENT, h, "quick")
        assert rec.status == "complete" and rec.cases and rec.verdicts
    with Store(db) as s:
        assert sorted(r["origin"] for r in s.runs()) == sorted(hosts)
    html = (out / "report.html").read_text()
    for h in hosts:
        assert f"{h}: " in html  # each host's runs, named for it


def test_fleet_on_this_machine_over_the_local_connection(tmp_path, capsys):
    out, db = _fleet_run(tmp_path, [
        f"here ansible_connection=local ansible_python_interpreter=/usr/bin/python3 "
        f"cpulab_dir={tmp_path}/here"], capsys)
    _check(out, db, ["here"])


@pytest.fixture
def ssh_hosts(tmp_path):
    from fleet_hosts import HostsUnavailable, SshHosts

    hosts = SshHosts(tmp_path / "hosts")
    try:
        yield hosts.start(["alpha", "beta"])
    except HostsUnavailable as e:
        pytest.skip(f"no hosts in network namespaces here: {e}")
    finally:
        hosts.close()
        left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert f"cpulab-{os.getpid()}-" not in left  # nothing of ours is left behind


def test_fleet_of_two_hosts_over_ssh(tmp_path, ssh_hosts, capsys):
    out, db = _fleet_run(tmp_path, ssh_hosts.inventory_lines(), capsys)
    _check(out, db, ["alpha", "beta"])
    with Store(db) as s:  # the copies have no .git: the revision came with the sources
        assert {r["lab_revision"] for r in s.runs()} == {lab_revision()}
    # the controller compares the hosts by name; the same CPU, so no case should
    # differ from one host to the other by more than the run-to-run spread
    assert cli.main(["compare", f"{EXPERIMENT}@alpha", f"{EXPERIMENT}@beta", "--db", str(db),
                     "--json"]) == 0
    (c,) = json.loads(capsys.readouterr().out)["comparisons"]
    assert c["differences"] == ["host: alpha vs beta"] and c["cases"]
