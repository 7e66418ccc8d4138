"""The indirect-branch predictor models, native/lib/bpmodel and cpulab.model (S1, `model`).

- S1's shape on Ertl's `direct` program (next1 next2 next1 next3 next1 next4 next1 next5
  next1 loop): a last-target (BTB-only) predictor misses every dispatch of a single
  shared jump site and half of them with one site per handler; the history-based
  ITTAGE-like predictor misses almost none in either layout.
- The C library and the plain-Python transcription (cpulab.model.reference) give the
  same counts on random and structured traces and on small configurations that force
  conflicts, replacements and useful-bit resets.
- Properties that a wrong model breaks: random targets stay unpredictable, LRU keeps
  exactly `ways` sites per set, bad configurations are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from cpulab.model import (
    ertl_direct_trace,
    ittage,
    last_target,
    reference_simulate,
    simulate,
    simulate_vm_trace,
    split_vm_trace,
)

ITERATIONS = 100_000  # 10^6 dispatches


@pytest.mark.parametrize("shared", [True, False], ids=["shared-site", "replicated-sites"])
def test_ertl_direct_pattern_s1_shape(shared):
    sites, targets = ertl_direct_trace(ITERATIONS, shared)
    assert len(sites) == 10 * ITERATIONS
    lt = simulate(sites, targets, last_target())
    hist = simulate(sites, targets, ittage())
    assert lt.branches == hist.branches == 10 * ITERATIONS
    assert lt.source == hist.source == "model"
    if shared:
        # one site: the next target always differs from the last one
        assert lt.misses == lt.branches
    else:
        # one site per handler: only next1's jump changes target (5 of 10 dispatches);
        # the 5 other sites miss once each, cold
        assert lt.misses == 5 * ITERATIONS + 5
    # history tells next1's dispatches apart: only the warm-up misses
    assert hist.misses < 100, hist
    assert hist.miss_rate < 1e-4
    # the tagged (history) tables predict at least next1's rotating jump; with one
    # site they predict everything
    assert hist.provided > (0.99 if shared else 0.5) * hist.branches


def test_ertl_trace_layout():
    s, t = ertl_direct_trace(2, shared=False)
    # next1=0 next2=1 ... loop=5; the site is 1 + the dispatching handler
    assert list(t[:10]) == [1, 0, 2, 0, 3, 0, 4, 0, 5, 0]
    assert list(s[:10]) == [1, 2, 1, 3, 1, 4, 1, 5, 1, 6]
    s, _ = ertl_direct_trace(2, shared=True)
    assert not s.any()


def test_random_targets_stay_unpredictable():
    """No model may beat chance on independent uniform targets (it cannot see the future)."""
    rng = np.random.default_rng(7)
    n, k = 200_000, 8
    sites = rng.integers(0, 4, n)
    targets = rng.integers(0, k, n)
    for cfg in (last_target(), ittage()):
        r = simulate(sites, targets, cfg)
        assert abs(r.miss_rate - (1 - 1 / k)) < 0.01, (cfg.label, r.miss_rate)


def test_pattern_needs_history_length():
    """One site; after six 1s comes 2 or 4, decided by the target seven branches back
    (0 or 3). Tables whose history reaches back 4 branches cannot tell the two apart;
    the default lengths (up to 64) can."""
    pattern = np.array([0, 1, 1, 1, 1, 1, 1, 2, 3, 1, 1, 1, 1, 1, 1, 4])
    targets = np.tile(pattern, 20_000)
    sites = np.zeros_like(targets)
    short = simulate(sites, targets, ittage(ntables=2, hist_len=(2, 4)))
    full = simulate(sites, targets, ittage())
    assert short.miss_rate > 0.1, short  # 2 of 16 at least: the ambiguous dispatches
    assert full.miss_rate < 0.001, full


def test_lru_keeps_exactly_ways_sites():
    # 4 entries, 4 ways: one set. 4 sites cycling with fixed targets: only cold misses;
    # 5 sites cycling: LRU evicts each just before its next use, every access misses.
    for nsites, misses in ((4, 4), (5, 5 * 1000)):
        sites = np.tile(np.arange(nsites), 1000)
        targets = sites + 100
        r = simulate(sites, targets, last_target(btb_entries=4, btb_ways=4))
        assert r.misses == misses == r.btb_cold, (nsites, r)


CONFIGS = [
    last_target(),
    last_target(btb_entries=8, btb_ways=2),
    ittage(),
    # small tables, short tags, fast useful reset: conflicts, replacements, resets
    ittage(btb_entries=16, btb_ways=2, ntables=3, log_entries=4, tag_bits=5, hist_bits=3,
           hist_len=(1, 3, 7), useful_reset_log=8),
    ittage(ntables=4, log_entries=6, tag_bits=8, hist_bits=6, hist_len=(3, 9, 27, 81)),
]


def _traces():
    rng = np.random.default_rng(11)
    yield "random", rng.integers(0, 40, 6000), rng.integers(0, 9, 6000)
    s, t = ertl_direct_trace(400, shared=True)
    yield "ertl-shared", s, t
    # a loop with data-dependent exits: correlated but not periodic
    x = np.cumsum(rng.integers(0, 3, 6000)) % 13
    yield "correlated", (x % 5), (x * 7) % 11


@pytest.mark.parametrize("cfg", CONFIGS, ids=[f"{i}-{c.label}" for i, c in enumerate(CONFIGS)])
def test_c_matches_python_transcription(cfg):
    for name, sites, targets in _traces():
        c = simulate(sites, targets, cfg)
        py = reference_simulate(sites, targets, cfg)
        assert (c.branches, c.misses, c.btb_cold, c.provided) == (
            py.branches, py.misses, py.btb_cold, py.provided), (name, cfg, c, py)
        assert 0 < c.misses <= c.branches, (name, cfg.label)


def test_deterministic_and_vm_records():
    rng = np.random.default_rng(3)
    sites = rng.integers(0, 300, 50_000)
    targets = rng.integers(0, 40, 50_000)
    records = ((sites << 8) | targets).astype(np.uint32)
    s2, t2 = split_vm_trace(records)
    assert np.array_equal(s2, sites) and np.array_equal(t2, targets)
    for cfg in (last_target(), ittage()):
        a = simulate(sites, targets, cfg)
        assert a == simulate(sites, targets, cfg) == simulate_vm_trace(records, cfg)


@pytest.mark.parametrize("bad", [
    last_target(btb_entries=3000),
    last_target(btb_entries=4, btb_ways=8),
    ittage(hist_len=(4, 2, 8, 16, 32, 64)),
    ittage(hist_bits=12),
    ittage(ntables=13, hist_len=tuple(range(1, 14))),
    ittage(tag_bits=1),
])
def test_bad_configurations_refused(bad):
    with pytest.raises(ValueError):
        simulate([1, 2], [3, 4], bad)


def test_empty_trace():
    r = simulate([], [], ittage())
    assert r.branches == r.misses == 0 and r.miss_rate == 0.0
