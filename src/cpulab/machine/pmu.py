"""Which hardware counters this machine lets us open, and why not when it does not.

The probe calls perf_event_open(2) itself (through ctypes) so that the reason is the
kernel's own errno, not a guess: on a VM without a virtual PMU the hardware events fail
with ENOENT, while a locked-down kernel (perf_event_paranoid > 2) says EACCES.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct
from pathlib import Path

PERF_TYPE_HARDWARE = 0
PERF_TYPE_SOFTWARE = 1
HW_EVENTS = {"cycles": 0, "instructions": 1, "branches": 4, "branch-misses": 5}
SW_EVENTS = {"task-clock": 1, "page-faults": 2, "context-switches": 3}
_NR_PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}
_ATTR_SIZE = 128
_EXCLUDE_KERNEL = 1 << 5
_EXCLUDE_HV = 1 << 6
_DISABLED = 1 << 0


def _open(type_: int, config: int, flags: int) -> tuple[int, int]:
    nr = _NR_PERF_EVENT_OPEN.get(platform.machine())
    if nr is None:
        return -1, errno.ENOSYS
    attr = struct.pack("IIQQQQQ", type_, _ATTR_SIZE, config, 0, 0, 0, flags)
    attr = attr.ljust(_ATTR_SIZE, b"\0")
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(attr, _ATTR_SIZE)
    fd = libc.syscall(nr, buf, 0, -1, -1, 0)
    return fd, ctypes.get_errno()


def _reason(err: int) -> str:
    hint = {
        errno.ENOENT: "no such hardware event: no PMU exposed, as in a VM without a "
        "virtual PMU",
        errno.EOPNOTSUPP: "not supported by this PMU",
        errno.EACCES: "denied: perf_event_paranoid too high (see /proc/sys/kernel/"
        "perf_event_paranoid)",
        errno.EPERM: "denied by the kernel or a security policy",
        errno.ENOSYS: "perf_event_open is not available on this architecture/kernel",
        errno.ENODEV: "no such PMU device",
    }.get(err, "")
    return f"perf_event_open: {os.strerror(err)}" + (f" ({hint})" if hint else "")


def probe_counters() -> dict[str, dict]:
    """event -> {available, source, mode?, reason?} for the hardware and software events."""
    out: dict[str, dict] = {}
    for table, type_, source in (
        (HW_EVENTS, PERF_TYPE_HARDWARE, "pmu"), (SW_EVENTS, PERF_TYPE_SOFTWARE, "sw"),
    ):
        for name, config in table.items():
            fd, err = _open(type_, config, _DISABLED | _EXCLUDE_HV)
            mode = "user+kernel"
            if fd < 0 and err in (errno.EACCES, errno.EPERM):
                fd, err = _open(type_, config, _DISABLED | _EXCLUDE_HV | _EXCLUDE_KERNEL)
                mode = "user"
            if fd >= 0:
                os.close(fd)
                out[name] = {"available": True, "source": source, "mode": mode}
            else:
                out[name] = {"available": False, "source": source, "reason": _reason(err)}
    return out


def perf_event_paranoid() -> int | None:
    try:
        return int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    except (OSError, ValueError):
        return None
