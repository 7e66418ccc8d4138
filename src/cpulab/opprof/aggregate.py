"""Aggregation: attributed samples -> instructions ranked by their share of samples.

Two shares per row: `share`, of all samples of the command (what the whole run spent
there), and `share_vm`, of the samples in the interpreter (instructions plus
dispatch/other), which is what compares across builds of the same interpreter: the
start-up, the parser and the C library around it do not move it.

Samples in code that several instructions reach (flow.py: tails the compiler merged)
cannot be told apart one by one. They are split among those instructions in proportion
to each one's exclusive samples in this same profile (an instruction that never ran has
none and gets none), by largest remainders so that counts stay whole and add up; where
none of them has exclusive samples they stay in dispatch/other. Each row says how many
of its samples came from such a split (`shared_samples`): an estimate, where the rest
are measured. Ties in samples are broken by name, so the same data always ranks the
same way.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from cpulab.opprof.regions import DISPATCH, Attribution

HOT_LINES = 3


@dataclass(frozen=True)
class Line:
    file: str
    line: int
    samples: int


@dataclass(frozen=True)
class InsnRow:
    name: str
    samples: int
    share: float
    share_vm: float
    hot_lines: tuple[Line, ...] = ()
    shared_samples: int = 0  # of `samples`: split from code shared with other instructions


@dataclass(frozen=True)
class RestRow:
    symbol: str
    dso: str
    samples: int
    share: float


@dataclass
class Aggregate:
    total: int
    instructions: list[InsnRow]
    dispatch: InsnRow
    rest: list[RestRow]
    vm_samples: int
    shared_samples: int = 0  # samples in shared code, split or not
    unsplit_samples: int = 0  # of those: left in dispatch/other (no reacher ran alone)

    @property
    def insn_samples(self) -> int:
        return sum(r.samples for r in self.instructions)

    def by_name(self) -> dict[str, InsnRow]:
        return {r.name: r for r in self.instructions}


@dataclass(frozen=True)
class Item:
    """One sample, attributed."""

    attribution: Attribution
    symbol: str = ""  # for the rest: the function (DWARF) or perf's symbol
    dso: str = ""
    weight: int = 1


@dataclass
class _Acc:
    samples: int = 0
    shared: int = 0
    lines: Counter = field(default_factory=Counter)


def split(n: int, weights: dict[str, int]) -> dict[str, int]:
    """n whole samples in proportion to weights, by largest remainders (ties: by name)."""
    total = sum(weights.values())
    if n <= 0 or total <= 0:
        return {}
    quotas = {k: n * w / total for k, w in weights.items() if w > 0}
    out = {k: int(q) for k, q in quotas.items()}
    left = n - sum(out.values())
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - out[k]), k))[:left]:
        out[k] += 1
    return {k: v for k, v in out.items() if v}


def aggregate(items: Iterable[Item]) -> Aggregate:
    insns: dict[str, _Acc] = {}
    dispatch = _Acc()
    rest: Counter = Counter()
    shared: Counter = Counter()  # frozenset of instructions -> samples
    total = 0
    for it in items:
        total += it.weight
        a = it.attribution
        if a.kind == "shared":
            shared[a.among] += it.weight
            continue
        if a.kind == "insn":
            acc = insns.setdefault(a.name, _Acc())
        elif a.kind == "dispatch":
            acc = dispatch
        else:
            rest[(it.symbol or "[unknown]", os.path.basename(it.dso) or it.dso)] += it.weight
            continue
        acc.samples += it.weight
        if a.where is not None and a.where.file:
            acc.lines[(a.where.file, a.where.line)] += it.weight
    exclusive = {k: a.samples for k, a in insns.items()}
    unsplit = 0
    for among, n in sorted(shared.items(), key=lambda kv: sorted(kv[0])):
        parts = split(n, {k: exclusive.get(k, 0) for k in among})
        if not parts:
            dispatch.samples += n
            unsplit += n
        for k, v in parts.items():
            insns[k].samples += v
            insns[k].shared += v
    vm = sum(a.samples for a in insns.values()) + dispatch.samples

    def share(n: int, of: int) -> float:
        return n / of if of else 0.0

    def row(name: str, acc: _Acc) -> InsnRow:
        hot = sorted(acc.lines.items(), key=lambda kv: (-kv[1], kv[0]))[:HOT_LINES]
        return InsnRow(name, acc.samples, share(acc.samples, total), share(acc.samples, vm),
                       tuple(Line(f, ln, n) for (f, ln), n in hot), acc.shared)

    ranked = sorted(insns.items(), key=lambda kv: (-kv[1].samples, kv[0]))
    rest_rows = [RestRow(sym, dso, n, share(n, total))
                 for (sym, dso), n in sorted(rest.items(), key=lambda kv: (-kv[1], kv[0]))]
    return Aggregate(total, [row(n, a) for n, a in ranked], row(DISPATCH, dispatch),
                     rest_rows, vm, sum(shared.values()), unsplit)
