"""The predictors of native/lib/bpmodel, transcribed to plain Python.

Slow (about 10^4 branches per second for ITTAGE) and written for reading: the tests run
both on the same traces and require identical counts, which pins the C code to this
description. Folded history: a table with history length L keeps
F = xor over the last L chunks c_a (age a = 0 newest) of rotl(c_a, a * hb mod w, w),
updated per branch as F' = rotl(F, hb) ^ c_new ^ rotl(c_out, L * hb), where c_out
is the chunk that just became L branches old.
"""

from __future__ import annotations

from cpulab.model.bpmodel import ModelResult, PredictorConfig

M32 = 0xFFFFFFFF


def mix32(x: int) -> int:
    x &= M32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & M32
    x ^= x >> 16
    return x


def rotl(x: int, r: int, w: int) -> int:
    mask = (1 << w) - 1
    if r == 0:
        return x & mask
    return ((x << r) | (x >> (w - r))) & mask


class _Btb:
    def __init__(self, entries: int, ways: int) -> None:
        self.sets, self.ways = entries // ways, ways
        self.e = [[None] * ways for _ in range(self.sets)]  # [site, target, stamp] or None
        self.clock = 0

    def access(self, site: int, actual: int) -> int | None:
        row = self.e[mix32(site) & (self.sets - 1)]
        self.clock += 1
        victim = 0
        for w, ent in enumerate(row):
            if ent is not None and ent[0] == site:
                pred = ent[1]
                ent[1], ent[2] = actual, self.clock
                return pred
            stamp = 0 if ent is None else ent[2]
            vstamp = 0 if row[victim] is None else row[victim][2]
            if stamp < vstamp:
                victim = w
        row[victim] = [site, actual, self.clock]
        return None


def _last_target(sites, targets, cfg: PredictorConfig) -> ModelResult:
    btb = _Btb(cfg.btb_entries, cfg.btb_ways)
    misses = cold = 0
    for s, t in zip(sites, targets, strict=True):
        pred = btb.access(int(s), int(t))
        cold += pred is None
        misses += pred != int(t)
    return ModelResult(cfg.label, len(sites), misses, cold, 0, cfg.as_dict())


def _ittage(sites, targets, cfg: PredictorConfig) -> ModelResult:
    n, log, tb, hb = cfg.ntables, cfg.log_entries, cfg.tag_bits, cfg.hist_bits
    mask, tmask = (1 << log) - 1, (1 << tb) - 1
    # entry: [valid, tag, target, ctr, useful]
    tables = [[[0, 0, 0, 0, 0] for _ in range(1 << log)] for _ in range(n)]
    widths = (log, tb, tb - 1)
    folds = [[0, 0, 0] for _ in range(n)]  # idx, tag1, tag2
    ring = [0] * 1024
    pos = 0
    btb = _Btb(cfg.btb_entries, cfg.btb_ways)
    misses = cold = provided = count = 0
    for s, actual in zip(sites, targets, strict=True):
        site, actual = int(s), int(actual)
        h = mix32(site)
        idx = [(h ^ (h >> log) ^ folds[i][0]) & mask for i in range(n)]
        tag = [((h >> 7) ^ folds[i][1] ^ (folds[i][2] << 1)) & tmask for i in range(n)]
        prov = alt = -1
        for i in range(n - 1, -1, -1):
            e = tables[i][idx[i]]
            if e[0] and e[1] == tag[i]:
                if prov < 0:
                    prov = i
                elif alt < 0:
                    alt = i
        base_pred = btb.access(site, actual)
        cold += base_pred is None
        alt_pred = tables[alt][idx[alt]][2] if alt >= 0 else base_pred
        if prov >= 0:
            e = tables[prov][idx[prov]]
            provided += 1
            pred = e[2] if (e[3] > 0 or alt_pred is None) else alt_pred
            pc, ac = e[2] == actual, alt_pred == actual
            if pc != ac:
                e[4] = int(pc)
            if pc:
                e[3] = min(3, e[3] + 1)
            elif e[3] > 0:
                e[3] -= 1
            else:
                e[2] = actual
        else:
            pred = base_pred
        miss = pred != actual
        misses += miss
        if miss and prov < n - 1:
            free = [j for j in range(prov + 1, n) if not tables[j][idx[j]][0]
                    or not tables[j][idx[j]][4]]
            for j in free[:2]:  # up to two fresh entries
                tables[j][idx[j]] = [1, tag[j], actual, 0, 0]
            if not free:
                for j in range(prov + 1, n):
                    tables[j][idx[j]][4] = 0
        count += 1
        if count % (1 << cfg.useful_reset_log) == 0:
            for t in tables:
                for e in t:
                    e[4] = 0
        chunk = mix32((actual * 0x9E3779B1 + site) & M32) >> (32 - hb)
        pos = (pos + 1) % 1024
        ring[pos] = chunk
        for i in range(n):
            length = cfg.hist_len[i]
            old = ring[(pos - length) % 1024]
            for k in range(3):
                w = widths[k]
                folds[i][k] = rotl(folds[i][k], hb % w, w) ^ chunk ^ rotl(old, (length * hb) % w, w)
    return ModelResult(cfg.label, len(sites), misses, cold, provided, cfg.as_dict())


def reference_simulate(sites, targets, cfg: PredictorConfig) -> ModelResult:
    """What `simulate` computes, in Python (use on traces of at most ~10^5 branches)."""
    if cfg.kind == "last-target":
        return _last_target(list(sites), list(targets), cfg)
    if cfg.kind == "ittage":
        return _ittage(list(sites), list(targets), cfg)
    raise ValueError(f"unknown predictor kind {cfg.kind!r}")
