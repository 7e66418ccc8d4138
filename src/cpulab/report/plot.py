"""Figures of a stored run (matplotlib): a metric against a swept parameter, one line per
variant and build, with the MAD as error bars, the fitted growth exponent on log-log
axes, and the unit and source on the axis; one metric per case with the 95% interval of
the median (bars on a linear axis, dots on a log one); a history of runs. Each figure is
built once and written as PNG (`cpulab plot`) or as SVG text for the HTML report. Like
every report, it reads records and runs nothing.

The figures are drawn small, 4.5 in (324 pt) wide with no text under 10 pt, because the
report scales them to the page: on a phone 390 px wide a figure gets ~350 px, so 10 pt
text reads at ~10.8 px; drawn 9 in wide, the same text shrank to 5 px. A wide screen
shows them at most ~1.5x (the report's CSS), and PNGs are written at 200 dpi.
"""

from __future__ import annotations

import io
import re
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from cpulab.files import written_whole
from cpulab.measure.stats import loglog_slope, ratio_to
from cpulab.results import PlotSpec, RunRecord

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from cpulab.history import History

# Bars beyond this many cases are unreadable (fileread has hundreds): the report then
# shows its sweeps and tables instead.
MAX_BARS = 48
WIDTH_IN = 4.5
FONT_PT = 10  # the smallest text in a figure; titles are a point larger
PNG_DPI = 200  # 900 px wide
# DejaVu Sans takes ~0.6 em per character: lines wider than the figure wrap.
_CHARS_PER_LINE = 50  # at FONT_PT, inside the axes' margins
_TITLE_CHARS = 44  # at FONT_PT + 1
_LINE_IN = 1.2 * FONT_PT / 72  # one line of text, as matplotlib spaces them


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


def _wrap(*lines: str, chars: int = _CHARS_PER_LINE) -> str:
    # at spaces: "heap=fresh-mmap" stays whole, unless a word is longer than a line
    return "\n".join(textwrap.fill(line, chars, break_on_hyphens=False) for line in lines)


def _title(*lines: str) -> str:
    return _wrap(*lines, chars=_TITLE_CHARS)


def _figure(height_in: float):
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(WIDTH_IN, height_in), layout="constrained")
    ax.tick_params(labelsize=FONT_PT)  # also the ticks made later, when the figure is drawn
    return fig, ax


def _tick(value: float, _pos=None) -> str:
    """A tick as 100, 10k or 1M: on a log axis matplotlib writes 10^2, its exponent drawn
    at 0.7 of the text's size (7 pt, which a phone cannot read), and on a linear one
    700000, eight of which ran into each other across a figure."""
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:g}{suffix}"
    return f"{value:g}"


def _tick_labels(axis) -> None:
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(_tick))


def _log_scale(ax, which: str, values) -> None:
    """A log scale on `ax`'s x or y axis labelled by _tick: at each power of ten, and at 2
    and 5 times them where the values span less than 100x (else one power of ten might be
    all)."""
    from matplotlib.ticker import LogLocator, NullFormatter

    getattr(ax, f"set_{which}scale")("log")
    axis = ax.xaxis if which == "x" else ax.yaxis
    positive = [v for v in values if v > 0]
    narrow = bool(positive) and max(positive) / min(positive) < 100
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0) if narrow else (1.0,)))
    _tick_labels(axis)
    axis.set_minor_formatter(NullFormatter())


def sweep_figure(rec: RunRecord, spec: PlotSpec) -> Figure:
    lines = series(rec, spec)
    if not lines:
        raise PlotError(f"run #{rec.id}: no variant has two or more points of "
                        f"{spec.metric} against {spec.x}")
    unit = next(c.metrics[spec.metric] for c in rec.cases if spec.metric in c.metrics)
    fit = spec.log_x and spec.log_y
    fits = {label: growth(pts) if fit else None for label, pts in lines.items()}
    legend = {}
    for label, k in fits.items():
        # with no-break spaces, a wrapped line never splits the fitted k from its error
        fitted = "" if k is None else ", " + f"k = {k[0]:.2f} ± {k[1]:.2f}".replace(" ", "\u00a0")
        legend[label] = _wrap(label + fitted)
    # the legend sits below the axes, a line per entry: inside them it hid the data
    entries = sum(t.count("\n") + 1 for t in legend.values()) + any(fits.values())
    fig, ax = _figure(3.6 + 1.1 * _LINE_IN * entries)
    for label, pts in lines.items():
        xs, ys, es = zip(*pts, strict=True)
        k = fits[label]
        bars = ax.errorbar(xs, ys, yerr=es, marker="o", markersize=3, capsize=2,
                           label=legend[label])
        if k is not None:  # the fitted power law through the points' geometric centre
            import numpy as np

            lx, ly = np.log(xs), np.log(ys)
            c = float(np.mean(ly) - k[0] * np.mean(lx))
            ax.plot(xs, np.exp(c + k[0] * lx), linestyle="--", linewidth=0.8,
                    color=bars.lines[0].get_color())
    _tick_labels(ax.xaxis)
    _tick_labels(ax.yaxis)
    if spec.log_x:
        _log_scale(ax, "x", [x for pts in lines.values() for x, _, _ in pts])
    if spec.log_y:
        _log_scale(ax, "y", [y for pts in lines.values() for _, y, _ in pts])
    ax.set_xlabel(spec.x_label or spec.x, fontsize=FONT_PT)
    ax.set_ylabel(f"{spec.metric}: {unit.unit} [{unit.source}]", fontsize=FONT_PT)
    if any(fits.values()):  # said in the legend, where the eye looks for what a line is
        ax.plot([], [], linestyle="--", linewidth=0.8, color="#555",
                label="dashed: the fitted c * x^k")
    ax.set_title(_title(f"{rec.experiment} ({rec.seed_row}): {spec.title}", _subtitle(rec)),
                 fontsize=FONT_PT + 1)
    ax.grid(True, which="both", alpha=0.3)
    fig.legend(loc="outside lower center", ncols=1, fontsize=FONT_PT, frameon=False)
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
        r = ratio_to(m.sample, m.median) if len(m.values) >= 2 and m.median > 0 else None
        if r is not None and r.has_interval:  # the level's interval, over its processes
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
    rows = bars(rec, metric)
    if not rows:
        raise PlotError(f"run #{rec.id}: no case has {metric}")
    if len(rows) > MAX_BARS:
        raise PlotError(f"run #{rec.id}: {len(rows)} cases are too many bars "
                        f"(at most {MAX_BARS})")
    unit = next(c.metrics[metric] for c in rec.cases if metric in c.metrics)
    labels, med, low, high = zip(*rows, strict=True)
    # Each case is a row: its label, wrapped, above its mark (a label beside the mark took
    # most of the width: alloc's run to 55 characters). y counts text lines from the top.
    tops, marks, y = [], [], 0.0
    wrapped = [_wrap(label) for label in labels]
    for text in wrapped:
        tops.append(y)
        y += text.count("\n") + 1
        marks.append(y + 0.3)  # close under its label, farther from the next one
        y += 1.0
    title = _title(f"{rec.experiment} ({rec.seed_row}): {metric} per case", _subtitle(rec))
    xlabel = _wrap(f"{metric}: {unit.unit} [{unit.source}], median, 95% interval")
    # around the rows: the title, the axis's ticks above and below, its label
    around = (title.count("\n") + xlabel.count("\n") + 2) * 1.2 * _LINE_IN + 0.75
    fig, ax = _figure(around + y * _LINE_IN)
    # The interval is the processes' level's; with few processes (a quick run's three)
    # the median of all repetitions can lie outside it: no whisker on that side then,
    # where matplotlib refuses a negative one.
    err = [[max(0.0, m - lo) for m, lo in zip(med, low, strict=True)],
           [max(0.0, h - m) for m, h in zip(med, high, strict=True)]]
    if log_axis(med):
        # A bar's length on a log axis depends on where the axis starts, so it means
        # nothing: each case is a dot, its interval a whisker.
        ax.errorbar(med, marks, xerr=err, fmt="o", markersize=4, capsize=2, color="#4c78a8",
                    ecolor="#222")
        _log_scale(ax, "x", med)
    else:
        ax.barh(marks, med, height=0.6, xerr=err, capsize=2, color="#4c78a8", ecolor="#222")
        _tick_labels(ax.xaxis)
    left = ax.get_yaxis_transform()  # x in the axes (0 = its left edge), y in lines
    for i, (top, text) in enumerate(zip(tops, wrapped, strict=True)):
        ax.text(0.01, top + 0.1, text, transform=left, fontsize=FONT_PT, va="top")
        if i % 2:  # every other case shaded: which mark is whose label
            ax.axhspan(top, tops[i + 1] if i + 1 < len(tops) else y, color="#f0f2f5",
                       zorder=0, linewidth=0)
    ax.set_yticks([])
    ax.set_ylim(y, 0)  # the first case on top
    # a long figure: the axis is labelled at its top too, where a reader starts
    ax.tick_params(axis="x", top=True, labeltop=True)
    ax.set_xlabel(xlabel, fontsize=FONT_PT)
    ax.set_title(title, fontsize=FONT_PT + 1)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    return fig


def history_figure(h: History) -> Figure:
    """Each case's figure relative to its first run, run after run (x: the runs in order,
    labelled by revision); a change point is a filled marker."""
    # ~6 labels of 8 characters fit across; more stand upright, below a taller figure
    upright = len(h.steps) > 6
    fig, ax = _figure(3.6 + 0.7 * upright)
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
    ax.set_xticks(range(len(h.steps)),
                  [f"#{s.run} {s.lab_revision[:8]}" if upright else
                   f"#{s.run}\n{s.lab_revision[:8]}" for s in h.steps],
                  rotation=90 if upright else 0, fontsize=FONT_PT)
    ax.axhline(1.0, color="#888", linewidth=0.6)
    ax.set_ylabel(f"{h.metric}, relative to the first run", fontsize=FONT_PT)
    ax.set_title(_title(f"{h.experiment}: history on {h.machine}",
                        "(markers: changes beyond noise, green faster, red slower)"),
                 fontsize=FONT_PT + 1)
    ax.grid(True, alpha=0.3)
    return fig


def save_png(fig: Figure, path: Path) -> Path:
    plt = _pyplot()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with written_whole(path) as tmp:  # never a half-written figure under the real name
            fig.savefig(tmp, dpi=PNG_DPI, format="png")
    finally:
        plt.close(fig)
    return path


def to_svg(fig: Figure) -> str:
    """The figure as an <svg> element to put inline in HTML, as wide as its container:
    text drawn as paths, so no font has to be present where the report is opened."""
    plt = _pyplot()
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", metadata={"Date": None})
    finally:
        plt.close(fig)
    text = buf.getvalue()
    # matplotlib writes each text as a comment beside its glyphs; a record's text (a
    # variant name from someone's bundle) must not be able to close the comment.
    svg = re.sub(r"<!--.*?-->", "", text[text.index("<svg"):], flags=re.S)
    # No fixed width and height (matplotlib writes 324pt): the page gives the width, and
    # the viewBox the proportions.
    head, rest = svg.split(">", 1)
    return re.sub(r'\s(width|height)="[^"]*"', "", head) + ">" + rest


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
