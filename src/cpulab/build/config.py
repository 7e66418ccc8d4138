"""How to build: one compiler, one optimisation level, with or without profile guidance.
Go has one optimisation level (its compiler's default), so a Go build has no level."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cpulab.build.toolchain import Toolchain


@dataclass(frozen=True)
class BuildConfig:
    toolchain: Toolchain
    opt: str = "O2"  # O1 | O2 | O3 | Os ...
    pgo: bool = False
    extra: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """gcc-12 -O2, clang-19 -O3 +pgo, go-1.26"""
        s = self.toolchain.name
        if self.toolchain.family != "go":
            s += f" -{self.opt}"
        if self.pgo:
            s += " +pgo"
        if self.extra:
            s += " " + " ".join(self.extra)
        return s

    @property
    def flags(self) -> tuple[str, ...]:
        if self.toolchain.family == "go":
            return self.extra
        return (f"-{self.opt}", *self.extra)

    def as_dict(self) -> dict:
        return {
            "compiler": self.toolchain.name,
            "compiler_version": self.toolchain.version,
            "flags": " ".join(self.flags),
            "pgo": self.pgo,
        }


def matrix(
    toolchains: Iterable[Toolchain], opts: Iterable[str], pgo_opts: Iterable[str] = ()
) -> list[BuildConfig]:
    """Every toolchain x opt, plus a profile-guided build at each of `pgo_opts` (C only:
    a Go toolchain gives one build, whatever the levels)."""
    tcs, opts = list(toolchains), list(opts)
    out = [BuildConfig(tc, o) for tc in tcs for o in (opts[:1] if tc.family == "go" else opts)]
    out += [BuildConfig(tc, o, pgo=True) for tc in tcs if tc.family != "go" for o in pgo_opts]
    return out


def label_of(build: dict | None) -> str:
    """A build's label from its record (`BuildConfig.as_dict()`): "gcc-12 -O2", "-" for
    none (a peer the lab did not build)."""
    if not build:
        return "-"
    s = f"{build['compiler']} {build['flags']}".strip()  # Go: no flags
    return s + " +pgo" if build.get("pgo") else s
