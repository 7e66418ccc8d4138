/* mulpre intrinsics path: _mulx_u64 and _addcarryx_u64, two carry chains per row.
 *
 * The same row scheme as the generated assembly, written in C: low halves of x[j] * y[i]
 * go into limb i+j through one carry variable, high halves into limb i+j+1 through another.
 * The intent is mulx/adox/adcx; what the compiler emits is its choice (gcc 12 and
 * clang 19 both turn _addcarryx_u64 into plain adc, serialising the two chains through
 * CF), which is the point the benchmark measures. As in the portable path, the sum is
 * built in z under restrict (z must not overlap x or y). Only the functions of this file
 * carry target("bmi2,adx") (MULPRE_TARGET_MULX), so the library builds and runs on any
 * x86-64; the dispatcher calls them only where cpuid reports BMI2 and ADX.
 */
#include "internal/mulpre_impl.h"

#if MULPRE_HAVE_INTRIN

#include <immintrin.h>

typedef unsigned long long mulpre_ull; /* the intrinsics' own limb type */

/* *sum = a + b + carry_in, returning the carry out: _addcarryx_u64 through a local, since
 * its out-parameter is unsigned long long * and our limbs are uint64_t (unsigned long). */
MULPRE_INLINE MULPRE_TARGET_MULX unsigned char add_carry(unsigned char c, uint64_t a,
                                                        uint64_t b, uint64_t *sum) {
    mulpre_ull s;
    c = _addcarryx_u64(c, a, b, &s);
    *sum = s;
    return c;
}

MULPRE_INLINE MULPRE_TARGET_MULX uint64_t mul_wide(uint64_t a, uint64_t b, uint64_t *hi) {
    mulpre_ull h;
    uint64_t lo = _mulx_u64(a, b, &h);
    *hi = h;
    return lo;
}

MULPRE_INLINE MULPRE_TARGET_MULX void intrin_mul(uint64_t *restrict z,
                                                 const uint64_t *restrict x,
                                                 const uint64_t *restrict y, size_t n) {
    uint64_t hi;
    /* Row 0: z = x * y[0], one chain (nothing is accumulated yet). */
    z[0] = mul_wide(x[0], y[0], &hi);
    unsigned char c = 0;
    MULPRE_UNROLL
    for (size_t j = 1; j < n; j++) {
        uint64_t prev_hi = hi;
        uint64_t lo = mul_wide(x[j], y[0], &hi);
        c = add_carry(c, lo, prev_hi, &z[j]);
    }
    z[n] = hi + c; /* hi <= 2^64 - 2: no overflow */
    /* Rows 1..n-1: z[i .. i+n] += x * y[i]; the chains end in the fresh top limb. */
    MULPRE_UNROLL
    for (size_t i = 1; i < n; i++) {
        unsigned char c_lo = 0, c_hi = 0;
        z[i + n] = 0;
        MULPRE_UNROLL
        for (size_t j = 0; j < n; j++) {
            uint64_t lo = mul_wide(x[j], y[i], &hi);
            c_lo = add_carry(c_lo, z[i + j], lo, &z[i + j]);
            c_hi = add_carry(c_hi, z[i + j + 1], hi, &z[i + j + 1]);
        }
        /* c_hi is 0 here (the last high half went into a zero limb); c_lo is pending. */
        z[i + n] += c_lo;
    }
}

#define MULPRE_INTRIN_N(n)                                                             \
    static MULPRE_TARGET_MULX void intrin_mul_##n(uint64_t *z, const uint64_t *x,     \
                                                  const uint64_t *y) {                 \
        intrin_mul(z, x, y, n);                                                        \
    }                                                                                  \
    static MULPRE_TARGET_MULX void intrin_mul_sx_##n(uint64_t *z, const uint64_t *x,  \
                                                     const uint64_t *y) {              \
        intrin_mul(z, y, x, n); /* rows over x */                                      \
    }                                                                                  \
    static MULPRE_TARGET_MULX void intrin_sqr_##n(uint64_t *z, const uint64_t *x) {    \
        intrin_mul(z, x, x, n);                                                        \
    }
MULPRE_FOR_EACH_N(MULPRE_INTRIN_N)
#undef MULPRE_INTRIN_N

#define MULPRE_MUL_ENTRY(n) [n] = intrin_mul_##n,
#define MULPRE_MUL_SX_ENTRY(n) [n] = intrin_mul_sx_##n,
#define MULPRE_SQR_ENTRY(n) [n] = intrin_sqr_##n,
const mulpre_mul_table mulpre_intrin_mul = {MULPRE_FOR_EACH_N(MULPRE_MUL_ENTRY)};
const mulpre_mul_table mulpre_intrin_mul_sx = {MULPRE_FOR_EACH_N(MULPRE_MUL_SX_ENTRY)};
const mulpre_sqr_table mulpre_intrin_sqr = {MULPRE_FOR_EACH_N(MULPRE_SQR_ENTRY)};

#endif /* MULPRE_HAVE_INTRIN */
