"""The interleaved schedule, run on a scripted runner: the order the programs run in
(A B C A B C ..., the lab's central principle), what a failure stops, and every round's
output kept and tagged with its round."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import pytest

from cpulab.measure.kernel_output import ExtraLine, parse
from cpulab.measure.process_stats import ProcessStats
from cpulab.measure.runner import FakeRunner
from cpulab.measure.schedule import Program, run_interleaved

META = {"type": "meta", "schema": 1, "counters": {}}


def _output(name: str, call: int, reps: int = 2) -> str:
    """What one process of `name` prints on its `call`-th run: `reps` repetitions (their
    times give the call away) and one line of the kernel's own."""
    lines = [META, {"type": "probe", "case": name, "call": call}]
    lines += [{"type": "rep", "case": name, "rep": i, "iters": 1, "units": 1, "unit": "op",
               "ns": 100 * call + i} for i in range(reps)]
    return "\n".join(json.dumps(x) for x in lines)


class Script:
    """A runner script: each program prints `_output`, numbered per program; the programs
    in `fail_on` fail on that call (0-based)."""

    def __init__(self, fail_on: dict[str, int] | None = None):
        self.fail_on = fail_on or {}
        self.calls: Counter[str] = Counter()

    def __call__(self, argv: Sequence[str]) -> tuple[int, str]:
        name = argv[0]
        call = self.calls[name]
        self.calls[name] += 1
        if self.fail_on.get(name) == call:
            return 1, json.dumps(META) + "\n" + json.dumps({"type": "error",
                                                            "message": "scripted failure"})
        return 0, _output(name, call)


def _programs(*names: str) -> list[Program]:
    return [Program([n, "--reps", "2"], key=n) for n in names]


def test_variants_run_interleaved_round_by_round():
    runner = FakeRunner(Script())
    ticks = []
    run_interleaved(_programs("A", "B", "C"), runner, rounds=3, timeout=1,
                    progress=lambda: ticks.append(1))
    order = [argv[0] for argv in runner.calls]
    assert order == ["A", "B", "C"] * 3  # never A A A B B B C C C
    assert all(argv[1:] == ("--reps", "2") for argv in runner.calls)
    assert len(ticks) == 9


def test_a_failing_program_stops_and_the_others_go_on():
    runner = FakeRunner(Script(fail_on={"B": 1}))
    out = run_interleaved(_programs("A", "B", "C"), runner, rounds=3, timeout=1)
    assert [argv[0] for argv in runner.calls] == ["A", "B", "C", "A", "B", "C", "A", "C"]
    assert out["B"].error == "scripted failure"
    assert out["A"].error is None and len(out["A"].output.reps) == 6


def test_every_round_is_kept_and_tagged_with_its_round():
    out = run_interleaved(_programs("A", "B"), FakeRunner(Script()), rounds=3, timeout=1)
    a = out["A"].output
    # The reps of all three processes, numbered on, each from the process that timed it.
    assert [(r.rep, r.round, r.ns) for r in a.reps] == [
        (0, 0, 0), (1, 0, 1), (2, 1, 100), (3, 1, 101), (4, 2, 200), (5, 2, 201)]
    # Every process's own line, not the first one's only.
    assert [(x.round, x["call"]) for x in a.extra] == [(0, 0), (1, 1), (2, 2)]
    assert all(x["case"] == "A" for x in a.extra)
    assert [x.round for x in out["B"].output.extra] == [0, 1, 2]


def test_each_kept_process_brings_its_stats_in_round_order():
    script = Script(fail_on={"B": 1})

    def with_stats(argv: Sequence[str]) -> tuple[int, str, ProcessStats]:
        call = script.calls[argv[0]]  # the load average gives the call away
        return (*script(argv), ProcessStats(10**8, 10**8, 0, 0, 0, 2 * 10**8, float(call)))

    out = run_interleaved(_programs("A", "B"), FakeRunner(with_stats), rounds=3, timeout=1)
    assert [p.load_1m for p in out["A"].processes] == [0.0, 1.0, 2.0]
    # B failed on its second process: only the first one's figures describe its output.
    assert [p.load_1m for p in out["B"].processes] == [0.0]
    # A runner that measures nothing leaves the list empty, not filled with zeros.
    plain = run_interleaved(_programs("A"), FakeRunner(Script()), rounds=2, timeout=1)
    assert plain["A"].processes == []


def test_one_process_is_round_zero():
    out = parse(_output("A", 0))
    assert [r.round for r in out.reps] == [0, 0]
    (line,) = out.extra
    assert line == ExtraLine({"type": "probe", "case": "A", "call": 0}, round=0)
    assert dict(line) == {"type": "probe", "case": "A", "call": 0}
    assert line.get("type") == "probe" and line.get("missing") is None
    with pytest.raises(KeyError):
        line["missing"]
