"""The progress of `cpulab run`: each phase starts with the total of what its label
names, the counter counts exactly that, and the time left is shown once a total and a
pace are known (rich's estimate, on a fake clock here). Was "building 2 binaries 0/?",
then the measuring phase's "28/28" under the next phase's label."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from cpulab.build import BuildConfig, Target, find_toolchain
from cpulab.commands.progress import ProgressBar
from cpulab.context import PROFILES, Context, Reporter
from cpulab.measure.schedule import Program


class Recorder(Reporter):
    def __init__(self):
        self.events: list[tuple] = []

    def phase(self, text, total=None):
        self.events.append(("phase", text, total))

    def advance(self, n=1):
        self.events.append(("advance", n))

    def counted(self) -> list[tuple[str, int | None, int]]:
        """(label, total, steps advanced) per phase."""
        out: list[list] = []
        for e in self.events:
            if e[0] == "phase":
                out.append([e[1], e[2], 0])
            else:
                out[-1][2] += e[1]
        return [tuple(x) for x in out]


def _row(bar: ProgressBar) -> str:
    con = Console(file=io.StringIO(), width=160, color_system=None, record=True)
    con.print(bar.bar.make_tasks_table(bar.bar.tasks))
    return con.export_text()


def test_a_phase_starts_its_own_count_and_shows_the_time_left():
    now = [0.0]
    bar = ProgressBar("cmd", Console(file=io.StringIO()), clock=lambda: now[0])
    bar.phase("timing 2 commands", total=4)
    assert "cmd: timing 2 commands" in _row(bar) and "0/4" in _row(bar)
    for t in (1.0, 2.0):
        now[0] = t
        bar.advance()
    row = _row(bar)
    assert "2/4" in row and "0:00:02 left" in row  # one step a second, two to go
    bar.phase("modelling the predictor")  # counts nothing
    row = _row(bar)
    assert "cmd: modelling the predictor" in row
    assert "/" not in row.replace("cmd: modelling the predictor", "") and "left" not in row


def test_without_a_terminal_each_phase_is_one_line():
    out = io.StringIO()
    bar = ProgressBar("cmd", Console(file=out, force_terminal=False, color_system=None))
    with bar:
        bar.phase("timing 2 commands", total=4)
        bar.advance()
    assert out.getvalue() == "cmd: timing 2 commands\n"


def test_measuring_and_counting_phases_say_their_totals(monkeypatch):
    import cpulab.context as context

    def fake_interleaved(programs, runner, rounds, timeout, progress, until, clock):
        for _ in range(len(programs) * (until.max_rounds if until else rounds)):
            progress()
        return {}

    monkeypatch.setattr(context, "run_interleaved", fake_interleaved)
    rec = Recorder()
    quick = PROFILES["quick"]
    ctx = Context(quick, [], reporter=rec)
    ctx.measure([Program(["a"], key="a"), Program(["b"], key="b")], rounds=3)
    ctx.measure([Program(["c"], key="c")])
    assert rec.counted() == [("measuring 2 programs, 3 rounds", 6, 6),
                             ("measuring 1 program, 3-5 rounds", 5, 5)]


def test_a_budgeted_measurement_says_the_time_left(monkeypatch):
    """The bar's estimate assumes every round that may be added; the label says how
    long rounds may still be added, and when none will be."""
    import cpulab.context as context

    monkeypatch.setattr(context, "run_interleaved", lambda *a, **k: {})
    now = [0.0]
    rec = Recorder()
    ctx = Context(PROFILES["default"], [], reporter=rec, budget_s=150, clock=lambda: now[0])
    ctx.measure([Program(["a"], key="a")])
    now[0] = 100.0
    ctx.measure([Program(["a"], key="a")], rounds=3)  # fixed rounds: no budget to speak of
    now[0] = 151.0
    ctx.measure([Program(["a"], key="a")])
    assert [label for label, *_ in rec.counted()] == [
        "measuring 1 program, 6-20 rounds (time budget: 2:30 left)",
        "measuring 1 program, 3 rounds",
        "measuring 1 program, 6 rounds (time budget spent: no rounds added)"]


@pytest.fixture
def gcc(tmp_path, monkeypatch):
    monkeypatch.setenv("CPULAB_BUILD_DIR", str(tmp_path / "build"))
    tc = find_toolchain("gcc")
    if tc is None:
        pytest.skip("gcc not installed")
    return tc


def test_the_build_counts_the_binaries_it_builds(tmp_path, gcc):
    src = tmp_path / "p.c"
    src.write_text("int main(void) { return VALUE; }\n")
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return undeclared; }\n")
    rec = Recorder()
    ctx = Context(PROFILES["quick"], [], reporter=rec)
    cfg = BuildConfig(gcc, "O1")
    one, two = (Target("p", (src,), defines=(f"VALUE={v}",)) for v in (1, 2))
    ctx.build([(one, cfg), (Target("bad", (bad,)), cfg)])
    ctx.build([(one, cfg), (two, cfg)])
    ctx.build([(one, cfg), (two, cfg)])
    assert rec.counted() == [("building 2 binaries", 2, 2),  # the failed one counts as done
                             ("building 1 binary (1 up to date)", 1, 1),
                             ("nothing to build (2 up to date)", None, 0)]


def test_a_build_that_waits_for_another_says_so(tmp_path, gcc):
    """Another process holds the build folder's turn: the phase says that this build
    waits for it, then counts what it builds once its turn comes."""
    import threading
    import time

    from cpulab.build.turns import build_turn

    src = tmp_path / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    rec = Recorder()
    ctx = Context(PROFILES["quick"], [], reporter=rec)
    pair = (Target("p", (src,)), BuildConfig(gcc, "O1"))
    with build_turn():  # a lock of its own open file: another thread waits as a process would
        builder = threading.Thread(target=ctx.build, args=([pair],))
        builder.start()
        deadline = time.monotonic() + 60  # the builder reaches the lock; not a timing
        while not rec.events and time.monotonic() < deadline:
            time.sleep(0.05)
        assert builder.is_alive()  # still waiting: the turn is held
        assert rec.counted() == [(f"waiting for another build in {tmp_path / 'build'} to end",
                                  None, 0)]
    builder.join(60)
    assert rec.counted()[1:] == [("building 1 binary", 1, 1)]
