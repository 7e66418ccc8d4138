"""Running the command under `perf record`, and reading the samples back with `perf script`.

Which event: `cycles` counts what the CPU spends, but needs a hardware PMU; virtual
machines often have none, and perf then silently falls back to `cpu-clock` (a timer
interrupt, by default every 1/F s of CPU time). We ask `perf stat` first so that the
profile says which event it used and why, and check the event in the recorded file
afterwards (`perf evlist`), so that a fallback perf made on its own is reported too.

Both events sample the whole command tree (children inherit the counters) in user and
kernel mode where `perf_event_paranoid` allows it (<= 1, or root); at 2 perf samples
user mode only, which is all that a per-instruction profile needs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cpulab.opprof.errors import OpprofError

# perf's own ceiling is /proc/sys/kernel/perf_event_max_sample_rate (100000 here, lowered
# by the kernel when sampling takes too long); 10 kHz gives ~10,000 samples per second of
# CPU time, a standard error of <= 0.5 percentage points on any share.
DEFAULT_FREQ = 10_000

SCRIPT_FIELDS = "pid,ip,sym,dso"
# Call chains for --inclusive: DWARF unwinding, because interpreters are built without
# frame pointers as a rule (CPython 3.11, Debian's packages); 16 KiB of stack a sample
# reaches from a C helper back to the interpreter's frame.
CALL_GRAPH = "dwarf,16384"


@dataclass(frozen=True)
class Event:
    """The sampling event: what was asked for, what perf used, and why."""

    name: str  # "cycles" or "cpu-clock"
    requested: str
    source: str  # "pmu" (hardware counter) or "clock" (timer interrupt)
    note: str = ""

    def as_dict(self) -> dict:
        return {"name": self.name, "requested": self.requested, "source": self.source,
                "note": self.note}


@dataclass(frozen=True)
class Recording:
    data: Path  # perf.data
    event: Event
    frequency: int
    stderr: str  # perf's and the command's standard error


def find_perf(perf: str = "perf") -> str:
    path = shutil.which(perf)
    if not path:
        raise OpprofError(f"perf not found ({perf!r} is not on PATH)",
                          "install it: apt-get install linux-perf (Debian), linux-tools (Ubuntu)")
    return path


def max_frequency() -> int | None:
    try:
        return int(Path("/proc/sys/kernel/perf_event_max_sample_rate").read_text())
    except (OSError, ValueError):
        return None


def _paranoid() -> str:
    try:
        return Path("/proc/sys/kernel/perf_event_paranoid").read_text().strip()
    except OSError:
        return "?"


def _cannot_sample(message: str) -> OpprofError:
    level = _paranoid()
    return OpprofError(
        f"perf cannot sample: {message.strip() or 'no reason given'} "
        f"(kernel.perf_event_paranoid = {level})",
        "run as root, or lower the setting: sysctl kernel.perf_event_paranoid=1",
    )


def choose_event(perf: str, requested: str = "cycles") -> Event:
    """`cycles` where the PMU counts them, else `cpu-clock`, with the reason."""
    if requested != "cycles":
        source = "clock" if requested in ("cpu-clock", "task-clock") else "pmu"
        return Event(requested, requested, source)
    try:
        probe = subprocess.run([perf, "stat", "-x,", "-e", "cycles", "--", "true"],
                               capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise OpprofError(f"perf stat could not run: {e}") from e
    text = probe.stderr + probe.stdout
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("cycles"):
            if fields[0].startswith("<"):
                why = fields[0].strip("<>")
                return Event("cpu-clock", "cycles", "clock",
                             f"cycles {why} here (no hardware PMU, e.g. a virtual machine); "
                             "sampled cpu-clock, a timer, instead")
            return Event("cycles", "cycles", "pmu")
    if probe.returncode != 0 and ("paranoid" in text or "ermission" in text):
        raise _cannot_sample(text)
    return Event("cpu-clock", "cycles", "clock",
                 f"perf stat did not report cycles ({text.strip()[:200]!r}); sampled cpu-clock")


def _recorded_event(perf: str, data: Path) -> str | None:
    out = subprocess.run([perf, "evlist", "-i", str(data)], capture_output=True, text=True)
    names = [ln.strip() for ln in out.stdout.splitlines() if ln.strip() and ln[0] != "#"]
    return names[0] if names else None


def _check_command(command: list[str]) -> None:
    if not command:
        raise OpprofError("no command to profile",
                          "put it after `--`: cpulab opprof -- ./lua x.lua")
    exe = command[0]
    if os.sep in exe:
        if not os.path.exists(exe):
            raise OpprofError(f"command failed: {exe} does not exist")
        if not os.access(exe, os.X_OK):
            raise OpprofError(f"command failed: {exe} is not executable")
    elif not shutil.which(exe):
        raise OpprofError(f"command failed: {exe!r} not found on PATH")


def record(command: list[str], workdir: Path, *, freq: int = DEFAULT_FREQ,
           event: str = "cycles", perf: str = "perf", call_graph: bool = False
           ) -> Recording:
    """Run `command` under perf record into workdir/perf.data.

    The command's standard output goes to our standard error, so that `--json` output
    stays parseable; its standard error is kept for the error message if it fails.
    """
    perf = find_perf(perf)
    _check_command(command)
    ev = choose_event(perf, event)
    ceiling = max_frequency()
    if ceiling is not None and freq > ceiling:
        # perf refuses a rate above the kernel's ceiling, which the kernel itself lowers
        # when sampling interrupts take too long
        ev = Event(ev.name, ev.requested, ev.source,
                   (ev.note + "; " if ev.note else "") +
                   f"-F {freq} lowered to the kernel's ceiling {ceiling} "
                   "(kernel.perf_event_max_sample_rate)")
        freq = ceiling
    data = workdir / "perf.data"
    errfile = workdir / "stderr.txt"
    chains = ["--call-graph", CALL_GRAPH] if call_graph else []
    cmd = [perf, "record", "-e", ev.name, "-F", str(freq), *chains, "-o", str(data), "--",
           *command]
    with open(errfile, "w+b") as err:
        try:
            # stdout=2: the command's output joins ours on file descriptor 2
            proc = subprocess.run(cmd, stdout=2, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            raise OpprofError(f"perf record could not start: {e}") from e
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    perf_ran = "perf record: Captured and wrote" in stderr
    if not perf_ran:
        low = stderr.lower()
        if "paranoid" in low or "permission" in low or "not permitted" in low:
            raise _cannot_sample(stderr)
        if "failed to collect" in low or "workload failed" in low:
            raise OpprofError(f"command failed to start: {' '.join(command)}\n{_tail(stderr)}")
        raise OpprofError(f"perf record failed (exit {proc.returncode}):\n{_tail(stderr)}")
    if proc.returncode != 0:
        raise OpprofError(
            f"command failed (exit {proc.returncode}): {' '.join(command)}\n{_tail(stderr)}",
            "the profile is only made of a run that succeeds",
        )
    used = _recorded_event(perf, data)
    if used and used.split(":")[0] != ev.name:
        ev = Event(used.split(":")[0], ev.requested, "clock" if "clock" in used else "pmu",
                   f"perf used {used} instead of {ev.name}")
    return Recording(data, ev, freq, stderr)


def _tail(text: str, lines: int = 15) -> str:
    keep = [ln for ln in text.splitlines() if not ln.startswith("[ perf record:")]
    return "\n".join("  | " + ln for ln in keep[-lines:])


def script(recording: Recording, perf: str = "perf") -> str:
    """perf script's text: samples (pid, ip, symbol, dso) and the mmap/fork/exec events
    that say which file each address belongs to."""
    perf = find_perf(perf)
    cmd = [perf, "script", "-i", str(recording.data), "-F", SCRIPT_FIELDS,
           "--hide-call-graph", "--show-mmap-events", "--show-task-events"]
    out = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if out.returncode != 0:
        raise OpprofError(f"perf script failed (exit {out.returncode}):\n{_tail(out.stderr)}")
    return out.stdout


def script_callchains(recording: Recording, perf: str = "perf") -> str:
    """perf script's call chains of a recording made with call_graph=True: per sample a
    `pid` line, then one line per frame, leaf first (`addr sym (dso)`)."""
    perf = find_perf(perf)
    cmd = [perf, "script", "-i", str(recording.data), "-F", SCRIPT_FIELDS]
    out = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if out.returncode != 0:
        raise OpprofError(f"perf script failed (exit {out.returncode}):\n{_tail(out.stderr)}")
    return out.stdout
