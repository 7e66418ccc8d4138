"""Files written whole: the real name holds the old content or the new, never a part, and
a write that fails leaves nothing behind."""

from __future__ import annotations

import pytest

from cpulab.files import write_whole, written_whole


def test_the_real_name_appears_only_when_the_file_is_whole(tmp_path):
    path = tmp_path / "out.bin"
    with written_whole(path) as tmp:
        tmp.write_bytes(b"first half ")
        assert not path.exists() and tmp.parent == path.parent and tmp.name != path.name
        with tmp.open("ab") as f:
            f.write(b"second half")
        assert not path.exists()
    assert path.read_bytes() == b"first half second half"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old")
    with pytest.raises(RuntimeError), written_whole(path) as tmp:
        tmp.write_text("half of the new")
        raise RuntimeError("the writer failed")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_the_temporary_does_not_carry_the_suffix_a_reader_lists_by(tmp_path):
    with written_whole(tmp_path / "set.pb") as tmp:
        assert tmp.suffix == ".tmp" and tmp.name.startswith(".set.pb.")
        tmp.write_bytes(b"")


def test_write_whole_text_and_bytes(tmp_path):
    assert write_whole(tmp_path / "a.txt", "ü\n").read_bytes() == "ü\n".encode()
    assert write_whole(tmp_path / "b.bin", b"\x00\xff").read_bytes() == b"\x00\xff"
