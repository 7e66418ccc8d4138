"""Measurement layer: run kernel programs, read their JSON lines, turn them into metrics.

Runner (how a program is executed, and what the machine did meanwhile: process_stats) ->
schedule (programs interleaved round by round, every round's output kept) ->
kernel_output (parsing the harness's JSON lines) -> metrics (per-unit figures with unit
and source) -> stats (pure statistics).
"""
