"""ctypes binding of native/lib/bpmodel: predictor configurations and `simulate`.

The library is built on first use through the build layer (cached by content). Inputs
are numpy uint32 arrays; nothing is copied beyond making them contiguous.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass, field

import numpy as np

from cpulab.build import library

_MAX_TABLES = 12
_KINDS = {"last-target": 0, "ittage": 1}


class _Config(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("btb_entries", ctypes.c_uint32),
        ("btb_ways", ctypes.c_uint32),
        ("ntables", ctypes.c_uint32),
        ("log_entries", ctypes.c_uint32),
        ("tag_bits", ctypes.c_uint32),
        ("hist_bits", ctypes.c_uint32),
        ("hist_len", ctypes.c_uint32 * _MAX_TABLES),
        ("useful_reset_log", ctypes.c_uint32),
    ]


class _Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in ("branches", "misses", "btb_cold", "provided")]


@dataclass(frozen=True)
class PredictorConfig:
    """One predictor; the defaults are those documented in bpmodel.h."""

    kind: str  # "last-target" | "ittage"
    btb_entries: int = 4096
    btb_ways: int = 4
    ntables: int = 6
    log_entries: int = 9
    tag_bits: int = 11
    hist_bits: int = 8
    hist_len: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
    useful_reset_log: int = 18

    @property
    def label(self) -> str:
        """Short name for tables: "last-target 4096x4", "ittage 6x512"."""
        if self.kind == "last-target":
            return f"last-target {self.btb_entries}x{self.btb_ways}"
        return f"ittage {self.ntables}x{1 << self.log_entries}"

    def as_dict(self) -> dict:
        d = {"kind": self.kind, "btb_entries": self.btb_entries, "btb_ways": self.btb_ways}
        if self.kind == "ittage":
            d.update(ntables=self.ntables, log_entries=self.log_entries,
                     tag_bits=self.tag_bits, hist_bits=self.hist_bits,
                     hist_len=list(self.hist_len), useful_reset_log=self.useful_reset_log)
        return d

    def _c(self) -> _Config:
        if self.kind not in _KINDS:
            raise ValueError(f"predictor kind must be one of {sorted(_KINDS)}, not {self.kind!r}")
        if len(self.hist_len) != self.ntables and self.kind == "ittage":
            raise ValueError(f"hist_len has {len(self.hist_len)} lengths for {self.ntables} tables")
        lens = (ctypes.c_uint32 * _MAX_TABLES)(*self.hist_len[:_MAX_TABLES])
        return _Config(_KINDS[self.kind], self.btb_entries, self.btb_ways, self.ntables,
                       self.log_entries, self.tag_bits, self.hist_bits, lens,
                       self.useful_reset_log)


def last_target(**kw) -> PredictorConfig:
    return PredictorConfig("last-target", **kw)


def ittage(**kw) -> PredictorConfig:
    return PredictorConfig("ittage", **kw)


def default_predictors() -> list[PredictorConfig]:
    return [last_target(), ittage()]


@dataclass(frozen=True)
class ModelResult:
    predictor: str
    branches: int
    misses: int
    btb_cold: int
    provided: int
    config: dict = field(default_factory=dict, compare=False)
    source: str = "model"

    @property
    def miss_rate(self) -> float:
        return self.misses / self.branches if self.branches else 0.0


@functools.cache
def _lib() -> ctypes.CDLL:
    path = library("bpmodel").build_shared("gcc", "O2")
    lib = ctypes.CDLL(str(path))
    u32p = ctypes.POINTER(ctypes.c_uint32)
    lib.bpmodel_trace_simulate.argtypes = [ctypes.POINTER(_Config), u32p, u32p,
                                           ctypes.c_size_t, ctypes.POINTER(_Stats)]
    lib.bpmodel_trace_simulate.restype = ctypes.c_int
    lib.bpmodel_vmtrace_simulate.argtypes = [ctypes.POINTER(_Config), u32p, ctypes.c_size_t,
                                             ctypes.POINTER(_Stats)]
    lib.bpmodel_vmtrace_simulate.restype = ctypes.c_int
    lib.bpmodel_status_str.argtypes = [ctypes.c_int]
    lib.bpmodel_status_str.restype = ctypes.c_char_p
    return lib


def _u32(a) -> np.ndarray:
    return np.ascontiguousarray(np.asarray(a, dtype=np.uint32))


def _result(cfg: PredictorConfig, st: int, stats: _Stats) -> ModelResult:
    if st != 0:
        raise ValueError(f"bpmodel: {_lib().bpmodel_status_str(st).decode()} ({cfg})")
    return ModelResult(cfg.label, stats.branches, stats.misses, stats.btb_cold, stats.provided,
                       cfg.as_dict())


def simulate(sites, targets, cfg: PredictorConfig) -> ModelResult:
    """Misses of predictor `cfg` over branches (sites[i], targets[i]), from a cold start."""
    s, t = _u32(sites), _u32(targets)
    if s.shape != t.shape or s.ndim != 1:
        raise ValueError("sites and targets must be 1-d arrays of the same length")
    stats = _Stats()
    u32p = ctypes.POINTER(ctypes.c_uint32)
    st = _lib().bpmodel_trace_simulate(ctypes.byref(cfg._c()), s.ctypes.data_as(u32p),
                                       t.ctypes.data_as(u32p), len(s), ctypes.byref(stats))
    return _result(cfg, st, stats)


def simulate_vm_trace(records, cfg: PredictorConfig) -> ModelResult:
    """The same for the VM's dispatch records (site << 8 | opcode)."""
    r = _u32(records)
    stats = _Stats()
    st = _lib().bpmodel_vmtrace_simulate(ctypes.byref(cfg._c()),
                                         r.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)),
                                         len(r), ctypes.byref(stats))
    return _result(cfg, st, stats)


__all__ = ["ModelResult", "PredictorConfig", "default_predictors", "ittage", "last_target",
           "simulate", "simulate_vm_trace"]
