"""cpulab: a laboratory for low-level performance."""

__version__ = "0.1.0"
