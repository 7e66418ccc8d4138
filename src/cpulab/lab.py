"""Running experiments end to end: matrix -> context -> run -> verdicts -> record -> store.

This is the only place that ties the layers together for `cpulab run`; it prints
nothing itself (the CLI passes a reporter) and never lets one experiment's failure stop
the others: an experiment that raises becomes a `failed` record with the error.
A run measured on a disturbed machine is kept and named so: its record's `conditions`
say why, and so does every verdict's evidence.
"""

from __future__ import annotations

import subprocess
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from cpulab.build import BuildConfig, find_toolchain, matrix
from cpulab.context import PROFILES, Context, Profile, Reporter
from cpulab.experiments import Experiment
from cpulab.machine import fingerprint, fingerprint_key
from cpulab.measure.process_stats import load_1m
from cpulab.measure.runner import ProcessRunner, Runner
from cpulab.paths import ROOT
from cpulab.results import Evidence, RunConditions, RunRecord, Verdict


class LabError(RuntimeError):
    """A request the lab cannot carry out (unknown compiler, empty matrix)."""


@dataclass(frozen=True)
class Selection:
    """What the user asked for on the command line (None: the experiment's default)."""

    compilers: Sequence[str] | None = None
    opts: Sequence[str] | None = None
    pgo: bool = True
    rounds: int | None = None  # processes per program at least, instead of the profile's


def configs_for(exp: Experiment, sel: Selection, note: Callable[[str], None]) -> list[BuildConfig]:
    """The experiment's build matrix, narrowed by the selection; missing compilers noted."""
    tcs = []
    for spec in sel.compilers or exp.compilers:
        tc = find_toolchain(spec)
        if tc is None:
            note(f"compiler {spec!r} not found: its builds are skipped (run `make setup`)")
        elif tc not in tcs:
            tcs.append(tc)
    opts = list(sel.opts or exp.opts)
    pgo = [o for o in exp.pgo_opts if o in opts] if sel.pgo else []
    return matrix(tcs, opts, pgo)


def with_rounds(profile: Profile, rounds: int | None) -> Profile:
    """The profile with at least `rounds` processes per program (None: as it is): fewer
    for a long sweep that must end sooner, at the price of wider intervals, or more for
    a narrower one; the profile's bound on added rounds rises with it."""
    if rounds is None:
        return profile
    return replace(profile, rounds=rounds, max_rounds=max(profile.max_rounds, rounds))


def experiment_budget(exp: Experiment, profile: Profile) -> float | None:
    """The seconds `exp`'s measurements may add rounds for: its own where it sets one,
    else the profile's; none in a profile that bounds no experiment (quick, full)."""
    if profile.experiment_budget_s is None:
        return None
    return exp.budget_s if exp.budget_s is not None else profile.experiment_budget_s


def run_experiment(
    exp: Experiment, profile: str, sel: Selection = Selection(),
    runner: Runner | None = None, reporter: Reporter | None = None,
) -> RunRecord:
    """Run one experiment; returns its record (status `failed` if it raised)."""
    prof = with_rounds(PROFILES[profile], sel.rounds)
    ctx = Context(prof, [], runner or ProcessRunner(), reporter or Reporter(),
                  budget_s=experiment_budget(exp, prof))
    if sel.rounds:
        ctx.note(f"--rounds {sel.rounds}: at least {sel.rounds} processes per program "
                 f"(the {profile} profile's {PROFILES[profile].rounds})")
    ctx.configs = configs_for(exp, sel, ctx.note)
    started = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.monotonic()
    load_start = load_1m()
    fp = fingerprint()
    status, cases, verdicts, evidence = "complete", [], [], Evidence()
    if not ctx.configs and exp.compilers:  # an experiment of whole commands builds nothing
        raise LabError(f"{exp.name}: no compiler of {list(sel.compilers or exp.compilers)} "
                       "is installed; nothing to build")
    try:
        cases = exp.run(ctx)
        evidence = exp.evidence(ctx, cases)
        verdicts = exp.verdicts(cases, evidence)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # an experiment's bug must not take the other experiments down
        status = "failed"
        ctx.note(f"experiment failed: {type(e).__name__}: {e}")
        ctx.note("".join(traceback.format_exception(e)[-3:]).strip())
    conditions = RunConditions.of(cases, load_start, load_1m())
    mark_disturbed(verdicts, conditions)
    return RunRecord(
        experiment=exp.name, seed_row=exp.seed_row, title=exp.title, profile=profile,
        started=started, duration_s=round(time.monotonic() - t0, 3), machine=fp,
        machine_key=fingerprint_key(fp), lab_revision=lab_revision(),
        builds=[c.as_dict() for c in ctx.configs], cases=cases, verdicts=verdicts,
        seed_tables=exp.seed_tables(), evidence=evidence, notes=ctx.notes, status=status,
        conditions=conditions,
    )


def mark_disturbed(verdicts: list[Verdict], conditions: RunConditions) -> None:
    """A verdict taken on a disturbed machine says so in its evidence, with the reasons:
    read on its own (an export, `cpulab compare`), it still carries the warning."""
    if conditions.disturbed:
        why = "; ".join(conditions.disturbed)
        for v in verdicts:
            v.evidence += f" [measured on a disturbed machine: {why}]"


# A copy of the sources without .git (a fleet host's, fleet/lab.yml) says in this file
# which commit it was made from.
REVISION_FILE = ".cpulab-revision"


def lab_revision() -> str:
    """The checkout's commit, with `+dirty` when the work tree differs from it; in a copy
    without git, the commit its REVISION_FILE names."""
    def git(*args: str) -> str | None:
        try:
            p = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True,
                               text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return p.stdout.strip() if p.returncode == 0 else None

    rev = git("rev-parse", "--short=12", "HEAD")
    if rev is None:
        copied = ROOT / REVISION_FILE
        if copied.is_file() and copied.read_text().strip():
            return copied.read_text().strip()
        return "unknown (not a git checkout)"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return rev + ("+dirty" if dirty else "")
