"""The shipped C libraries, read from their manifests (native/lib/<name>/library.json).

The same manifest is what native/CMakeLists.txt builds and installs each library from
(native/cmake/CpulabLibrary.cmake), so a library's recipe (its sources, the system
libraries it needs, options only one compiler family takes) is written down once, and the
lab's builds of a library are the ones a user installs, whatever compiler and flags the
lab adds. The layout is a convention, not part of the manifest: include/<name>.h is the
one public header (its <NAME>_VERSION_* macros, the name in upper case, give the
version), and the library's own folder is the private include root
(`#include "internal/x.h"`).

Optional system libraries (`optional_libraries`: library, header, define) are used when
this machine has them, as CMake does: the library file is found by the linker's search
(ctypes.util.find_library) and the header in the standard include folders. Bundled objects
(`bundled`: name, object, include, define, built_by) are built from a registry's sources by
the library's own script into the build folder, and linked into the library itself when
they are there.
"""

from __future__ import annotations

import ctypes.util
import functools
import json
import re
import sysconfig
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cpulab.build.config import BuildConfig
from cpulab.build.ninja import BuildError, build_one
from cpulab.build.target import Target
from cpulab.build.toolchain import find_toolchain
from cpulab.paths import LIBS, build_dir

MANIFEST = "library.json"


class ManifestError(ValueError):
    """A library's manifest is missing, malformed or names a file that does not exist."""


@dataclass(frozen=True)
class Bundled:
    """An object built into the library from a registry's sources (its manifest's
    `bundled`): `object` and `include` are relative to the build folder."""

    name: str
    object: str
    include: str
    define: str
    built_by: str

    @property
    def object_path(self) -> Path:
        # resolved: a rebuilt object (a new peer-cache entry) is a new path, so a new build
        return (build_dir() / self.object).resolve()

    @property
    def include_dir(self) -> Path:
        return (build_dir() / self.include).resolve()


@dataclass(frozen=True)
class Library:
    name: str
    root: Path
    description: str
    version: str
    sources: tuple[Path, ...]
    system_libraries: tuple[str, ...]
    # (compiler family, options) pairs, as Target.family_cflags takes them
    compile_options: tuple[tuple[str, tuple[str, ...]], ...]
    # (library, header, define) of each optional system library, present or not
    optional_libraries: tuple[tuple[str, str, str], ...] = ()
    # the library's command (name, its own sources), installed beside it; None: none
    command: tuple[str, tuple[Path, ...]] | None = None
    bundled: tuple[Bundled, ...] = ()

    @property
    def optional_present(self) -> tuple[tuple[str, str, str], ...]:
        """The optional libraries this machine has (library file and header)."""
        return tuple(o for o in self.optional_libraries if _system_library_present(o[0], o[1]))

    @property
    def bundled_present(self) -> tuple[Bundled, ...]:
        """The bundled objects that are built."""
        return tuple(b for b in self.bundled if b.object_path.is_file())

    @property
    def header(self) -> Path:
        return self.root / "include" / f"{self.name}.h"

    @property
    def include_dirs(self) -> tuple[Path, ...]:
        """The public header's folder, then the private include root."""
        return (self.root / "include", self.root)

    def target(
        self,
        name: str,
        program: Iterable[str | Path] = (),
        *,
        defines: Iterable[str] = (),
        include_dirs: Iterable[str | Path] = (),
        cflags: Iterable[str] = (),
        ldflags: Iterable[str] = (),
        libs: Iterable[str] = (),
        shared: bool = False,
        pgo_args: Iterable[str] = (),
        meta: dict | None = None,
    ) -> Target:
        """A program (or shared library) made of `program`'s sources and this library's.

        The library's own system libraries and compiler options are added; `libs`,
        `defines` and the rest are the program's.
        """
        extra = tuple(Path(s) for s in program)
        libs = tuple(libs)
        present = self.optional_present
        bundled = self.bundled_present
        system = (*self.system_libraries, *(o[0] for o in present))
        return Target(
            name,
            (*extra, *self.sources),
            defines=(*defines, *(o[2] for o in present), *(b.define for b in bundled)),
            include_dirs=(*self.include_dirs, *(b.include_dir for b in bundled),
                          *(Path(d) for d in include_dirs)),
            cflags=tuple(cflags),
            # the objects after the sources on the link line, as the linker wants them
            ldflags=(*ldflags, *(str(b.object_path) for b in bundled)),
            libs=(*libs, *(lib for lib in system if lib not in libs)),
            shared=shared,
            pgo_args=tuple(pgo_args),
            family_cflags=self.compile_options,
            meta=meta or {},
        )

    def command_target(self) -> Target:
        """The library's command (gzwrap, pbtool) as its manifest gives it."""
        if self.command is None:
            raise ManifestError(f"{self.name}: the manifest names no command")
        name, sources = self.command
        return self.target(name, sources)

    def build_shared(
        self,
        cc: str = "gcc",
        opt: str = "O2",
        *,
        extra: Iterable[str | Path] = (),
        defines: Iterable[str] = (),
        cflags: Iterable[str] = (),
        libs: Iterable[str] = (),
        suffix: str = "",
    ) -> Path:
        """The library as a shared object (for ctypes), plus `extra` sources; cached."""
        tc = find_toolchain(cc)
        if tc is None:
            raise BuildError(f"compiler {cc!r} not found")
        t = self.target(f"{self.name}{suffix}", extra, defines=defines, cflags=cflags,
                        libs=libs, shared=True)
        return build_one(t, BuildConfig(tc, opt))


def _strings(m: dict, key: str, where: Path) -> tuple[str, ...]:
    value = m.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ManifestError(f"{where}: {key!r} must be a list of strings")
    return tuple(value)


_INCLUDE_DIRS = ("/usr/local/include", "/usr/include")


@functools.cache
def _system_library_present(lib: str, header: str) -> bool:
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    dirs = [*_INCLUDE_DIRS, *( [f"/usr/include/{multiarch}"] if multiarch else [])]
    return (ctypes.util.find_library(lib) is not None
            and any((Path(d) / header).is_file() for d in dirs))


def _optional(m: dict, where: Path) -> tuple[tuple[str, str, str], ...]:
    value = m.get("optional_libraries", [])
    keys = ("library", "header", "define")
    if not isinstance(value, list) or not all(
            isinstance(v, dict) and all(isinstance(v.get(k), str) for k in keys) for v in value):
        raise ManifestError(f"{where}: 'optional_libraries' must be a list of objects with "
                            "string library, header and define")
    return tuple((v["library"], v["header"], v["define"]) for v in value)


def _bundled(m: dict, where: Path) -> tuple[Bundled, ...]:
    value = m.get("bundled", [])
    keys = ("name", "object", "include", "define", "built_by")
    if not isinstance(value, list) or not all(
            isinstance(v, dict) and all(isinstance(v.get(k), str) for k in keys) for v in value):
        raise ManifestError(f"{where}: 'bundled' must be a list of objects with string "
                            + ", ".join(keys))
    return tuple(Bundled(*(v[k] for k in keys)) for v in value)


def _command(m: dict, root: Path, where: Path) -> tuple[str, tuple[Path, ...]] | None:
    value = m.get("command")
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise ManifestError(f"{where}: 'command' must be an object with a name and sources")
    sources = tuple(root / s for s in _strings(value, "sources", where))
    missing = [str(s) for s in sources if not s.is_file()]
    if missing or not sources:
        raise ManifestError(f"{where}: command sources missing: "
                            f"{', '.join(missing) or 'none listed'}")
    return value["name"], sources


def _version(header: Path, name: str) -> str:
    text = header.read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        macro = f"{name.upper()}_VERSION_{part}"
        m = re.search(rf"^#define {macro} (\d+)$", text, re.M)
        if not m:
            raise ManifestError(f"{header}: no {macro} macro")
        parts.append(m.group(1))
    return ".".join(parts)


@functools.cache
def library(name: str) -> Library:
    """The library `name` (a folder of native/lib) as its manifest describes it."""
    root = LIBS / name
    path = root / MANIFEST
    try:
        m = json.loads(path.read_text())
    except FileNotFoundError:
        known = ", ".join(library_names()) or "none"
        raise ManifestError(f"no library {name!r} (no {path}); libraries: {known}") from None
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path}: {e}") from None
    if m.get("name") != name:
        raise ManifestError(f"{path}: name is {m.get('name')!r}, not the folder's {name!r}")
    sources = tuple(root / s for s in _strings(m, "sources", path))
    missing = [str(s) for s in sources if not s.is_file()]
    if missing or not sources:
        raise ManifestError(f"{path}: sources missing: {', '.join(missing) or 'none listed'}")
    options = m.get("compile_options", {})
    if not isinstance(options, dict):
        raise ManifestError(f"{path}: 'compile_options' must map a compiler family to a list")
    header = root / "include" / f"{name}.h"
    return Library(
        name=name,
        root=root,
        description=str(m.get("description", "")),
        version=_version(header, name),
        sources=sources,
        system_libraries=_strings(m, "system_libraries", path),
        compile_options=tuple((fam, _strings(options, fam, path)) for fam in sorted(options)),
        optional_libraries=_optional(m, path),
        command=_command(m, root, path),
        bundled=_bundled(m, path),
    )


def library_names() -> list[str]:
    """Every folder of native/lib with a manifest."""
    return sorted(p.parent.name for p in LIBS.glob(f"*/{MANIFEST}"))
