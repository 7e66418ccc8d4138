"""The HTML report in a real browser: Debian's headless Chromium, driven by Playwright,
loads the file offline; no console error, no request leaves the file, every section and
figure is there, sorting and filtering a table work, and the page reads on a phone as
on a laptop. Screenshots are kept for a person to look at."""

from __future__ import annotations

import copy
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from cpulab import cli
from cpulab.paths import ROOT
from cpulab.store import Store

CHROMIUM = Path("/usr/bin/chromium")
LAYOUT1_DB = Path(__file__).parent / "data" / "store" / "results-layout1.db"
SHOTS = ROOT / "build" / "test-output"
# This machine has no network: nothing may try to reach one (scripts/packages.txt).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _scaled(rec, factor: float, **kw):
    """Another run of `rec` whose figures are `factor` times its own: a second host or a
    later revision, so that the page has runs side by side and a history."""
    from cpulab.measure.metrics import Metric

    other = copy.deepcopy(rec)
    other.id = None
    for c in other.cases:
        c.metrics = {k: Metric.of([v * factor for v in m.values], m.unit, m.source)
                     if m.values else m for k, m in c.metrics.items()}
    for k, v in kw.items():
        setattr(other, k, v)
    return other


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    db = tmp / "r.db"
    shutil.copy(LAYOUT1_DB, db)  # two real quick runs: alloc (size sweeps), overflow
    with Store(db) as s:
        alloc = s.get(s.ids("alloc")[0])
        s.add(_scaled(alloc, 0.5, started="2026-12-01T00:00:00+00:00",
                      lab_revision="0123456789ab"))
        s.add(_scaled(alloc, 1.2, origin="host-b"))
    out = tmp / "report.html"
    assert cli.main(["report", "--db", str(db), "-o", str(out),
                     "--listing", "alloc:calloc"]) == 0
    return out


def test_the_file_is_self_contained(report):
    html = report.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "@import" not in html and "url(http" not in html
    assert html.count("<svg") >= 8 and "new Tablesort" in html


def test_a_disturbed_run_is_warned_of_above_the_verdicts_and_its_cases_marked():
    from cpulab.measure.metrics import Metric
    from cpulab.report.html import ReportInput, render_html
    from cpulab.results import Case, CaseConditions, RunConditions, RunRecord, Verdict

    why = "others used 0.90 cores on average while measuring"
    cases = [Case("calloc", None, {"size": 64}, {"time": Metric.of([1.0, 1.1], "ns/op",
                                                                     "clock")},
                  conditions=CaseConditions(2, 0.5, 0.3, 0.0, 0.95, 1.2, 0.48, 0.0)),
             Case("malloc", None, {"size": 64}, {"time": Metric.of([2.0, 2.1], "ns/op",
                                                                     "clock")},
                  conditions=CaseConditions(2, 0.5, 0.0, 0.0, 0.1, 0.1, 0.05, 0.0))]
    rec = RunRecord(
        experiment="alloc", seed_row="S7", title="t", profile="quick", started="s",
        duration_s=1.0, machine={}, machine_key="k", lab_revision="r", builds=[],
        cases=cases, verdicts=[Verdict("c", "confirmed", f"e [measured on a disturbed "
                                                       f"machine: {why}]")],
        conditions=RunConditions(0.4, 1.3, 2, 0.52, 1.2, 0.0, [why]))
    html = render_html(ReportInput([("#1", rec)]))
    warning = f"#1: measured on a disturbed machine: {why}. Verdicts may be off."
    assert warning in html
    assert html.index(warning) < html.index('class="plain verdicts"')
    assert "disturbed machine</span>" in html  # the overview's badge
    assert '<td class="disturbed">calloc !</td>' in html and "malloc !" not in html
    assert "! calloc size=64: off-CPU 30% of its wall time" in html
    assert "others used 0.52 cores on average, at most 1.20" in html



def _own(rec, name: str = "mine"):
    """`rec` as if an experiment of one's own had made it: no seed article behind it."""
    from cpulab.results import OWN_SEED_ROW, Verdict

    own = _scaled(rec, 1.0, experiment=name, seed_row=OWN_SEED_ROW, seed_tables=[])
    own.verdicts = [Verdict(v.claim, v.verdict, v.evidence) for v in rec.verdicts]
    return own


def _section(html: str, name: str) -> str:
    start = html.index(f'<section id="exp-{name}"')
    return html[start:html.index("</section>", start)]


def test_an_experiment_of_ones_own_has_no_seed_column(tmp_path):
    from cpulab.report.html import ReportInput, render_html

    shutil.copy(LAYOUT1_DB, tmp_path / "r.db")  # opening it may migrate it: a copy
    with Store(tmp_path / "r.db") as s:
        overflow = s.get(s.ids("overflow")[0])
    html = render_html(ReportInput([("#1", overflow), ("#2", _own(overflow))]))
    builtin, own = _section(html, "overflow"), _section(html, "mine")
    assert "<th>the seed</th>" in builtin and 'class="seed-figure"' in builtin
    assert "<th>the seed</th>" not in own and 'class="seed-figure"' not in own
    assert "The seed's" not in own and own.count("badge ") == len(overflow.verdicts)


def test_backticks_are_code_and_everything_else_is_escaped():
    from cpulab.report.html import code_spans

    assert code_spans("a `div` & `x < y`") == "a <code>div</code> &amp; <code>x &lt; y</code>"
    assert code_spans("`<script>`</b>") == "<code>&lt;script&gt;</code>&lt;/b&gt;"
    assert code_spans("one ` alone") == "one ` alone"  # unpaired: as written
    assert code_spans("``") == "``"


def test_claims_and_seed_tables_show_code(tmp_path):
    from cpulab.report.html import ReportInput, render_html

    shutil.copy(LAYOUT1_DB, tmp_path / "r.db")
    with Store(tmp_path / "r.db") as s:
        overflow = s.get(s.ids("overflow")[0])
    section = _section(render_html(ReportInput([("#1", overflow)])), "overflow")
    # the claim, its seed figure and a seed table's title and cells all write `div`
    assert "<code>count &gt; SIZE_MAX / size</code>" in section
    assert section.count("<code>div</code>") >= 4
    assert "`" not in section.split("<h3>This machine")[0]


def test_a_run_that_sweeps_nothing_has_no_params_column(tmp_path):
    from cpulab.report.html import ReportInput, view

    shutil.copy(LAYOUT1_DB, tmp_path / "r.db")
    with Store(tmp_path / "r.db") as s:
        alloc = s.get(s.ids("alloc")[0])
    flat = _scaled(alloc, 1.0, experiment="flat")
    for c in flat.cases:
        c.params = {}
    tables = {sec["name"]: sec["runs"][0]["cases"]
              for sec in view(ReportInput([("#1", alloc), ("#2", flat)]))["sections"]}
    assert tables["alloc"]["columns"][:3] == ["variant", "build", "params"]
    assert tables["flat"]["columns"][:2] == ["variant", "build"]
    assert "params" not in tables["flat"]["columns"] and tables["flat"]["numeric_from"] == 2
    assert {len(r) for r in tables["flat"]["rows"]} == {len(tables["flat"]["columns"])}


def _browser_page(p, user_data: str, width: int = 1400, height: int = 900):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make setup` installs Debian's chromium")
    ctx = p.chromium.launch_persistent_context(user_data, executable_path=str(CHROMIUM),
                                               headless=True, args=CHROMIUM_ARGS,
                                               viewport={"width": width, "height": height})
    return ctx, ctx.new_page()


def _sort_values(page, table: str, column: int) -> list[float]:
    return page.eval_on_selector(
        table, f"""t => Array.from(t.tBodies[0].rows)
                     .map(r => r.cells[{column}].dataset.sort)
                     .filter(v => v !== undefined).map(Number)""")


def test_in_a_browser(report):
    from playwright.sync_api import sync_playwright

    errors, foreign = [], []
    with tempfile.TemporaryDirectory() as user_data, sync_playwright() as p:
        ctx, page = _browser_page(p, user_data)
        try:
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: foreign.append(r.url)
                    if not r.url.startswith(("file:", "data:", "about:")) else None)
            page.goto(report.as_uri())
            page.wait_for_load_state("load")

            for sel in ("#overview", "#exp-alloc", "#exp-overflow", "#machines",
                        "#exp-alloc-history"):
                assert page.locator(sel).count() == 1, sel
            # --latest: the newest run of each experiment on each machine (this one's
            # later revision, host-b's), the older one is in the history
            assert page.locator("#overview-table tbody tr").count() == 3
            assert page.locator("#overview-table .badge").count() >= 3
            alloc_runs = page.locator("#exp-alloc article.run")
            assert alloc_runs.count() == 2  # two machines' runs of one experiment, side by side
            for i in range(2):  # bars + the two size sweeps, as inline SVG
                assert alloc_runs.nth(i).locator("figure.plot svg").count() == 3
            assert page.locator("#exp-overflow figure.plot svg").count() >= 1
            assert page.locator("#exp-alloc-history figure.plot svg").count() == 1
            assert page.locator("#exp-alloc .comparison").count() == 1
            assert "host: this database vs host-b" in page.inner_text("#exp-alloc")
            assert page.locator("#machines article.machine").count() == 2
            assert "unavailable" in page.inner_text("#machines")  # no PMU here, with why
            assert "seed" in page.inner_text("#exp-overflow .verdicts").lower()
            listing = page.locator("#exp-alloc details.listing")
            assert listing.count() == 1 and not listing.locator("pre").first.is_visible()
            listing.locator("summary").click()  # the listing, on request
            assert listing.locator("pre").first.is_visible()

            # sorting: a click on a figure's header orders the rows by it, a second
            # click reverses them
            table = alloc_runs.nth(0).locator("table.cases").first
            tid = "#" + table.get_attribute("id")
            header = page.locator(f"{tid} thead th").nth(3)
            header.click()
            first = _sort_values(page, tid, 3)
            assert len(first) > 5 and first != _sorted_none(first)
            assert first in (sorted(first), sorted(first, reverse=True))
            header.click()
            assert _sort_values(page, tid, 3) == list(reversed(first))
            assert header.get_attribute("aria-sort") in ("ascending", "descending")

            # filtering
            total = page.locator(f"{tid} tbody tr").count()
            page.fill(f"input.filter[data-for='{tid[1:]}']", "calloc")
            shown = page.locator(f"{tid} tbody tr:not([hidden])")
            assert 0 < shown.count() < total
            assert all("calloc" in t for t in shown.all_inner_texts())
            assert f"of {total} rows" in page.inner_text(f"{tid}-count")
            page.fill(f"input.filter[data-for='{tid[1:]}']", "")

            SHOTS.mkdir(parents=True, exist_ok=True)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(SHOTS / "report.png"), full_page=False)
            page.locator("#exp-alloc").screenshot(path=str(SHOTS / "report-alloc.png"))
            print(f"screenshots: {SHOTS / 'report.png'}, {SHOTS / 'report-alloc.png'}")
        finally:
            ctx.close()
    assert errors == []
    assert foreign == []


# The size in CSS px at which each glyph of the figures is drawn. matplotlib draws text
# as paths: a glyph is a <use> of an outline FONT_SCALE units to the em, scaled to its
# point size (and by the page, to the figure's width on screen).
_GLYPH_PX = """fontScale => Array.from(
    document.querySelectorAll('figure.plot svg g[id^="text_"] use'),
    u => { const m = u.getScreenCTM(); return fontScale * Math.hypot(m.c, m.d); })"""

# Every box that scrolls a table: how far it scrolls each way, and what it shows.
_BOXES = """() => Array.from(document.querySelectorAll('.wide'), w => {
    const s = w.querySelector('.scroll'), r = s.getBoundingClientRect();
    return {sideways: s.scrollWidth - s.clientWidth, down: s.scrollHeight - s.clientHeight,
            right: r.right, cls: w.className, fade: getComputedStyle(s).maskImage,
            hint: w.querySelector('.scroll-hint').offsetParent !== null};
})"""


VIEWPORTS = [(390, 844), (1366, 900)]  # a phone, a laptop


def _open(p, user_data: str, report: Path, width: int, height: int):
    ctx, page = _browser_page(p, user_data, width, height)
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    return ctx, page


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_a_wide_table_scrolls_sideways_in_its_box_and_says_so(report, width, height):
    """A table never scrolls both ways in a box; one too wide scrolls sideways, and its
    box says so (a hint above, a fade at the cut edge) until scrolled to the end."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as user_data, sync_playwright() as p:
        ctx, page = _open(p, user_data, report, width, height)
        try:
            boxes = page.evaluate(_BOXES)
            assert boxes and all(b["down"] <= 1 for b in boxes), "a box scrolls both ways"
            assert [b for b in boxes if b["sideways"] > 1], "nothing cut: the cue is untested"
            for b in boxes:
                is_cut = b["sideways"] > 1
                assert b["hint"] == is_cut and ("more-right" in b["cls"]) == is_cut, b
                assert ("gradient" in b["fade"]) == is_cut, b
            # scrolled to its end, the box fades its other edge instead
            page.locator(".wide.cut .scroll").first.evaluate(
                "s => { s.scrollLeft = s.scrollWidth; }")
            page.wait_for_function("""() => {
                const w = document.querySelector('.wide.cut');
                return w.classList.contains('more-left') && !w.classList.contains('more-right');
            }""")
        finally:
            ctx.close()


@pytest.mark.parametrize("width,height", VIEWPORTS)
def test_reads_on_a_phone_and_a_laptop(report, width, height, tmp_path_factory):
    """No sideways scrolling of the page; every figure within the screen, its text >= 10
    px on a phone and not blown up on a laptop; on a phone each verdict is a card."""
    from matplotlib.textpath import TextToPath
    from playwright.sync_api import sync_playwright

    shots = tmp_path_factory.mktemp(f"screenshots-{width}px-")
    with tempfile.TemporaryDirectory() as user_data, sync_playwright() as p:
        ctx, page = _open(p, user_data, report, width, height)
        try:
            page.screenshot(path=str(shots / "top.png"))
            page.screenshot(path=str(shots / "page.png"), full_page=True)
            page.locator("#exp-alloc article.run").first.screenshot(
                path=str(shots / "alloc-run.png"))
            page.locator("#exp-overflow .verdicts").screenshot(
                path=str(shots / "overflow-verdicts.png"))
            print(f"screenshots at {width}x{height}:",
                  *sorted(str(f) for f in shots.iterdir()), sep="\n  ")

            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert all(b["right"] <= width for b in page.evaluate(_BOXES))
            figures = page.eval_on_selector_all(
                "figure.plot svg", "s => s.map(e => e.getBoundingClientRect().right)")
            assert len(figures) >= 8 and max(figures) <= width
            glyphs = page.evaluate(_GLYPH_PX, TextToPath.FONT_SCALE)
            assert len(glyphs) > 1000
            if width < 500:
                assert min(glyphs) >= 10  # legible on a phone
            else:
                assert max(glyphs) <= 17  # not blown up on a wide screen

            cards = page.eval_on_selector_all(
                "#exp-overflow table.verdicts tbody tr",
                "rows => rows.map(r => getComputedStyle(r).display)")
            labels = page.eval_on_selector_all(
                "#exp-overflow table.verdicts td[data-label]",
                "cells => cells.map(c => getComputedStyle(c, '::before').content)")
            if width < 500:  # a card per claim, each cell saying what it is
                assert cards == ["block"] * 3
                assert labels.count('"the seed"') == 3
                assert sum(x.startswith('"#') and " on " in x for x in labels) == 3
            else:  # columns, the header saying what each is
                assert cards == ["table-row"] * 3 and set(labels) == {"none"}
        finally:
            ctx.close()


def _sorted_none(values):
    """The order the rows had before any click (a sentinel that never equals a list)."""
    return None
