/* mulpre public API: argument checks, overlap handling and runtime dispatch.
 *
 * The implementation is chosen per call from the CPU features (two relaxed loads and a
 * compare, inlined), so mulpre_cpu_features_limit takes effect at once and no
 * initialisation order matters. Callers that cannot afford even that take the unchecked
 * per-size function once with mulpre_mul_fn_get and call it directly.
 *
 * Overlap: the per-size functions require z disjoint from x and y; the checked entry
 * points test for overlap and then compute into a local 2n-limb buffer and copy it out,
 * so any aliasing is allowed there.
 */
#include <stdint.h>
#include <string.h>

#include "internal/mulpre_impl.h"

static const unsigned need_mulx = MULPRE_CPU_BMI2 | MULPRE_CPU_ADX;

MULPRE_INLINE bool impl_runs(mulpre_impl impl) {
    switch (impl) {
    case MULPRE_IMPL_AUTO:
    case MULPRE_IMPL_PORTABLE:
        return true;
    case MULPRE_IMPL_INTRIN:
        return MULPRE_HAVE_INTRIN && (mulpre_cpu_features_fast() & need_mulx) == need_mulx;
    case MULPRE_IMPL_ASM:
        return MULPRE_HAVE_ASM && (mulpre_cpu_features_fast() & need_mulx) == need_mulx;
    default:
        return false;
    }
}

MULPRE_INLINE mulpre_impl best_impl(void) {
    /* The asm needs the same features as the intrinsics and is faster at every n. */
    return impl_runs(MULPRE_IMPL_ASM) ? MULPRE_IMPL_ASM : MULPRE_IMPL_PORTABLE;
}

mulpre_impl mulpre_impl_best(void) {
    return best_impl();
}

bool mulpre_impl_available(mulpre_impl impl) {
    return impl_runs(impl);
}

const char *mulpre_impl_name(mulpre_impl impl) {
    switch (impl) {
    case MULPRE_IMPL_AUTO: return "auto";
    case MULPRE_IMPL_PORTABLE: return "portable";
    case MULPRE_IMPL_INTRIN: return "intrin";
    case MULPRE_IMPL_ASM: return "asm";
    default: return "?";
    }
}

const char *mulpre_status_str(mulpre_status status) {
    switch (status) {
    case MULPRE_OK: return "ok";
    case MULPRE_ERR_SIZE: return "n must be 1..9 limbs";
    case MULPRE_ERR_NULL: return "z, x and y must not be NULL";
    case MULPRE_ERR_IMPL: return "not a mulpre_impl value";
    case MULPRE_ERR_UNAVAILABLE:
        return "implementation not available on this CPU or build (needs BMI2 and ADX)";
    default: return "unknown status";
    }
}

/* One implementation's functions: the multiply streaming y, the one streaming x, the
 * squaring. */
typedef struct {
    const mulpre_mul_fn *mul, *mul_sx;
    const mulpre_sqr_fn *sqr;
} impl_tables;

#if MULPRE_HAVE_ASM
#define MULPRE_MUL_ENTRY(n) [n] = mulpre_asm_mul_##n,
#define MULPRE_MUL_SX_ENTRY(n) [n] = mulpre_asm_mul_sx_##n,
#define MULPRE_SQR_ENTRY(n) [n] = mulpre_asm_sqr_##n,
static const mulpre_mul_table asm_mul = {MULPRE_FOR_EACH_N(MULPRE_MUL_ENTRY)};
static const mulpre_mul_table asm_mul_sx = {MULPRE_FOR_EACH_N(MULPRE_MUL_SX_ENTRY)};
static const mulpre_sqr_table asm_sqr = {MULPRE_FOR_EACH_N(MULPRE_SQR_ENTRY)};
#undef MULPRE_MUL_ENTRY
#undef MULPRE_MUL_SX_ENTRY
#undef MULPRE_SQR_ENTRY
#endif

/* Resolve (impl, n) to a status and, when OK, the tables to use. */
MULPRE_INLINE mulpre_status resolve(mulpre_impl impl, size_t n, impl_tables *t) {
    if ((unsigned)impl >= MULPRE_IMPL_COUNT)
        return MULPRE_ERR_IMPL;
    if (n == 0 || n > MULPRE_MAX_LIMBS)
        return MULPRE_ERR_SIZE;
    if (impl == MULPRE_IMPL_AUTO)
        impl = best_impl();
    if (!impl_runs(impl))
        return MULPRE_ERR_UNAVAILABLE;
    switch (impl) {
#if MULPRE_HAVE_ASM
    case MULPRE_IMPL_ASM:
        *t = (impl_tables){asm_mul, asm_mul_sx, asm_sqr};
        return MULPRE_OK;
#endif
#if MULPRE_HAVE_INTRIN
    case MULPRE_IMPL_INTRIN:
        *t = (impl_tables){mulpre_intrin_mul, mulpre_intrin_mul_sx, mulpre_intrin_sqr};
        return MULPRE_OK;
#endif
    case MULPRE_IMPL_PORTABLE:
        *t = (impl_tables){mulpre_portable_mul, mulpre_portable_mul_sx,
                           mulpre_portable_sqr};
        return MULPRE_OK;
    default:
        return MULPRE_ERR_UNAVAILABLE;
    }
}

MULPRE_INLINE bool overlaps(const uint64_t *a, size_t an, const uint64_t *b, size_t bn) {
    uintptr_t a0 = (uintptr_t)a, a1 = (uintptr_t)(a + an);
    uintptr_t b0 = (uintptr_t)b, b1 = (uintptr_t)(b + bn);
    return a0 < b1 && b0 < a1;
}

mulpre_mul_fn mulpre_mul_fn_get(mulpre_impl impl, size_t n) {
    impl_tables t;
    return resolve(impl, n, &t) == MULPRE_OK ? t.mul[n] : NULL;
}

mulpre_mul_fn mulpre_mul_stream_fn_get(mulpre_impl impl, size_t n, mulpre_stream stream) {
    impl_tables t;
    if (stream != MULPRE_STREAM_Y && stream != MULPRE_STREAM_X)
        return NULL;
    if (resolve(impl, n, &t) != MULPRE_OK)
        return NULL;
    return stream == MULPRE_STREAM_X ? t.mul_sx[n] : t.mul[n];
}

mulpre_sqr_fn mulpre_sqr_fn_get(mulpre_impl impl, size_t n) {
    impl_tables t;
    return resolve(impl, n, &t) == MULPRE_OK ? t.sqr[n] : NULL;
}

MULPRE_INLINE mulpre_status mul_with(mulpre_impl impl, uint64_t *z, const uint64_t *x,
                                     const uint64_t *y, size_t n) {
    impl_tables t;
    mulpre_status st = resolve(impl, n, &t);
    if (st != MULPRE_OK)
        return st;
    if (!z || !x || !y)
        return MULPRE_ERR_NULL;
    if (overlaps(z, 2 * n, x, n) || overlaps(z, 2 * n, y, n)) {
        uint64_t tmp[2 * MULPRE_MAX_LIMBS];
        t.mul[n](tmp, x, y);
        memcpy(z, tmp, 2 * n * sizeof *z);
    } else {
        t.mul[n](z, x, y);
    }
    return MULPRE_OK;
}

mulpre_status mulpre_mul_with(mulpre_impl impl, uint64_t *z, const uint64_t *x,
                              const uint64_t *y, size_t n) {
    return mul_with(impl, z, x, y, n);
}

mulpre_status mulpre_mul(uint64_t *z, const uint64_t *x, const uint64_t *y, size_t n) {
    return mul_with(MULPRE_IMPL_AUTO, z, x, y, n);
}

mulpre_status mulpre_sqr_with(mulpre_impl impl, uint64_t *z, const uint64_t *x, size_t n) {
    impl_tables t;
    mulpre_status st = resolve(impl, n, &t);
    if (st != MULPRE_OK)
        return st;
    if (!z || !x)
        return MULPRE_ERR_NULL;
    uint64_t tmp[2 * MULPRE_MAX_LIMBS];
    uint64_t *out = overlaps(z, 2 * n, x, n) ? tmp : z;
    t.sqr[n](out, x);
    if (out != z)
        memcpy(z, tmp, 2 * n * sizeof *z);
    return MULPRE_OK;
}

mulpre_status mulpre_sqr(uint64_t *z, const uint64_t *x, size_t n) {
    /* The asm squaring (n(n+1)/2 mulx) beat the asm multiply at every n on Zen 4: 1.2x at
     * n = 3, 1.4-1.5x from n = 4 on (README.md, "Figures"); AUTO squares with it. */
    return mulpre_sqr_with(MULPRE_IMPL_AUTO, z, x, n);
}
