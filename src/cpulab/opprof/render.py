"""Output formats of a profile: a versioned JSON dict, and a rich table for the terminal.

Schema history (`schema`):
- cpulab.opprof/1: first version; `mapping.inclusive` (--inclusive) and `seconds` (each
  stage's wall time: record, script, post) added since.
Every share is a fraction in [0, 1] of sampled events; the event says what a sample is
(`cycles`, counted by the PMU, or `cpu-clock`, a timer) and its `source` (pmu | clock).
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from cpulab.opprof.aggregate import InsnRow
from cpulab.opprof.op_profile import OpProfile

REST_ROWS = 12  # the table shows this many symbols of the rest; JSON has them all
# Piped output has no width of its own (rich would take 80 columns and cut names to
# "TARGET_CALL_PY_EX…"); lines are as long as their content needs instead.
PIPE_WIDTH = 10_000


def table_console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=PIPE_WIDTH)


def _insn(r: InsnRow) -> dict:
    return {
        "name": r.name, "samples": r.samples, "share": round(r.share, 6),
        "share_vm": round(r.share_vm, 6), "shared_samples": r.shared_samples,
        "hot_lines": [{"file": ln.file, "line": ln.line, "samples": ln.samples}
                      for ln in r.hot_lines],
    }


def to_dict(p: OpProfile) -> dict:
    res = p.result
    return {
        "schema": p.schema,
        "command": p.command,
        "event": p.event.as_dict(),
        "frequency_hz": p.frequency,
        "mapping": {
            "mode": p.mapping.mode, "reason": p.mapping.reason,
            "patterns": p.mapping.patterns, "interpreter": p.mapping.interpreter,
            "sources": p.mapping.sources, "flow": p.mapping.flow,
            "inclusive": p.mapping.inclusive,
        },
        "samples": {
            "total": res.total, "vm": res.vm_samples, "instructions": res.insn_samples,
            "dispatch_other": res.dispatch.samples,
            "rest": res.total - res.vm_samples,
        },
        "instructions": [_insn(r) for r in res.instructions],
        "dispatch_other": _insn(res.dispatch),
        "shared": {"samples": res.shared_samples, "unsplit": res.unsplit_samples},
        "rest": [{"symbol": r.symbol, "dso": r.dso, "samples": r.samples,
                  "share": round(r.share, 6)} for r in res.rest],
        "binaries": [{"path": b.path, "kind": b.kind, "samples": b.samples,
                      "debug_info": b.debug_info, "debug_file": b.debug_file,
                      "dwarf_read": b.dwarf_read}
                     for b in p.binaries],
        "warnings": p.warnings,
        "seconds": p.seconds,
    }


def _pct(x: float) -> str:
    return f"{100 * x:6.2f}%"


def print_table(p: OpProfile, console: Console | None = None, limit: int = 40) -> None:
    console = console or table_console()
    res = p.result
    ev = p.event
    console.print(Text.assemble(
        ("opprof ", "bold"), " ".join(p.command), "\n",
        (f"{res.total} samples of {ev.name} ({ev.source}) at {p.frequency} Hz", "dim"),
        *([("\n" + ev.note, "yellow")] if ev.note else []), "\n",
        (f"mapping: {p.mapping.mode} — {p.mapping.reason}", "dim"),
        *([("\ninclusive: samples in code an instruction called (perf call chains) "
            "count for that instruction", "dim")] if p.mapping.inclusive else []),
        *([(f"\nshared code (merged by the compiler): {res.shared_samples} samples, split "
            "by each instruction's exclusive samples (column 'split')", "dim")]
          if res.shared_samples else []),
        *([("\ninterpreter: " + ", ".join(p.mapping.interpreter[:6]), "dim")]
          if p.mapping.interpreter and p.mapping.mode != "function" else []),
    ))
    t = Table(title="VM instructions", title_justify="left")
    t.add_column("#", justify="right")
    # names wrap onto a second line in a narrow terminal rather than lose their end
    t.add_column("instruction", overflow="fold")
    t.add_column("samples", justify="right")
    t.add_column("of all", justify="right")
    t.add_column("of VM", justify="right")
    t.add_column("split", justify="right")
    t.add_column("hottest line", overflow="fold")
    rows = res.instructions[:limit]
    for i, r in enumerate(rows, 1):
        hot = r.hot_lines[0] if r.hot_lines else None
        where = f"{Path(hot.file).name}:{hot.line}" if hot else ""
        t.add_row(str(i), Text(r.name), str(r.samples), _pct(r.share), _pct(r.share_vm),
                  str(r.shared_samples or ""), Text(where))
    if len(res.instructions) > limit:
        rest_n = sum(r.samples for r in res.instructions[limit:])
        t.add_row("", f"({len(res.instructions) - limit} more)", str(rest_n),
                  _pct(rest_n / res.total if res.total else 0), "", "", "")
    d = res.dispatch
    if p.mapping.mode != "function" or d.samples:
        t.add_row("", Text(d.name, style="italic"), str(d.samples), _pct(d.share),
                  _pct(d.share_vm), "", "")
    console.print(t)
    if res.rest:
        o = Table(title="rest of the process", title_justify="left")
        o.add_column("symbol", overflow="fold")
        o.add_column("dso", overflow="fold")
        o.add_column("samples", justify="right")
        o.add_column("of all", justify="right")
        for r in res.rest[:REST_ROWS]:
            o.add_row(Text(r.symbol), Text(r.dso), str(r.samples), _pct(r.share))
        if len(res.rest) > REST_ROWS:
            n = sum(r.samples for r in res.rest[REST_ROWS:])
            o.add_row(f"({len(res.rest) - REST_ROWS} more)", "", str(n),
                      _pct(n / res.total if res.total else 0))
        console.print(o)
    for w in p.warnings:
        console.print(Text("warning: " + w, style="yellow"))
