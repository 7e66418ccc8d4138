"""upb compiled natively, the seed's own parser, as peers of the protobuf benchmark.

native/kernels/protobuf/build_upb_peer.sh builds upb from the C sources PyPI sdists carry
(once, cached under build/peers/): `upb-generic`, upb's generic decoder from the
`protobuf` sdist that uv.lock pins, and `upb-fasttable`, its tail-call field parsers from
the upb tree the `grpcio` sdist vendors; and, when CPULAB_UPB_TREE names a clone of upb's
public repository (github.com/protocolbuffers/protobuf), `upb-fasttable-git`, its current
fasttable, which also covers sub-message fields. The kernel loads each through
native/kernels/protobuf/upb_adapter.c, whose mini-tables upb builds at run time from the
benchmark's FileDescriptorSet. The default profile builds missing peers (a first build
takes 1-2 minutes each); --quick uses the ones that exist and notes how to build the rest.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from cpulab.build import Target
from cpulab.build.peer_script import build_hint, peer_path
from cpulab.context import Context
from cpulab.measure.valgrind import DWARF_CFLAGS
from cpulab.paths import KERNELS

DIR = KERNELS / "protobuf"
PEER_SCRIPT = DIR / "build_upb_peer.sh"
# peer name -> the script's arguments and the defines its adapter is compiled with
UPB_PEERS = {
    "upb-generic": ((), ()),
    "upb-fasttable": (("--fasttable",), ("UPB_ENABLE_FASTTABLE",)),
}
# The peer built from a clone of the public repository, beside the project, when one is named.
GIT_PEER = "upb-fasttable-git"
TREE_ENV = "CPULAB_UPB_TREE"
PEER_BUILD_TIMEOUT_S = 1800


def _peer_args() -> dict[str, tuple[str, ...] | None]:
    """Each peer's build_upb_peer.sh arguments; None for the git peer without a clone."""
    args: dict[str, tuple[str, ...] | None] = {n: a for n, (a, _) in UPB_PEERS.items()}
    tree = os.environ.get(TREE_ENV)
    args[GIT_PEER] = ("--fasttable", "--tree", tree) if tree else None
    return args


@dataclass(frozen=True)
class UpbPeer:
    """A built upb: PREFIX/lib/libupb.a and PREFIX/include, and the recipe it records."""

    name: str  # upb-generic | upb-fasttable | upb-fasttable-git
    prefix: Path
    recipe: str  # e.g. 'upb generic from PyPI protobuf 7.36.2: clang-19 -O2 -DNDEBUG'

    @property
    def source(self) -> str:
        """Where its code came from, e.g. 'PyPI protobuf 7.36.2'."""
        return self.recipe.split(" from ", 1)[1].split(":", 1)[0]

    def target(self) -> Target:
        """The adapter (upb_adapter.c) over this upb, as a shared library for the kernel."""
        lib = self.prefix / "lib" / "libupb.a"
        headers = self.prefix / "include"  # upb/, google/protobuf/*.upb.h, utf8_range/
        mode = self.name.removeprefix("upb-")
        _, defines = UPB_PEERS.get(self.name, UPB_PEERS["upb-fasttable"])
        return Target(
            f"pbpeer-{self.name}", (DIR / "upb_adapter.c",),
            # NDEBUG as upb itself was built: its inline header code then matches the
            # library's (no asserts, no allocation counting).
            defines=(*defines, "NDEBUG", f'UPB_PEER_WHAT="{mode}, {self.source}"'),
            include_dirs=(headers, headers / "utf8_range", DIR),
            cflags=("-Wl,-Bsymbolic", *DWARF_CFLAGS), ldflags=(str(lib),), deps=(lib,),
            shared=True, meta={"upb": self.recipe})


def upb_peers(ctx: Context, build_now: bool | None = None) -> list[UpbPeer]:
    """Every native upb this machine has, building the missing ones if `build_now`
    (None: unless --quick); a note for each one that is not measured, with the reason
    and the command that builds it."""
    peers = []
    for name, args in _peer_args().items():
        if args is None:
            ctx.note(f"{name} not measured: set {TREE_ENV} to a clone of "
                     "github.com/protocolbuffers/protobuf to build upb's current fasttable, "
                     "which also parses sub-messages, beside the PyPI ones")
            continue
        build = not ctx.profile.quick if build_now is None else build_now
        prefix = peer_path(ctx, PEER_SCRIPT, args, build_now=build,
                           timeout=PEER_BUILD_TIMEOUT_S,
                           phase=f"building the {name} peer (once; cached)")
        if not isinstance(prefix, Path):
            hint = "" if build else build_hint(PEER_SCRIPT, args)
            ctx.note(f"{name} not measured: {prefix}{hint}")
            continue
        try:
            recipe = (prefix / ".done").read_text().strip()
        except OSError as e:
            ctx.note(f"{name} not measured: {prefix}: {e.strerror or e}")
            continue
        peers.append(UpbPeer(name, prefix, recipe))
        ctx.note(f"{name}: {recipe}")
    return peers
