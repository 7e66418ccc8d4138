"""The shipped C libraries as a user gets them, through native/CMakeLists.txt.

- configure, build and ctest pass, with gcc and again under ASan+UBSan with clang (the
  `asan` preset's option), and every library has C tests registered;
- `cmake --install` lays out headers under include/cpulab/, shared libraries with a
  versioned soname that export the API and hide the internals, static libraries,
  pkg-config files and the CMake package;
- a program outside the tree (tests/consumer/) builds against the install with
  pkg-config, and with find_package (its libraries asked for as components) for the
  shared and the static targets, and prints answers that are worked out here
  independently; a component that is not a library fails find_package;
- each library's recipe is its manifest: the manifest lists exactly the files of src/,
  the version is the header's, and no Python file writes a library's sources again.
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import re
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

from cmake_support import asan_tree, configure_and_build, run
from cpulab.build import library, library_names
from cpulab.experiments.protobuf.payloads import SYSTEM_PROTO, descriptor_set
from cpulab.paths import NATIVE, ROOT, build_dir

JOBS = str(os.cpu_count() or 2)  # ctest runs its tests one at a time unless told

CONSUMER = Path(__file__).parent / "consumer"
LIBRARIES = library_names()

pytestmark = pytest.mark.needs("cmake")


@pytest.fixture(scope="module")
def tree() -> Path:
    return configure_and_build("default")


@pytest.fixture(scope="module")
def prefix(tree: Path, tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("prefix")
    run("cmake", "--install", tree, "--prefix", p)
    return p


def ctest_tests(tree: Path) -> list[dict]:
    return json.loads(run("ctest", "--test-dir", tree, "--show-only=json-v1"))["tests"]


def labels(test: dict) -> set[str]:
    for prop in test.get("properties", []):
        if prop["name"] == "LABELS":
            return set(prop["value"])
    return set()


def test_ctest_passes_and_covers_every_library(tree):
    tests = ctest_tests(tree)
    for lib in LIBRARIES:
        assert any(lib in labels(t) for t in tests), f"no ctest for {lib}"
    out = run("ctest", "--test-dir", tree, "--output-on-failure", "-j", JOBS)
    assert f"100% tests passed, 0 tests failed out of {len(tests)}" in out


def test_ctest_under_asan_and_ubsan(clang):
    tree = asan_tree(clang)
    flags = (tree / "CMakeCache.txt").read_text()
    assert "CPULAB_SANITIZE:BOOL=ON" in flags
    out = run("ctest", "--test-dir", tree, "--output-on-failure", "-j", JOBS,
              env={"ASAN_OPTIONS": "detect_leaks=1", "UBSAN_OPTIONS": "print_stacktrace=1"})
    assert "tests passed, 0 tests failed" in out


def test_install_layout(prefix):
    libdir = next(prefix.glob("lib*/**/libcpulab-pbdyn.so")).parent
    for lib in LIBRARIES:
        version = library(lib).version
        major = version.split(".")[0]
        header = prefix / "include" / "cpulab" / f"{lib}.h"
        assert header.is_file(), header
        real = libdir / f"libcpulab-{lib}.so.{version}"
        assert real.is_file() and (libdir / f"libcpulab-{lib}.a").is_file()
        assert (libdir / f"libcpulab-{lib}.so").resolve() == real.resolve()
        with real.open("rb") as f:
            dyn = next(s for s in ELFFile(f).iter_sections() if isinstance(s, DynamicSection))
            sonames = [t.soname for t in dyn.iter_tags() if t.entry.d_tag == "DT_SONAME"]
        assert sonames == [f"libcpulab-{lib}.so.{major}"]
        pc = libdir / "pkgconfig" / f"cpulab-{lib}.pc"
        assert f"Version: {version}" in pc.read_text()
        # the library's command, where its manifest names one, installed beside it
        if library(lib).command is not None:
            name, _ = library(lib).command
            assert (prefix / "bin" / name).is_file(), name
    assert {library(lib).command[0] for lib in LIBRARIES if library(lib).command} == {
        "gzwrap", "pbtool"}
    cmake_dir = libdir / "cmake" / "cpulab"
    assert {p.name for p in cmake_dir.glob("cpulab*.cmake")} >= {
        "cpulabConfig.cmake", "cpulabConfigVersion.cmake", "cpulabTargets.cmake"}


def test_shared_libraries_export_the_api_only(prefix):
    for lib in LIBRARIES:
        so = next(prefix.glob(f"lib*/**/libcpulab-{lib}.so"))
        with so.open("rb") as f:
            dynsym = ELFFile(f).get_section_by_name(".dynsym")
            names = {s.name for s in dynsym.iter_symbols()
                     if s["st_shndx"] != "SHN_UNDEF" and s.name}
        api = f"{lib}_"  # every library's API is <name>_*, its internals <name>__*
        assert names, lib
        assert all(n.startswith(api) and not n.startswith(api + "_") for n in names), \
            sorted(n for n in names if not n.startswith(api) or n.startswith(api + "_"))
        # every function the public header declares is exported
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", library(lib).header.read_text(), flags=re.S)
        declared = set(re.findall(rf"\b({api}[a-z0-9_]+)\s*\(", code))
        # inline in the header: `static inline` or the header's own macro for it
        inline = set(re.findall(rf"(?:static inline|[A-Z]+__INLINE)[^(]*\b({api}\w+)\s*\(",
                                code))
        assert declared - inline - names == set(), lib


def status_enum(lib: str) -> list[str]:
    """The names of <lib>_status's values in the public header, in order of value."""
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", library(lib).header.read_text(), flags=re.S)
    m = re.search(rf"typedef enum {lib}_status \{{(.*?)\}}", code, re.S)
    assert m, f"{lib}.h has no {lib}_status"
    names, value = [], 0
    for item in filter(None, (i.strip() for i in m.group(1).split(","))):
        name, _, given = (x.strip() for x in item.partition("="))
        value = int(given) if given else value
        assert value == len(names), f"{lib}: {name} is not {len(names)}"
        names.append(name)
        value += 1
    return names


@pytest.mark.parametrize("lib", LIBRARIES)
def test_status_names_and_texts(prefix, lib):
    """Every library's status enum is <NAME>_OK and <NAME>_ERR_<WHAT>, and
    <name>_status_str gives each value its own text (and one to a value outside the
    enum)."""
    names = status_enum(lib)
    upper = lib.upper()
    assert names[0] == f"{upper}_OK"
    assert all(re.fullmatch(rf"{upper}_ERR_[A-Z0-9_]+", n) for n in names[1:]), names
    so = ctypes.CDLL(str(next(prefix.glob(f"lib*/**/libcpulab-{lib}.so"))))
    status_str = getattr(so, f"{lib}_status_str")
    status_str.argtypes, status_str.restype = [ctypes.c_int], ctypes.c_char_p
    texts = {name: status_str(value) for value, name in enumerate(names)}
    unknown = status_str(999)
    assert unknown and all(texts.values()), texts
    assert len(set(texts.values())) == len(texts) and unknown not in texts.values(), texts


def expected_output(descriptors: bytes) -> list[str]:
    """What consumer.c must print, computed without the libraries."""
    from google.protobuf import descriptor_pb2

    fds = descriptor_pb2.FileDescriptorSet.FromString(descriptors)
    v = {lib: library(lib).version for lib in LIBRARIES}
    # COMPRESS("hello\n"): the length, the zlib header for the default level, the gzip
    # member's deflate bytes, the Adler-32
    deflate = gzip.compress(b"hello\n", mtime=0)[10:-8]
    mysql = (6).to_bytes(4, "little") + b"\x78\x9c" + deflate + \
        zlib.adler32(b"hello\n").to_bytes(4, "big")
    z = (2**64 - 1) ** 2
    words = [f"{(z >> (64 * i)) & (2**64 - 1):016x}" for i in (3, 2, 1, 0)]
    return [
        f"pbdyn {v['pbdyn']}: {len(fds.file)} file(s), {fds.file[0].name} with "
        f"{len(fds.file[0].message_type)} message types",
        f"mulpre {v['mulpre']}: ok {' '.join(words)}",
        f"bigdec {v['bigdec']}: ok {2**64} ({len(str(2**64))} digits)",
        f"rtdiv {v['rtdiv']}: 1000000007 / 7 = {1000000007 // 7} rem {1000000007 % 7}, "
        "49 divisible: 1",
        f"vm {v['vm']}: fib(20) = 6765 (ok)",
        f"bpmodel {v['bpmodel']}: 1000 of 1000 mispredicted",
        f"gzwrap {v['gzwrap']}: ok, gzip -> mysql, {len(mysql)} bytes: "
        + " ".join(f"{b:02x}" for b in mysql),
        f"gzwrap memory: ok, {len(mysql) - 4} bytes: " + " ".join(f"{b:02x}" for b in mysql[4:]),
    ]


@pytest.fixture(scope="module")
def descriptors(tmp_path_factory) -> tuple[Path, bytes]:
    data = descriptor_set(("google/protobuf/descriptor.proto",), (SYSTEM_PROTO,))
    path = tmp_path_factory.mktemp("data") / "descriptor.pb"
    path.write_bytes(data)
    return path, data


def outside_copy(tmp_path: Path) -> Path:
    """The consumer's sources, copied where nothing of the tree is near them."""
    src = tmp_path / "consumer"
    shutil.copytree(CONSUMER, src)
    assert not str(src).startswith(str(ROOT))
    return src


def test_consumer_with_pkg_config(prefix, descriptors, tmp_path):
    if not shutil.which("pkg-config"):
        pytest.skip("pkg-config not installed")
    src = outside_copy(tmp_path)
    env = {"PKG_CONFIG_PATH": str(next(prefix.glob("lib*/**/pkgconfig")))}
    mods = [f"cpulab-{lib}" for lib in LIBRARIES]
    flags = run("pkg-config", "--cflags", "--libs", *mods, env=env).split()
    libdir = next(f[2:] for f in flags if f.startswith("-L"))
    exe = tmp_path / "consumer_pc"
    run("cc", "-std=c11", "-Wall", "-Werror", src / "consumer.c", "-o", exe, *flags,
        f"-Wl,-rpath,{libdir}")
    out = run(exe, descriptors[0]).splitlines()
    assert out == expected_output(descriptors[1])


@pytest.mark.parametrize("linkage", ["shared", "static"])
def test_consumer_with_find_package(prefix, descriptors, tmp_path, linkage):
    src = outside_copy(tmp_path)
    b = tmp_path / "build"
    run("cmake", "-S", src, "-B", b, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DLINKAGE={linkage}")
    run("cmake", "--build", b)
    exe = b / "consumer"
    out = run(exe, descriptors[0]).splitlines()
    assert out == expected_output(descriptors[1])
    needed = run("readelf", "-d", exe)
    assert ("libcpulab-pbdyn.so.0" in needed) == (linkage == "shared")


@pytest.mark.parametrize("components", ["pbdyn", "pbdyn nosuchlib"])
def test_find_package_components(prefix, tmp_path, components):
    """Each installed library is a component of the package; asking for one that is not a
    library fails, with a message that names the libraries there are."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(components LANGUAGES C)\n"
        f"find_package(cpulab REQUIRED COMPONENTS {components})\n"
        'message(STATUS "pbdyn found: ${cpulab_pbdyn_FOUND}")\n')
    p = subprocess.run(["cmake", "-S", src, "-B", tmp_path / "build", "-G", "Ninja",
                        f"-DCMAKE_PREFIX_PATH={prefix}"], capture_output=True, text=True,
                       timeout=600)
    if "nosuchlib" not in components:
        assert p.returncode == 0, p.stderr
        assert "pbdyn found: TRUE" in p.stdout
        return
    assert p.returncode != 0
    message = " ".join(p.stderr.split())  # cmake wraps its error text
    assert 'cpulab has no library "nosuchlib"' in message, p.stderr
    assert all(lib in message for lib in LIBRARIES), p.stderr


@pytest.mark.parametrize("lib", LIBRARIES)
def test_manifest_lists_exactly_the_sources(lib):
    m = library(lib)
    on_disk = {p for p in (m.root / "src").iterdir() if p.suffix in (".c", ".S")}
    assert set(m.sources) == on_disk
    text = m.header.read_text()
    assert re.search(rf'#define {lib.upper()}_VERSION_STRING "{re.escape(m.version)}"', text)
    assert not (m.root / "include" / "internal").exists()  # private headers: internal/


def test_no_library_recipe_outside_the_manifests():
    """A library's source list or include folders written by hand anywhere in Python
    would drift from what CMake builds and installs."""
    pattern = re.compile(r'"src"\)\.glob\(|include_dirs=.*/ "(?:include|internal)"')
    offenders = [f"{p.relative_to(ROOT)}:{i}" for p in (*ROOT.glob("src/**/*.py"),
                                                        *ROOT.glob("tests/*.py"))
                 if p.name != Path(__file__).name
                 for i, line in enumerate(p.read_text().splitlines(), 1)
                 if pattern.search(line)]
    assert offenders == []


def test_gzwrap_without_its_bundled_isal_walks_blocks_and_passes_ctest(tmp_path):
    """Where the ISA-L that stops at block boundaries is not built, gzwrap keeps the system
    ISA-L and walks a member's blocks to join it: that path keeps its tests."""
    tree = build_dir() / "cmake" / "gzwrap-unbundled"
    out = run("cmake", "-S", NATIVE, "-B", tree, "-G", "Ninja",
              f"-DCPULAB_BUNDLE_DIR={tmp_path}")
    assert "gzwrap: isal not built" in out and "GZWRAP_HAVE_ISAL_STOPS" not in out
    run("cmake", "--build", tree, "--target", "gzwrap_test", "gzwrap_cli")
    assert "tests passed, 0 tests failed" in run("ctest", "--test-dir", tree, "-L", "gzwrap",
                                                 "-E", "fuzz", "--output-on-failure")


def test_gzwrap_bundles_its_isal_when_built(tree):
    """setup builds the ISA-L that stops at block boundaries (x86-64): the default tree
    links it into the library, renamed and hidden, so no symbol of it is exported."""
    bundled = library("gzwrap").bundled_present
    if not bundled:
        pytest.skip("the bundled ISA-L is not built (make setup builds it on x86-64)")
    so = next((tree / "lib" / "gzwrap").glob("libcpulab-gzwrap.so.*.*"))
    syms = subprocess.run(["nm", str(so)], capture_output=True, text=True, check=True).stdout
    assert re.search(r" t gzwrap__isal_isal_inflate$", syms, re.M)  # in it, local
    dyn = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True,
                         text=True, check=True).stdout
    assert "isal" not in dyn
