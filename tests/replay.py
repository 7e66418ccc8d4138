"""Recorded kernel output, played back through the scripted runner: an experiment's whole
`run()` (builds, case sets, metric sources, units, evidence, verdicts) without the
minutes of measuring that a real quick run spends.

`record` runs an experiment's quick profile for real and keeps, per program run, what it
printed (stdout, stderr, exit status; for a callgrind run, its profile's summary lines);
`replay` runs the experiment again with a runner that answers each program from that
recording. The recordings live in tests/data/replay/<experiment>.json.gz (gzip: the
harness's JSON lines repeat themselves, 4-60 KiB a file instead of 0.1-0.6 MiB) and are
made by scripts/record-kernel-output; a test whose recording lacks a program fails with
the command that makes it again.

Program paths differ between checkouts and machines, so a run is keyed by its argv with
paths named portably: a built binary by its target and build ({bin:dispatch-switch@clang-19
-O2}), the checkout as {root}, the build folder as {build}, a temporary path as {tmp}/NAME.
Temporary folder names are random; NAME drops the random part of mkdtemp's names.
"""

from __future__ import annotations

import gzip
import json
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from cpulab import context
from cpulab.build import Artifact
from cpulab.lab import Selection, run_experiment
from cpulab.measure.runner import FakeRunner, ProcessRunner, RunResult
from cpulab.paths import ROOT, build_dir
from cpulab.results import RunRecord

DATA = Path(__file__).parent / "data" / "replay"
REMAKE = "scripts/record-kernel-output"
CALLGRIND_OUT = "--callgrind-out-file="
# The lines of a callgrind profile that cpulab.measure.valgrind reads.
PROFILE_LINES = ("events:", "summary:", "totals:")
# Rounds kept per program: the quick profile's least (a replay asked for more repeats
# them); the adaptive rounds beyond would only make a recording larger.
KEPT_ROUNDS = 3


class Names:
    """Portable names for the paths of one run; built binaries are named as they are built."""

    def __init__(self) -> None:
        self.binaries: dict[str, str] = {}

    def built(self, arts: list[Artifact]) -> list[Artifact]:
        for a in arts:
            self.binaries[str(a.path)] = f"{{bin:{a.target.name}@{a.config.label}}}"
        return arts

    def key(self, argv: Sequence[str], env: dict | None = None) -> str:
        """The run's argv and the environment it adds, named portably."""
        words = [self.portable(a) for a in argv if not a.startswith(CALLGRIND_OUT)]
        if env:
            words.append({k: self.portable(v) for k, v in sorted(env.items())})
        return json.dumps(words)

    def portable(self, text: str) -> str:
        for path, name in sorted(self.binaries.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(path, name)
        text = re.sub(re.escape(tempfile.gettempdir()) + r"/([A-Za-z_.-]*?)[a-z0-9_]{8}(?=/)",
                      r"{tmp}/\1", text)
        return text.replace(str(build_dir()), "{build}").replace(str(ROOT), "{root}")

    def local(self, text: str) -> str:
        """The inverse for what a program printed: portable names back to this checkout's."""
        for path, name in self.binaries.items():
            text = text.replace(name, path)
        return text.replace("{build}", str(build_dir())).replace("{root}", str(ROOT))


@contextmanager
def naming(names: Names) -> Iterator[None]:
    """Every binary the experiment builds gets its portable name."""
    real = context.build

    def build(pairs, **kw):
        return names.built(real(pairs, **kw))

    with mock.patch.object(context, "build", build):
        yield


def live(argv: Sequence[str]) -> bool:
    """The runs a replay makes for real: a VM's dispatch trace (`--trace FILE`:
    deterministic, and read back from the file it writes). Peer scripts' lookups are
    replayed like the rest, so a replay measures the peers its recording had whatever
    this machine has built (protobuf's has none: it builds against them)."""
    return "--trace" in argv


def _profile_out(argv: Sequence[str]) -> Path | None:
    return next((Path(a[len(CALLGRIND_OUT):]) for a in argv if a.startswith(CALLGRIND_OUT)),
                None)


class Recorder(ProcessRunner):
    """Runs every program for real and keeps what it printed, in call order per argv."""

    def __init__(self, names: Names):
        self.names = names
        self.runs: dict[str, list[dict]] = {}

    def run(self, argv, timeout, env=None, cwd=None) -> RunResult:
        res = super().run(argv, timeout, env, cwd)
        if live(argv):
            return res
        kept = self.runs.setdefault(self.names.key(argv, env), [])
        if len(kept) == KEPT_ROUNDS:
            return res
        out = _profile_out(argv)
        if out is not None and out.exists():  # callgrind: only its profile is read
            kept.append({"rc": res.returncode, "stdout": "", "stderr": "",
                         "profile": [ln for ln in out.read_text().splitlines()
                                     if ln.startswith(PROFILE_LINES)]})
        else:
            kept.append({"rc": res.returncode, "stdout": self.names.portable(res.stdout),
                         "stderr": self.names.portable(res.stderr)})
        return res


class Replayer(FakeRunner):
    """Answers each program from a recording, in the order it was recorded (round after
    round, from the first again when a run asks for more rounds than were kept); runs
    the `live` ones for real; fails every other with the command that records it again."""

    def __init__(self, recording: dict[str, list[dict]], names: Names, experiment: str):
        super().__init__(lambda argv: (0, ""))
        self.recording, self.names = recording, names
        self.experiment = experiment
        self.asked: dict[str, int] = {}
        self.missing: list[str] = []
        self.real = ProcessRunner()

    def run(self, argv, timeout, env=None, cwd=None) -> RunResult:
        self.calls.append(tuple(argv))
        if live(argv):
            return self.real.run(argv, timeout, env, cwd)
        key = self.names.key(argv, env)
        kept = self.recording.get(key)
        if not kept:
            self.missing.append(key)
            return RunResult(tuple(argv), 127, "",
                             f"not recorded: {key} (`{REMAKE} {self.experiment}`)")
        n = self.asked.get(key, 0)
        self.asked[key] = n + 1
        got = kept[n % len(kept)]
        out = _profile_out(argv)
        if out is not None and "profile" in got:
            out.write_text("\n".join(got["profile"]) + "\n")
        return RunResult(tuple(argv), got["rc"], self.names.local(got["stdout"]),
                         self.names.local(got["stderr"]))


def recording_path(experiment: str) -> Path:
    return DATA / f"{experiment}.json.gz"


def record(experiment, **selection) -> tuple[RunRecord, dict[str, list[dict]]]:
    """A real quick run of `experiment` and what each of its programs printed."""
    names = Names()
    recorder = Recorder(names)
    with naming(names):
        rec = run_experiment(experiment, "quick", Selection(**selection), runner=recorder)
    return rec, recorder.runs


def replay(experiment, **selection) -> tuple[RunRecord, Replayer]:
    """The experiment's quick run with its programs answered from its recording; the
    selection (compilers=["gcc"]) must be the one it was recorded with."""
    path = recording_path(experiment.name)
    recording = json.loads(gzip.decompress(path.read_bytes()))["runs"]
    names = Names()
    runner = Replayer(recording, names, experiment.name)
    with naming(names):
        rec = run_experiment(experiment, "quick", Selection(**selection), runner=runner)
    assert not runner.missing, (f"{path.name} lacks {runner.missing[:3]}: "
                                f"`{REMAKE} {experiment.name}` records it again")
    return rec, runner
