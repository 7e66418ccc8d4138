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
