/* rtdiv_portable.c — the header's slow path: the inline verbs without __int128.
 *
 * rtdiv.h takes a 64-bit product's high half from one 128-bit multiply where the compiler
 * has __int128 and from four 32 x 32-bit products elsewhere. This file hides __int128
 * from the header, as a compiler without it would, and checks every verb of every type
 * against C's own / and % on edge and pseudo-random divisors and numerators, with
 * dividers made by the library (built with __int128).
 */
#undef __SIZEOF_INT128__
#include <rtdiv.h>

#include <stdio.h>

#include "splitmix.h"

#ifdef __SIZEOF_INT128__
#error "the slow path is not under test: __SIZEOF_INT128__ is still defined"
#endif

/* Edge values of a 64-bit pattern, then random ones; narrowed to each type by casting. */
static uint64_t value(int i) {
    static const uint64_t edge[] = {0, 1, 2, 3, 7, 10, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                    0x100000000u, 0x7fffffffffffffffu, 0x8000000000000000u,
                                    0xfffffffffffffffeu, 0xffffffffffffffffu};
    int n = (int)(sizeof edge / sizeof *edge);
    return i < n ? edge[i] : rng_next() >> (rng_next() & 63);
}

/* The verbs of the divider's own kind, chosen once (a constant kind in each copy). */
#define KIND_VERBS(S, K) qk = rtdiv_##S##_div_kind(&dv, n, K), rk = rtdiv_##S##_rem_kind(&dv, n, K)
#define KIND_u32(K) KIND_VERBS(u32, K)
#define KIND_u64(K) KIND_VERBS(u64, K)
#define KIND_s32(K) KIND_VERBS(s32, K)
#define KIND_s64(K) KIND_VERBS(s64, K)

#define CHECK_TYPE(S, T, UT, ST, UW, SW, N, SG)                                          \
    static int check_##S(void) {                                                         \
        int bad = 0;                                                                     \
        for (int i = 0; i < 200; i++) {                                                  \
            T d = (T)value(i);                                                           \
            if (d == 0)                                                                  \
                continue;                                                                \
            rtdiv_##S dv;                                                                \
            if (rtdiv_##S##_gen(&dv, d) != RTDIV_OK)                                     \
                return 1;                                                                \
            for (int j = 0; j < 200; j++) {                                              \
                T n = (T)value(j), q, r;                                                 \
                if (SG && d == (T)-1) { /* MIN / -1 wraps (rtdiv.h) */                   \
                    q = (T)(0 - (UT)n);                                                  \
                    r = 0;                                                               \
                } else {                                                                 \
                    q = n / d;                                                           \
                    r = n % d;                                                           \
                }                                                                        \
                bad += rtdiv_##S##_div(&dv, n) != q;                                     \
                bad += rtdiv_##S##_div_bf(&dv, n) != q;                                  \
                bad += rtdiv_##S##_rem(&dv, n) != r;                                     \
                bad += rtdiv_##S##_rem_bf(&dv, n) != r;                                  \
                bad += rtdiv_##S##_divisible(&dv, n) != (r == 0);                        \
                T qk = 0, rk = 0;                                                        \
                RTDIV_DISPATCH(S, &dv, KIND_##S);                                        \
                bad += (qk != q) + (rk != r);                                            \
            }                                                                            \
        }                                                                                \
        if (bad)                                                                         \
            printf("rtdiv_portable: %s: %d wrong results\n", #S, bad);                   \
        return bad;                                                                      \
    }
RTDIV_FOR_EACH_TYPE(CHECK_TYPE)

int main(void) {
    int bad = check_u32() + check_u64() + check_s32() + check_s64();
    printf("rtdiv_portable: %s\n", bad ? "FAILED" : "every verb of every type agrees");
    return bad != 0;
}
