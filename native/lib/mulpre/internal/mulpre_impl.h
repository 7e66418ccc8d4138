/* mulpre internals: the per-size function tables each implementation provides.
 *
 * MULPRE_FOR_EACH_N is the one list of sizes: every table and every per-size function is
 * generated from it, so adding a size is one line here plus a generator run for the asm.
 * Tables are indexed by n (entry 0 unused).
 */
#ifndef MULPRE_INTERNAL_IMPL_H
#define MULPRE_INTERNAL_IMPL_H

#include "mulpre.h"
#include "mulpre_port.h" /* same folder */

#define MULPRE_FOR_EACH_N(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)

typedef mulpre_mul_fn mulpre_mul_table[MULPRE_MAX_LIMBS + 1];
typedef mulpre_sqr_fn mulpre_sqr_table[MULPRE_MAX_LIMBS + 1];

/* Per implementation: the multiply that streams y (rows over y[i]), the one that
 * streams x (mul_sx), and the squaring. */
MULPRE_INTERNAL extern const mulpre_mul_table mulpre_portable_mul;
MULPRE_INTERNAL extern const mulpre_mul_table mulpre_portable_mul_sx;
MULPRE_INTERNAL extern const mulpre_sqr_table mulpre_portable_sqr;

#if MULPRE_HAVE_INTRIN
MULPRE_INTERNAL extern const mulpre_mul_table mulpre_intrin_mul;
MULPRE_INTERNAL extern const mulpre_mul_table mulpre_intrin_mul_sx;
MULPRE_INTERNAL extern const mulpre_sqr_table mulpre_intrin_sqr;
#endif

#if MULPRE_HAVE_ASM
#define MULPRE_DECLARE_ASM(n)                                                          \
    MULPRE_INTERNAL void mulpre_asm_mul_##n(uint64_t *z, const uint64_t *x,           \
                                            const uint64_t *y);                        \
    MULPRE_INTERNAL void mulpre_asm_mul_sx_##n(uint64_t *z, const uint64_t *x,        \
                                               const uint64_t *y);                     \
    MULPRE_INTERNAL void mulpre_asm_sqr_##n(uint64_t *z, const uint64_t *x);
MULPRE_FOR_EACH_N(MULPRE_DECLARE_ASM)
#undef MULPRE_DECLARE_ASM
#endif

/* Raw cpuid result (MULPRE_CPU_* bits), without the limit of mulpre_cpu_features_limit;
 * runs cpuid on the first call only. */
MULPRE_INTERNAL unsigned mulpre_cpu_detect(void);

/* State of src/mulpre_cpu.c, read inline by the dispatcher on every call: two relaxed
 * loads instead of a call chain (which cost ~10 ns per mulpre_mul at N = 1). */
MULPRE_INTERNAL extern int mulpre_cpu_detected_;   /* -1 until the first cpuid */
MULPRE_INTERNAL extern unsigned mulpre_cpu_limit_; /* mulpre_cpu_features_limit's mask */

MULPRE_INLINE unsigned mulpre_cpu_features_fast(void) {
    int d = __atomic_load_n(&mulpre_cpu_detected_, __ATOMIC_RELAXED);
    unsigned f = __builtin_expect(d >= 0, 1) ? (unsigned)d : mulpre_cpu_detect();
    return f & __atomic_load_n(&mulpre_cpu_limit_, __ATOMIC_RELAXED);
}

#endif /* MULPRE_INTERNAL_IMPL_H */
