/* bigdec_digits.c — one 64-bit chunk (< 10^19) to decimal characters, without `div`.
 *
 * The chunk is cut by constant divisors, which compilers turn into a multiply by a
 * magic number and a shift (see native/lib/rtdiv for the same idea at run time):
 *   c = a * 10^16 + b (a < 1000), b = b1 * 10^8 + b0, each 8-digit half into two
 *   4-digit quarters, each quarter into two pairs; a pair is two bytes copied from a
 *   200-byte table "000102...99" (always in L1 after the first chunk).
 * Per 19 digits: 6 multiplies for the cuts plus 10 two-byte copies, against 19 `div`
 * (or 38 for the two-division loop of seed row S5) in the textbook loop. A test checks
 * that this file's machine code holds no division instruction.
 */
#include "internal/bigdec_conv.h"

static const char bigdec__pairs[200] = {
    '0','0','0','1','0','2','0','3','0','4','0','5','0','6','0','7','0','8','0','9',
    '1','0','1','1','1','2','1','3','1','4','1','5','1','6','1','7','1','8','1','9',
    '2','0','2','1','2','2','2','3','2','4','2','5','2','6','2','7','2','8','2','9',
    '3','0','3','1','3','2','3','3','3','4','3','5','3','6','3','7','3','8','3','9',
    '4','0','4','1','4','2','4','3','4','4','4','5','4','6','4','7','4','8','4','9',
    '5','0','5','1','5','2','5','3','5','4','5','5','5','6','5','7','5','8','5','9',
    '6','0','6','1','6','2','6','3','6','4','6','5','6','6','6','7','6','8','6','9',
    '7','0','7','1','7','2','7','3','7','4','7','5','7','6','7','7','7','8','7','9',
    '8','0','8','1','8','2','8','3','8','4','8','5','8','6','8','7','8','8','8','9',
    '9','0','9','1','9','2','9','3','9','4','9','5','9','6','9','7','9','8','9','9',
};

static inline void bigdec__pair(char *out, uint32_t v) { memcpy(out, bigdec__pairs + 2 * v, 2); }

/* 4 digits of v < 10^4: v / 100 by multiply-shift (5243 = ceil(2^19 / 100), exact for
 * v < 43699 by the same argument) */
static inline void bigdec__quad(char *out, uint32_t v) {
    uint32_t hi = (v * 5243u) >> 19;
    bigdec__pair(out, hi);
    bigdec__pair(out + 2, v - hi * 100u);
}

/* 8 digits of v < 10^8: v / 10^4 by multiply-shift. 3518437209 = ceil(2^45 / 10^4)
 * overshoots 1/10^4 by 3.4e-15 per unit of v, < 3.4e-7 in all for v < 10^8, while the
 * fractional part of v / 10^4 never exceeds 0.9999: the floor is exact. */
static inline void bigdec__oct(char *out, uint32_t v) {
    uint32_t hi = (uint32_t)(((uint64_t)v * 3518437209u) >> 45);
    bigdec__quad(out, hi);
    bigdec__quad(out + 4, v - hi * 10000u);
}

void bigdec__chunk_fixed(char *out, uint64_t c) {
    uint64_t a = c / UINT64_C(10000000000000000); /* constant: multiply + shift */
    uint64_t b = c - a * UINT64_C(10000000000000000);
    uint32_t b1 = (uint32_t)(b / 100000000u), b0 = (uint32_t)(b - (uint64_t)b1 * 100000000u);
    uint32_t a1 = ((uint32_t)a * 5243u) >> 19; /* a / 100, a < 1000 */
    out[0] = (char)('0' + a1);
    bigdec__pair(out + 1, (uint32_t)a - a1 * 100u);
    bigdec__oct(out + 3, b1);
    bigdec__oct(out + 11, b0);
}

/* v < 10^8 without leading zeros, two digits a step from the last: no temporary, no
 * variable-length copy (the leading zeros of a fixed-width chunk cost a scan and a memcpy
 * call, a fifth of a 64-bit conversion) */
static inline size_t bigdec__small(char *out, uint32_t v) {
    size_t n = v < 10000u ? (v < 100u ? 1 + (v >= 10u) : 3 + (v >= 1000u))
                          : (v < 1000000u ? 5 + (v >= 100000u) : 7 + (v >= 10000000u));
    char *p = out + n;
    while (v >= 100u) {
        uint32_t q = v / 100u; /* constant: multiply + shift */
        p -= 2;
        bigdec__pair(p, v - q * 100u);
        v = q;
    }
    if (v >= 10u)
        bigdec__pair(p - 2, v);
    else
        p[-1] = (char)('0' + v);
    return n;
}

size_t bigdec__u64(char *out, uint64_t v) {
    if (v < 100000000u)
        return bigdec__small(out, (uint32_t)v);
    if (v < UINT64_C(10000000000000000)) {
        uint64_t hi = v / 100000000u;
        size_t k = bigdec__small(out, (uint32_t)hi);
        bigdec__oct(out + k, (uint32_t)(v - hi * 100000000u));
        return k + 8;
    }
    uint64_t hi = v / UINT64_C(10000000000000000); /* < 1845 */
    uint64_t lo = v - hi * UINT64_C(10000000000000000);
    uint32_t l1 = (uint32_t)(lo / 100000000u);
    size_t k = bigdec__small(out, (uint32_t)hi);
    bigdec__oct(out + k, l1);
    bigdec__oct(out + k + 8, (uint32_t)(lo - (uint64_t)l1 * 100000000u));
    return k + 16;
}
