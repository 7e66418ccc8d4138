"""Parse /proc/cpuinfo text into the fields the lab cares about (pure; tested on samples)."""

from __future__ import annotations

# Flags that decide which code paths the experiments can take.
FLAGS_OF_INTEREST = (
    "bmi1", "bmi2", "adx", "avx", "avx2", "fma", "popcnt", "lzcnt", "erms", "fsrm",
    "constant_tsc", "nonstop_tsc", "rdtscp", "hypervisor",
)


def parse_cpuinfo(text: str) -> dict:
    """First processor's identity plus counts; works for x86 (Intel, AMD) text."""
    blocks = [b for b in text.strip().split("\n\n") if b.strip()]
    procs = []
    for b in blocks:
        d = {}
        for line in b.splitlines():
            if ":" in line:
                k, _, v = line.partition(":")
                d[k.strip()] = v.strip()
        if "processor" in d:
            procs.append(d)
    if not procs:
        return {}
    p = procs[0]
    flags = p.get("flags", "").split()
    physical = {(q.get("physical id"), q.get("core id")) for q in procs}
    out = {
        "vendor": p.get("vendor_id"),
        "model_name": p.get("model name"),
        "family": _int(p.get("cpu family")),
        "model": _int(p.get("model")),
        "stepping": _int(p.get("stepping")),
        "microcode": p.get("microcode"),
        "logical_cpus": len(procs),
        "physical_cores": len(physical) if all(k != (None, None) for k in physical) else None,
        "flags": [f for f in FLAGS_OF_INTEREST if f in flags]
        + sorted(f for f in flags if f.startswith("avx512")),
        "mhz": _float(p.get("cpu MHz")),
    }
    return out


def _int(s: str | None) -> int | None:
    try:
        return int(s, 0) if s is not None else None
    except ValueError:
        return None


def _float(s: str | None) -> float | None:
    try:
        return float(s) if s is not None else None
    except ValueError:
        return None
