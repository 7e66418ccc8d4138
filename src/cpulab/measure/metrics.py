"""Turn repetitions into per-unit metrics, each with its unit and its source.

Sources: `clock` (CLOCK_MONOTONIC), `tsc` (time-stamp counter ticks), `pmu` (hardware
counters), `sw` (kernel software counters), `callgrind` (exact instruction counts under
valgrind), `model` (a simulated predictor or cache). A counter the machine could not open
is listed in `unavailable` with the reason; it never becomes a zero.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cpulab.measure.kernel_output import KernelOutput, Rep
from cpulab.measure.stats import Sample, summarize

# harness counter -> (metric name, unit pattern); {u} is the case's unit
_COUNTER_METRICS = {
    "cycles": ("cycles", "cycles/{u}"),
    "instructions": ("instructions", "instructions/{u}"),
    "branches": ("branches", "branches/{u}"),
    "branch-misses": ("branch-misses", "misses/{u}"),
    "task-clock": ("task-clock", "ns/{u}"),
    "page-faults": ("page-faults", "faults/{u}"),
    "context-switches": ("context-switches", "switches/{u}"),
}


@dataclass(frozen=True)
class Metric:
    median: float
    mad: float
    n: int
    unit: str
    source: str
    min: float | None = None
    max: float | None = None
    values: tuple[float, ...] = ()  # the per-repetition figures, for ratios with intervals
    # The process (round) that measured each figure; empty: every figure is a process of
    # its own (a whole command's run, or a record stored before figures were tagged).
    processes: tuple[int, ...] = ()

    @classmethod
    def of(cls, values: list[float], unit: str, source: str,
           processes: Sequence[int] = ()) -> Metric:
        s = summarize(values)
        return cls(s.median, s.mad, s.n, unit, source, s.min, s.max, tuple(values),
                   tuple(processes))

    def derive(self, f: Callable[[float], float], unit: str, source: str | None = None
               ) -> Metric:
        """Another figure computed from each of this one's (GB/s from ns/byte), measured
        by the same processes."""
        return Metric.of([f(v) for v in self.values or (self.median,)], unit,
                         source or self.source, self.processes)

    @property
    def sample(self) -> Sample:
        """The figures as statistics reads them: tagged by process; an exact figure
        (n = 1, no figures kept) stands alone."""
        return Sample(self.values or (self.median,), self.processes)

    @classmethod
    def exact(cls, value: float, unit: str, source: str) -> Metric:
        """A deterministic figure (instruction counts, static code properties)."""
        return cls(value, 0.0, 1, unit, source, value, value)

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger figure means faster code: a rate per second (GB/s) or
        instructions per cycle. Every other figure is a cost per unit (time, ticks,
        cycles, misses, faults), where smaller is better. Read from the unit, so that it
        holds for records stored before it was asked."""
        head = self.unit.split()[0] if self.unit.strip() else ""
        return head.endswith("/s") or head == "instructions/cycle"

    def as_dict(self) -> dict:
        d = {"median": self.median, "mad": self.mad, "n": self.n, "unit": self.unit,
             "source": self.source}
        if self.min is not None:
            d["min"], d["max"] = self.min, self.max
        if self.values:
            d["values"] = list(self.values)
        if self.processes:
            d["processes"] = list(self.processes)
        return d


def per_unit_values(reps: list[Rep]) -> dict[str, list[float]]:
    """Raw per-unit series by metric name: time, tsc, and every counter present."""
    series: dict[str, list[float]] = {"time": [r.ns / r.units for r in reps]}
    if all(r.tsc is not None for r in reps):
        series["tsc"] = [r.tsc / r.units for r in reps]  # type: ignore[operator]
    for counter in reps[0].counters if reps else ():
        if all(counter in r.counters for r in reps):
            series[counter] = [r.counters[counter] / r.units for r in reps]
    return series


def case_metrics(out: KernelOutput, case: str) -> tuple[dict[str, Metric], dict[str, dict]]:
    """(metrics, unavailable) for one case of one program's output."""
    reps = [r for r in out.reps if r.case == case]
    if not reps:
        raise ValueError(f"no repetitions for case {case!r}")
    u = reps[0].unit
    series = per_unit_values(reps)
    rounds = [r.round for r in reps]
    metrics: dict[str, Metric] = {"time": Metric.of(series.pop("time"), f"ns/{u}", "clock",
                                                    rounds)}
    if "tsc" in series:
        metrics["tsc"] = Metric.of(series.pop("tsc"), f"ticks/{u}", "tsc", rounds)
    for counter, values in series.items():
        name, unit = _COUNTER_METRICS.get(counter, (counter, f"{counter}/{{u}}"))
        metrics[name] = Metric.of(values, unit.format(u=u), out.counter_source(counter),
                                  rounds)
    if "branches" in metrics and "branch-misses" in metrics:
        rated = [r for r in reps if r.counters.get("branches")]
        if rated:
            metrics["branch-miss-rate"] = Metric.of(
                [100 * r.counters["branch-misses"] / r.counters["branches"] for r in rated],
                "%", "pmu", [r.round for r in rated])
    if "cycles" in metrics and "instructions" in metrics:
        cycled = [r for r in reps if r.counters.get("cycles")]
        if cycled:
            metrics["ipc"] = Metric.of(
                [r.counters["instructions"] / r.counters["cycles"] for r in cycled],
                "instructions/cycle", "pmu", [r.round for r in cycled])
    unavailable = {
        _COUNTER_METRICS.get(k, (k,))[0]: {"source": out.counter_source(k), "reason": reason}
        for k, reason in out.unavailable().items()
    }
    if "tsc" not in metrics:
        unavailable["tsc"] = {"source": "tsc", "reason": out.meta.get("tsc_reason",
                                                                     "no TSC reading")}
    return metrics, unavailable
