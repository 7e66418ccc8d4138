/* mulpre portable path: schoolbook multiplication with unsigned __int128.
 *
 * One generic body, instantiated per n with a constant so that the compiler unrolls it
 * completely. The sum is built in z itself, with restrict promising that z does not
 * overlap x or y (the contract of the per-size functions), so the compiler may keep limbs
 * in registers. A local array copied out with memcpy was 2-5x slower with gcc 12: it
 * stored limbs 8 bytes at a time and reloaded them 16 at a time, a failed store-to-load
 * forward per pair. x and y may be the same array (squaring): both are only read. Row i adds x * y[i] at limb i with one carry:
 * (2^64-1)^2 + 2 (2^64-1) = 2^128 - 1, so product + limb + carry never overflows 128 bits.
 * This is what "the compiler's code" means in the benchmark; built with -mbmi2 the
 * compilers use mulx here, without it mul.
 */
#include "internal/mulpre_impl.h"

typedef unsigned __int128 mulpre_u128;

MULPRE_INLINE void portable_mul(uint64_t *restrict z, const uint64_t *restrict x,
                                const uint64_t *restrict y, size_t n) {
    uint64_t carry = 0;
    MULPRE_UNROLL
    for (size_t j = 0; j < n; j++) {
        mulpre_u128 p = (mulpre_u128)x[j] * y[0] + carry;
        z[j] = (uint64_t)p;
        carry = (uint64_t)(p >> 64);
    }
    z[n] = carry;
    MULPRE_UNROLL
    for (size_t i = 1; i < n; i++) {
        carry = 0;
        MULPRE_UNROLL
        for (size_t j = 0; j < n; j++) {
            mulpre_u128 p = (mulpre_u128)x[j] * y[i] + z[i + j] + carry;
            z[i + j] = (uint64_t)p;
            carry = (uint64_t)(p >> 64);
        }
        z[i + n] = carry;
    }
}

#define MULPRE_PORTABLE_N(n)                                                           \
    static void portable_mul_##n(uint64_t *z, const uint64_t *x, const uint64_t *y) {  \
        portable_mul(z, x, y, n);                                                      \
    }                                                                                  \
    static void portable_mul_sx_##n(uint64_t *z, const uint64_t *x, const uint64_t *y) {\
        portable_mul(z, y, x, n); /* rows over x */                                    \
    }                                                                                  \
    static void portable_sqr_##n(uint64_t *z, const uint64_t *x) {                     \
        portable_mul(z, x, x, n);                                                      \
    }
MULPRE_FOR_EACH_N(MULPRE_PORTABLE_N)
#undef MULPRE_PORTABLE_N

#define MULPRE_MUL_ENTRY(n) [n] = portable_mul_##n,
#define MULPRE_MUL_SX_ENTRY(n) [n] = portable_mul_sx_##n,
#define MULPRE_SQR_ENTRY(n) [n] = portable_sqr_##n,
const mulpre_mul_table mulpre_portable_mul = {MULPRE_FOR_EACH_N(MULPRE_MUL_ENTRY)};
const mulpre_mul_table mulpre_portable_mul_sx = {MULPRE_FOR_EACH_N(MULPRE_MUL_SX_ENTRY)};
const mulpre_sqr_table mulpre_portable_sqr = {MULPRE_FOR_EACH_N(MULPRE_SQR_ENTRY)};
