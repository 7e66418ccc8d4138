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

/* The vector sequences: a divider's kind, with the signed NEG kind taken apart into the
 * two sequences it negates (a shift, or the N+1-bit magic with n added back). */
enum { RTDIV__KIND_POW2 = 0, RTDIV__KIND_PLAIN = 1, RTDIV__KIND_PRE = 2, RTDIV__KIND_ADD = 3 };

#endif
