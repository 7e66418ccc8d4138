"""The terminal report of a run: the seed's figures, this machine's, and the verdicts.

Every figure is shown with its unit and its source (`clock`, `tsc`, `pmu`, `callgrind`,
`model`, `asm`); a metric a case could not have reads `n/a`, and the reason is printed
once under the table, never a zero. The figures of a column share one format
(results/columns.py), spreads included. A run measured on a disturbed machine says so
above its verdicts, with the reasons, and its flagged cases carry a `!` and theirs.
"""

from __future__ import annotations

from rich.console import Console, Group
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cpulab.comparison import Comparison
from cpulab.history import History
from cpulab.results import Case, RunConditions, RunRecord
from cpulab.results.columns import case_columns, column_format
from cpulab.results.ratios import format_ratio

_VERDICT_STYLE = {"confirmed": "bold green", "refuted": "bold red",
                  "inconclusive": "yellow", "unmeasurable": "dim"}
_CHANGE_STYLE = {"faster": "green", "slower": "red", "same": ""}


DISTURBED_MARK = "!"


def case_label(c: Case) -> str:
    """A case as a note names it: variant, build, parameters."""
    params = " ".join(f"{k}={v}" for k, v in c.params.items())
    return " ".join(x for x in (c.variant, c.build_label, params) if x and x != "-")


def disturbed_warning(c: RunConditions) -> str:
    """The line above the verdicts of a run measured on a disturbed machine."""
    return f"measured on a disturbed machine: {'; '.join(c.disturbed)}. Verdicts may be off."


def conditions_line(c: RunConditions) -> str:
    """The machine while the run measured, in one line (figures it lacks read n/a)."""
    def fig(v: float | None, form: str) -> str:
        return "n/a" if v is None else format(v, form)

    return (f"while measuring ({c.cases} cases): others used {fig(c.others_cores, '.2f')} "
            f"cores on average, at most {fig(c.others_cores_max, '.2f')}; steal "
            f"{fig(c.steal_share, '.1%')}; load average {fig(c.load_1m_start, '.2f')} at "
            f"the start, {fig(c.load_1m_end, '.2f')} at the end")


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
    columns = case_columns(rec.cases, cols)
    t = Table(header_style="bold")
    t.add_column("variant")
    t.add_column("build")
    has_params = any(c.params for c in rec.cases)
    if has_params:
        t.add_column("params")
    for m in cols:
        t.add_column(Text(f"{m}\n{columns[m][0]}"), justify="right")
    notes: dict[str, None] = {}
    marks: list[str] = []  # the flagged cases, after what is missing
    for c in rec.cases:
        flagged = c.conditions.reasons() if c.conditions and not c.error else []
        row = [Text(f"{c.variant} {DISTURBED_MARK}", style="yellow") if flagged else c.variant,
               c.build_label]
        if flagged:
            marks.append(f"{DISTURBED_MARK} {case_label(c)}: {'; '.join(flagged)}")
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
            else:
                row.append(columns[m][1].metric(metric))
        t.add_row(*row)
    return t, [*notes, *marks]


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
    if rec.conditions:
        console.print(Text(conditions_line(rec.conditions), style="dim"))
        if rec.conditions.disturbed:
            console.print(Text(disturbed_warning(rec.conditions), style="bold red"))
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
    hosts = any(r.get("origin") for r in rows)  # imported from a fleet's hosts
    for col in ("id", "experiment", "seed", "started", "profile", "status", "cases",
                "verdicts", "lab", *(("host",) if hosts else ())):
        t.add_column(col)
    for r in rows:
        counts: dict[str, int] = {}
        for v in r["verdicts"]:
            counts[v] = counts.get(v, 0) + 1
        t.add_row(str(r["id"]), r["experiment"], r["seed_row"], r["started"], r["profile"],
                  r["status"], str(r["cases"]),
                  ", ".join(f"{n} {k}" for k, n in counts.items()) or "-", r["lab_revision"],
                  *((r.get("origin") or "-",) if hosts else ()))
    console.print(t)


def render_comparison(old: str, new: str, experiment: str, comparison: Comparison,
                      console: Console) -> None:
    """One comparison: what is compared, any forced reason, the cases with their ratio,
    interval, corrected p-value and change (green faster, red slower), and the geomean
    per variant."""
    c = comparison
    better = "higher" if c.higher_is_better else "lower"
    _heading(console, f"{experiment}: {new} against {old}, {c.metric} (ratio new/old, 95% "
                      f"interval over processes; {better} is faster)")
    for d in c.differences:
        console.print(Text(f"compared: {d}", style="cyan"))
    for f in c.forced:
        console.print(Text(f"WARNING, forced: {f}", style="bold red"))
    t = Table(header_style="bold")
    for col in ("variant", "build", "params", old, new, "new/old", "q", "change"):
        t.add_column(col, justify="left" if col in ("variant", "build", "params", "change")
                     else "right")
    fmt = column_format(v for r in c.rows for v in (r.old, r.new))  # one metric, both sides
    for r in c.rows:
        style = _CHANGE_STYLE[r.change]
        t.add_row(r.variant, r.build, r.params, fmt.figure(r.old), fmt.figure(r.new),
                  Text(format_ratio(r.ratio), style=style),
                  "-" if r.q is None else f"{r.q:.3f}", Text(r.change, style=style))
    console.print(t)
    if c.geomeans:
        g = Table(header_style="bold", title_justify="left")
        for col in ("variant", "cases", "geometric mean new/old", "change"):
            g.add_column(col)
        per = {v: sum(1 for r in c.rows if r.variant == v) for v in c.geomeans}
        for v, (ratio, ch) in c.geomeans.items():
            g.add_row(v, str(per[v]), Text(format_ratio(ratio), style=_CHANGE_STYLE[ch]),
                      Text(ch, style=_CHANGE_STYLE[ch]))
        console.print(g)
    n = c.counts()
    console.print(Text(f"{n['faster']} faster, {n['slower']} slower, {n['same']} the same "
                       f"(q: Welch's p corrected over the cases, Benjamini-Hochberg; a change "
                       f"needs q < 0.05 and more than {c.noise:.0%})"))


def render_history(h: History, console: Console, cases: bool = False) -> None:
    """The runs of one experiment on one machine in order, what changed from each run to
    the next; with `cases`, every figure of the series kept."""
    _heading(console, f"{h.experiment} on {h.machine}: {h.metric}, {h.profile} profile, "
                      f"{len(h.steps)} run(s), oldest first")
    t = Table(header_style="bold")
    for col in ("run", "started", "lab revision", "cases", "against the run before",
                "faster", "slower"):
        t.add_column(col)
    for s in h.steps:
        g = "-" if s.geomean is None else format_ratio(s.geomean)
        t.add_row(f"#{s.run}", s.started, s.lab_revision, str(s.cases), g,
                  Text(str(s.faster), style="green" if s.faster else ""),
                  Text(str(s.slower), style="red" if s.slower else ""))
    console.print(t)
    points = h.change_points()
    if points:
        _heading(console, "change points (beyond noise, against the run before)")
        for series, p in points:
            console.print(Text(f"  run #{p.run} ({p.lab_revision}): {series.label} "
                               f"{p.change}, {format_ratio(p.ratio)}",
                               style=_CHANGE_STYLE[p.change]))
    else:
        console.print(Text("no change beyond noise between successive runs"))
    if cases:
        for series in h.series:
            _heading(console, series.label)
            c = Table(header_style="bold")
            for col in ("run", "lab revision", h.metric, "against the run before", "change"):
                c.add_column(col)
            fmt = column_format(p.median for p in series.points)
            for p in series.points:
                c.add_row(f"#{p.run}", p.lab_revision, fmt.figure(p.median),
                          "-" if p.ratio is None else format_ratio(p.ratio),
                          Text(p.change, style=_CHANGE_STYLE[p.change]))
            console.print(c)
    for why in h.left_out:
        console.print(Text(f"left out: {why}", style="dim"))
