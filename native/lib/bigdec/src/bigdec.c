/* bigdec.c — the public functions: sizes, argument checks, and the choice of algorithm.
 *
 * Everything that can fail is done before the first digit is written: arguments and the
 * buffer size are checked, the powers the divide and conquer will use are built, and
 * its scratch is allocated in one block. So on any error the buffer is untouched.
 */
#include <stdlib.h>

#include <bigdec.h>

#include "internal/bigdec_conv.h"

uint64_t bigdec_digits_max(uint64_t bits) {
    /* ceil(log10(2) 2^128), split in two limbs; bits * L / 2^128 overshoots
     * bits log10(2) by < bits 2^-128, which cannot reach the next integer for
     * bits < 2^50 (the nearest approach of bits log10(2) to an integer there is far
     * larger than 2^-78; tested against exact arithmetic) */
    const uint64_t l_hi = UINT64_C(0x4d104d427de7fbcc), l_lo = UINT64_C(0x47c4acd605be48bd);
    bigdec__dlimb a = (bigdec__dlimb)bits * l_lo, b = (bigdec__dlimb)bits * l_hi;
    bigdec__dlimb mid = b + (a >> 64);
    return (uint64_t)(mid >> 64) + 1;
}

static size_t bigdec__bits(const uint64_t *limbs, size_t n) {
    n = bigdec__normlen(limbs, n);
    return n == 0 ? 0 : 64 * n - (size_t)__builtin_clzll(limbs[n - 1]);
}

size_t bigdec_size(const uint64_t *limbs, size_t n) {
    if ((!limbs && n > 0) || n > (SIZE_MAX >> 8)) /* 64 n bits and 20 n digits fit */
        return 0;
    return (size_t)bigdec_digits_max(bigdec__bits(limbs, n)) + 1;
}

size_t bigdec_size_signed(int negative, const uint64_t *limbs, size_t n) {
    size_t s = bigdec_size(limbs, n);
    return s == 0 ? 0 : s + (negative != 0);
}

static bigdec_status bigdec__convert(char *buf, const uint64_t *limbs, size_t n, size_t *len) {
    n = bigdec__normlen(limbs, n);
    if (n == 0) {
        buf[0] = '0';
        buf[1] = '\0';
        *len = 1;
        return BIGDEC_OK;
    }
    if (n == 1) { /* a single limb: no division pass, its digits at once */
        size_t k = bigdec__u64(buf, limbs[0]);
        buf[k] = '\0';
        *len = k;
        return BIGDEC_OK;
    }
    if (n <= BIGDEC__DC_THRESHOLD ||
        (n <= BIGDEC__DC_COLD_THRESHOLD && !bigdec__dc_top_cached(bigdec__bits(limbs, n)) &&
         !bigdec__pow_small_wanted())) {
        size_t k = bigdec__basecase(buf, limbs, n, 0);
        buf[k] = '\0';
        *len = k;
        return BIGDEC_OK;
    }
    bigdec__pow_conversion_begin(); /* before the top level is chosen: it may ask */
    if (!bigdec__pow_get(bigdec__dc_top_level(bigdec__bits(limbs, n))))
        return BIGDEC_ERR_NOMEM;
    size_t cap = bigdec__dc_scratch(n);
    bigdec__arena ar = {malloc(cap * sizeof(bigdec__limb)), 0, cap, 0};
    if (!ar.base)
        return BIGDEC_ERR_NOMEM;
    size_t k = bigdec__dc(buf, limbs, n, 0, &ar);
    int overflow = ar.overflow;
    free(ar.base);
    if (k == (size_t)-1 || overflow)
        return BIGDEC_ERR_INTERNAL;
    buf[k] = '\0';
    *len = k;
    return BIGDEC_OK;
}

bigdec_status bigdec_write(char *buf, size_t cap, const uint64_t *limbs, size_t n,
                           size_t *len) {
    if (!buf || (!limbs && n > 0))
        return BIGDEC_ERR_ARG;
    size_t need = bigdec_size(limbs, n);
    if (need == 0)
        return BIGDEC_ERR_ARG;
    if (cap < need)
        return BIGDEC_ERR_SPACE;
    size_t k;
    bigdec_status st = bigdec__convert(buf, limbs, n, &k);
    if (st == BIGDEC_OK && len)
        *len = k;
    return st;
}

bigdec_status bigdec_write_signed(char *buf, size_t cap, int negative, const uint64_t *limbs,
                                  size_t n, size_t *len) {
    if (!buf || (!limbs && n > 0))
        return BIGDEC_ERR_ARG;
    size_t need = bigdec_size_signed(negative, limbs, n);
    if (need == 0)
        return BIGDEC_ERR_ARG;
    if (cap < need)
        return BIGDEC_ERR_SPACE;
    int minus = negative && bigdec__normlen(limbs, n) > 0;
    size_t k;
    bigdec_status st = bigdec__convert(buf + minus, limbs, n, &k);
    if (st != BIGDEC_OK)
        return st;
    if (minus)
        buf[0] = '-';
    if (len)
        *len = k + (size_t)minus;
    return BIGDEC_OK;
}

void bigdec_cache_release(void) { bigdec__pow_release(); }

const char *bigdec_status_str(bigdec_status status) {
    switch (status) {
    case BIGDEC_OK: return "ok";
    case BIGDEC_ERR_ARG: return "invalid argument";
    case BIGDEC_ERR_SPACE: return "buffer too small";
    case BIGDEC_ERR_NOMEM: return "out of memory";
    case BIGDEC_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}
