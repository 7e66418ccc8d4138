"""One measured case: a variant, the build it ran from, its parameters and its metrics.

A case that could not be measured (a crash, a refused kernel feature, a failed build)
is still a case, with `error` saying why: the report shows it as failed instead of
silently leaving it out.

`conditions` says how busy the machine was while the case's processes ran (None for a
case measured by no process, or stored before it was recorded).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cpulab.build.config import label_of
from cpulab.measure.metrics import Metric
from cpulab.results.conditions import CaseConditions


@dataclass
class Case:
    variant: str
    build: dict | None  # BuildConfig.as_dict(), or None for a peer not built here
    params: dict = field(default_factory=dict)
    metrics: dict[str, Metric] = field(default_factory=dict)
    unavailable: dict[str, dict] = field(default_factory=dict)
    error: str | None = None
    conditions: CaseConditions | None = None

    @property
    def build_label(self) -> str:
        return label_of(self.build)

    def value(self, metric: str) -> float | None:
        m = self.metrics.get(metric)
        return m.median if m else None

    def as_dict(self) -> dict:
        d = {
            "variant": self.variant,
            "build": self.build,
            "params": self.params,
            "metrics": {k: m.as_dict() for k, m in self.metrics.items()},
            "unavailable": self.unavailable,
        }
        if self.error:
            d["error"] = self.error
        if self.conditions:
            d["conditions"] = self.conditions.as_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Case:
        return cls(
            variant=d["variant"], build=d.get("build"), params=d.get("params", {}),
            metrics={k: Metric(**{**m, "values": tuple(m.get("values", ())),
                                  "processes": tuple(m.get("processes", ()))})
                     for k, m in d.get("metrics", {}).items()},
            unavailable=d.get("unavailable", {}), error=d.get("error"),
            conditions=CaseConditions.from_dict(d["conditions"]) if d.get("conditions")
            else None,
        )
