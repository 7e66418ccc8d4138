/* rtdiv_batch.c — the batch entry points, the portable path, and the dispatch to them.
 *
 * The portable path is the scalar branchy verb in a loop (the divisor's kind is loop
 * invariant, so the branch costs nothing after the first iteration); it is the
 * reference the vector paths are tested against, and what a non-x86 build runs.
 */
#include "internal/rtdiv_batch.h"

#define RTDIV__PORTABLE(S, T, UT, ST, UW, SW, N, SG)                                     \
    static void rtdiv__portable_##S##_div(const rtdiv_##S *dv, const T *num, T *out,     \
                                          size_t n) {                                    \
        for (size_t i = 0; i < n; i++)                                                   \
            out[i] = rtdiv_##S##_div(dv, num[i]);                                        \
    }                                                                                    \
    static void rtdiv__portable_##S##_rem(const rtdiv_##S *dv, const T *num, T *out,     \
                                          size_t n) {                                    \
        for (size_t i = 0; i < n; i++)                                                   \
            out[i] = rtdiv_##S##_rem(dv, num[i]);                                        \
    }
RTDIV_FOR_EACH_TYPE(RTDIV__PORTABLE)

#define RTDIV__PORTABLE_INIT(S, T, UT, ST, UW, SW, N, SG)                                \
    .S##_div = rtdiv__portable_##S##_div, .S##_rem = rtdiv__portable_##S##_rem,
const rtdiv__batch_ops rtdiv__ops_portable = {RTDIV_FOR_EACH_TYPE(RTDIV__PORTABLE_INIT)};

static const rtdiv__batch_ops *rtdiv__ops(void) {
    switch (rtdiv_isa_active()) {
#if defined(__x86_64__)
    case RTDIV_ISA_AVX512: return &rtdiv__ops_avx512;
    case RTDIV_ISA_AVX2: return &rtdiv__ops_avx2;
#endif
    default: return &rtdiv__ops_portable;
    }
}

#define RTDIV__ENTRY(S, T, UT, ST, UW, SW, N, SG)                                        \
    rtdiv_status rtdiv_##S##_div_batch(const rtdiv_##S *dv, const T *num, T *quo,        \
                                       size_t n) {                                       \
        if (!dv || (n && (!num || !quo)))                                                \
            return RTDIV_ERR_NULL;                                                       \
        rtdiv__ops()->S##_div(dv, num, quo, n);                                          \
        return RTDIV_OK;                                                                 \
    }                                                                                    \
    rtdiv_status rtdiv_##S##_rem_batch(const rtdiv_##S *dv, const T *num, T *rem,        \
                                       size_t n) {                                       \
        if (!dv || (n && (!num || !rem)))                                                \
            return RTDIV_ERR_NULL;                                                       \
        rtdiv__ops()->S##_rem(dv, num, rem, n);                                          \
        return RTDIV_OK;                                                                 \
    }
RTDIV_FOR_EACH_TYPE(RTDIV__ENTRY)
