/* rtdiv_batch.h — the table of batch kernels that each instruction-set file provides.
 *
 * rtdiv_batch.c picks one table at run time (cpuid, or rtdiv_isa_force) and calls
 * through it; the portable table always exists, the x86 tables only on x86-64.
 */
#ifndef RTDIV_INTERNAL_BATCH_H
#define RTDIV_INTERNAL_BATCH_H

#include <rtdiv.h>

#define RTDIV__OPS_FIELDS(S, T, UT, ST, UW, SW, N, SG)                                   \
    void (*S##_div)(const rtdiv_##S *dv, const T *num, T *out, size_t n);                \
    void (*S##_rem)(const rtdiv_##S *dv, const T *num, T *out, size_t n);

typedef struct rtdiv__batch_ops {
    RTDIV_FOR_EACH_TYPE(RTDIV__OPS_FIELDS)
} rtdiv__batch_ops;

#undef RTDIV__OPS_FIELDS

extern const rtdiv__batch_ops rtdiv__ops_portable;
#if defined(__x86_64__)
extern const rtdiv__batch_ops rtdiv__ops_avx2;
extern const rtdiv__batch_ops rtdiv__ops_avx512;
#endif

/* The kind of sequence a divider needs, chosen once per batch (outside the loop). */
enum { RTDIV__KIND_POW2 = 0, RTDIV__KIND_PLAIN = 1, RTDIV__KIND_ADD = 2 };

static inline int rtdiv__kind(unsigned more) {
    return (more & RTDIV_MORE_POW2) ? RTDIV__KIND_POW2
         : (more & RTDIV_MORE_ADD)  ? RTDIV__KIND_ADD
                                    : RTDIV__KIND_PLAIN;
}

#endif
