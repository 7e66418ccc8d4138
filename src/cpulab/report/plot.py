"""Figures of a stored run (matplotlib, PNG): a metric against a swept parameter, one
line per variant and build, with the MAD as error bars and the unit and source on the
axis. Like every report, it reads the record and runs nothing."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from cpulab.results import PlotSpec, RunRecord


class PlotError(RuntimeError):
    pass


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


def draw(rec: RunRecord, spec: PlotSpec, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    lines = series(rec, spec)
    if not lines:
        raise PlotError(f"run #{rec.id}: no variant has two or more points of "
                        f"{spec.metric} against {spec.x}")
    unit = next(c.metrics[spec.metric] for c in rec.cases if spec.metric in c.metrics)
    fig, ax = plt.subplots(figsize=(9, 6), dpi=110)
    for label, pts in lines.items():
        xs, ys, es = zip(*pts, strict=True)
        ax.errorbar(xs, ys, yerr=es, marker="o", markersize=3, capsize=2, label=label)
    if spec.log_x:
        ax.set_xscale("log")
    if spec.log_y:
        ax.set_yscale("log")
    ax.set_xlabel(spec.x_label or spec.x)
    ax.set_ylabel(f"{spec.metric}: {unit.unit} [{unit.source}]")
    ax.set_title(f"{rec.experiment} ({rec.seed_row}): {spec.title}\nrun #{rec.id}, "
                 f"{rec.machine.get('cpu', {}).get('model_name', '?')}, {rec.started}",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)  # never a half-written figure under the real name
    return path


def plot_run(rec: RunRecord, specs: tuple[PlotSpec, ...], out_dir: Path) -> list[Path]:
    return [draw(rec, s, out_dir / f"run-{rec.id}-{rec.experiment}-{s.name}.png")
            for s in specs]
