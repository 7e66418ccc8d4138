/* rtdiv_loops.c — loops of the inline verbs as a program writes them, for the tests to
 * read what the compiler made of them (tests/test_lib_rtdiv.py disassembles the
 * functions below), and their results against C's own / and %.
 *
 *   loop_<T>_div_bf, loop_<T>_rem_bf (u32, s32): an array of branchfree divisions, which
 *       gcc -O3 and clang -O2 vectorise (SSE4.1 and up: signed lanes take pmuldq). The
 *       32-bit kind verbs' loops stay scalar: x86 has no vector 64-bit multiply-high.
 *   loop_<T>_div_shift, loop_<T>_rem_shift (s32, s64): the signed power of two with the
 *       vectoriser off: the numerator's sign picks the bias without a conditional jump.
 *
 * Exits 0 when every result is right; else 1, with the first wrong one on stderr.
 */
#include <rtdiv.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "splitmix.h"

#define LEN 4099 /* not a multiple of any vector width: the loops' tails run too */

/* The vectoriser off for one function (gcc 12 has no per-loop switch) or loop (clang). */
#if defined(__clang__)
#define SCALAR_FN
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#define SCALAR_LOOP
#endif

#define NOINLINE __attribute__((noinline))

#define BF_LOOPS(S, T)                                                                   \
    NOINLINE void loop_##S##_div_bf(const rtdiv_##S *dv, const T *x, T *q, size_t n) {   \
        for (size_t i = 0; i < n; i++)                                                   \
            q[i] = rtdiv_##S##_div_bf(dv, x[i]);                                         \
    }                                                                                    \
    NOINLINE void loop_##S##_rem_bf(const rtdiv_##S *dv, const T *x, T *r, size_t n) {   \
        for (size_t i = 0; i < n; i++)                                                   \
            r[i] = rtdiv_##S##_rem_bf(dv, x[i]);                                         \
    }
BF_LOOPS(u32, uint32_t)
BF_LOOPS(s32, int32_t)

#define SHIFT_LOOPS(S, T)                                                                \
    SCALAR_FN NOINLINE void loop_##S##_div_shift(const rtdiv_##S *dv, const T *x, T *q,  \
                                                 size_t n) {                             \
        SCALAR_LOOP for (size_t i = 0; i < n; i++)                                       \
            q[i] = rtdiv_##S##_div_kind(dv, x[i], RTDIV_KIND_SHIFT);                     \
    }                                                                                    \
    SCALAR_FN NOINLINE void loop_##S##_rem_shift(const rtdiv_##S *dv, const T *x, T *r,  \
                                                 size_t n) {                             \
        SCALAR_LOOP for (size_t i = 0; i < n; i++)                                       \
            r[i] = rtdiv_##S##_rem_kind(dv, x[i], RTDIV_KIND_SHIFT);                     \
    }
SHIFT_LOOPS(s32, int32_t)
SHIFT_LOOPS(s64, int64_t)

/* Edge numerators first, then random ones of every magnitude and sign. */
static void fill(uint64_t *x) {
    static const uint64_t edge[] = {0, 1, 2, 3, 7, 0x7fffffffu, 0x80000000u, 0xffffffffu,
                                    0x7fffffffffffffffu, 0x8000000000000000u,
                                    0xffffffffffffffffu, 0xfffffffffffffffeu};
    for (size_t i = 0; i < LEN; i++)
        x[i] = i < sizeof edge / sizeof *edge ? edge[i] : rng_next() >> (rng_next() & 63);
}

static int failed;

/* Every loop of type S against C's / and % for divisor d (d != 0; no MIN / -1). */
#define CHECK(S, T, FMT, LOOPS)                                                          \
    static void check_##S(T d) {                                                         \
        static uint64_t raw[LEN];                                                        \
        static T x[LEN], q[LEN], r[LEN];                                                 \
        rtdiv_##S dv;                                                                    \
        fill(raw);                                                                       \
        for (size_t i = 0; i < LEN; i++)                                                 \
            x[i] = (T)raw[i];                                                            \
        if (rtdiv_##S##_gen(&dv, d) != RTDIV_OK) {                                       \
            fprintf(stderr, #S " / %" FMT ": rtdiv_" #S "_gen failed\n", d);             \
            failed = 1;                                                                  \
            return;                                                                      \
        }                                                                                \
        LOOPS(S, T, FMT)                                                                 \
    }
#define RUN(S, T, FMT, NAME, OUT, EXPECT)                                                \
    loop_##S##_##NAME(&dv, x, OUT, LEN);                                                 \
    for (size_t i = 0; i < LEN && !failed; i++)                                          \
        if (OUT[i] != (T)(EXPECT)) {                                                     \
            fprintf(stderr, "loop_" #S "_" #NAME ": %" FMT " by %" FMT " gave %" FMT     \
                    ", not %" FMT "\n", x[i], d, OUT[i], (T)(EXPECT));                   \
            failed = 1;                                                                  \
        }
#define BF_RUNS(S, T, FMT)                                                               \
    RUN(S, T, FMT, div_bf, q, x[i] / d)                                                  \
    RUN(S, T, FMT, rem_bf, r, x[i] % d)
#define SHIFT_RUNS(S, T, FMT)                                                            \
    if (rtdiv_##S##_kind(&dv) == RTDIV_KIND_SHIFT) {                                     \
        RUN(S, T, FMT, div_shift, q, x[i] / d)                                           \
        RUN(S, T, FMT, rem_shift, r, x[i] % d)                                           \
    }
#define ALL_RUNS(S, T, FMT) BF_RUNS(S, T, FMT) SHIFT_RUNS(S, T, FMT)
CHECK(u32, uint32_t, PRIu32, BF_RUNS)
CHECK(s32, int32_t, PRId32, ALL_RUNS)
CHECK(s64, int64_t, PRId64, SHIFT_RUNS)

int main(void) {
    static const int64_t divisors[] = {1, 2, 3, 7, 10, 14, 641, 1024, 1000000000,
                                       1 << 30, -1000000000, -7, -3, -1024};
    for (size_t i = 0; i < sizeof divisors / sizeof *divisors; i++) {
        int64_t d = divisors[i];
        if (d > 0)
            check_u32((uint32_t)d);
        check_s32((int32_t)d);
        check_s64(d);
        if (d > 0 && (d & (d - 1)) == 0) { /* and powers of two beyond 32 bits */
            check_s64(d << 31);
            check_s64(-(d << 31));
        }
    }
    return failed;
}
