"""Source line -> VM instruction by DWARF labels, for when the source is not at hand.

gcc and clang describe every C label that survives in a function as a DW_TAG_label
with its name and declared line: a computed-goto interpreter's `op_add:` and Lua's
`vmcase(OP_ADD)` (which expands to the label `L_OP_ADD:` when Lua uses its jump table)
both leave one. Within a function, a label's region runs from its line to the line
before the next label of that function; the last one runs to the function's end, which
DWARF does not record, so we take the line before the next function declared in the
same file. Lines of the function before the first label are dispatch/other.

Which functions are interpreters: those with at least half as many labels as the
function with the most, and at least MIN_LABELS (an ordinary function's `out:` or
`retry:` label is not an instruction set).

Which labels are instructions: where half or more of a function's labels share a prefix
(CPython's `TARGET_LOAD_FAST`, Lua's `L_OP_ADD`), those with it, named without it; the
others (`resume_frame:`, `error:`) end the instruction before them and open
dispatch/other, except a label ending in `_` + an instruction's name (CPython's
`PRED_LOAD_ATTR:` inside LOAD_ATTR), which belongs to that instruction.
"""

from __future__ import annotations

from cpulab.opprof.regions import Block, Region, RegionIndex
from cpulab.opprof.symbolize import DebugInfo, Label

MIN_LABELS = 3
_FAR = 1 << 30


def instruction_prefix(names: set[str]) -> str:
    """The prefix, up to and with its first `_`, that at least half of `names` (and two
    or more) share; "" where none does."""
    counts: dict[str, int] = {}
    for n in names:
        head, sep, rest = n.partition("_")
        if sep and rest:
            counts[head + sep] = counts.get(head + sep, 0) + 1
    best = max(counts.items(), key=lambda kv: kv[1], default=("", 0))
    return best[0] if best[1] >= 2 and 2 * best[1] >= len(names) else ""


def instruction_labels(names: set[str]) -> dict[str, str | None]:
    """Label -> the instruction it starts or lies in, or None (not an instruction)."""
    prefix = instruction_prefix(names)
    if not prefix:
        return {n: n for n in names}
    insns = {n: n.removeprefix(prefix) for n in names if n.startswith(prefix)}
    out: dict[str, str | None] = dict(insns)
    known = set(insns.values())
    for n in names - insns.keys():
        out[n] = max((i for i in known if n.endswith("_" + i)), key=len, default=None)
    return out


def build_index(debug_and_addrs: list[tuple[DebugInfo, list[int]]]) -> RegionIndex:
    """Regions from the labels of every compilation unit that holds a sampled address."""
    labels: dict[tuple[str, str], list[Label]] = {}
    decls: dict[str, list[int]] = {}  # file -> declared lines of its functions
    fn_decl: dict[tuple[str, str], int] = {}
    seen_units: set[int] = set()
    for debug, addrs in debug_and_addrs:
        for a in addrs:
            unit_labels = debug.unit_labels(a)
            if id(unit_labels) in seen_units:
                continue
            seen_units.add(id(unit_labels))
            for lb in unit_labels:
                if lb.file and lb.line > 0:
                    labels.setdefault((lb.file, lb.function), []).append(lb)
            for fn in debug.unit_functions(a):
                if fn.decl_file and fn.decl_line:
                    decls.setdefault(fn.decl_file, []).append(fn.decl_line)
                    fn_decl[(fn.decl_file, fn.name)] = fn.decl_line
    if not labels:
        return RegionIndex([], [])
    counts = {k: len({lb.name for lb in v}) for k, v in labels.items()}
    need = max(MIN_LABELS, (max(counts.values()) + 1) // 2)
    regions, blocks = [], []
    for (file, function), lbs in labels.items():
        if counts[(file, function)] < need:
            continue
        lbs = sorted({(lb.line, lb.name) for lb in lbs})
        start = fn_decl.get((file, function), lbs[0][0])
        later = [d for d in decls.get(file, []) if d > lbs[-1][0]]
        end = min(later) - 1 if later else _FAR
        owner = instruction_labels({name for _, name in lbs})
        # a label inside an instruction (PRED_X after TARGET_X) is no boundary
        bounds = [(line, owner[name]) for k, (line, name) in enumerate(lbs)
                  if owner[name] is None or owner[name] != owner[lbs[k - 1][1]] or k == 0]
        for k, (line, name) in enumerate(bounds):
            stop = bounds[k + 1][0] - 1 if k + 1 < len(bounds) else end
            if name is not None:
                regions.append(Region(name, file, line, max(stop, line), 0))
        n_insns = len({v for v in owner.values() if v is not None})
        blocks.append(Block(file, start, end, function, n_insns))
    return RegionIndex(regions, blocks)
