"""The experiments, one module each, found by discovery: every module of this package
that defines `EXPERIMENT` (an `Experiment` instance) is one. Listed in seed-row order."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from cpulab.experiments.base import Experiment

# Modules of this package that are machinery, not experiments.
_NOT_EXPERIMENTS = {"base"}


_import_errors: dict[str, str] = {}


@functools.cache
def _registry() -> dict[str, str]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_") or info.name in _NOT_EXPERIMENTS:
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except Exception as e:  # one broken module must not take the others down
            _import_errors[info.name] = f"{type(e).__name__}: {e}"
            continue
        exp = getattr(module, "EXPERIMENT", None)
        if isinstance(exp, Experiment):
            found.append((_row_number(exp.seed_row), exp.name, module.__name__))
    return {name: mod for _, name, mod in sorted(found)}


def _row_number(row: str) -> int:
    digits = "".join(ch for ch in row.split(",")[0] if ch.isdigit())
    return int(digits) if digits else 999


def import_errors() -> dict[str, str]:
    """module -> why it could not be imported (its experiment is then missing)."""
    _registry()
    return dict(_import_errors)


def names() -> list[str]:
    return list(_registry())


def get(name: str) -> Experiment:
    reg = _registry()
    if name not in reg:
        raise KeyError(name)
    return importlib.import_module(reg[name]).EXPERIMENT


def all_experiments() -> list[Experiment]:
    return [get(n) for n in _registry()]


__all__ = ["Experiment", "all_experiments", "get", "import_errors", "names"]
