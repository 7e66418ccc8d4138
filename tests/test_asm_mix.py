"""Instruction mixes of small functions compiled here: the categories the seeds count."""

from __future__ import annotations

import pytest

from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.disasm import DisasmError
from cpulab.asm.mix import has_frame
from cpulab.build import BuildConfig, Target, build_one

SOURCE = r"""
#include <stdint.h>
__attribute__((noinline)) uint64_t two_divs(uint64_t a, uint64_t b, uint64_t *r)
{ uint64_t q = a / b; *r = a % b; __asm__ volatile("" ::: "memory"); return q + a / (b | 1); }
__attribute__((noinline)) uint64_t by_constant(uint64_t a) { return a / 1000000000u; }
__attribute__((noinline)) void dispatch(void (**table)(void), unsigned i) { table[i & 3](); }
__attribute__((noinline)) uint64_t leaf(uint64_t a, uint64_t b) { return a + b; }
int main(void) { return 0; }
"""


@pytest.fixture(scope="module")
def exe(tmp_path_factory, gcc):
    tc = gcc
    d = tmp_path_factory.mktemp("asm")
    src = d / "mix.c"
    src.write_text(SOURCE)
    return build_one(Target("asm-mix", (src,)), BuildConfig(tc, "O2"))


def _mix(exe, name):
    (fn,) = find_functions(exe, [name])
    return instruction_mix(fn)


def test_divisions_are_counted(exe):
    assert _mix(exe, "two_divs")["div"] == 2  # a/b and a%b share one; a/(b|1) is another


def test_constant_division_becomes_a_multiply(exe):
    m = _mix(exe, "by_constant")
    assert m["div"] == 0 and m["mul"] >= 1


def test_indirect_tail_jump_or_call(exe):
    m = _mix(exe, "dispatch")
    assert m["jmp-indirect"] + m["call-indirect"] == 1
    assert m["loads"] >= 1  # the table entry


def test_leaf_has_no_frame(exe):
    m = _mix(exe, "leaf")
    assert m["add"] == 1 or m["instructions"] <= 3  # lea or add, then ret
    assert m["ret"] == 1
    assert not has_frame(m)


def test_globs_and_missing_symbols(exe):
    names = [f.name for f in find_functions(exe, ["two_*", "by_*"])]
    assert set(names) == {"two_divs", "by_constant"}
    assert find_functions(exe, ["no_such_function"]) == []


def test_not_an_elf_is_an_error(tmp_path):
    p = tmp_path / "x"
    p.write_bytes(b"not an elf")
    with pytest.raises(DisasmError):
        find_functions(p, ["*"])
