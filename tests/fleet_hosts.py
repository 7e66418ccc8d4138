"""Hosts for the fleet tests: each a network namespace of its own with a veth link to
this one, an address, and Debian's sshd listening on it with a throwaway key. They share
this machine's file system (each gets its own cpulab_dir), but Ansible reaches them over
ssh on their own addresses, as it reaches real machines. Everything made is undone by
`close()`: the sshd processes started here (by their pids) and the namespaces."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SSHD = Path("/usr/sbin/sshd")


class HostsUnavailable(RuntimeError):
    """Namespaces or sshd cannot be set up here (not root, no sshd, no iproute2)."""


def _sh(*cmd: str) -> None:
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise HostsUnavailable(f"{' '.join(cmd)}: {p.stderr.strip() or p.returncode}")


@dataclass
class Host:
    name: str
    netns: str
    address: str
    outside: str  # this namespace's end of the veth link
    sshd: subprocess.Popen | None = None


@dataclass
class SshHosts:
    root: Path
    hosts: list[Host] = field(default_factory=list)
    key: Path | None = None

    def start(self, names: list[str]) -> SshHosts:
        if os.geteuid() != 0:
            raise HostsUnavailable("network namespaces need root")
        for tool in (SSHD, Path("/usr/bin/ssh-keygen"), Path("/usr/sbin/ip")):
            if not tool.exists():
                raise HostsUnavailable(f"{tool} is missing (scripts/packages.txt)")
        self.root.mkdir(parents=True, exist_ok=True)
        Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory
        self.key = self.root / "id_ed25519"
        _sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(self.key))
        hostkey = self.root / "hostkey"
        _sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(hostkey))
        shutil.copy(self.key.with_suffix(".pub"), self.root / "authorized_keys")
        # 10.X.Y.0/30 per host, X.Y from this process's id: two test runs at once on one
        # machine do not collide, and nothing outside this machine is ever addressed.
        pid = os.getpid()
        base = f"10.{200 + pid % 50}.{(pid // 50) % 250}"
        for i, name in enumerate(names):
            netns = f"cpulab-{pid}-{name}"
            outside, inside = f"vcl{pid % 100000}{i}o", f"vcl{pid % 100000}{i}i"
            host = Host(name, netns, f"{base}.{4 * i + 2}", outside)
            self.hosts.append(host)
            _sh("ip", "netns", "add", netns)
            _sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside,
                "netns", netns)
            _sh("ip", "addr", "add", f"{base}.{4 * i + 1}/30", "dev", outside)
            _sh("ip", "link", "set", outside, "up")
            _sh("ip", "-n", netns, "addr", "add", f"{host.address}/30", "dev", inside)
            _sh("ip", "-n", netns, "link", "set", inside, "up")
            _sh("ip", "-n", netns, "link", "set", "lo", "up")
            config = self.root / f"sshd-{name}.conf"
            config.write_text(
                f"ListenAddress {host.address}\nPort 22\nHostKey {hostkey}\n"
                f"PidFile {self.root}/sshd-{name}.pid\n"
                f"AuthorizedKeysFile {self.root}/authorized_keys\n"
                "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
                "Subsystem sftp /usr/lib/openssh/sftp-server\n")
            with open(self.root / f"sshd-{name}.log", "w") as log:
                host.sshd = subprocess.Popen(
                    ["ip", "netns", "exec", netns, str(SSHD), "-D", "-e", "-f", str(config)],
                    stdout=subprocess.DEVNULL, stderr=log)
        for host in self.hosts:
            self._wait_for_ssh(host)
        return self

    def _wait_for_ssh(self, host: Host) -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if host.sshd.poll() is not None:
                log = (self.root / f"sshd-{host.name}.log").read_text()
                raise HostsUnavailable(f"sshd for {host.name} exited: {log.strip()}")
            p = subprocess.run(["ssh", *self.ssh_options(), f"root@{host.address}", "true"],
                               capture_output=True, timeout=20)
            if p.returncode == 0:
                return
            time.sleep(0.3)
        raise HostsUnavailable(f"no ssh to {host.name} at {host.address} within 20 s")

    def ssh_options(self) -> list[str]:
        return ["-i", str(self.key), "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o",
                "ConnectTimeout=5", "-o", "LogLevel=ERROR"]

    def inventory_lines(self) -> list[str]:
        opts = " ".join(self.ssh_options()[2:])
        return [f"{h.name} ansible_host={h.address} ansible_user=root "
                f"ansible_ssh_private_key_file={self.key} "
                f"ansible_ssh_common_args='{opts}' ansible_python_interpreter=/usr/bin/python3 "
                # no master connection that outlives the playbook (ControlPersist)
                "ansible_ssh_args='-o ControlMaster=no' "
                f"cpulab_dir={self.root}/{h.name} "
                # a namespace has no network: uv installs from its cache only
                "cpulab_env='{\"UV_OFFLINE\": \"1\"}'"
                for h in self.hosts]

    def close(self) -> None:
        for h in self.hosts:
            if h.sshd is not None and h.sshd.poll() is None:
                h.sshd.terminate()
                try:
                    h.sshd.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    h.sshd.kill()
                    h.sshd.wait()
            # The sessions sshd forked for Ansible (kept open by ssh's ControlPersist) live
            # on in the namespace and keep it, and its link, alive: they end here too.
            p = subprocess.run(["ip", "netns", "pids", h.netns], capture_output=True,
                               text=True, timeout=30)
            for pid in p.stdout.split():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(pid), signal.SIGTERM)
            subprocess.run(["ip", "link", "del", h.outside], capture_output=True, timeout=30)
            subprocess.run(["ip", "netns", "del", h.netns], capture_output=True, timeout=30)
        self.hosts.clear()
