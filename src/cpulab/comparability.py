"""Whether two runs can be compared, and what a comparison of them compares.

Comparing machines, compilers and lab revisions is the point of `cpulab compare` (S16),
so a change of CPU, microcode, kernel, compiler or revision is listed as the thing
being compared. What makes the figures themselves incomparable is a different design
of the measurement: another profile, other case parameters, another number of
repetitions per case (processes x repetitions); like pyperf, such a comparison is
refused with the reason unless the user forces it.
"""

from __future__ import annotations

import json
import statistics

from cpulab.results import Case, RunRecord


def _compilers(builds: list[dict]) -> dict[str, str]:
    return {b["compiler"]: b.get("compiler_version", "?") for b in builds}


def differences(old: RunRecord, new: RunRecord, old_cases: list[Case] | None = None,
                new_cases: list[Case] | None = None) -> list[str]:
    """What differs between the two runs' contexts, one line each: the things compared.
    `old_cases`/`new_cases`: the cases kept of a run narrowed to one compiler."""
    out = []
    if old.machine_key != new.machine_key:
        a, b = old.machine.get("cpu", {}), new.machine.get("cpu", {})
        out.append(f"machine: {a.get('model_name')} (microcode {a.get('microcode')}, kernel "
                   f"{old.machine.get('kernel', {}).get('release')}) vs {b.get('model_name')} "
                   f"(microcode {b.get('microcode')}, kernel "
                   f"{new.machine.get('kernel', {}).get('release')})")
    if old.origin != new.origin and (old.origin or new.origin):
        out.append(f"host: {old.origin or 'this database'} vs {new.origin or 'this database'}")
    va = _compilers(old.builds if old_cases is None else [c.build for c in old_cases if c.build])
    vb = _compilers(new.builds if new_cases is None else [c.build for c in new_cases if c.build])
    if va and vb and not set(va) & set(vb):
        out.append("compiler: " + ", ".join(f"{k} {v}" for k, v in sorted(va.items())) +
                   " vs " + ", ".join(f"{k} {v}" for k, v in sorted(vb.items())))
    for cc in sorted(set(va) & set(vb)):
        if va[cc] != vb[cc]:
            out.append(f"compiler {cc}: {va[cc]} vs {vb[cc]}")
    if old.profile != new.profile:
        out.append(f"profile: {old.profile} vs {new.profile}")
    if old.lab_revision != new.lab_revision:
        out.append(f"lab revision: {old.lab_revision} vs {new.lab_revision}")
    return out


def _param_sets(cases: list[Case]) -> set[str]:
    return {json.dumps(c.params, sort_keys=True) for c in cases}


def _typical_reps(cases: list[Case], metric: str) -> int | None:
    """Repetitions per process, the typical case's: the harness's --reps. The number of
    processes varies with a profile's precision by design; the repetitions inside one
    do not, and a process's median of 3 is not one of 10. None where the figures do not
    say which process measured them."""
    reps = [len(m.values) // len(set(m.processes)) for c in cases
            if (m := c.metrics.get(metric)) is not None and m.processes]
    return int(statistics.median_low(reps)) if reps else None


def _short(params: set[str], limit: int = 3) -> str:
    shown = sorted(params)[:limit]
    more = f" and {len(params) - limit} more" if len(params) > limit else ""
    return ", ".join(shown) + more


def refusals(old: RunRecord, new: RunRecord, old_cases: list[Case], new_cases: list[Case],
             metric: str) -> list[str]:
    """Why the comparison means little, one reason each; empty when it is sound."""
    out = []
    if old.profile != new.profile:
        out.append(f"different profiles ({old.profile} vs {new.profile}): their sizes, "
                   "processes and repetitions differ")
    pa, pb = _param_sets(old_cases), _param_sets(new_cases)
    if pa != pb:
        out.append(f"different experiment parameters: only in the first run "
                   f"{_short(pa - pb) or 'none'}; only in the second {_short(pb - pa) or 'none'}")
    ra, rb = _typical_reps(old_cases, metric), _typical_reps(new_cases, metric)
    if ra and rb and ra != rb:
        out.append(f"different repetitions per process ({ra} vs {rb}): a process's median "
                   "is not the same figure")
    return out
