"""The terminal report of a run: the seed's figures, this machine's, and the verdicts.

Every figure is shown with its unit and its source (`clock`, `tsc`, `pmu`, `callgrind`,
`model`, `asm`); a metric a case could not have reads `n/a`, and the reason is printed
once under the table, never a zero.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cpulab.comparison import Comparison
from cpulab.results import RunRecord
from cpulab.results.ratios import format_ratio

_VERDICT_STYLE = {"confirmed": "bold green", "refuted": "bold red",
                  "inconclusive": "yellow", "unmeasurable": "dim"}
_CHANGE_STYLE = {"better": "green", "worse": "red", "same": ""}


def _fmt(v: float) -> str:
    a = abs(v)
    if v == int(v) and a < 1e6:
        return str(int(v))
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 0.01:
        return f"{v:.4g}"
    return f"{v:.2e}"


def _metric_columns(rec: RunRecord, wanted: tuple[str, ...] | None) -> list[str]:
    present: dict[str, None] = {}
    for c in rec.cases:
        for k in (*c.metrics, *c.unavailable):
            present.setdefault(k, None)
    if wanted is None:
        return list(present)
    return [m for m in wanted if m in present]


def cases_table(rec: RunRecord, wanted: tuple[str, ...] | None = None) -> tuple[Table, list[str]]:
    """The measurements (median ± MAD) and the footnotes for what is missing."""
    cols = _metric_columns(rec, wanted)
    units: dict[str, str] = {}
    for c in rec.cases:
        for k, m in c.metrics.items():
            units.setdefault(k, f"{m.unit} [{m.source}]")
    for c in rec.cases:
        for k, why in c.unavailable.items():
            units.setdefault(k, f"[{why.get('source', '?')}]")
    t = Table(header_style="bold")
    t.add_column("variant")
    t.add_column("build")
    has_params = any(c.params for c in rec.cases)
    if has_params:
        t.add_column("params")
    for m in cols:
        t.add_column(Text(f"{m}\n{units.get(m, '')}"), justify="right")
    notes: dict[str, None] = {}
    for c in rec.cases:
        row = [c.variant, c.build_label]
        if has_params:
            row.append(" ".join(f"{k}={v}" for k, v in c.params.items()))
        if c.error:
            row += [Text("failed", style="red")] + [""] * (len(cols) - 1)
            notes.setdefault(f"{c.variant} {c.build_label}: {c.error.splitlines()[0]}", None)
            t.add_row(*row)
            continue
        for m in cols:
            metric = c.metrics.get(m)
            if metric is None:
                row.append(Text("n/a", style="dim"))
                why = c.unavailable.get(m, {}).get("reason")
                if why:
                    notes.setdefault(f"{m}: n/a, {why}", None)
            elif metric.n > 1 and metric.mad:
                row.append(f"{_fmt(metric.median)} ±{metric.mad:.2g}")
            else:
                row.append(_fmt(metric.median))
        t.add_row(*row)
    return t, list(notes)


def render_record(rec: RunRecord, console: Console, table_metrics=None,
                  where: str | None = None) -> None:
    head = (f"[bold]{escape(rec.experiment)}[/] ({rec.seed_row}): {escape(rec.title)}\n"
            f"profile {rec.profile}, {rec.duration_s:.1f} s, lab {rec.lab_revision}, "
            f"started {rec.started}" + (f", run #{rec.id}" if rec.id is not None else ""))
    if rec.status != "complete":
        head += f"\n[bold red]status: {rec.status}[/]"
    console.print(Panel(head, expand=False))
    for st in rec.seed_tables:
        _heading(console, f"the seed: {st.title}")
        console.print(_plain_table(st.columns, st.rows))
    if rec.cases:
        table, notes = cases_table(rec, table_metrics)
        _heading(console, f"{rec.experiment} on this machine (median ± MAD)")
        console.print(table)
        for n in notes:
            console.print(f"  [dim]{escape(n)}[/]")
    for et in rec.evidence.tables:
        _heading(console, f"evidence: {et.title}")
        console.print(_plain_table(et.columns, et.rows))
    if rec.verdicts:
        _heading(console, "verdicts")
        v = Table(header_style="bold", show_lines=True)
        v.add_column("claim", ratio=2)
        v.add_column("verdict")
        v.add_column("evidence", ratio=3)
        for x in rec.verdicts:
            ev = escape(x.evidence) + (f"\n[dim]seed: {escape(x.seed)}[/]" if x.seed else "")
            v.add_row(escape(x.claim), Text(x.verdict, style=_VERDICT_STYLE[x.verdict]), ev)
        console.print(v)
    if rec.notes:
        console.print(Group(*(Text(f"note: {n}", style="yellow") for n in rec.notes)))
    if where:
        console.print(f"[dim]stored in {escape(where)}[/]")


def _heading(console: Console, text: str) -> None:
    """Table titles as their own line: a rich title longer than its table would wrap."""
    console.print(Text(text, style="bold"))


def _plain_table(columns: list[str], rows: list[list]) -> Table:
    t = Table(header_style="bold")
    for col in columns:
        t.add_column(Text(col))
    for r in rows:
        t.add_row(*(Text(str(x)) for x in r))
    return t


def render_runs(rows: list[dict], console: Console) -> None:
    t = Table(header_style="bold")
    for col in ("id", "experiment", "seed", "started", "profile", "status", "cases",
                "verdicts", "lab"):
        t.add_column(col)
    for r in rows:
        counts: dict[str, int] = {}
        for v in r["verdicts"]:
            counts[v] = counts.get(v, 0) + 1
        t.add_row(str(r["id"]), r["experiment"], r["seed_row"], r["started"], r["profile"],
                  r["status"], str(r["cases"]),
                  ", ".join(f"{n} {k}" for k, n in counts.items()) or "-", r["lab_revision"])
    console.print(t)


def render_comparison(old: RunRecord, new: RunRecord, comparison: Comparison,
                      diffs: list[str], console: Console) -> None:
    better = "higher" if comparison.higher_is_better else "lower"
    _heading(console, f"{new.experiment}: run #{new.id} vs run #{old.id}, "
                      f"{comparison.metric} (ratio new/old of medians, 95% interval; "
                      f"{better} is better)")
    for d in diffs:
        console.print(Text(f"differs: {d}", style="yellow"))
    t = Table(header_style="bold")
    for col in ("variant", "build", "params", f"#{old.id}", f"#{new.id}", "new/old"):
        t.add_column(col, justify="right" if col.startswith(("#", "new")) else "left")
    for r in comparison.rows:
        t.add_row(r.variant, r.build, r.params, _fmt(r.old), _fmt(r.new),
                  Text(format_ratio(r.ratio), style=_CHANGE_STYLE[r.change]))
    console.print(t)
