"""The GMPs measured beside mulpre (experiment `mulpre`): where they come from, and
which code each one runs on this CPU.

Debian's libgmp (linked into the benchmark) is a generic x86-64 build. Beside it: the
host-tuned GMP of native/kernels/mulpre/build_gmp_peer.sh (built by the default profile
only: a first build takes minutes; --quick uses it once it exists), its fat build if one
was made, and the libgmp bundled in the gmpy2 wheel when gmpy2 is installed. For each,
the benchmark's stderr names the `mpn_mul_basecase` its dispatch chose, and that
function's machine code is counted (mulx, adcx/adox, mul, calls) from the library itself.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from cpulab.asm import disassemble
from cpulab.asm.disasm import Function
from cpulab.build.peer_script import build_hint, peer_path
from cpulab.context import Context
from cpulab.paths import KERNELS

PEER_SCRIPT = KERNELS / "mulpre" / "build_gmp_peer.sh"
# Peers that build_gmp_peer.sh makes: label -> its arguments.
GMP_BUILDS = {"host": (), "fat": ("--fat",)}
PEER_BUILD_TIMEOUT_S = 1800
GMP_MUL = "gmp_mul_n"
_GMP_LINE = re.compile(
    r"^mulpre_bench: gmp (?P<label>\S+): (?P<file>.*), version (?P<version>\S+), "
    r"mpn_mul_basecase: (?P<path>.*)$")


def case_prefix(label: str) -> str:
    """The benchmark's case prefix for a GMP: gmp_mul_n (the linked one), gmp_mul_n@host."""
    return GMP_MUL if label == "linked" else f"{GMP_MUL}@{label}"


def gmp_peers(ctx: Context) -> dict[str, Path]:
    """label -> libgmp.so of every GMP beside Debian's that this machine has."""
    peers: dict[str, Path] = {}
    for label, args in GMP_BUILDS.items():
        build_now = label == "host" and not ctx.profile.quick
        path = peer_path(ctx, PEER_SCRIPT, args, build_now=build_now,
                         timeout=PEER_BUILD_TIMEOUT_S,
                         phase="building the host-tuned GMP peer (once; cached)")
        if isinstance(path, Path):
            peers[label] = path
            continue
        hint = "" if build_now else build_hint(PEER_SCRIPT, args, by_default=label == "host")
        ctx.note(f"GMP peer {label} not measured: {path}{hint}")
    wheel = _wheel_gmp()
    if isinstance(wheel, Path):
        peers["gmpy2"] = wheel
    else:
        ctx.note(f"GMP peer gmpy2 not measured: {wheel}")
    return peers


def _wheel_gmp() -> Path | str:
    """The libgmp bundled in the gmpy2 wheel of this Python environment, or why not."""
    spec = importlib.util.find_spec("gmpy2")
    if spec is None or not spec.submodule_search_locations:
        return "gmpy2 is not installed in this Python environment (a PyPI wheel bundles GMP)"
    pkg = Path(next(iter(spec.submodule_search_locations)))
    libs = sorted(pkg.parent.glob("gmpy2.libs/libgmp*.so*"))
    if not libs:
        return f"gmpy2 at {pkg} bundles no libgmp (built against the system's)"
    return libs[0]


def usable_peers(ctx: Context, exe: Path, peers: dict[str, Path]) -> dict[str, Path]:
    """Peers that load, each probed alone (one bad library must not fail every case), and
    a note per GMP saying which mpn_mul_basecase runs on this CPU."""
    usable = {}
    for label, path in {"linked": None, **peers}.items():
        argv = [str(exe), "--iters", "1", "--reps", "1", "--no-pmu", "--cpu", "-1",
                "--param", "n=1", "--param", f"impls={case_prefix(label)}"]
        if path is not None:
            argv += ["--param", f"gmp_peers={label}:{path}"]
        res = ctx.runner.run(argv, timeout=60)
        if res.failure:
            ctx.note(f"GMP peer {label} ({path}) not measured: {res.failure}")
            continue
        if path is not None:
            usable[label] = path
        for line in res.stderr.splitlines():
            m = _GMP_LINE.match(line)
            if m and m["label"] == label:
                code = _basecase_code(Path(m["file"]), m["path"])
                ctx.note(f"{case_prefix(label)}: GMP {m['version']} from {m['file']}; "
                         f"mpn_mul_basecase: {_explained(m['path'])}{_configured(path)}; "
                         f"{code}")
    return usable


def _basecase_code(lib: Path, chosen: str) -> str:
    """What the mpn_mul_basecase that runs is made of: mulx, adcx/adox, mul, calls."""
    name = chosen if chosen.startswith("__gmpn_mul_basecase") else "__gmpn_mul_basecase"
    fn = _exported_function(lib, name)
    if isinstance(fn, str):
        return f"its machine code unread: {fn}"
    insns = [i.mnemonic for i in disassemble(fn)]
    counts = {k: sum(m in ms for m in insns) for k, ms in (
        ("mulx", ("mulx",)), ("adcx/adox", ("adcx", "adox")), ("mul", ("mul",)),
        ("call", ("call",)))}
    return f"{name} has " + ", ".join(f"{v} {k}" for k, v in counts.items()) + " (asm)"


def _exported_function(lib: Path, name: str) -> Function | str:
    """A function that a shared library exports (.dynsym: Debian's libgmp is stripped)."""
    try:
        with lib.open("rb") as f:
            elf = ELFFile(f)
            dynsym = elf.get_section_by_name(".dynsym")
            syms = dynsym.get_symbol_by_name(name) if dynsym else None
            if not syms or not syms[0]["st_size"]:
                return f"{lib.name} exports no sized {name}"
            sym = syms[0]
            sec = elf.get_section(sym["st_shndx"])
            f.seek(sym["st_value"] - sec["sh_addr"] + sec["sh_offset"])
            return Function(name, sym["st_value"], sym["st_size"], f.read(sym["st_size"]))
    except (OSError, ELFError) as e:
        return f"{lib}: {e}"


def _explained(path: str) -> str:
    """GMP's name for a fat build's generic code says little; say what it is."""
    if path.endswith("_fat"):
        return (f"{path} (mpn/generic C, reached through x86_64/fat: the fat dispatch has "
                "no code of its own for this CPU)")
    return path


def _configured(lib: Path | None) -> str:
    """What build_gmp_peer.sh recorded of a peer's configuration (its CODEPATH file)."""
    codepath = lib.parent.parent / "CODEPATH" if lib is not None else None
    if codepath is None or not codepath.is_file():
        return ""
    keep = ("configured as:", "mul_basecase: ../")  # a fat build's says "run time"
    facts = [line for line in codepath.read_text().splitlines() if line.startswith(keep)]
    return f" ({'; '.join(facts)})" if facts else ""
