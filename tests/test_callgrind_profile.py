"""Reading callgrind's profiles (cpulab.measure.valgrind): each function's own
instructions from the format's compressed names, cost lines and call lines, and their
cost per unit of work by differencing two runs. Scripted profiles, no valgrind."""

from __future__ import annotations

from pathlib import Path

import pytest

from cpulab.measure import valgrind
from cpulab.measure.runner import FakeRunner

# main calls work, which recurses once (work'2); a function of a stripped library has no
# symbol. The cost line after each calls= is the call's inclusive cost.
PROFILE = """# callgrind format
version: 1
positions: line
events: Ir Bc
summary: {total} 12

ob=(1) /bin/prog
fl=(1) prog.c
fn=(1) main
1 10
+1 5 1
cfn=(2) work
calls=2 10
* 980 11
fn=(2)
10 {work} 4
cfn=(3) work'2
calls=1 10
11 580 6
fn=(3)
10 580 6
ob=(2) /usr/lib/libx.so.1
fl=(2) ???
fn=(4) 0x000000000013e680
0 {lib}
fn=(1)
3 0
totals: {total} 12
"""


def profile(work: int = 400, lib: int = 5) -> str:
    return PROFILE.format(work=work, lib=lib, total=15 + work + 580 + lib)


def test_functions_are_their_own_instructions():
    got = valgrind.functions(profile())
    assert got == {"main": 15, "work": 980, "0x13e680 in libx.so.1": 5}
    # the call lines' inclusive costs are not added: the functions sum to the total
    assert sum(got.values()) == 1000


def test_instructions_are_read_from_their_own_column():
    """With Ir second, a line of one figure (trailing zeros left out) adds none."""
    got = valgrind.functions(profile().replace("events: Ir Bc", "events: Bc Ir"))
    assert got == {"main": 1, "work": 10}


def scripted(profiles: dict[str, str]) -> FakeRunner:
    """A runner whose callgrind runs write the profile named by the program's last word."""
    def script(argv):
        out = next(a.split("=", 1)[1] for a in argv if a.startswith("--callgrind-out-file="))
        Path(out).write_text(profiles[argv[-1]])
        return 0, ""
    return FakeRunner(script)


def test_per_unit_functions_difference_two_runs():
    runner = scripted({"10": profile(work=400, lib=5), "60": profile(work=5400, lib=5)})
    got = valgrind.per_unit_functions(runner, lambda n: ["prog", str(n)], (10, 60), 2,
                                      collect="main")
    assert got == {"work": 50.0}  # 5,000 more over 50 iterations of 2 units
    assert all("--toggle-collect=main" in call for call in runner.calls)


def test_per_unit_functions_says_why_a_run_failed():
    runner = FakeRunner(lambda argv: (1, ""))
    with pytest.raises(valgrind.ValgrindError, match="exit status 1"):
        valgrind.per_unit_functions(runner, lambda n: ["prog", str(n)], (1, 2), 1)
