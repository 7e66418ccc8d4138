"""The static HTML report (`cpulab report`): one self-contained file that works from
file:// and offline. Scripts (tablesort, from npm, in assets/) and styles are embedded,
and figures are inline SVG drawn by the same matplotlib code as `cpulab plot`.

This module turns records into what the page shows (a view model of plain dicts) and
renders the Jinja2 template `templates/report.html.j2`. What a record does not carry
(an experiment's figures and table columns, the history of its runs, listings of hot
code) the command line passes in; the report itself reads and never runs anything.
A run measured on a disturbed machine is warned of above the verdicts, in its overview
row and in its own panel, where its flagged cases are marked as in the terminal.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

from markupsafe import Markup, escape

from cpulab.comparison import ComparisonError, compare
from cpulab.files import write_whole
from cpulab.history import History
from cpulab.report.plot import PlotError, bars_figure, history_figure, sweep_figure, to_svg
from cpulab.report.terminal import (
    DISTURBED_MARK,
    case_label,
    conditions_line,
    disturbed_warning,
)
from cpulab.results import PlotSpec, RunRecord
from cpulab.results.columns import case_columns, column_format
from cpulab.results.primary_metric import primary_metric
from cpulab.results.ratios import format_ratio


@dataclass(frozen=True)
class Presentation:
    """What the experiment's module says about showing its runs (absent from records)."""

    plots: tuple[PlotSpec, ...] = ()
    table_metrics: tuple[str, ...] | None = None


@dataclass
class Listing:
    """The disassembly of a variant's hot functions, asked for on the command line."""

    experiment: str
    variant: str
    build: str
    functions: list[tuple[str, list[str]]]
    note: str = ""


@dataclass
class ReportInput:
    runs: list[tuple[str, RunRecord]]  # (label, record), in the order given
    presentation: dict[str, Presentation] = field(default_factory=dict)
    histories: dict[str, History] = field(default_factory=dict)
    listings: list[Listing] = field(default_factory=list)
    source: str = ""  # where the runs came from (the database, bundles)


def _anchor(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _machine_key(rec: RunRecord) -> str:
    return f"{rec.machine_key}|{rec.origin or ''}"


def _machine_name(rec: RunRecord) -> str:
    cpu = rec.machine.get("cpu", {}).get("model_name") or "unknown CPU"
    return f"{rec.origin}: {cpu}" if rec.origin else cpu


def _cell(text: str, sort: float | None = None, cls: str = "") -> dict:
    return {"text": text, "sort": sort, "cls": cls}


def _cases_table(rec: RunRecord, wanted: tuple[str, ...] | None) -> dict:
    present: dict[str, None] = {}
    for c in rec.cases:
        for k in (*c.metrics, *c.unavailable):
            present.setdefault(k, None)
    cols = [m for m in (wanted or present) if m in present]
    columns = case_columns(rec.cases, cols)
    # a run that sweeps nothing has no params column: an empty one took a phone's width
    lead = ["variant", "build", *(["params"] if any(c.params for c in rec.cases) else [])]
    rows, notes, marks = [], {}, []  # marks: the flagged cases, after what is missing
    for c in rec.cases:
        flagged = c.conditions.reasons() if c.conditions and not c.error else []
        if flagged:
            marks.append(f"{DISTURBED_MARK} {case_label(c)}: {'; '.join(flagged)}")
        row = [_cell(f"{c.variant} {DISTURBED_MARK}", cls="disturbed") if flagged
               else _cell(c.variant), _cell(c.build_label)]
        if "params" in lead:
            row.append(_cell(" ".join(f"{k}={v}" for k, v in c.params.items())))
        if c.error:
            row.append(_cell("failed: " + c.error.splitlines()[0], cls="failed"))
            row += [_cell("")] * (len(cols) - 1)
        else:
            for m in cols:
                metric = c.metrics.get(m)
                if metric is None:
                    row.append(_cell("n/a", cls="na"))
                    why = c.unavailable.get(m, {}).get("reason")
                    if why:
                        notes.setdefault(f"{m}: n/a, {why}", None)
                else:
                    row.append(_cell(columns[m][1].metric(metric), metric.median))
        rows.append(row)
    return {"columns": [*lead, *[f"{m} {columns[m][0]}" for m in cols]],
            "numeric_from": len(lead), "rows": rows, "notes": [*notes, *marks]}


def _figures(rec: RunRecord, pres: Presentation, metric: str | None) -> tuple[list, list]:
    figs, skipped = [], []
    if metric:
        try:
            figs.append({"title": f"{metric} per case", "svg": to_svg(bars_figure(rec, metric))})
        except PlotError as e:
            skipped.append(str(e))
    for spec in pres.plots:
        try:
            figs.append({"title": spec.title, "svg": to_svg(sweep_figure(rec, spec))})
        except PlotError as e:
            skipped.append(f"{spec.title}: {e}")
    return figs, skipped


def _run_view(label: str, rec: RunRecord, pres: Presentation, metric: str | None) -> dict:
    figs, skipped = _figures(rec, pres, metric)
    compilers = sorted({f"{b['compiler']} {b.get('compiler_version', '')}".strip()
                        for b in rec.builds})
    return {"label": label, "anchor": _anchor(f"run-{label}-{rec.experiment}"), "rec": rec,
            "machine": _machine_name(rec), "machine_anchor": _anchor("m-" + _machine_key(rec)),
            "compilers": compilers, "cases": _cases_table(rec, pres.table_metrics),
            "figures": figs, "figures_skipped": skipped,
            "verdict_counts": Counter(v.verdict for v in rec.verdicts),
            "conditions": conditions_line(rec.conditions) if rec.conditions else None,
            "disturbed": (disturbed_warning(rec.conditions)
                          if rec.conditions and rec.conditions.disturbed else None)}


def _verdict_grid(runs: list[tuple[str, RunRecord]]) -> list[dict]:
    """One row per claim, the claim's verdict on every run beside each other."""
    claims: dict[str, dict] = {}
    for i, (_, rec) in enumerate(runs):
        for v in rec.verdicts:
            row = claims.setdefault(v.claim, {"claim": v.claim, "seed": v.seed,
                                              "per_run": [None] * len(runs)})
            row["per_run"][i] = v
    return list(claims.values())


def _comparisons(runs: list[tuple[str, RunRecord]], metric: str | None) -> list[dict]:
    """Every later run against the first, as `cpulab compare --force` would: in a report
    the reader sees the warnings instead of a refusal."""
    out = []
    if metric is None:
        return out
    (base_label, base), rest = runs[0], runs[1:]
    for label, rec in rest:
        try:
            c = compare(base, rec, metric, force=True)
        except ComparisonError as e:
            out.append({"old": base_label, "new": label, "error": str(e)})
            continue
        fmt = column_format(v for r in c.rows for v in (r.old, r.new))
        rows = [[_cell(r.variant), _cell(r.build), _cell(r.params),
                 _cell(fmt.figure(r.old), r.old), _cell(fmt.figure(r.new), r.new),
                 _cell(format_ratio(r.ratio), r.ratio.value, r.change),
                 _cell("-" if r.q is None else f"{r.q:.3f}", r.q),
                 _cell(r.change, cls=r.change)] for r in c.rows]
        out.append({"old": base_label, "new": label, "metric": metric,
                    "better": "higher" if c.higher_is_better else "lower",
                    "differences": c.differences, "forced": c.forced, "counts": c.counts(),
                    "noise": f"{c.noise:.0%}",
                    "geomeans": [(v, format_ratio(g), ch) for v, (g, ch) in c.geomeans.items()],
                    "table": {"columns": ["variant", "build", "params", base_label, label,
                                          "new/old", "q (corrected p)", "change"],
                              "numeric_from": 3, "rows": rows, "notes": []}})
    return out


def _history_view(h: History) -> dict:
    steps = [{"run": s.run, "started": s.started, "revision": s.lab_revision,
              "cases": s.cases, "geomean": "-" if s.geomean is None else format_ratio(s.geomean),
              "faster": s.faster, "slower": s.slower} for s in h.steps]
    points = [{"run": p.run, "revision": p.lab_revision, "case": s.label, "change": p.change,
               "ratio": format_ratio(p.ratio)} for s, p in h.change_points()]
    try:
        svg = to_svg(history_figure(h)) if len(h.steps) >= 2 else None
    except PlotError:
        svg = None
    return {"machine": h.machine, "metric": h.metric, "profile": h.profile, "steps": steps,
            "points": points, "svg": svg, "left_out": h.left_out}


def _machine_view(rec: RunRecord) -> dict:
    fp = rec.machine
    cpu = fp.get("cpu", {})
    tsc = fp.get("tsc", {})
    rows = [("CPU", cpu.get("model_name")),
            ("vendor / family / model / stepping", f"{cpu.get('vendor')} / {cpu.get('family')} "
             f"/ {cpu.get('model')} / {cpu.get('stepping')}"),
            ("microcode", cpu.get("microcode")),
            ("logical CPUs", cpu.get("logical_cpus")),
            ("flags of interest", " ".join(cpu.get("flags", []))),
            ("kernel", fp.get("kernel", {}).get("release")),
            ("hypervisor", fp.get("hypervisor") or "none (bare metal)"),
            ("TSC", f"{tsc['hz'] / 1e9:.4f} GHz, invariant: {tsc.get('invariant')}"
             if tsc.get("hz") else f"unavailable: {tsc.get('reason')}"),
            ("frequency governor", fp.get("governor")),
            ("transparent huge pages", fp.get("thp"))]
    rows += [(f"compiler {k}", f"{v.get('version')} ({v.get('path')})")
             for k, v in fp.get("compilers", {}).items()]
    counters = [{"name": k, "source": c.get("source"), "available": bool(c.get("available")),
                 "detail": c.get("mode") if c.get("available") else c.get("reason")}
                for k, c in fp.get("counters", {}).items()]
    return {"name": _machine_name(rec), "key": rec.machine_key, "origin": rec.origin,
            "anchor": _anchor("m-" + _machine_key(rec)),
            "rows": [(k, "-" if v in (None, "") else str(v)) for k, v in rows],
            "counters": counters}


def view(inp: ReportInput) -> dict:
    by_exp: dict[str, list[tuple[str, RunRecord]]] = defaultdict(list)
    for label, rec in inp.runs:
        by_exp[rec.experiment].append((label, rec))
    sections = []
    for name, runs in sorted(by_exp.items(), key=lambda kv: _row_order(kv[1][0][1].seed_row)):
        pres = inp.presentation.get(name, Presentation())
        metric = primary_metric([r for _, r in runs], pres.table_metrics)
        first = runs[0][1]
        sections.append({
            "name": name, "anchor": _anchor(f"exp-{name}"), "seed_row": first.seed_row,
            "has_seed": first.has_seed, "title": first.title, "seed_tables": first.seed_tables,
            "metric": metric,
            "runs": [_run_view(label, rec, pres, metric) for label, rec in runs],
            "verdicts": _verdict_grid(runs), "comparisons": _comparisons(runs, metric),
            "history": _history_view(inp.histories[name]) if name in inp.histories else None,
            "listings": [li for li in inp.listings if li.experiment == name],
        })
    machines = {}
    for _, rec in inp.runs:
        machines.setdefault(_machine_key(rec), _machine_view(rec))
    return {"sections": sections, "machines": list(machines.values()),
            "generated": datetime.now(UTC).isoformat(timespec="seconds"),
            "source": inp.source, "runs": len(inp.runs)}


def _row_order(seed_row: str) -> int:
    digits = "".join(ch for ch in seed_row.split(",")[0] if ch.isdigit())
    return int(digits) if digits else 999


# Markdown's inline code, the one markup that claims, evidence and seed tables use
# (`div`, `count > SIZE_MAX / size`); an unpaired backtick stays as it is.
_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def code_spans(text: object) -> Markup:
    """`text` escaped for HTML, with each `code` span as <code>code</code>."""
    text = str(text)
    parts, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        parts += [escape(text[last:m.start()]), Markup("<code>%s</code>") % m[1]]
        last = m.end()
    parts.append(escape(text[last:]))
    return Markup("").join(parts)


def _asset(name: str) -> str:
    return resources.files("cpulab.report").joinpath("assets", name).read_text()


def render_html(inp: ReportInput) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("cpulab.report", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["code"] = code_spans
    scripts = "\n".join(_asset(n) for n in ("tablesort.min.js", "tablesort.number.min.js"))
    if "</script" in scripts.lower():  # it would end the embedding <script> early
        raise RuntimeError("an embedded script contains </script")
    return env.get_template("report.html.j2").render(
        **view(inp), scripts=scripts, verdict_kinds=("confirmed", "refuted", "inconclusive",
                                                     "unmeasurable"))


def write_report(path: Path, inp: ReportInput) -> Path:
    """Render and write the report whole (a temporary name, then renamed)."""
    text = render_html(inp)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_whole(path, text)
