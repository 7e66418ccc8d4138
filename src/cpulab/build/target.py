"""What to build: sources, defines and libraries of one program or shared library."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Target:
    """One program (or shared library) an experiment or a test needs.

    `deps` lists extra files whose content shapes the output (headers, generated asm);
    every file of the source folders and the harness header are hashed anyway.
    `pgo_args` are the arguments of the training run for profile-guided builds.
    """

    name: str
    sources: tuple[Path, ...]
    defines: tuple[str, ...] = ()
    include_dirs: tuple[Path, ...] = ()
    cflags: tuple[str, ...] = ()
    ldflags: tuple[str, ...] = ()
    libs: tuple[str, ...] = ()
    deps: tuple[Path, ...] = ()
    shared: bool = False
    pgo_args: tuple[str, ...] = ()
    # (family, flags) pairs: flags only one compiler family accepts (clang's -mllvm ...)
    family_cflags: tuple[tuple[str, tuple[str, ...]], ...] = ()
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def cflags_for(self, family: str) -> tuple[str, ...]:
        """`cflags` plus the flags for this compiler family ("gcc", "clang")."""
        return self.cflags + tuple(f for fam, flags in self.family_cflags if fam == family
                                   for f in flags)

    def dep_files(self) -> list[Path]:
        """All files hashed for the cache key: sources, deps, and siblings in their folders."""
        from cpulab.paths import HARNESS_DIR

        files: set[Path] = set()
        folders = {Path(s).resolve().parent for s in self.sources}
        folders |= {Path(d).resolve() for d in self.include_dirs}
        folders.add(HARNESS_DIR)
        for folder in folders:
            if folder.is_dir():
                files |= {
                    p for p in folder.rglob("*")
                    if p.is_file() and p.suffix in (".c", ".h", ".S", ".s", ".inc", ".def", ".cc")
                }
        files |= {Path(p).resolve() for p in (*self.sources, *self.deps)}
        return sorted(files)
