"""Build layer: toolchains, targets, and the ninja driver that compiles them.

An experiment declares `Target`s (sources + defines), those that use a shipped library
through its manifest (`library("pbdyn").target(...)`); the lab pairs each with `BuildConfig`s
(compiler x optimisation x PGO) and `build()` compiles them all through one generated
build.ninja. Outputs live in directories named by a hash of everything that shapes them,
so an unchanged rebuild does no work.
"""

from cpulab.build.config import BuildConfig, matrix
from cpulab.build.golang import go_build, go_listing
from cpulab.build.library import Library, ManifestError, library, library_names
from cpulab.build.ninja import Artifact, BuildError, build, build_one, build_shared
from cpulab.build.target import Target
from cpulab.build.toolchain import Toolchain, find_toolchain, find_toolchains

__all__ = [
    "Artifact",
    "BuildConfig",
    "BuildError",
    "Library",
    "ManifestError",
    "Target",
    "Toolchain",
    "build",
    "build_one",
    "build_shared",
    "find_toolchain",
    "find_toolchains",
    "go_build",
    "go_listing",
    "library",
    "library_names",
    "matrix",
]
