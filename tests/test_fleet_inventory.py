"""The fleet's inventories, without running the lab: the localhost inventory that
docs/results.md shows parses as Ansible reads it, and every host that fleet/lab.yml runs
on gets the system Python (with pyenv on PATH, Ansible's discovery took a `python3.13`
shim that failed every task), unless its inventory names another. Seconds, where
tests/test_fleet.py sets up whole copies of the lab."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from cpulab.commands.common import CommandError
from cpulab.commands.fleet import PLAYBOOK, ansible_playbook
from cpulab.paths import ROOT

SYSTEM_PYTHON = "/usr/bin/python3"


def _tool(name: str) -> str:
    """An Ansible command beside the ansible-playbook that `cpulab fleet run` uses."""
    try:
        return str(Path(ansible_playbook()).with_name(name))
    except CommandError as e:
        pytest.skip(str(e))


def _docs_inventory(folder: Path) -> Path:
    text = (ROOT / "docs" / "results.md").read_text()
    fleets = text[text.index("**Fleets.**"):]
    ini = re.search(r"^```ini\n(.*?)^```$", fleets, flags=re.S | re.M)
    assert ini, "the Fleets section shows no ```ini inventory"
    path = folder / "here.ini"
    path.write_text(ini.group(1))
    return path


def _ansible(tool: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANSIBLE_NOCOLOR": "1"}
    return subprocess.run([_tool(tool), *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _host_vars(inventory: Path, host: str) -> dict:
    """The variables a host has when the playbook runs: its inventory's and the
    playbook's group_vars/."""
    p = _ansible("ansible-inventory", "-i", str(inventory), "--playbook-dir",
                 str(PLAYBOOK.parent), "--host", host)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_the_documented_localhost_inventory_parses(tmp_path):
    inventory = _docs_inventory(tmp_path)
    p = _ansible("ansible-inventory", "-i", str(inventory), "--list")
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr.lower(), p.stderr  # a bad line is only a warning
    listed = json.loads(p.stdout)
    (host,) = listed["lab"]["hosts"]
    assert listed["_meta"]["hostvars"][host]["ansible_connection"] == "local"
    assert _host_vars(inventory, host)["ansible_python_interpreter"] == SYSTEM_PYTHON


def test_the_documented_host_runs_a_module_with_the_system_python(tmp_path):
    # What failed under pyenv: the first module the playbook runs on a host.
    inventory = _docs_inventory(tmp_path)
    p = _ansible("ansible", "-i", str(inventory), "--playbook-dir", str(PLAYBOOK.parent),
                 "lab", "-m", "ansible.builtin.command", "-a", "true")
    assert p.returncode == 0, p.stdout + p.stderr


def test_an_inventory_s_own_interpreter_wins(tmp_path):
    inventory = tmp_path / "hosts.ini"
    inventory.write_text("[lab]\nplain ansible_host=192.0.2.10\n"
                         "odd ansible_host=192.0.2.11 ansible_python_interpreter=/opt/py\n")
    assert _host_vars(inventory, "plain")["ansible_python_interpreter"] == SYSTEM_PYTHON
    assert _host_vars(inventory, "odd")["ansible_python_interpreter"] == "/opt/py"
