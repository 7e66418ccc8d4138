"""The machine fingerprint: /proc/cpuinfo parsing on captured Intel and AMD samples, the
comparison key, and the live fingerprint's shape (counters never faked as available)."""

from __future__ import annotations

from pathlib import Path

from cpulab.machine.cpuinfo import parse_cpuinfo
from cpulab.machine.fingerprint import fingerprint, fingerprint_key

DATA = Path(__file__).parent / "data" / "cpuinfo"


def test_intel_sample():
    cpu = parse_cpuinfo((DATA / "intel-xeon-e5-2660v3.txt").read_text())
    assert cpu["vendor"] == "GenuineIntel"
    assert cpu["model_name"] == "Intel(R) Xeon(R) CPU E5-2660 v3 @ 2.60GHz"
    assert (cpu["family"], cpu["model"], cpu["stepping"]) == (6, 63, 2)
    assert cpu["microcode"] == "0x49"
    assert (cpu["logical_cpus"], cpu["physical_cores"]) == (4, 4)
    assert "bmi2" in cpu["flags"] and "avx2" in cpu["flags"]
    assert "adx" not in cpu["flags"]  # Haswell has no ADX: mulpre's asm path is off there
    assert "hypervisor" not in cpu["flags"]
    assert not [f for f in cpu["flags"] if f.startswith("avx512")]


def test_amd_sample():
    cpu = parse_cpuinfo((DATA / "amd-epyc-kvm.txt").read_text())
    assert cpu["vendor"] == "AuthenticAMD"
    assert (cpu["family"], cpu["model"], cpu["stepping"]) == (26, 2, 1)
    assert cpu["microcode"] == "0x1000065"
    assert cpu["logical_cpus"] == 2
    assert {"bmi2", "adx", "avx2", "hypervisor", "avx512f"} <= set(cpu["flags"])
    assert cpu["mhz"] == 2596.122


def test_empty_text_is_no_cpu():
    assert parse_cpuinfo("") == {}


def test_key_depends_on_identity_not_on_noise():
    fp = {"cpu": {"vendor": "GenuineIntel", "model_name": "X", "family": 6, "model": 63,
                  "stepping": 2, "microcode": "0x49", "mhz": 1200.0},
          "kernel": {"release": "6.1.0"}, "hypervisor": None}
    same = {**fp, "cpu": {**fp["cpu"], "mhz": 2600.0}, "memory_kib": 1}
    other = {**fp, "cpu": {**fp["cpu"], "microcode": "0x4a"}}
    assert fingerprint_key(fp) == fingerprint_key(same)
    assert fingerprint_key(fp) != fingerprint_key(other)


def test_live_fingerprint_reports_counters_honestly():
    fp = fingerprint()
    for name in ("cycles", "instructions", "branches", "branch-misses", "task-clock"):
        c = fp["counters"][name]
        assert c["source"] in ("pmu", "sw")
        # an unavailable counter carries the kernel's reason, an available one its mode
        assert (c["available"] and c["mode"]) or (not c["available"] and c["reason"])
    assert fp["compilers"], "no compiler found"
    assert fp["tsc"]["hz"] is None or fp["tsc"]["hz"] > 1e8
