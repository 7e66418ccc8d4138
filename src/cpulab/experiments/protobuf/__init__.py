"""Experiment `protobuf` (S14): the experiment (experiment.py), its payloads and the C++
peer's generated code (payloads.py), and the upb-through-Python timing program (upb.py)."""

from cpulab.experiments.protobuf.experiment import EXPERIMENT

__all__ = ["EXPERIMENT"]
