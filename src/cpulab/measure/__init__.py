"""Measurement layer: run kernel programs, read their JSON lines, turn them into metrics.

Runner (how a program is executed) -> kernel_output (parsing the harness's JSON lines)
-> metrics (per-unit figures with unit and source) -> stats (pure statistics).
"""
