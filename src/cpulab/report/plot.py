"""Figures of a stored run (matplotlib): a metric against a swept parameter, one line per
variant and build, with the MAD as error bars, the fitted growth exponent on log-log
axes, and the unit and source on the axis; one metric per case with the 95% interval of
the median (bars on a linear axis, dots on a log one); a history of runs. Each figure is
built once and written as PNG (`cpulab plot`) or as SVG text for the HTML report. Like
every report, it reads records and runs nothing."""

from __future__ import annotations

import io
import re
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from cpulab.measure.stats import loglog_slope, ratio_to
from cpulab.results import PlotSpec, RunRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from cpulab.history import History

# Bars beyond this many cases are unreadable (fileread has hundreds): the report then
# shows its sweeps and tables instead.
MAX_BARS = 48


class PlotError(RuntimeError):
    pass


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def series(rec: RunRecord, spec: PlotSpec) -> dict[str, list[tuple[float, float, float]]]:
    """label -> sorted (x, median, mad) points; pure, so that it is tested without drawing."""
    where = dict(spec.where)
    out: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    for c in rec.cases:
        m = c.metrics.get(spec.metric)
        x = c.params.get(spec.x)
        if c.error or m is None or not isinstance(x, int | float):
            continue
        if any(c.params.get(k) != v for k, v in where.items()):
            continue
        label = c.variant if c.build_label == "-" else f"{c.variant} ({c.build_label})"
        out[label].append((float(x), m.median, m.mad))
    return {k: sorted(v) for k, v in sorted(out.items()) if len(v) >= 2}


def growth(points: list[tuple[float, float, float]]) -> tuple[float, float] | None:
    """The fitted exponent k of median ~ c * x^k and its standard error, from three or
    more positive points (two always fit exactly); None otherwise."""
    pts = [(x, y) for x, y, _ in points if x > 0 and y > 0]
    if len(pts) < 3:
        return None
    return loglog_slope([p[0] for p in pts], [p[1] for p in pts])


def _subtitle(rec: RunRecord) -> str:
    cpu = rec.machine.get("cpu", {}).get("model_name", "?")
    where = f"{rec.origin}, " if rec.origin else ""
    return f"run #{rec.id}, {where}{cpu}, {rec.started}"


def sweep_figure(rec: RunRecord, spec: PlotSpec) -> Figure:
    plt = _pyplot()
    lines = series(rec, spec)
    if not lines:
        raise PlotError(f"run #{rec.id}: no variant has two or more points of "
                        f"{spec.metric} against {spec.x}")
    unit = next(c.metrics[spec.metric] for c in rec.cases if spec.metric in c.metrics)
    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    fit = spec.log_x and spec.log_y
    for label, pts in lines.items():
        xs, ys, es = zip(*pts, strict=True)
        k = growth(pts) if fit else None
        text = label if k is None else f"{label}, k = {k[0]:.2f} ± {k[1]:.2f}"
        bars = ax.errorbar(xs, ys, yerr=es, marker="o", markersize=3, capsize=2, label=text)
        if k is not None:  # the fitted power law through the points' geometric centre
            import numpy as np

            lx, ly = np.log(xs), np.log(ys)
            c = float(np.mean(ly) - k[0] * np.mean(lx))
            ax.plot(xs, np.exp(c + k[0] * lx), linestyle="--", linewidth=0.8,
                    color=bars.lines[0].get_color())
    if spec.log_x:
        ax.set_xscale("log")
    if spec.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(spec.x_label or spec.x)
    ax.set_ylabel(f"{spec.metric}: {unit.unit} [{unit.source}]")
    ax.set_title(f"{rec.experiment} ({rec.seed_row}): {spec.title}"
                 + (" (dashed: fitted x^k)" if fit else "") + f"\n{_subtitle(rec)}",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def bars(rec: RunRecord, metric: str) -> list[tuple[str, float, float, float]]:
    """(label, median, low, high) per measured case with `metric`: the 95% bootstrap
    interval of the median (exact figures have none); pure, tested without drawing."""
    out = []
    for c in rec.cases:
        m = c.metrics.get(metric)
        if c.error or m is None:
            continue
        label = " ".join(x for x in (c.variant, "" if c.build_label == "-" else c.build_label,
                                     " ".join(f"{k}={v}" for k, v in c.params.items())) if x)
        if len(m.values) >= 2 and m.median > 0:
            r = ratio_to(m.values, m.median)  # the median's interval, as a fraction of it
            out.append((label, m.median, m.median * r.low, m.median * r.high))
        else:
            out.append((label, m.median, m.median, m.median))
    return out


def log_axis(medians: tuple[float, ...] | list[float]) -> bool:
    """Whether the cases span more than two orders of magnitude: on a linear axis the
    smaller ones would be invisible."""
    return min(medians) > 0 and max(medians) / min(medians) > 100


def bars_figure(rec: RunRecord, metric: str) -> Figure:
    """One metric per case with its interval: bars from zero on a linear axis, dots with
    whiskers on a log one."""
    plt = _pyplot()
    rows = bars(rec, metric)
    if not rows:
        raise PlotError(f"run #{rec.id}: no case has {metric}")
    if len(rows) > MAX_BARS:
        raise PlotError(f"run #{rec.id}: {len(rows)} cases are too many bars "
                        f"(at most {MAX_BARS})")
    unit = next(c.metrics[metric] for c in rec.cases if metric in c.metrics)
    labels, med, low, high = zip(*rows, strict=True)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.28 * len(rows)), dpi=110)
    ys = range(len(rows))
    err = [[m - lo for m, lo in zip(med, low, strict=True)],
           [h - m for m, h in zip(med, high, strict=True)]]
    if log_axis(med):
        # A bar's length on a log axis depends on where the axis starts, so it means
        # nothing: each case is a dot, its interval a whisker.
        ax.errorbar(med, ys, xerr=err, fmt="o", markersize=4, capsize=2, color="#4c78a8",
                    ecolor="#222")
        ax.set_xscale("log")
    else:
        ax.barh(ys, med, xerr=err, capsize=2, color="#4c78a8", ecolor="#222")
    ax.set_yticks(list(ys), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"{metric}: {unit.unit} [{unit.source}], median, 95% interval")
    ax.set_title(f"{rec.experiment} ({rec.seed_row}): {metric} per case\n{_subtitle(rec)}",
                 fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def history_figure(h: History) -> Figure:
    """Each case's figure relative to its first run, run after run (x: the runs in order,
    labelled by revision); a change point is a filled marker."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    order = {s.run: i for i, s in enumerate(h.steps)}
    for s in h.series:
        if len(s.points) < 2 or s.points[0].median <= 0:
            continue
        base = s.points[0].median
        xs = [order[p.run] for p in s.points]
        ax.plot(xs, [p.median / base for p in s.points], linewidth=0.8, alpha=0.7)
        for p in s.points:
            if p.change != "same":
                ax.plot(order[p.run], p.median / base, marker="v" if p.change == "faster"
                        else "^", color="green" if p.change == "faster" else "red")
    ax.set_xticks(range(len(h.steps)), [f"#{s.run}\n{s.lab_revision[:8]}" for s in h.steps],
                  fontsize=7)
    ax.axhline(1.0, color="#888", linewidth=0.6)
    ax.set_ylabel(f"{h.metric}, relative to the first run")
    ax.set_title(f"{h.experiment}: history on {h.machine}\n(markers: changes beyond noise, "
                 "green faster, red slower)", fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def save_png(fig: Figure, path: Path) -> Path:
    plt = _pyplot()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.png")
    try:
        fig.savefig(tmp)
    finally:
        plt.close(fig)
    tmp.replace(path)  # never a half-written figure under the real name
    return path


def to_svg(fig: Figure) -> str:
    """The figure as an <svg> element to put inline in HTML: text drawn as paths, so no
    font has to be present where the report is opened."""
    plt = _pyplot()
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", metadata={"Date": None})
    finally:
        plt.close(fig)
    text = buf.getvalue()
    # matplotlib writes each text as a comment beside its glyphs; a record's text (a
    # variant name from someone's bundle) must not be able to close the comment.
    return re.sub(r"<!--.*?-->", "", text[text.index("<svg"):], flags=re.S)


def draw(rec: RunRecord, spec: PlotSpec, path: Path) -> Path:
    return save_png(sweep_figure(rec, spec), path)


def plot_run(rec: RunRecord, specs: tuple[PlotSpec, ...], out_dir: Path,
             bars_metric: str | None = None) -> list[Path]:
    """The sweeps `specs`, and with `bars_metric` the bars of that metric per case (left
    out, not an error, for a run with more cases than bars can show)."""
    paths = [draw(rec, s, out_dir / f"run-{rec.id}-{rec.experiment}-{s.name}.png")
             for s in specs]
    if bars_metric and len(bars(rec, bars_metric)) <= MAX_BARS:
        paths.insert(0, save_png(bars_figure(rec, bars_metric),
                                 out_dir / f"run-{rec.id}-{rec.experiment}-bars.png"))
    return paths
