"""The pbdyn library's API and structure: the C API driver under every build (and ASan/UBSan),
schema loading through ctypes, and the shape of the fast path's machine code."""

from __future__ import annotations

import ctypes
import subprocess

import pytest

from cmake_support import asan_binary
from cpulab.asm import find_functions, instruction_mix
from cpulab.asm.mix import has_frame
from cpulab.build import BuildConfig, build_one, find_toolchain
from pbdyn_support import (
    BUILDS,
    PBDYN,
    PBDYN_DIR,
    SCHEMA,
    allkinds_set,
    build_lib,
    data_file,
    descriptor_proto_set,
    lib,
)

# The C API test program: its driver and the files of its test groups.
API_TEST_SOURCES = ("pbdyn_api_test.c", "pbdyn_api_fields.c", "pbdyn_api_maps.c")


def api_test(cc: str, defines: tuple[str, ...] = (), sanitize: bool = False):
    tc = find_toolchain(cc)
    flags = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all") if sanitize else ()
    t = PBDYN.target(
        f"pbdyn_api_test_{cc}{'_san' if sanitize else ''}"
        f"{'_' + '_'.join(defines) if defines else ''}".replace("=", ""),
        tuple(PBDYN_DIR / "tests" / f for f in API_TEST_SOURCES), defines=defines, cflags=flags,
        ldflags=flags, libs=("m", "pthread"),
    )
    return build_one(t, BuildConfig(tc, "O1" if sanitize else "O2"))


def allkinds_file():
    return data_file("allkinds.pb", allkinds_set())


@pytest.mark.parametrize("cc,defines,sanitize,kind", [
    ("clang", (), False, "musttail"),
    ("clang", ("PBDYN_TAILCALL=0",), False, "trampoline"),
    ("gcc", (), False, "trampoline"),
    pytest.param("clang", (), True, "musttail", marks=pytest.mark.needs("cmake")),
    ("gcc", (), True, "trampoline"),
])
def test_api_driver(request, cc, defines, sanitize, kind):
    if cc == "clang" and sanitize:
        # ctest's build of it in the ASan+UBSan tree, which ctest's own test needs anyway
        exe = asan_binary(request.getfixturevalue("clang"), "pbdyn", "pbdyn_api_test")
    else:
        exe = api_test(cc, defines, sanitize)
    r = subprocess.run([str(exe), str(allkinds_file())], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok ") and f"({kind})" in r.stdout
    assert int(r.stdout.split()[1]) >= 380  # every check ran


def test_fast_kind_per_build():
    assert lib("musttail").fast_kind == "musttail"
    assert lib("trampoline-gcc").fast_kind == "trampoline"
    assert lib("trampoline-clang").fast_kind == "trampoline"


def test_schema_load_and_errors():
    L = lib()
    s = L.load_schema(descriptor_proto_set())
    for t in ("google.protobuf.FileDescriptorSet", "google.protobuf.FieldDescriptorProto",
              "google.protobuf.DescriptorProto.ExtensionRange", "google.protobuf.FieldOptions"):
        assert s.has(t), t
    assert not s.has("google.protobuf.Nope")
    fds = descriptor_proto_set()
    for bad in (fds[:-1], fds[:len(fds) // 2], b"\x0a\xff", b"\x08", fds + b"\x0f"):
        h = ctypes.c_void_p()
        st = L.dll.pbdyn_schema_load(bad, len(bad), ctypes.byref(h))
        assert st == SCHEMA and not h.value


# Fast-path functions that must compile to no prologue, epilogue or stack use: every
# singular and oneof function, and the repeated ones of fixed-width and bytes kinds. The
# others loop over elements or call the sub-message decoder, which needs saved state.
FRAMELESS = [f"pbdyn__fast_{k}_{c}_tag{t}" for t in (1, 2) for c in ("singular", "oneof")
             for k in ("boolean", "varint32", "varint64", "zigzag32", "zigzag64",
                       "fixed32", "fixed64", "bytes")] + \
            [f"pbdyn__fast_{k}_singular_tag{t}" for t in (1, 2) for k in ("enum_closed",)] + \
            [f"pbdyn__fast_{k}_repeated_tag{t}" for t in (1, 2)
             for k in ("boolean", "varint32", "varint64", "zigzag32", "zigzag64", "fixed32",
                       "fixed64", "bytes")] + \
            [f"pbdyn__fast_{k}_packed_tag{t}" for t in (1, 2) for k in ("fixed32", "fixed64")] + \
            ["pbdyn__fast_end", "pbdyn__fast_start"]


def test_fast_functions_have_no_frame():
    fns = {f.name: f for f in find_functions(build_lib("musttail"), ["pbdyn__fast_*"])}
    assert len([n for n in fns if n.endswith(("_tag1", "_tag2"))]) == 82
    framed = [n for n in FRAMELESS if has_frame(instruction_mix(fns[n]))]
    assert not framed, f"fast functions with a stack frame: {framed}"
    # and each ends in an indirect jump (the dispatch) or a direct tail jump, never a ret
    mix = instruction_mix(fns["pbdyn__fast_varint32_singular_tag1"])
    assert mix["jmp-indirect"] >= 1 and mix["ret"] == 0 and mix["call-direct"] == 0
    assert mix["instructions"] <= 60  # whole function, slow branches included


def test_trampoline_build_returns_to_loop():
    fns = {f.name: f for f in find_functions(build_lib("trampoline-gcc"), ["pbdyn__fast_*"])}
    mix = instruction_mix(fns["pbdyn__fast_varint32_singular_tag1"])
    assert mix["ret"] >= 1 and mix["jmp-indirect"] == 0


@pytest.mark.parametrize("build", list(BUILDS))
def test_every_build_decodes_descriptor_set(build):
    s = lib(build).load_schema(descriptor_proto_set())
    data = descriptor_proto_set()
    for dec in (0, 1, 2):
        st, enc = s.roundtrip("google.protobuf.FileDescriptorSet", data, dec)
        assert st == 0 and enc == data
