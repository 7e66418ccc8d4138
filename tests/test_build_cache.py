"""The build layer's cache: an unchanged rebuild does nothing, any change rebuilds, a
failed build returns the compiler's words and leaves no half-written output."""

from __future__ import annotations

import pytest

from cpulab.build import BuildConfig, BuildError, Target, build, build_one


@pytest.fixture
def build_root(tmp_path, monkeypatch):
    monkeypatch.setenv("CPULAB_BUILD_DIR", str(tmp_path / "build"))
    return tmp_path / "build"


def _src(tmp_path, text="int main(void) { return VALUE; }\n"):
    d = tmp_path / "src"
    d.mkdir(exist_ok=True)
    p = d / "prog.c"
    p.write_text(text)
    return p


def test_unchanged_rebuild_is_a_hit(tmp_path, build_root, gcc):
    t = Target("prog", (_src(tmp_path),), defines=("VALUE=3",))
    first = build_one(t, BuildConfig(gcc, "O2"))
    mtime = first.stat().st_mtime_ns
    second = build_one(t, BuildConfig(gcc, "O2"))
    assert second == first and second.stat().st_mtime_ns == mtime
    assert not list((build_root / "ninja").glob("*/build.ninja"))[1:]  # one ninja file


def test_every_input_is_part_of_the_key(tmp_path, build_root, gcc):
    src = _src(tmp_path)
    base = build_one(Target("prog", (src,), defines=("VALUE=3",)), BuildConfig(gcc, "O2"))
    other_define = build_one(Target("prog", (src,), defines=("VALUE=4",)),
                             BuildConfig(gcc, "O2"))
    other_opt = build_one(Target("prog", (src,), defines=("VALUE=3",)), BuildConfig(gcc, "O1"))
    src.write_text("int main(void) { return VALUE + 1; }\n")
    other_source = build_one(Target("prog", (src,), defines=("VALUE=3",)),
                             BuildConfig(gcc, "O2"))
    assert len({base, other_define, other_opt, other_source}) == 4


def test_failure_carries_the_compiler_message(tmp_path, build_root, gcc):
    bad = _src(tmp_path, "int main(void) { return undeclared_name; }\n")
    good = tmp_path / "good.c"
    good.write_text("int main(void) { return 0; }\n")
    arts = build([(Target("bad", (bad,)), BuildConfig(gcc, "O2")),
                  (Target("good", (good,)), BuildConfig(gcc, "O2"))])
    assert not arts[0].ok and "undeclared_name" in arts[0].error
    assert not arts[0].path.exists()  # no half-written binary
    assert arts[1].ok  # the other pair still built (ninja -k 0)
    with pytest.raises(BuildError, match="undeclared_name"):
        build_one(Target("bad", (bad,)), BuildConfig(gcc, "O2"))


def test_pgo_build_is_two_phase(tmp_path, build_root, gcc):
    src = _src(tmp_path, "#include <stdlib.h>\nint main(int c, char **v) "
                         "{ int n = c > 1 ? atoi(v[1]) : 0, s = 0;\n"
                         "  for (int i = 0; i < n; i++) s += i % 7; return s < 0; }\n")
    t = Target("trained", (src,), pgo_args=("1000",))
    exe = build_one(t, BuildConfig(gcc, "O1", pgo=True))
    gcda = list((exe.parent.parent / "gen").rglob("*.gcda"))
    assert gcda, "the training run left no profile"
    assert exe != build_one(t, BuildConfig(gcc, "O1"))


BUILD_AND_SAY = """
import sys
from cpulab.build import BuildConfig, Target, build, find_toolchain
t = Target("trained", (sys.argv[1],), pgo_args=("1000",))
totals = []
(art,) = build([(t, BuildConfig(find_toolchain("gcc"), "O1", pgo=True))],
               progress=lambda done, total: totals.append(total))
print(totals[0], art.ok)
"""


def test_two_processes_building_one_target_take_turns(tmp_path, build_root, gcc):
    """Two builders of one profile-guided target (which share its training folder) while
    another holds the build folder's turn: one builds, the other then finds it built."""
    import subprocess
    import sys
    import time

    from cpulab.build.turns import build_turn

    src = _src(tmp_path, "int main(int c, char **v) { (void)v; return c > 5; }\n")
    with build_turn():
        procs = [subprocess.Popen([sys.executable, "-c", BUILD_AND_SAY, str(src)],
                                  stdout=subprocess.PIPE, text=True) for _ in range(2)]
        time.sleep(3)  # both started and waiting for their turn
        assert all(p.poll() is None for p in procs)
    outs = sorted(p.communicate(timeout=120)[0].split() for p in procs)
    assert outs == [["0", "True"], ["1", "True"]]
