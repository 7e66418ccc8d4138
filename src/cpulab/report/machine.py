"""The terminal view of the machine fingerprint (`cpulab env`)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def render_fingerprint(fp: dict, key: str, console: Console) -> None:
    cpu = fp.get("cpu", {})
    t = Table(title=f"this machine (fingerprint {key})", title_justify="left",
              show_header=False)
    t.add_column("what", style="bold")
    t.add_column("value")

    def row(k: str, v) -> None:
        t.add_row(k, "-" if v is None or v == "" else str(v))

    row("CPU", cpu.get("model_name"))
    row("vendor / family / model / stepping",
        f"{cpu.get('vendor')} / {cpu.get('family')} / {cpu.get('model')} / "
        f"{cpu.get('stepping')}")
    row("microcode", cpu.get("microcode"))
    row("logical CPUs / physical cores", f"{cpu.get('logical_cpus')} / "
        f"{cpu.get('physical_cores') or 'not exposed'}")
    row("flags of interest", " ".join(cpu.get("flags", [])))
    row("caches", ", ".join(
        f"L{c['level']}{'d' if c['type'] == 'Data' else 'i' if c['type'] == 'Instruction' else ''}"
        f" {c['size']}" + (f" {c['ways']}-way" if c.get("ways") else "")
        for c in fp.get("caches", [])) or "not exposed")
    k = fp.get("kernel", {})
    row("kernel", f"{k.get('release')} ({k.get('machine')})")
    row("hypervisor", fp.get("hypervisor") or "none (bare metal)")
    tsc = fp.get("tsc", {})
    if tsc.get("hz"):
        row("TSC", f"{tsc['hz'] / 1e9:.4f} GHz ({tsc.get('source')}), invariant: "
            f"{tsc.get('invariant')}")
    else:
        row("TSC", f"unavailable: {tsc.get('reason')}")
    row("frequency governor", fp.get("governor"))
    row("perf_event_paranoid", fp.get("perf_event_paranoid"))
    for name, c in fp.get("counters", {}).items():
        row(f"counter {name} [{c.get('source')}]",
            f"available ({c.get('mode')})" if c.get("available")
            else f"unavailable: {c.get('reason')}")
    for name, c in fp.get("compilers", {}).items():
        row(f"compiler {name}", f"{c['version']} ({c['path']})")
    for name, v in fp.get("tools", {}).items():
        row(f"tool {name}", v or "not installed")
    row("ASLR (randomize_va_space)", fp.get("aslr"))
    row("transparent huge pages", fp.get("thp"))
    mem = fp.get("memory_kib")
    row("memory", f"{mem / 2**20:.1f} GiB" if mem else None)
    console.print(t)
