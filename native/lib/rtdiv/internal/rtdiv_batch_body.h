/* rtdiv_batch_body.h — one instruction set's batch kernels, from its primitives.
 *
 * An instruction-set file (rtdiv_batch_avx2.c, rtdiv_batch_avx512.c) defines the
 * primitives that rtdiv_batch_lanes32.h (u32, s32) and rtdiv_batch_lanes64.h (u64, s64)
 * name, plus RTDIV__ISA (a name) and RTDIV__TARGET (the target attribute), then
 * includes this file: each type takes the loops of its lane width, and the ops table
 * `rtdiv__ops_<ISA>` lists them. The two widths divide differently: 32-bit lanes take
 * their quotients straight from 64-bit products, 64-bit lanes build a high half.
 */
#define RTDIV__CAT2(a, b) a##b
#define RTDIV__CAT(a, b) RTDIV__CAT2(a, b)
#define RTDIV__NAME(S, what) RTDIV__CAT(RTDIV__CAT(rtdiv__, RTDIV__ISA), _##S##_##what)

#include "rtdiv_batch_lanes32.h"
#include "rtdiv_batch_lanes64.h"

/* Per type: the loops of its width (RTDIV__LANES32 or 64), then the two entries. */
#define RTDIV__VBODY(S, T, UT, ST, UW, SW, N, SG)                                        \
    RTDIV__CAT(RTDIV__LANES, N)(S, T, UT, ST, UW, SW, N, SG)                             \
    static void RTDIV__NAME(S, div)(const rtdiv_##S *dv, const T *num, T *out, size_t n) { \
        RTDIV__NAME(S, run)(dv, num, out, n, 0);                                         \
    }                                                                                    \
    static void RTDIV__NAME(S, rem)(const rtdiv_##S *dv, const T *num, T *out, size_t n) { \
        RTDIV__NAME(S, run)(dv, num, out, n, 1);                                         \
    }

RTDIV_FOR_EACH_TYPE(RTDIV__VBODY)

#define RTDIV__OPS_INIT(S, T, UT, ST, UW, SW, N, SG)                                     \
    .S##_div = RTDIV__NAME(S, div), .S##_rem = RTDIV__NAME(S, rem),

const rtdiv__batch_ops RTDIV__CAT(rtdiv__ops_, RTDIV__ISA) = {
    RTDIV_FOR_EACH_TYPE(RTDIV__OPS_INIT)
};

#undef RTDIV__OPS_INIT
#undef RTDIV__VBODY
