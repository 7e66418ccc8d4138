"""Assemble the machine fingerprint: CPU identity, caches, kernel, TSC, PMU, compilers.

Two results are comparable only when their fingerprint keys match (same CPU model and
stepping, microcode, kernel and hypervisor); the key deliberately leaves out things that
change without changing the machine (free memory, MHz readings).
"""

from __future__ import annotations

import functools
import hashlib
import json
import platform
import re
import shutil
import subprocess
from pathlib import Path

from cpulab.build import BuildConfig, BuildError, Target, build_one, find_toolchains
from cpulab.machine.cpuinfo import parse_cpuinfo
from cpulab.machine.pmu import perf_event_paranoid, probe_counters
from cpulab.paths import NATIVE

_SYS_CPU = Path("/sys/devices/system/cpu")

# Tools whose versions shape results; each with the argument that prints a version.
_TOOLS = {
    "perf": "--version", "valgrind": "--version", "ninja": "--version", "make": "--version",
    "go": "version", "python3": "--version",
}


def _read(path: Path | str) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def caches() -> list[dict]:
    """Cache levels of CPU 0 from sysfs: level, type, size, line size, ways, sharing."""
    out = []
    for idx in sorted((_SYS_CPU / "cpu0" / "cache").glob("index*")):
        out.append({
            "level": int(_read(idx / "level") or 0),
            "type": _read(idx / "type"),
            "size": _read(idx / "size"),
            "line": int(_read(idx / "coherency_line_size") or 0) or None,
            "ways": int(_read(idx / "ways_of_associativity") or 0) or None,
            "shared_cpu_list": _read(idx / "shared_cpu_list"),
        })
    return out


def _tool_version(name: str, arg: str) -> str | None:
    path = shutil.which(name)
    if not path:
        return None
    try:
        out = subprocess.run([path, arg], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    first = (out.stdout or out.stderr).strip().splitlines()
    return first[0] if first else None


def probe_native() -> dict:
    """TSC frequency (measured), invariance and hypervisor vendor from cpuid."""
    tcs = find_toolchains()
    tc = tcs.get("gcc") or tcs.get("clang")
    if tc is None:
        return {"tsc": None, "reason": "no C compiler found to build the probe"}
    try:
        exe = build_one(
            Target("machine_probe", (NATIVE / "tools" / "machine_probe.c",)), BuildConfig(tc, "O2")
        )
        out = subprocess.run([exe], capture_output=True, text=True, timeout=30, check=True)
        return json.loads(out.stdout)
    except (BuildError, subprocess.SubprocessError, json.JSONDecodeError, OSError) as e:
        return {"tsc": None, "reason": f"machine probe failed: {e}"}


def hypervisor(cpu: dict, native: dict) -> str | None:
    """The hypervisor's name, or None on bare metal."""
    if "hypervisor" not in cpu.get("flags", []):
        return None
    vendor = (native.get("hypervisor_vendor") or "").strip()
    known = {"KVMKVMKVM": "KVM", "Microsoft Hv": "Hyper-V", "VMwareVMware": "VMware",
             "XenVMMXenVMM": "Xen", "TCGTCGTCGTCG": "QEMU TCG", "ACRNACRNACRN": "ACRN"}
    for k, v in known.items():
        if vendor.startswith(k):
            return v
    product = _read("/sys/class/dmi/id/product_name")
    return vendor or product or "unknown hypervisor"


@functools.cache
def fingerprint() -> dict:
    """The whole fingerprint as a JSON-ready dict (cached per process)."""
    cpu = parse_cpuinfo(_read("/proc/cpuinfo") or "")
    native = probe_native()
    uname = platform.uname()
    governor = _read(_SYS_CPU / "cpu0" / "cpufreq" / "scaling_governor")
    thp = _read("/sys/kernel/mm/transparent_hugepage/enabled")
    thp_mode = re.search(r"\[(\w+)\]", thp).group(1) if thp and "[" in thp else thp
    tcs = find_toolchains()
    return {
        "cpu": cpu,
        "caches": caches(),
        "kernel": {"release": uname.release, "version": uname.version, "machine": uname.machine},
        "hypervisor": hypervisor(cpu, native),
        "tsc": {
            "hz": native.get("tsc_hz_measured"),
            "source": "measured against CLOCK_MONOTONIC" if native.get("tsc") else None,
            "invariant": native.get("tsc_invariant"),
            "cpuid_15_hz": native.get("cpuid_15_tsc_hz") or None,
            "reason": native.get("reason"),
        },
        "counters": probe_counters(),
        "perf_event_paranoid": perf_event_paranoid(),
        "compilers": {
            tc.name: {"path": tc.cc, "version": tc.version, "banner": tc.banner}
            for tc in tcs.values()
        },
        "tools": {k: _tool_version(k, a) for k, a in _TOOLS.items()},
        "governor": governor or "not exposed (no cpufreq in this kernel/VM)",
        "aslr": _read("/proc/sys/kernel/randomize_va_space"),
        "thp": thp_mode,
        "memory_kib": _meminfo_total(),
    }


def _meminfo_total() -> int | None:
    m = re.search(r"MemTotal:\s+(\d+)", _read("/proc/meminfo") or "")
    return int(m.group(1)) if m else None


def fingerprint_key(fp: dict) -> str:
    """Identity of the machine for comparisons: CPU model/stepping, microcode, kernel, VM."""
    cpu = fp.get("cpu", {})
    ident = [cpu.get(k) for k in ("vendor", "model_name", "family", "model", "stepping",
                                  "microcode")]
    ident += [fp.get("kernel", {}).get("release"), fp.get("hypervisor")]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:16]
