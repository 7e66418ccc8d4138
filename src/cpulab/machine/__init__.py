"""The machine fingerprint: what this CPU, kernel and toolchain are, read once per run."""

from cpulab.machine.fingerprint import fingerprint, fingerprint_key

__all__ = ["fingerprint", "fingerprint_key"]
