/* bigdec_cost.c — what a product costs on this CPU, by Toom-3 and by the NTT: the
 * models bigdec__mul (bigdec_mul.c) weighs to choose between them.
 *
 * Toom-3 (with Karatsuba below it) grows like c n^1.5; the NTT's cost steps with its
 * transform length L = 2^log, the power of two at or above an + bn, so which is
 * cheaper depends on how well a product fills L, not on a size alone. Both are fitted
 * to balanced products, n x n limbs and n = L/2 for the NTT, timed in TSC ticks (best
 * of several runs), once per vendor: the two differ by more than any threshold can
 * absorb. On an Intel Xeon (family 6 model 167, TSC at 2.0 GHz) Toom-3 costs 9.0 n^1.5
 * against 7.2 on an AMD family 26, and the transforms grow dearer with their length
 * (the IFMA ones 32 ticks a point at 2^8 points, 139 at 2^20; on AMD 45 and 79), so
 * the AMD figures there left 128-190-limb products to Toom-3 that the IFMA transforms
 * do in two thirds of its time (128 limbs: 8.3e3 against 1.27e4 ticks). Other vendors
 * and other architectures take the AMD figures, fitted first.
 */
#include "internal/bigdec_mpn.h"

#if BIGDEC__X86_ASM
#include <cpuid.h>
#include <string.h>
#endif

/* The tables start at 2^8 points: the smallest transform bigdec__ntt_threshold() lets a
 * product reach (128 x 128 limbs). */
#define BIGDEC__COST_MIN_LOG 8
#define BIGDEC__COST_LOGS (BIGDEC__NTT_MAX_LOG - BIGDEC__COST_MIN_LOG + 1)

typedef struct {
    double toom;                          /* c in c n^1.5 */
    double scalar[BIGDEC__COST_LOGS];     /* ticks per point, scalar transforms */
    double ifma[BIGDEC__COST_LOGS];       /* ticks per point, IFMA transforms */
} bigdec__cost_model;

/* AMD family 26 (gcc 12 -O2, best of 7). Toom-3: 9.4e3 ticks at 128 limbs, 2.7e4 at
 * 256, 2.5e5 at 1024, 1.96e6 at 4096, 1.47e7 at 16,384 (within 10% of 7.2 n^1.5 from
 * 256 limbs). The scalar transforms: 190 (1 + 0.077 (log - 12)) a point (189 measured
 * at 2^12 points, 222 at 2^14, 253 at 2^16, 306 at 2^20). The IFMA ones as timed
 * before the long transforms took two stages a pass (now 28, 32, 31, 35, 38, 51, 59, 67
 * from 2^13): whole conversions ran faster with the higher figures (cold 262,144 bits
 * 1070 against 1097 us, 65,536 bits 175 against 181), a transform inside a division
 * meeting colder caches than one timed alone. The 2^8 figure includes ~8e3 ticks of
 * set-up a product that is made once since, so it overstates those products now. */
static const bigdec__cost_model bigdec__cost_amd = {
    7.2,
    {132, 146, 161, 175, 190, 205, 219, 234, 249, 263, 278, 292, 307},
    {45, 32, 28, 26, 27, 31, 34, 36, 39, 48, 64, 74, 79},
};

/* Intel Xeon family 6 model 167 (KVM, 2 vCPUs; gcc 12 -O2), the best of 8-12 runs:
 * the machine, shared, ran the same products up to 1.8x slower at times (Toom-3 more
 * than the transforms), and the figures are its quiet state's. Toom-3: 1.27e4 ticks at
 * 128 limbs, 3.7e4 at 256, 1.2e5 at 512, 2.6e6 at 4096 (8.7-10.2 n^1.5). The scalar
 * transforms (built with BIGDEC_NO_IFMA) 178 a point at 2^10 to 421 at 2^20; the
 * figures at 2^8 and 2^9 are 2^10's, never reached: the scalar threshold is 1500 limbs. */
static const bigdec__cost_model bigdec__cost_intel = {
    9.0,
    {178, 178, 178, 190, 208, 228, 253, 278, 300, 354, 354, 401, 421},
    {32, 34, 37, 39, 43, 45, 57, 59, 75, 81, 105, 120, 139},
};

static const bigdec__cost_model *bigdec__cost(void) {
    static const bigdec__cost_model *model; /* racing first calls pick the same one */
    const bigdec__cost_model *m = __atomic_load_n(&model, __ATOMIC_RELAXED);
    if (!m) {
        m = &bigdec__cost_amd;
#if BIGDEC__X86_ASM
        unsigned a, id[3];
        if (__get_cpuid(0, &a, &id[0], &id[2], &id[1]) && memcmp(id, "GenuineIntel", 12) == 0)
            m = &bigdec__cost_intel;
#endif
        __atomic_store_n(&model, m, __ATOMIC_RELAXED);
    }
    return m;
}

/* n^1.5 with piecewise-linear log2 and exp2 (within 9%, and no libm) */
static double bigdec__pow15(size_t n) {
    int e = 63 - __builtin_clzll(n);
    double log2n = e + ((double)n / (double)((size_t)1 << e) - 1.0), y = 1.5 * log2n;
    int k = (int)y;
    return (double)((size_t)1 << k) * (1.0 + (y - k));
}

double bigdec__toom_ticks(size_t an, size_t bn) {
    return bigdec__cost()->toom * bigdec__pow15(bn) * (double)an / (double)bn;
}

double bigdec__ntt_ticks(unsigned log) {
    const bigdec__cost_model *m = bigdec__cost();
    unsigned i = log < BIGDEC__COST_MIN_LOG ? 0
                 : log > BIGDEC__NTT_MAX_LOG ? BIGDEC__COST_LOGS - 1
                                            : log - BIGDEC__COST_MIN_LOG;
    double per_point = bigdec__ntt_fast() ? m->ifma[i] : m->scalar[i];
    return per_point * (double)((size_t)1 << log);
}
