"""Figures of a run: the series are right (pure), and a PNG is written whole."""

from __future__ import annotations

import re

import pytest

from cpulab import cli
from cpulab.measure.metrics import Metric
from cpulab.report.plot import PlotError, draw, series
from cpulab.results import Case, PlotSpec, RunRecord
from cpulab.store import Store

B = {"compiler": "gcc-12", "compiler_version": "12.2.0", "flags": "-O2", "pgo": False}
SPEC = PlotSpec("sweep", "t", x="size", metric="time", where=(("heap", "glibc"),))


def _case(variant, size, t, heap="glibc", build=B):
    return Case(variant, build, {"size": size, "heap": heap},
                {"time": Metric.of([t, t * 1.1, t * 0.9], "ns/alloc", "clock")})


def _rec(cases) -> RunRecord:
    return RunRecord(experiment="alloc", seed_row="S7", title="t", profile="quick",
                     started="s", duration_s=1, machine={"cpu": {"model_name": "X"}},
                     machine_key="k", lab_revision="r", builds=[B], cases=cases,
                     verdicts=[], id=4)


def test_series_groups_sorts_and_filters():
    rec = _rec([_case("calloc", 4096, 40.0), _case("calloc", 64, 10.0),
                _case("calloc", 1 << 20, 900.0, heap="fresh-mmap"),
                _case("malloc-only", 64, 5.0),  # one point only: no line
                _case("peer", 64, 7.0, build=None), _case("peer", 128, 8.0, build=None),
                Case("calloc", B, {"size": 128, "heap": "glibc"}, error="crashed")])
    s = series(rec, SPEC)
    assert list(s) == ["calloc (gcc-12 -O2)", "peer"]
    assert [p[:2] for p in s["calloc (gcc-12 -O2)"]] == [(64.0, 10.0), (4096.0, 40.0)]


def test_draw_writes_a_png(tmp_path):
    rec = _rec([_case("calloc", 64, 10.0), _case("calloc", 4096, 40.0)])
    path = draw(rec, SPEC, tmp_path / "f.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["f.png"]  # no temporary left


def test_nothing_to_draw_is_an_error(tmp_path):
    with pytest.raises(PlotError, match="no variant"):
        draw(_rec([_case("calloc", 64, 10.0)]), SPEC, tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()


def test_cli_plot_of_a_stored_run(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store(db) as s:
        rid = s.add(_rec([_case(v, n, n / 10) for v in ("calloc", "malloc-memset")
                          for n in (64, 4096, 65536)] +
                         [_case(v, n, n / 5, heap="fresh-mmap") for v in ("calloc",)
                          for n in (1 << 17, 1 << 20)]))
    assert cli.main(["plot", str(rid), "--db", str(db), "--out", str(tmp_path)]) == 0
    paths = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[1] for p in paths] == [f"run-{rid}-alloc-bars.png",
                                                     f"run-{rid}-alloc-glibc.png",
                                                     f"run-{rid}-alloc-fresh.png"]


def test_growth_is_fitted_on_three_or_more_points():
    from cpulab.report.plot import growth

    pts = [(64.0, 10.0, 0.0), (4096.0, 640.0, 0.0), (65536.0, 10240.0, 0.0)]
    k, se = growth(pts)
    assert k == pytest.approx(1.0) and se == pytest.approx(0.0, abs=1e-9)
    assert growth(pts[:2]) is None


def test_bars_give_the_median_inside_its_interval():
    from cpulab.report.plot import bars

    rec = _rec([_case("calloc", 64, 10.0), Case("x", B, {}, {"time": Metric.exact(3, "ns/x",
                                                                                  "asm")})])
    (label, med, low, high), exact = bars(rec, "time")
    assert label == "calloc gcc-12 -O2 size=64 heap=glibc"
    assert low <= med <= high and low < high
    assert exact[1:] == (3, 3, 3)


def test_a_median_outside_its_interval_is_drawn(monkeypatch):
    """`cpulab report` of a quick run failed with matplotlib's "'xerr' must not contain
    negative values" when a case's median lay outside its processes' interval."""
    from cpulab.report import plot

    rec = _rec([_case("calloc", 64, 10.0), _case("calloc", 128, 20.0)])
    monkeypatch.setattr(plot, "bars", lambda rec, metric: [("a", 10.0, 10.5, 11.0),
                                                           ("b", 20.0, 18.0, 19.5)])
    assert plot.to_svg(plot.bars_figure(rec, "time")).startswith("<svg")


def test_svg_is_an_inline_element_as_wide_as_its_container():
    from cpulab.report.plot import bars_figure, sweep_figure, to_svg

    rec = _rec([_case("calloc", n, n / 10) for n in (64, 4096, 65536)])
    for svg in (to_svg(sweep_figure(rec, SPEC)), to_svg(bars_figure(rec, "time"))):
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        root = svg[:svg.index(">")]
        assert re.search(r'viewBox="0 0 324 [0-9.]+"', root)  # its proportions, kept
        assert " width=" not in root and " height=" not in root


def _long_labels() -> RunRecord:
    """Cases labelled longer than alloc's longest (55 characters) and than a line of a
    figure, one in a single word, spanning 10^5: a log axis."""
    fresh = {"size": 16777216, "heap": "fresh-mmap"}
    return _rec([Case(v, {**B, "compiler": "clang-19"}, {**fresh, "size": n},
                      {"time": Metric.of([n / 8, n / 7, n / 9], "ns/alloc", "clock")})
                 for v in ("malloc-memcpy-from-a-zero-template", "calloc",
                           "/usr/bin/a-command-named-longer-than-a-line-of-the-figure")
                 for n in (64, 4096, 262144, 16777216)])


def _history():
    from cpulab.history import history

    runs = []
    for i in range(9):  # more runs than fit side by side: the labels stand upright
        r = _rec([_case("calloc", n, n / 10 * (1 + i / 10)) for n in (64, 4096)])
        r.id, r.started, r.lab_revision = i + 1, f"2026-01-0{i + 1}", f"{i:040x}"
        runs.append(r)
    return history(runs, "time", "X")


@pytest.mark.parametrize("kind", ["bars", "sweep", "history"])
def test_figures_read_at_a_phones_width(kind):
    """The report scales figures to the page; on a phone one gets ~350 px. Drawn 4.5 in
    (324 pt) wide with no text under 10 pt, its text reads at >= 10 px there, and none
    of it may stick out of the figure, where it would be cut."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from cpulab.report.plot import bars_figure, history_figure, sweep_figure

    rec = _long_labels()
    spec = PlotSpec("sweep", "time per allocation against size, fresh kernel pages",
                    x="size", metric="time", log_x=True, log_y=True)
    fig = {"bars": lambda: bars_figure(rec, "time"), "sweep": lambda: sweep_figure(rec, spec),
           "history": lambda: history_figure(_history())}[kind]()
    try:
        width, height = fig.get_size_inches()
        assert width <= 4.5
        fig.canvas.draw()  # lays it out, and makes the ticks
        texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
        assert len(texts) > 10
        assert [t.get_text() for t in texts if t.get_fontsize() < 10] == []
        # mathtext (10^5) draws its exponent at 0.7 of the size
        assert [t.get_text() for t in texts if "$" in t.get_text()] == []
        drawn = fig.get_tightbbox(fig.canvas.get_renderer())  # inches, what is drawn
        assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01, "text cut at the left or bottom"
        assert drawn.x1 <= width + 0.01 and drawn.y1 <= height + 0.01, "text cut"
    finally:
        plt.close(fig)


def _marks(fig) -> tuple[int, int]:
    """(bars, dots) drawn in the figure's axes."""
    from matplotlib.container import BarContainer

    ax = fig.axes[0]
    bars = [b for c in ax.containers if isinstance(c, BarContainer) for b in c]
    dots = [ln for ln in ax.lines if ln.get_marker() == "o"]  # not the whiskers' caps
    return len(bars), sum(len(ln.get_xdata()) for ln in dots)


def test_no_bars_on_a_log_axis():
    import matplotlib.pyplot as plt

    from cpulab.report.plot import bars_figure

    wide = _rec([_case("calloc", n, n / 10) for n in (64, 4096, 65536)])  # 1000x apart
    fig = bars_figure(wide, "time")
    assert fig.axes[0].get_xscale() == "log"
    assert _marks(fig) == (0, 3)  # a dot per case, its interval a whisker
    plt.close(fig)

    close = _rec([_case("calloc", n, 10.0 + n / 1000) for n in (64, 4096, 65536)])
    fig = bars_figure(close, "time")
    assert fig.axes[0].get_xscale() == "linear"
    assert _marks(fig) == (3, 0)  # bars from zero, which a linear axis has
    plt.close(fig)


def test_ticks_are_written_short_and_without_exponents():
    import matplotlib.pyplot as plt

    from cpulab.report.plot import _tick, bars_figure

    assert [_tick(v) for v in (0.05, 1, 200, 1e3, 5e4, 2e6, 1e9)] == [
        "0.05", "1", "200", "1k", "50k", "2M", "1G"]
    # a linear axis of ~10^5 ns, as `cpulab run --cmd` times a process: 700000 and its
    # seven neighbours ran into each other
    fig = bars_figure(_rec([_case("true", 64, 366615.0), _case("echo", 64, 676235.0)]), "time")
    fig.canvas.draw()
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    plt.close(fig)
    assert fig.axes[0].get_xscale() == "linear" and "600k" in ticks
    assert max(map(len, ticks)) <= 4
