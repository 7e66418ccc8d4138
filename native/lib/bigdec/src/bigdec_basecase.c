/* bigdec_basecase.c — small numbers: peel 19-digit chunks by dividing by 10^19.
 *
 * Each pass divides the whole number by 10^19, limb by limb from the top, and keeps the
 * remainder as the next chunk (least significant first); an n-limb number takes ~n
 * passes, n^2/2 limb divisions in all. A limb division is bigdec__div_2by1 with the
 * precomputed reciprocal of 10^19 (which is already normalised: 2^63 < 10^19 < 2^64):
 * one 64 x 64 -> 128 multiply and a few adds instead of the `div r64` of seed row S5's
 * loop, and four passes run interleaved in one sweep (bigdec__sweep) so that four
 * independent remainder chains keep the multiplier busy.
 * Chunks become characters in bigdec_digits.c, without division either.
 */
#include "internal/bigdec_conv.h"

/* P passes of division by 10^19 in one sweep over the limbs, software-pipelined: in each
 * step pass p divides the limb that pass p-1 produced one step earlier, so the P
 * remainder chains are independent and the core overlaps them (a chain step is
 * latency-bound at ~10 cycles: multiply, add, multiply, subtract, compare; P chains
 * fill the multiplier instead). t[0 .. m) is replaced by t / 10^(19 P); chunk[p] gets
 * the p-th 19-digit chunk from the bottom. */
static inline __attribute__((always_inline)) void
bigdec__sweep_step(bigdec__limb *t, size_t m, size_t j, bigdec__limb *r, bigdec__limb *q,
                   const int P, const int guarded) {
    /* unrolled, so that r[] and q[] become registers (gcc 12 -O2 would keep a loop
     * with the arrays in memory, ~1.6x slower) */
#if defined(__clang__)
#pragma clang loop unroll(full)
#elif defined(__GNUC__)
#pragma GCC unroll 8
#endif
    for (int p = P - 1; p >= 0; p--) { /* last pass first: q[p - 1] is last step's */
        if (guarded && (j < (size_t)p || j - (size_t)p >= m))
            continue;
        size_t i = m - 1 - (j - (size_t)p);
        bigdec__limb in = p == 0 ? t[i] : q[p - 1];
        q[p] = bigdec__div_2by1(&r[p], r[p], in, BIGDEC__TEN19, BIGDEC__TEN19_INV);
        if (p == P - 1)
            t[i] = q[p];
    }
}

static inline __attribute__((always_inline)) void
bigdec__sweep(bigdec__limb *t, size_t m, uint64_t *chunk, const int P) {
    bigdec__limb r[8] = {0}, q[8] = {0};
    size_t j = 0;
    /* pipeline filling (passes start one step apart), all passes busy, draining; the
     * middle loop has no per-pass test, so its arrays live in registers */
    for (; j < (size_t)P - 1; j++)
        bigdec__sweep_step(t, m, j, r, q, P, 1);
    for (; j < m; j++)
        bigdec__sweep_step(t, m, j, r, q, P, 0);
    for (; j < m + (size_t)P - 1; j++)
        bigdec__sweep_step(t, m, j, r, q, P, 1);
    for (int p = 0; p < P; p++)
        chunk[p] = r[p];
}

#ifndef BIGDEC__SWEEP_PASSES
#define BIGDEC__SWEEP_PASSES 4
#endif

size_t bigdec__basecase(char *out, const bigdec__limb *x, size_t n, size_t width) {
    bigdec__limb t[BIGDEC__DC_COLD_THRESHOLD];
    /* chunks: an n-limb number has at most ceil(64 n log10(2) / 19) + 1 chunks <= n + 2,
     * plus up to P - 1 zero chunks a last wide sweep may add */
    uint64_t chunk[BIGDEC__DC_COLD_THRESHOLD + 2 + 8];
    size_t m = bigdec__normlen(x, n), k = 0;
    memcpy(t, x, m * sizeof *t);
    /* wide sweeps while the number has more than P limbs (so more than P chunks: the
     * P produced are all below its top), then one pass at a time */
    while (m > BIGDEC__SWEEP_PASSES) {
        bigdec__sweep(t, m, chunk + k, BIGDEC__SWEEP_PASSES);
        k += BIGDEC__SWEEP_PASSES;
        m = bigdec__normlen(t, m);
    }
    while (m > 1 || (m == 1 && t[0] >= BIGDEC__TEN19)) {
        bigdec__sweep(t, m, chunk + k, 1);
        k++;
        m -= t[m - 1] == 0;
    }
    if (m == 1)
        chunk[k++] = t[0]; /* the most significant chunk, < 10^19 */
    char *p = out;
    if (width == 0) {
        if (k == 0)
            return 0;
        p += bigdec__u64(p, chunk[--k]);
    } else {
        size_t pad = width - BIGDEC__CHUNK_DIGITS * k; /* x < 10^width: k <= width / 19 */
        memset(p, '0', pad);
        p += pad;
    }
    while (k > 0) {
        bigdec__chunk_fixed(p, chunk[--k]);
        p += BIGDEC__CHUNK_DIGITS;
    }
    return (size_t)(p - out);
}
