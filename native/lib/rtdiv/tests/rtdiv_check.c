/* rtdiv_check.c — checks every rtdiv verb against the CPU's own division.
 *
 *   rtdiv_check exhaustive u32|s32 D...   every 32-bit numerator for each divisor D, by
 *                                         the scalar verbs and by every vector batch path
 *                                         (`exhaustive u32|s32 --scalar D...`: the scalar
 *                                         verbs alone; `--batch D...`: the vector paths
 *                                         alone)
 *   rtdiv_check random SEED NDIV NNUM     edge + random divisors and numerators, all types
 *   rtdiv_check batch SEED                every batch path the CPU has against `div`
 *   rtdiv_check status                    error statuses and "changes nothing on error"
 *   rtdiv_check kinds D...                each type's kind for each divisor D, and sizes
 *
 * Prints one JSON line per result and exits 1 on the first kind of mismatch (with the
 * numerator, divisor, verb, expected and actual values), 0 when all agree. The
 * exhaustive mode uses two threads (the machines this runs on have 2 cores) and checks
 * each quotient by the definition of division, not by dividing (see span_fast). Built with
 * -DRTDIV_CHECK_INJECT=1, one rtdiv result is deliberately corrupted so that a test can
 * prove the checker notices.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rtdiv.h>

#include "splitmix.h"

#ifndef RTDIV_CHECK_INJECT
#define RTDIV_CHECK_INJECT 0
#endif

static int failures;

/* random value with a random number of significant bits (1..64): small values matter */
static uint64_t rng_bits(void) {
    unsigned b = (unsigned)(rng_next() % 64) + 1;
    uint64_t v = rng_next();
    return b == 64 ? v : v & ((1ull << b) - 1);
}

/* ---- the reference: hardware division, with the one case C leaves undefined ---- */

/* Each type's expected quotient and remainder. MIN / -1 wraps to MIN, remainder 0. */
#define REF(S, T, UT, ST, UW, SW, N, SG)                                                 \
    static void ref_##S(T n, T d, T *q, T *r) {                                          \
        if (SG && d == (T)-1) {                                                          \
            *q = (T)(0 - (UT)n);                                                         \
            *r = 0;                                                                      \
            return;                                                                      \
        }                                                                                \
        *q = n / d;                                                                      \
        *r = n % d;                                                                      \
    }
RTDIV_FOR_EACH_TYPE(REF)

#define FMT_u32 "%" PRIu32
#define FMT_u64 "%" PRIu64
#define FMT_s32 "%" PRId32
#define FMT_s64 "%" PRId64

/* The verbs of the divider's own kind, chosen once by RTDIV_DISPATCH (a constant kind
 * in each copy), as a loop that calls them sees them. */
#define KIND_VERBS(S, K) qk = rtdiv_##S##_div_kind(dv, n, K), rk = rtdiv_##S##_rem_kind(dv, n, K)
#define KIND_u32(K) KIND_VERBS(u32, K)
#define KIND_u64(K) KIND_VERBS(u64, K)
#define KIND_s32(K) KIND_VERBS(s32, K)
#define KIND_s64(K) KIND_VERBS(s64, K)

/* Compare all seven verbs for one (n, d); report the first failing verb. */
#define CHECK_ONE(S, T, UT, ST, UW, SW, N, SG)                                           \
    static int check_one_##S(const rtdiv_##S *dv, T d, T n) {                            \
        T q, r, qk = 0, rk = 0;                                                          \
        ref_##S(n, d, &q, &r);                                                           \
        RTDIV_DISPATCH(S, dv, KIND_##S);                                                 \
        T got[7] = {rtdiv_##S##_div(dv, n), rtdiv_##S##_div_bf(dv, n),                   \
                    rtdiv_##S##_rem(dv, n), rtdiv_##S##_rem_bf(dv, n),                   \
                    (T)rtdiv_##S##_divisible(dv, n), qk, rk};                            \
        if (RTDIV_CHECK_INJECT && (UT)n == 123456789u)                                   \
            got[0] ^= 1;                                                                 \
        T want[7] = {q, q, r, r, (T)(r == 0), q, r};                                     \
        static const char *verb[7] = {"div", "div_bf", "rem", "rem_bf", "divisible",     \
                                      "div_kind", "rem_kind"};                           \
        for (int i = 0; i < 7; i++)                                                      \
            if (got[i] != want[i]) {                                                     \
                printf("{\"type\":\"mismatch\",\"int\":\"" #S "\",\"verb\":\"%s\","      \
                       "\"n\":\"" FMT_##S "\",\"d\":\"" FMT_##S "\",\"want\":\""         \
                       FMT_##S "\",\"got\":\"" FMT_##S "\"}\n",                          \
                       verb[i], n, d, want[i], got[i]);                                  \
                return 1;                                                                \
            }                                                                            \
        return 0;                                                                        \
    }
RTDIV_FOR_EACH_TYPE(CHECK_ONE)

/* ---- exhaustive: all 2^32 numerators of a 32-bit type ---- */

typedef struct {
    int is_signed;
    uint32_t d;
    uint64_t lo, hi; /* numerator range [lo, hi) as 32-bit patterns */
    uint64_t bad_at; /* first failing pattern, or UINT64_MAX */
} span;

/* Fast pass: accumulate any disagreement without a branch per numerator, one loop per
 * kind (RTDIV_DISPATCH), so that it costs a few multiplies per numerator rather than a
 * division and a test of the kind (~1 ns against ~7 ns on a Xeon of 2023). No reference
 * quotient is computed: rtdiv's own quotient q is checked against the definition of
 * division, which has one solution. Unsigned: q*d <= n < (q+1)*d, i.e. n - q*d < d in
 * 64 bits. Signed (truncating): r = n - q*d has |r| < |d| and is 0 or of n's sign. MIN /
 * -1, which wraps to MIN, is the one case the definition does not give; it is compared
 * with the negation instead. The other four verbs must then equal q and r (computed
 * mod 2^32, as rem is). A span that disagrees is rescanned with check_one_* (the
 * hardware `div` as reference) to name the verb and values. */
static inline unsigned bad_quotient_u32(uint32_t n, uint32_t d, uint32_t q) {
    return (uint64_t)n - (uint64_t)q * d >= d;
}
static inline unsigned bad_quotient_s32(int32_t n, int32_t d, int32_t q) {
    if (d == -1) /* MIN / -1 wraps to MIN: the negation, mod 2^32 */
        return q != (int32_t)(0u - (uint32_t)n);
    int64_t r = (int64_t)n - (int64_t)q * d;
    uint64_t ar = r < 0 ? 0 - (uint64_t)r : (uint64_t)r;
    uint64_t ad = d < 0 ? 0 - (uint64_t)(int64_t)d : (uint64_t)d;
    return (ar >= ad) | ((r != 0) & ((r < 0) != (n < 0)));
}
#define SPAN_FAST_LOOP(S, T, K)                                                          \
    for (uint64_t i = lo; i < hi; i++) {                                                 \
        T n = (T)(uint32_t)i;                                                            \
        T q = rtdiv_##S##_div_kind(&dv, n, K), q1 = rtdiv_##S##_div_bf(&dv, n);          \
        if (RTDIV_CHECK_INJECT && (uint32_t)i == 123456789u)                             \
            q ^= 1;                                                                      \
        T r = (T)((uint32_t)n - (uint32_t)q * (uint32_t)d);                              \
        bad |= bad_quotient_##S(n, d, q);                                                \
        bad |= (q1 != q) | (rtdiv_##S##_rem_kind(&dv, n, K) != r) |                      \
               (rtdiv_##S##_rem_bf(&dv, n) != r) |                                       \
               ((unsigned)rtdiv_##S##_divisible(&dv, n) != (unsigned)(r == 0));          \
    }
#define SPAN_FAST_u32(K) SPAN_FAST_LOOP(u32, uint32_t, K)
#define SPAN_FAST_s32(K) SPAN_FAST_LOOP(s32, int32_t, K)
#define SPAN_FAST(S, T)                                                                    \
    static int span_fast_##S(const rtdiv_##S *dvp, T d, uint64_t lo, uint64_t hi) {      \
        const rtdiv_##S dv = *dvp;                                                       \
        unsigned bad = 0;                                                                \
        RTDIV_DISPATCH(S, &dv, SPAN_FAST_##S);                                           \
        return bad != 0;                                                                 \
    }
SPAN_FAST(u32, uint32_t)
SPAN_FAST(s32, int32_t)

static void *span_run(void *arg) {
    span *sp = arg;
    const uint64_t chunk = 1u << 24;
    sp->bad_at = UINT64_MAX;
    /* volatile: the compiler must not see the divisor, or it would divide by a constant */
    volatile uint32_t dvol = sp->d;
    uint32_t d = dvol;
    rtdiv_u32 du;
    rtdiv_s32 ds;
    if (sp->is_signed)
        rtdiv_s32_gen(&ds, (int32_t)d);
    else
        rtdiv_u32_gen(&du, d);
    for (uint64_t c = sp->lo; c < sp->hi; c += chunk) {
        uint64_t e = c + chunk < sp->hi ? c + chunk : sp->hi;
        int bad = sp->is_signed ? span_fast_s32(&ds, (int32_t)d, c, e)
                                : span_fast_u32(&du, d, c, e);
        if (!bad)
            continue;
        for (uint64_t i = c; i < e; i++) {
            int b = sp->is_signed ? check_one_s32(&ds, (int32_t)d, (int32_t)(uint32_t)i)
                                  : check_one_u32(&du, d, (uint32_t)i);
            if (b) {
                sp->bad_at = i;
                return NULL;
            }
        }
        /* the fast pass saw a disagreement the integer reference does not: the check by
         * the definition or the hardware `div` is wrong; fail rather than guess which */
        printf("{\"type\":\"mismatch\",\"verb\":\"reference\",\"from\":%llu}\n",
               (unsigned long long)c);
        sp->bad_at = c;
        return NULL;
    }
    return NULL;
}

/* The batch verbs over every numerator, in blocks, by the same definition (the
 * path is the one forced for the whole process: run_exhaustive takes each in turn). A
 * block that disagrees is run again and its first wrong result printed, against the
 * integer `div`. Returns 1 if any block disagreed. */
#define SPAN_BATCH(S, T)                                                                 \
    static int span_batch_##S(const rtdiv_##S *dv, T d, uint64_t lo, uint64_t hi) {     \
        enum { BLOCK = 4096 };                                                           \
        T num[BLOCK], q[BLOCK], r[BLOCK];                                                \
        for (uint64_t b = lo; b < hi; b += BLOCK) {                                      \
            size_t len = hi - b < BLOCK ? (size_t)(hi - b) : BLOCK;                      \
            for (size_t i = 0; i < len; i++)                                             \
                num[i] = (T)(uint32_t)(b + i);                                           \
            rtdiv_##S##_div_batch(dv, num, q, len);                                      \
            rtdiv_##S##_rem_batch(dv, num, r, len);                                      \
            unsigned bad = 0;                                                            \
            for (size_t i = 0; i < len; i++) {                                           \
                T n = num[i];                                                            \
                T rr = (T)((uint32_t)n - (uint32_t)q[i] * (uint32_t)d);                  \
                bad |= bad_quotient_##S(n, d, q[i]) | (r[i] != rr);                      \
            }                                                                            \
            if (!bad)                                                                    \
                continue;                                                                \
            for (size_t i = 0; i < len; i++) {                                           \
                T qr, rr;                                                                \
                ref_##S(num[i], d, &qr, &rr);                                            \
                if (q[i] != qr || r[i] != rr) {                                          \
                    printf("{\"type\":\"mismatch\",\"int\":\"" #S "\",\"verb\":\"%s_batch\"," \
                           "\"isa\":\"%s\",\"n\":\"" FMT_##S "\",\"d\":\"" FMT_##S "\","    \
                           "\"want\":\"" FMT_##S "\",\"got\":\"" FMT_##S "\"}\n",               \
                           q[i] != qr ? "div" : "rem", rtdiv_isa_name(rtdiv_isa_active()), \
                           num[i], d, q[i] != qr ? qr : rr, q[i] != qr ? q[i] : r[i]);   \
                    return 1;                                                            \
                }                                                                        \
            }                                                                            \
            printf("{\"type\":\"mismatch\",\"verb\":\"reference\",\"from\":%llu}\n",     \
                   (unsigned long long)b);                                               \
            return 1;                                                                    \
        }                                                                                \
        return 0;                                                                        \
    }
SPAN_BATCH(u32, uint32_t)
SPAN_BATCH(s32, int32_t)

static void *span_batch_run(void *arg) {
    span *sp = arg;
    volatile uint32_t dvol = sp->d; /* unknown to the compiler, as in span_run */
    uint32_t d = dvol;
    rtdiv_u32 du;
    rtdiv_s32 ds;
    int bad;
    if (sp->is_signed) {
        rtdiv_s32_gen(&ds, (int32_t)d);
        bad = span_batch_s32(&ds, (int32_t)d, sp->lo, sp->hi);
    } else {
        rtdiv_u32_gen(&du, d);
        bad = span_batch_u32(&du, d, sp->lo, sp->hi);
    }
    sp->bad_at = bad ? sp->lo : UINT64_MAX;
    return NULL;
}

/* All 2^32 numerators of one divisor, split between two threads (the machines this runs
 * on have 2 cores), by `fn` (span_run or span_batch_run); 1 if any disagreed. */
static int run_spans(int is_signed, uint32_t d, void *(*fn)(void *)) {
    enum { THREADS = 2 };
    span sp[THREADS];
    pthread_t th[THREADS];
    uint64_t total = 1ull << 32, per = total / THREADS;
    for (int t = 0; t < THREADS; t++) {
        sp[t] = (span){is_signed, d, per * t, t == THREADS - 1 ? total : per * (t + 1), 0};
        pthread_create(&th[t], NULL, fn, &sp[t]);
    }
    int bad = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        bad |= sp[t].bad_at != UINT64_MAX;
    }
    return bad;
}

/* Per divisor: the scalar verbs, then the batch verbs on each vector path the CPU has
 * (the portable batch is the scalar verb in a loop); one line each. */
static int run_exhaustive(int is_signed, int argc, char **argv) {
    static const rtdiv_isa vector_isas[] = {RTDIV_ISA_AVX2, RTDIV_ISA_AVX512};
    int scalar_only = argc > 0 && !strcmp(argv[0], "--scalar"); /* a long divisor list */
    int batch_only = argc > 0 && !strcmp(argv[0], "--batch");
    if (scalar_only || batch_only)
        argc--, argv++;
    for (int a = 0; a < argc; a++) {
        char *end;
        long long v = strtoll(argv[a], &end, 0);
        if (*end || v == 0) {
            printf("{\"type\":\"error\",\"message\":\"bad divisor %s\"}\n", argv[a]);
            return 2;
        }
        uint32_t d = (uint32_t)v;
        for (int p = batch_only ? 0 : -1; p < (int)(sizeof vector_isas / sizeof vector_isas[0]);
             p++) {
            if (p >= 0 && (scalar_only || rtdiv_isa_force(vector_isas[p]) != RTDIV_OK))
                continue;
            int bad = run_spans(is_signed, d, p < 0 ? span_run : span_batch_run);
            printf("{\"type\":\"exhaustive\",\"int\":\"%s\",\"d\":\"%s\",\"path\":\"%s\","
                   "\"checked\":%llu,\"ok\":%s}\n", is_signed ? "s32" : "u32", argv[a],
                   p < 0 ? "scalar" : rtdiv_isa_name(vector_isas[p]), 1ull << 32,
                   bad ? "false" : "true");
            fflush(stdout);
            failures += bad;
        }
        rtdiv_isa_force(RTDIV_ISA_AUTO);
    }
    return failures ? 1 : 0;
}

/* ---- random + edge divisors and numerators, every type ---- */

/* Divisors: 1, 2, 3, 5, 7, 10, 641, 10^9, every 2^k and 2^k +- 1, the maximum and its
 * neighbours, (signed) the negatives of all of them, MIN and MIN + 1, then ndiv random
 * divisors of random bit length. Numerators per divisor: 0, 1, 2, MAX, MAX - 1, MIN,
 * MIN + 1, d - 1, d, d + 1, -d, k*d - 1, k*d, k*d + 1 for random k, 123456789 (the
 * numerator RTDIV_CHECK_INJECT corrupts), then nnum random
 * values of random bit length and sign. */
#define RANDOM_TYPE(S, T, UT, ST, UW, SW, N, SG)                                         \
    static uint64_t random_##S(int ndiv, int nnum) {                                     \
        const UT umax = (UT)~(UT)0;                                                      \
        const T tmax = SG ? (T)(umax >> 1) : (T)umax, tmin = SG ? (T)(tmax + (UT)1) : 0; \
        uint64_t checked = 0;                                                            \
        T fixed[] = {1, 2, 3, 5, 7, 10, 641, 1000000000, tmax, (T)(tmax - 1),            \
                     (T)(tmax / 2), (T)(tmax / 2 + 1), tmin, (T)(tmin + 1), (T)-1,       \
                     (T)-7, (T)-10};                                                     \
        int nfixed = (int)(sizeof fixed / sizeof fixed[0]);                              \
        int total = nfixed + 3 * N + ndiv;                                               \
        for (int di = 0; di < total; di++) {                                             \
            T d;                                                                         \
            if (di < nfixed)                                                             \
                d = fixed[di];                                                           \
            else if (di < nfixed + 3 * N) {                                              \
                int k = (di - nfixed) / 3, w = (di - nfixed) % 3;                        \
                d = (T)(((UT)1 << k) + (UT)(w - 1)); /* 2^k - 1, 2^k, 2^k + 1 */         \
                if (SG && (rng_next() & 1))                                              \
                    d = (T)(0 - (UT)d);                                                  \
            } else {                                                                     \
                d = (T)rng_bits();                                                       \
                if (SG && (rng_next() & 1))                                              \
                    d = (T)(0 - (UT)d);                                                  \
            }                                                                            \
            if (d == 0)                                                                  \
                continue;                                                                \
            rtdiv_##S dv;                                                                \
            if (rtdiv_##S##_gen(&dv, d) != RTDIV_OK) {                                   \
                printf("{\"type\":\"mismatch\",\"int\":\"" #S "\",\"verb\":\"gen\"}\n"); \
                return 0;                                                                \
            }                                                                            \
            if (rtdiv_##S##_divisor(&dv) != d) {                                         \
                printf("{\"type\":\"mismatch\",\"int\":\"" #S "\",\"verb\":\"divisor\"}\n"); \
                return 0;                                                                \
            }                                                                            \
            UT ad = (SG && (ST)d < 0) ? (UT)0 - (UT)d : (UT)d;                           \
            UT kmax = (UT)(umax / (SG ? 2 : 1) / ad); /* k*|d| stays representable */   \
            T k = (T)(kmax ? rng_bits() % kmax : 0);                                     \
            T edges[] = {0, 1, 2, tmax, (T)(tmax - 1), tmin, (T)(tmin + 1),              \
                         (T)((UT)d - 1), d, (T)((UT)d + 1), (T)(0 - (UT)d),              \
                         (T)((UT)k * (UT)d - 1), (T)((UT)k * (UT)d),                     \
                         (T)((UT)k * (UT)d + 1), (T)(0 - (UT)k * (UT)d),                 \
                         (T)123456789};                                                  \
            int ne = (int)(sizeof edges / sizeof edges[0]);                              \
            for (int i = 0; i < ne + nnum; i++) {                                        \
                T n = i < ne ? edges[i] : (T)rng_bits();                                 \
                if (SG && i >= ne && (rng_next() & 1))                                   \
                    n = (T)(0 - (UT)n);                                                  \
                if (check_one_##S(&dv, d, n))                                            \
                    return 0;                                                            \
                checked++;                                                               \
            }                                                                            \
        }                                                                                \
        return checked;                                                                  \
    }
RTDIV_FOR_EACH_TYPE(RANDOM_TYPE)

static int run_random(int ndiv, int nnum) {
#define RUN_RANDOM(S, T, UT, ST, UW, SW, N, SG)                                          \
    {                                                                                    \
        uint64_t c = random_##S(ndiv, nnum);                                             \
        printf("{\"type\":\"random\",\"int\":\"" #S "\",\"checked\":%llu,\"ok\":%s}\n",  \
               (unsigned long long)c, c ? "true" : "false");                             \
        failures += c == 0;                                                              \
    }
    RTDIV_FOR_EACH_TYPE(RUN_RANDOM)
    return failures ? 1 : 0;
}

/* ---- batch paths against hardware division ---- */

/* Every length from 0 to 100 (across each vector width, each two-vector step and the
 * one-element-further load of the 32-bit lanes), then a long array; the arrays start
 * 0..15 elements past a 64-byte boundary (cycling with the length), and each runs in
 * place (num == out) too. Divisors: 1, -1, small and odd ones, 10^9, the type's MIN, MAX
 * and unsigned maximum, every power of two and its negative, the neighbours of 2^31 and
 * 2^32, and random ones. Numerators: 0, 1, -1, MIN, MAX, the unsigned maximum, powers of
 * two and their neighbours, multiples of d and their neighbours, random values. */
/* The address where a page without access begins, after one readable page (made once). */
static unsigned char *guard_page(void) {
    static unsigned char *end;
    if (!end) {
        long page = sysconf(_SC_PAGESIZE);
        unsigned char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE) != 0) {
            perror("guard page");
            exit(2);
        }
        end = p + page;
    }
    return end;
}

#define BATCH_LONG 1000
#define BATCH_TYPE(S, T, UT, ST, UW, SW, N, SG)                                          \
    static T batch_numerator_##S(T d) {                                                  \
        const UT umax = (UT)~(UT)0;                                                      \
        UT k = (UT)rng_bits(), v;                                                        \
        switch (rng_next() % 8) {                                                        \
        case 0: { /* an edge */                                                          \
            const UT e[] = {0, 1, umax, umax >> 1, (umax >> 1) + 1, (umax >> 1) + 2, 2}; \
            return (T)e[rng_next() % (sizeof e / sizeof e[0])];                          \
        }                                                                                \
        case 1: /* a power of two, or its neighbour */                                   \
            v = ((UT)1 << (rng_next() % N)) + (UT)(rng_next() % 3) - 1;                  \
            break;                                                                       \
        case 2: /* a multiple of d, or its neighbour */                                  \
            v = k * (UT)d + (UT)(rng_next() % 3) - 1;                                    \
            break;                                                                       \
        default:                                                                         \
            v = (UT)rng_bits();                                                          \
        }                                                                                \
        return (T)(SG && (rng_next() & 1) ? (UT)0 - v : v);                              \
    }                                                                                    \
    static uint64_t batch_##S(void) {                                                    \
        enum { PAD = 16 };                                                               \
        static _Alignas(64) T num[BATCH_LONG + PAD], out[BATCH_LONG + PAD + 1],          \
            tmp[BATCH_LONG + PAD];                                                       \
        uint64_t checked = 0;                                                            \
        const UT umax = (UT)~(UT)0;                                                      \
        T fixed[3 * N + 16];                                                             \
        int nf = 0;                                                                      \
        const UT edges[] = {1, 3, 7, 10, 641, 1000000000, umax, umax >> 1,               \
                            (umax >> 1) + 1, (umax >> 1) + 2, umax - 1, umax - 2,         \
                            0x7FFFFFFE, 0x80000001, 0xFFFFFFFD};                         \
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)                      \
            fixed[nf++] = (T)edges[i];                                                   \
        for (int k = 0; k < N; k++) { /* 2^k, and (signed) -2^k */                      \
            fixed[nf++] = (T)((UT)1 << k);                                               \
            fixed[nf++] = (T)(0 - ((UT)1 << k));                                         \
        }                                                                                \
        for (int di = 0; di < nf + 100; di++) {                                          \
            T d = di < nf ? fixed[di] : (T)rng_bits();                                   \
            if (SG && (di < nf ? di < 15 : 1) && (rng_next() & 1)) /* either sign */     \
                d = (T)(0 - (UT)d);                                                      \
            if (d == 0)                                                                  \
                continue;                                                                \
            rtdiv_##S dv;                                                                \
            rtdiv_##S##_gen(&dv, d);                                                     \
            for (size_t len = 0; len <= 101; len++) {                                    \
                size_t n = len == 101 ? BATCH_LONG : len;                                \
                size_t off = (len * 7 + (size_t)di) % PAD;                               \
                T *src = num + off, *dst = out + off, *tsrc = tmp + off;                 \
                for (size_t i = 0; i < n; i++)                                           \
                    src[i] = batch_numerator_##S(d);                                     \
                for (int verb = 0; verb < 2; verb++)                                     \
                    for (int inplace = 0; inplace < 2; inplace++) {                      \
                        T *o = inplace ? tsrc : dst;                                     \
                        if (inplace)                                                     \
                            memcpy(tsrc, src, n * sizeof(T));                            \
                        dst[n] = 77; /* a sentinel past the end */                       \
                        rtdiv_status st = verb ? rtdiv_##S##_rem_batch(&dv, inplace ? tsrc : src, o, n) \
                                               : rtdiv_##S##_div_batch(&dv, inplace ? tsrc : src, o, n); \
                        if (st != RTDIV_OK)                                              \
                            return 0;                                                    \
                        for (size_t i = 0; i < n; i++) {                                 \
                            T q, r;                                                      \
                            ref_##S(src[i], d, &q, &r);                                  \
                            T want = verb ? r : q;                                       \
                            if (o[i] != want) {                                          \
                                printf("{\"type\":\"mismatch\",\"int\":\"" #S "\","      \
                                       "\"verb\":\"%s_batch\",\"isa\":\"%s\",\"len\":%zu," \
                                       "\"offset\":%zu,\"inplace\":%d,\"i\":%zu,\"d\":\""  \
                                       FMT_##S "\",\"n\":\"" FMT_##S "\",\"want\":\""     \
                                       FMT_##S "\",\"got\":\"" FMT_##S "\"}\n",          \
                                       verb ? "rem" : "div",                             \
                                       rtdiv_isa_name(rtdiv_isa_active()), n, off, inplace, \
                                       i, d, src[i], want, o[i]);                        \
                                return 0;                                                \
                            }                                                            \
                            checked++;                                                   \
                        }                                                                \
                        if (!inplace && dst[n] != 77) {                                  \
                            printf("{\"type\":\"mismatch\",\"int\":\"" #S "\","          \
                                   "\"verb\":\"batch wrote past the end\",\"len\":%zu}\n", n); \
                            return 0;                                                    \
                        }                                                                \
                    }                                                                    \
            }                                                                            \
        }                                                                                \
        /* arrays that end where a page without access begins: a read past the end */  \
        /* faults (the 32-bit lanes load one element further while that is inside) */   \
        T *edge = (T *)(guard_page() - 101 * sizeof(T)), rem[101];                       \
        rtdiv_##S dv;                                                                    \
        rtdiv_##S##_gen(&dv, 7);                                                         \
        for (size_t n = 0; n <= 100; n++) {                                              \
            T *src = edge + 101 - n;                                                     \
            for (size_t i = 0; i < n; i++)                                               \
                src[i] = batch_numerator_##S(7);                                         \
            rtdiv_##S##_div_batch(&dv, src, out, n);                                     \
            rtdiv_##S##_rem_batch(&dv, src, rem, n);                                     \
            for (size_t i = 0; i < n; i++) {                                             \
                T q, r;                                                                  \
                ref_##S(src[i], 7, &q, &r);                                              \
                if (out[i] != q || rem[i] != r) {                                        \
                    printf("{\"type\":\"mismatch\",\"int\":\"" #S "\","              \
                           "\"verb\":\"batch at a page's end\",\"len\":%zu}\n", n);      \
                    return 0;                                                            \
                }                                                                        \
            }                                                                            \
            checked += n;                                                                \
        }                                                                                \
        return checked;                                                                  \
    }
RTDIV_FOR_EACH_TYPE(BATCH_TYPE)

static int run_batch(void) {
    static const rtdiv_isa isas[] = {RTDIV_ISA_PORTABLE, RTDIV_ISA_AVX2, RTDIV_ISA_AVX512};
    for (size_t k = 0; k < sizeof isas / sizeof isas[0]; k++) {
        rtdiv_isa isa = isas[k];
        if (rtdiv_isa_force(isa) != RTDIV_OK) {
            printf("{\"type\":\"batch\",\"isa\":\"%s\",\"supported\":false}\n",
                   rtdiv_isa_name(isa));
            continue;
        }
#define RUN_BATCH(S, T, UT, ST, UW, SW, N, SG)                                           \
        {                                                                                \
            uint64_t c = batch_##S();                                                    \
            printf("{\"type\":\"batch\",\"isa\":\"%s\",\"supported\":true,\"int\":\"" #S  \
                   "\",\"checked\":%llu,\"ok\":%s}\n", rtdiv_isa_name(rtdiv_isa_active()), \
                   (unsigned long long)c, c ? "true" : "false");                         \
            failures += c == 0;                                                          \
        }
        RTDIV_FOR_EACH_TYPE(RUN_BATCH)
    }
    rtdiv_isa_force(RTDIV_ISA_AUTO);
    return failures ? 1 : 0;
}

/* ---- kinds: which sequence each divisor takes (rtdiv_<T>_kind), and the struct sizes ---- */

static const char *const kind_names[] = {"shift", "mul", "pre", "add", "neg"};

static int run_kinds(int argc, char **argv) {
    for (int i = 0; i < argc; i++) {
        long long d = strtoll(argv[i], NULL, 0);
#define KIND_OF(S, T, UT, ST, UW, SW, N, SG)                                             \
        {                                                                                \
            rtdiv_##S dv;                                                                \
            int ok = (SG || d > 0) && rtdiv_##S##_gen(&dv, (T)d) == RTDIV_OK;            \
            if (ok && (long long)(T)d == d)                                              \
                printf("{\"type\":\"kind\",\"int\":\"" #S "\",\"d\":%lld,\"kind\":\"%s\"}\n", \
                       d, kind_names[rtdiv_##S##_kind(&dv)]);                            \
        }
        RTDIV_FOR_EACH_TYPE(KIND_OF)
#undef KIND_OF
    }
#define SIZE_OF(S, T, UT, ST, UW, SW, N, SG)                                             \
    printf("{\"type\":\"size\",\"int\":\"" #S "\",\"bytes\":%zu}\n", sizeof(rtdiv_##S));
    RTDIV_FOR_EACH_TYPE(SIZE_OF)
#undef SIZE_OF
    return 0;
}

/* ---- statuses ---- */

static int run_status(void) {
    int bad = 0;
#define STATUS_TYPE(S, T, UT, ST, UW, SW, N, SG)                                         \
    {                                                                                    \
        rtdiv_##S dv, before;                                                            \
        memset(&dv, 0xA5, sizeof dv);                                                    \
        before = dv;                                                                     \
        T one = 1, x = 5;                                                                \
        bad += rtdiv_##S##_gen(&dv, 0) != RTDIV_ERR_ZERO;                                \
        bad += memcmp(&dv, &before, sizeof dv) != 0; /* unchanged on error */            \
        bad += rtdiv_##S##_gen(NULL, 3) != RTDIV_ERR_NULL;                               \
        bad += rtdiv_##S##_gen(&dv, 3) != RTDIV_OK;                                      \
        bad += rtdiv_##S##_div_batch(NULL, &one, &x, 1) != RTDIV_ERR_NULL;               \
        bad += rtdiv_##S##_div_batch(&dv, NULL, &x, 1) != RTDIV_ERR_NULL;                \
        bad += rtdiv_##S##_rem_batch(&dv, &one, NULL, 1) != RTDIV_ERR_NULL;              \
        bad += x != 5; /* nothing written */                                             \
        bad += rtdiv_##S##_div_batch(&dv, NULL, NULL, 0) != RTDIV_OK;                    \
    }
    RTDIV_FOR_EACH_TYPE(STATUS_TYPE)
    bad += rtdiv_isa_force((rtdiv_isa)99) != RTDIV_ERR_UNSUPPORTED;
    /* every status has its own text, and a value outside the enum still gets one */
    const char *unknown = rtdiv_status_str((rtdiv_status)99);
    bad += unknown == NULL;
    for (int a = RTDIV_OK; a <= RTDIV_ERR_UNSUPPORTED; a++) {
        const char *text = rtdiv_status_str((rtdiv_status)a);
        bad += !text || !*text || !unknown || !strcmp(text, unknown);
        for (int b = RTDIV_OK; b < a; b++)
            bad += text && !strcmp(text, rtdiv_status_str((rtdiv_status)b));
    }
    bad += rtdiv_isa_active() == RTDIV_ISA_AUTO; /* always resolved to a real path */
    printf("{\"type\":\"status\",\"ok\":%s,\"detected\":\"%s\"}\n", bad ? "false" : "true",
           rtdiv_isa_name(rtdiv_isa_active()));
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "exhaustive")) {
        int sg = !strcmp(argv[2], "s32");
        if (!sg && strcmp(argv[2], "u32")) {
            printf("{\"type\":\"error\",\"message\":\"type must be u32 or s32\"}\n");
            return 2;
        }
        return run_exhaustive(sg, argc - 3, argv + 3);
    }
    if (argc == 5 && !strcmp(argv[1], "random")) {
        rng_state = strtoull(argv[2], NULL, 0);
        return run_random(atoi(argv[3]), atoi(argv[4]));
    }
    if (argc == 3 && !strcmp(argv[1], "batch")) {
        rng_state = strtoull(argv[2], NULL, 0);
        return run_batch();
    }
    if (argc == 2 && !strcmp(argv[1], "status"))
        return run_status();
    if (argc >= 2 && !strcmp(argv[1], "kinds"))
        return run_kinds(argc - 2, argv + 2);
    fprintf(stderr, "usage: %s exhaustive u32|s32 D... | random SEED NDIV NNUM | batch SEED"
                    " | status | kinds D...\n", argv[0]);
    return 2;
}
