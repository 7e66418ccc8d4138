"""Trace-driven models of indirect-branch prediction (every figure: source `model`).

The C library native/lib/bpmodel does the work (about 10^7 branches per second);
`reference.py` transcribes it in plain Python, slowly, so that tests can check the two
agree branch for branch. `traces.py` makes synthetic traces (Ertl's `direct` program)
and splits the VM's dispatch records.
"""

from cpulab.model.bpmodel import (
    ModelResult,
    PredictorConfig,
    default_predictors,
    ittage,
    last_target,
    simulate,
    simulate_vm_trace,
)
from cpulab.model.reference import reference_simulate
from cpulab.model.traces import ERTL_DIRECT_PROGRAM, ertl_direct_trace, split_vm_trace

__all__ = [
    "ERTL_DIRECT_PROGRAM",
    "ModelResult",
    "PredictorConfig",
    "default_predictors",
    "ertl_direct_trace",
    "ittage",
    "last_target",
    "reference_simulate",
    "simulate",
    "simulate_vm_trace",
    "split_vm_trace",
]
