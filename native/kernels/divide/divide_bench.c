/* divide_bench.c — division by a divisor fixed at run time: who is fastest (seed row S4).
 *
 * The divisor is DIVIDE_CONST (a -D at build time, default 7; the experiment builds one
 * program per divisor) for every method, so the compile-time-constant case divides by
 * exactly what the run-time methods divide by. Methods (<m>):
 *   hw            the `div`/`idiv` instruction (divisor loaded from memory, unknown to
 *                 the compiler)
 *   const         n / DIVIDE_CONST: the compiler's own magic-number sequence, one
 *                 division at a time (the scalar verbs' peer)
 *   const_vec     the array divided as the batch divides it, out[i] = x[i] / DIVIDE_CONST
 *                 with the vectoriser on, then the same sum over out: the batch's peer,
 *                 throughput only (doing the batch's job, stores and all: a loop that
 *                 sums the quotients without storing them does less than the batch does)
 *   rtdiv         rtdiv_<T>_div_kind with the divisor's kind a constant: the loop is
 *                 compiled once per kind and one copy chosen before it runs
 *                 (RTDIV_DISPATCH), as a user of the header writes it;
 *   rtdiv_bf      rtdiv_<T>_div_bf (branchfree, the same code for every divisor)
 *   rtdiv_batch   rtdiv_<T>_div_batch over the array (AVX-512/AVX2/portable; --param
 *                 isa= forces one), throughput only
 *   libdivide     libdivide_<T>_do, libdivide_bf: libdivide_<T>_branchfree_do (Debian's
 *                 libdivide 3.0; no branchfree form for unsigned d = 1)
 *   fastmod       Lemire, Kaser & Kurz's remainder by a 64-bit (u32, s32) or 128-bit
 *                 (u64) fraction: --param op=rem only, no s64 form
 * and two loops per method:
 *   tput_<m>      sum of n / d (or n % d) over --param n numerators (default 4096, a
 *                 32 KiB array): independent operations, what a core sustains. The loop
 *                 is kept scalar (the vectoriser off for it), so that each scalar verb
 *                 meets the constant in the same form; only const_vec and rtdiv_batch
 *                 run vector code
 *   lat_<m>       a dependent chain v = (v / d) + x[i]: the latency of one division
 * --param type=u32|u64|s32|s64 (default u64), op=div|rem (default div), bits=B: the
 * numerators' magnitude in bits (default the full width), seed=S.
 *
 * Verification after every timed call (outside the timing): tput sums against
 * iters * (the sum by hardware division), lat chains against the same chain computed
 * with hardware division.
 */
#include "cpulab_harness.h"

#include <libdivide.h>

#include <rtdiv.h>

#ifndef DIVIDE_CONST
#define DIVIDE_CONST 7
#endif
_Static_assert(DIVIDE_CONST >= 1 && DIVIDE_CONST <= 2147483647,
               "DIVIDE_CONST must be in 1 .. 2^31 - 1 (it divides every type)");

/* ---- Lemire's fastmod (Lemire, Kaser, Kurz 2019), written from the paper ---- */

static inline uint32_t fastmod_u32(uint32_t a, uint64_t m, uint32_t d) {
    uint64_t low = m * a; /* the fractional part of a / d, in 64 bits */
    return (uint32_t)(((unsigned __int128)low * d) >> 64);
}
static inline int32_t fastmod_s32(int32_t a, uint64_t m, int32_t d) { /* d > 0 */
    uint64_t low = m * (uint64_t)(int64_t)a;
    int32_t high = (int32_t)(((unsigned __int128)low * (uint64_t)d) >> 64);
    return high - ((d - 1) & (a >> 31));
}
static inline uint64_t fastmod_u64(uint64_t a, unsigned __int128 m, uint64_t d) {
    unsigned __int128 low = m * a;
    unsigned __int128 bottom = ((low & UINT64_MAX) * d) >> 64, top = (low >> 64) * d;
    return (uint64_t)((bottom + top) >> 64);
}
static inline int64_t fastmod_s64(int64_t a, uint64_t m, int64_t d) { /* not defined */
    (void)m, (void)d;
    return a;
}

/* ---- per-type state ---- */

typedef struct {
    const char *name;
    uint64_t result;
    int is_lat;
} dcase;

static size_t g_n;
static int g_rem;

#define HAS_LD_BF_UNSIGNED (DIVIDE_CONST != 1)

#define STATE(S, T, UT, ST, UW, SW, N, SG, FMT)                                          \
    typedef struct {                                                                     \
        T d;                                                                             \
        rtdiv_##S rt;                                                                    \
        struct libdivide_##S##_t ld;                                                     \
        struct libdivide_##S##_branchfree_t ldbf;                                        \
        FMT m;                                                                           \
    } ctx_##S;                                                                           \
    static ctx_##S G_##S;                                                                \
    static T *X_##S, *OUT_##S;                                                           \
    static UT REF_##S; /* one pass's sum, by hardware division */
STATE(u32, uint32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 0, uint64_t)
STATE(u64, uint64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 0, unsigned __int128)
STATE(s32, int32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 1, uint64_t)
STATE(s64, int64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 1, uint64_t)

/* ---- the methods: quotient (Q_) and remainder (R_) of v, with `c` the state ---- */

#define Q_hw(S, T, UT, v) ((v) / c.d)
#define R_hw(S, T, UT, v) ((v) % c.d)
#define Q_const(S, T, UT, v) ((v) / (T)DIVIDE_CONST)
#define R_const(S, T, UT, v) ((v) % (T)DIVIDE_CONST)
/* The kind verbs of the divider's type (dv is `const rtdiv_<T> *`), quotient or remainder
 * by a constant `rem`, so that one loop body serves every type and op. */
#define KIND_VERB(V, dv, v, K)                                                           \
    _Generic((dv), const rtdiv_u32 *: rtdiv_u32_##V##_kind,                              \
             const rtdiv_u64 *: rtdiv_u64_##V##_kind,                                    \
             const rtdiv_s32 *: rtdiv_s32_##V##_kind,                                    \
             const rtdiv_s64 *: rtdiv_s64_##V##_kind)(dv, v, K)
#ifndef DIVIDE_BREAK
#define KIND_OP(dv, v, K) (rem ? KIND_VERB(rem, dv, v, K) : KIND_VERB(div, dv, v, K))
#else /* tests only: a wrong quotient the verification must catch */
#define KIND_OP(dv, v, K)                                                                \
    (rem ? KIND_VERB(rem, dv, v, K) : (bench_t)(KIND_VERB(div, dv, v, K) + ((v) & 1)))
#endif
#define Q_rtdiv_bf(S, T, UT, v) rtdiv_##S##_div_bf(&c.rt, v)
#define R_rtdiv_bf(S, T, UT, v) rtdiv_##S##_rem_bf(&c.rt, v)
#define Q_libdivide(S, T, UT, v) libdivide_##S##_do(v, &c.ld)
#define R_libdivide(S, T, UT, v) (T)((UT)(v) - (UT)libdivide_##S##_do(v, &c.ld) * (UT)c.d)
#define Q_libdivide_bf(S, T, UT, v) libdivide_##S##_branchfree_do(v, &c.ldbf)
#define R_libdivide_bf(S, T, UT, v)                                                      \
    (T)((UT)(v) - (UT)libdivide_##S##_branchfree_do(v, &c.ldbf) * (UT)c.d)
#define R_fastmod(S, T, UT, v) fastmod_##S(v, c.m, c.d)

/* The vectoriser off for one loop (clang) or one function (gcc has no per-loop
 * switch before gcc 14's `#pragma GCC novector`). */
#if defined(__clang__)
#define SCALAR_FN
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#else
#define SCALAR_FN __attribute__((optimize("no-tree-vectorize")))
#define SCALAR_LOOP
#endif
/* The constant loop as vector code at the best ISA this CPU has, chosen at load time
 * like the batch's own dispatch; gcc's -O2 cost model ("very cheap") would keep it
 * scalar, so the vectoriser runs with its usual model there. The batch's loops get the
 * same, so that both sum their quotients with vector code (gcc left the batch's sum
 * scalar: 4-13x the constant loop's time instead of 1-6x). */
#if defined(__x86_64__) && defined(__clang__)
#define VECTOR_FN __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#elif defined(__x86_64__)
#define VECTOR_FN                                                                        \
    __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic"),               \
                   target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VECTOR_FN
#endif

/* The throughput loop of (type, op, method); FN_ATTR/LOOP_PRAGMA keep it scalar or not. */
#define TPUT_LOOP(S, T, UT, OP, M, FN_ATTR, LOOP_PRAGMA)                                 \
    FN_ATTR static uint64_t tput_##OP##_##M##_##S(uint64_t iters, void *arg) {           \
        const ctx_##S c = G_##S;                                                         \
        (void)c; /* the constant's loops leave the divider unused */                     \
        const T *x = X_##S;                                                              \
        size_t n = g_n;                                                                  \
        UT acc = 0;                                                                      \
        for (uint64_t it = 0; it < iters; it++) {                                        \
            LOOP_PRAGMA                                                                  \
            for (size_t i = 0; i < n; i++)                                               \
                acc += (UT)OP##_##M(S, T, UT, x[i]);                                     \
            clh_clobber();                                                               \
        }                                                                                \
        ((dcase *)arg)->result = acc;                                                    \
        return acc;                                                                      \
    }

/* The vector loops' job: divide the array into OUT (FILL), then sum OUT, for the batch
 * and for the constant alike. The clobber keeps the compiler from fusing the two loops
 * into one that stores nothing it must not (the batch's call is opaque to it too). */
#define ARRAY_LOOP(S, T, UT, OP, M, FILL)                                                \
    VECTOR_FN static uint64_t tput_##OP##_##M##_##S(uint64_t iters, void *arg) {         \
        UT acc = 0;                                                                      \
        for (uint64_t it = 0; it < iters; it++) {                                        \
            FILL;                                                                        \
            clh_clobber();                                                               \
            for (size_t i = 0; i < g_n; i++)                                             \
                acc += (UT)OUT_##S[i];                                                   \
        }                                                                                \
        ((dcase *)arg)->result = acc;                                                    \
        return acc;                                                                      \
    }
#define CONST_ARRAY(S, T, UT, OP)                                                        \
    do {                                                                                 \
        const T *restrict x = X_##S;                                                     \
        T *restrict out = OUT_##S;                                                       \
        size_t n = g_n;                                                                  \
        for (size_t i = 0; i < n; i++)                                                   \
            out[i] = (T)OP##_const(S, T, UT, x[i]);                                      \
    } while (0)

/* One (scalar) throughput and one latency loop for (type, op, method). */
#define LOOPS(S, T, UT, OP, M)                                                           \
    TPUT_LOOP(S, T, UT, OP, M, SCALAR_FN, SCALAR_LOOP)                                   \
    static uint64_t lat_##OP##_##M##_##S(uint64_t iters, void *arg) {                    \
        const ctx_##S c = G_##S;                                                         \
        (void)c; /* the constant's loops leave the divider unused */                     \
        const T *x = X_##S;                                                              \
        size_t mask = g_n - 1;                                                           \
        T v = x[0];                                                                      \
        for (uint64_t i = 0; i < iters; i++)                                             \
            v = (T)((UT)OP##_##M(S, T, UT, v) + (UT)x[i & mask]);                        \
        ((dcase *)arg)->result = (UT)v;                                                  \
        return (UT)v;                                                                    \
    }

/* rtdiv's loops: the body once per kind (RTDIV_DISPATCH), the kind chosen before the
 * loop. The bodies name the function's locals: c, x, n, iters, acc or v, rem. */
#define TPUT_KIND(K)                                                                     \
    for (uint64_t it = 0; it < iters; it++) {                                            \
        SCALAR_LOOP                                                                      \
        for (size_t i = 0; i < n; i++)                                                   \
            acc += (bench_ut)KIND_OP(&c.rt, x[i], K);                                    \
        clh_clobber();                                                                   \
    }
#define LAT_KIND(K)                                                                      \
    for (uint64_t i = 0; i < iters; i++)                                                 \
        v = (bench_t)((bench_ut)KIND_OP(&c.rt, v, K) + (bench_ut)x[i & mask]);

#define RTDIV_LOOPS(S, T, UT, OP, REM)                                                   \
    SCALAR_FN static uint64_t tput_##OP##_rtdiv_##S(uint64_t iters, void *arg) {         \
        typedef T bench_t;                                                               \
        typedef UT bench_ut;                                                             \
        const int rem = REM;                                                             \
        const ctx_##S c = G_##S;                                                         \
        const T *x = X_##S;                                                              \
        size_t n = g_n;                                                                  \
        (void)(bench_t)0;                                                                \
        UT acc = 0;                                                                      \
        RTDIV_DISPATCH(S, &c.rt, TPUT_KIND);                                             \
        ((dcase *)arg)->result = acc;                                                    \
        return acc;                                                                      \
    }                                                                                    \
    static uint64_t lat_##OP##_rtdiv_##S(uint64_t iters, void *arg) {                    \
        typedef T bench_t;                                                               \
        typedef UT bench_ut;                                                             \
        const int rem = REM;                                                             \
        const ctx_##S c = G_##S;                                                         \
        const T *x = X_##S;                                                              \
        size_t mask = g_n - 1;                                                           \
        T v = x[0];                                                                      \
        RTDIV_DISPATCH(S, &c.rt, LAT_KIND);                                              \
        ((dcase *)arg)->result = (UT)v;                                                  \
        return (UT)v;                                                                    \
    }

#define TYPE_LOOPS(S, T, UT)                                                             \
    LOOPS(S, T, UT, Q, hw) LOOPS(S, T, UT, R, hw)                                        \
    LOOPS(S, T, UT, Q, const) LOOPS(S, T, UT, R, const)                                  \
    RTDIV_LOOPS(S, T, UT, Q, 0) RTDIV_LOOPS(S, T, UT, R, 1)                              \
    LOOPS(S, T, UT, Q, rtdiv_bf) LOOPS(S, T, UT, R, rtdiv_bf)                            \
    LOOPS(S, T, UT, Q, libdivide) LOOPS(S, T, UT, R, libdivide)                          \
    LOOPS(S, T, UT, Q, libdivide_bf) LOOPS(S, T, UT, R, libdivide_bf)                    \
    LOOPS(S, T, UT, R, fastmod)                                                          \
    ARRAY_LOOP(S, T, UT, Q, const_vec, CONST_ARRAY(S, T, UT, Q))                         \
    ARRAY_LOOP(S, T, UT, R, const_vec, CONST_ARRAY(S, T, UT, R))                         \
    ARRAY_LOOP(S, T, UT, Q, rtdiv_batch, rtdiv_##S##_div_batch(&G_##S.rt, X_##S, OUT_##S, g_n)) \
    ARRAY_LOOP(S, T, UT, R, rtdiv_batch, rtdiv_##S##_rem_batch(&G_##S.rt, X_##S, OUT_##S, g_n)) \
    /* the reference: hardware division, the divisor hidden from the compiler */        \
    static UT ref_step_##S(T v) {                                                        \
        T d = (T)clh_opaque_u64((uint64_t)(UT)G_##S.d);                                  \
        return (UT)(g_rem ? v % d : v / d);                                              \
    }

TYPE_LOOPS(u32, uint32_t, uint32_t)
TYPE_LOOPS(u64, uint64_t, uint64_t)
TYPE_LOOPS(s32, int32_t, uint32_t)
TYPE_LOOPS(s64, int64_t, uint64_t)

/* ---- verification ---- */

static const char *g_type;

/* the latency chain's expected end value, for the last few iteration counts */
static struct {
    uint64_t iters, value;
} lat_memo[8];

#define LAT_REF(S, T, UT)                                                                \
    static uint64_t lat_ref_##S(uint64_t iters) {                                        \
        size_t mask = g_n - 1;                                                           \
        T v = X_##S[0];                                                                  \
        for (uint64_t i = 0; i < iters; i++)                                             \
            v = (T)(ref_step_##S(v) + (UT)X_##S[i & mask]);                              \
        return (UT)v;                                                                    \
    }
LAT_REF(u32, uint32_t, uint32_t)
LAT_REF(u64, uint64_t, uint64_t)
LAT_REF(s32, int32_t, uint32_t)
LAT_REF(s64, int64_t, uint64_t)

static uint64_t lat_expected(uint64_t iters) {
    for (int i = 0; i < 8; i++)
        if (lat_memo[i].iters == iters && iters)
            return lat_memo[i].value;
    uint64_t v = !strcmp(g_type, "u32") ? lat_ref_u32(iters)
               : !strcmp(g_type, "u64") ? lat_ref_u64(iters)
               : !strcmp(g_type, "s32") ? lat_ref_s32(iters) : lat_ref_s64(iters);
    memmove(lat_memo + 1, lat_memo, 7 * sizeof lat_memo[0]);
    lat_memo[0].iters = iters;
    lat_memo[0].value = v;
    return v;
}

static uint64_t tput_expected(uint64_t iters) {
    if (!strcmp(g_type, "u32")) return (uint32_t)(iters * REF_u32);
    if (!strcmp(g_type, "s32")) return (uint32_t)(iters * REF_s32);
    if (!strcmp(g_type, "u64")) return iters * REF_u64;
    return iters * REF_s64;
}

static void verify(void *arg) {
    dcase *c = arg;
    uint64_t iters = clh_call_iters();
    uint64_t want = c->is_lat ? lat_expected(iters) : tput_expected(iters);
    if (c->result != want)
        clh_fail("case %s (%s, %s by %d): result %" PRIu64 ", hardware division gives %" PRIu64,
                 c->name, g_type, g_rem ? "rem" : "div", DIVIDE_CONST, c->result, want);
}

/* ---- set-up ---- */

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define SETUP(S, T, UT, N, SG, FM_M)                                                     \
    static void setup_##S(unsigned bits, uint64_t seed) {                                \
        T d = (T)clh_opaque_u64(DIVIDE_CONST);                                           \
        G_##S.d = d;                                                                     \
        if (rtdiv_##S##_gen(&G_##S.rt, d) != RTDIV_OK)                                   \
            clh_fail("rtdiv_" #S "_gen(%d) failed", DIVIDE_CONST);                       \
        G_##S.ld = libdivide_##S##_gen(d);                                               \
        if (SG || HAS_LD_BF_UNSIGNED)                                                    \
            G_##S.ldbf = libdivide_##S##_branchfree_gen(SG || d != 1 ? d : 2);           \
        G_##S.m = FM_M;                                                                  \
        X_##S = malloc(g_n * sizeof(T));                                                 \
        OUT_##S = malloc(g_n * sizeof(T));                                               \
        if (!X_##S || !OUT_##S)                                                          \
            clh_fail("out of memory");                                                   \
        unsigned mag = SG ? bits - 1 : bits; /* magnitude bits */                        \
        for (size_t i = 0; i < g_n; i++) {                                               \
            UT v = (UT)splitmix(&seed);                                                  \
            if (mag < N)                                                                 \
                v &= ((UT)1 << mag) - 1;                                                 \
            if (SG && (splitmix(&seed) & 1))                                             \
                v = (UT)0 - v;                                                           \
            X_##S[i] = (T)v;                                                             \
        }                                                                                \
        REF_##S = 0;                                                                     \
        for (size_t i = 0; i < g_n; i++)                                                 \
            REF_##S += ref_step_##S(X_##S[i]);                                           \
    }
SETUP(u32, uint32_t, uint32_t, 32, 0, UINT64_C(0xFFFFFFFFFFFFFFFF) / (uint32_t)d + 1)
SETUP(u64, uint64_t, uint64_t, 64, 0, (~(unsigned __int128)0) / (uint64_t)d + 1)
SETUP(s32, int32_t, uint32_t, 32, 1,
      UINT64_C(0xFFFFFFFFFFFFFFFF) / (uint32_t)d + 1 + ((d & (d - 1)) == 0))
SETUP(s64, int64_t, uint64_t, 64, 1, 0)

/* The case table for one (type, op): NULL where a method has no such form. */
typedef struct {
    const char *method;
    clh_fn tput, lat;
} method_fns;

#define METHODS(S, OP, FASTMOD_OK, LDBF_OK)                                              \
    {                                                                                    \
        {"hw", tput_##OP##_hw_##S, lat_##OP##_hw_##S},                                   \
        {"const", tput_##OP##_const_##S, lat_##OP##_const_##S},                          \
        {"const_vec", tput_##OP##_const_vec_##S, NULL},                                  \
        {"rtdiv", tput_##OP##_rtdiv_##S, lat_##OP##_rtdiv_##S},                          \
        {"rtdiv_bf", tput_##OP##_rtdiv_bf_##S, lat_##OP##_rtdiv_bf_##S},                 \
        {"rtdiv_batch", tput_##OP##_rtdiv_batch_##S, NULL},                              \
        {"libdivide", tput_##OP##_libdivide_##S, lat_##OP##_libdivide_##S},              \
        {"libdivide_bf", (LDBF_OK) ? tput_##OP##_libdivide_bf_##S : NULL,                \
         (LDBF_OK) ? lat_##OP##_libdivide_bf_##S : NULL},                                \
        {"fastmod", (FASTMOD_OK) ? tput_R_fastmod_##S : NULL,                            \
         (FASTMOD_OK) ? lat_R_fastmod_##S : NULL},                                       \
    }
#define NMETHODS 9

int main(int argc, char **argv) {
    clh_init(argc, argv);
    g_type = clh_param_str("type", "u64");
    const char *op = clh_param_str("op", "div");
    g_n = (size_t)clh_param_u64("n", 4096);
    uint64_t seed = clh_param_u64("seed", 7);
    const char *isa = clh_param_str("isa", "auto");
    int width = !strcmp(g_type, "u32") || !strcmp(g_type, "s32") ? 32 : 64;
    unsigned bits = (unsigned)clh_param_u64("bits", (uint64_t)width);
    if (strcmp(g_type, "u32") && strcmp(g_type, "u64") && strcmp(g_type, "s32") &&
        strcmp(g_type, "s64"))
        clh_usage_error("--param type=%s: want u32, u64, s32 or s64", g_type);
    if (strcmp(op, "div") && strcmp(op, "rem"))
        clh_usage_error("--param op=%s: want div or rem", op);
    if (g_n < 1 || (g_n & (g_n - 1)) || g_n > (1u << 26))
        clh_usage_error("--param n=%zu: want a power of two up to 2^26", g_n);
    if (bits < 2 || (int)bits > width)
        clh_usage_error("--param bits=%u: want 2 .. %d", bits, width);
    static const char *const isas[] = {"auto", "portable", "avx2", "avx512"};
    int isa_i = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(isa, isas[i]))
            isa_i = i;
    if (isa_i < 0)
        clh_usage_error("--param isa=%s: want auto, portable, avx2 or avx512", isa);
    if (rtdiv_isa_force((rtdiv_isa)isa_i) != RTDIV_OK)
        clh_usage_error("--param isa=%s: this CPU cannot run it", isa);
    g_rem = !strcmp(op, "rem");

    static const method_fns tab[4][2][NMETHODS] = {
        {METHODS(u32, Q, 0, HAS_LD_BF_UNSIGNED), METHODS(u32, R, 1, HAS_LD_BF_UNSIGNED)},
        {METHODS(u64, Q, 0, HAS_LD_BF_UNSIGNED), METHODS(u64, R, 1, HAS_LD_BF_UNSIGNED)},
        {METHODS(s32, Q, 0, 1), METHODS(s32, R, 1, 1)},
        {METHODS(s64, Q, 0, 1), METHODS(s64, R, 0, 1)},
    };
    int ti = !strcmp(g_type, "u32") ? 0 : !strcmp(g_type, "u64") ? 1
           : !strcmp(g_type, "s32") ? 2 : 3;
    switch (ti) {
    case 0: setup_u32(bits, seed); break;
    case 1: setup_u64(bits, seed); break;
    case 2: setup_s32(bits, seed); break;
    default: setup_s64(bits, seed); break;
    }
    static clh_case cases[2 * NMETHODS];
    static dcase dc[2 * NMETHODS];
    static char names[2 * NMETHODS][32];
    size_t k = 0;
    for (int lat = 0; lat < 2; lat++)
        for (int m = 0; m < NMETHODS; m++) {
            const method_fns *mf = &tab[ti][g_rem][m];
            clh_fn fn = lat ? mf->lat : mf->tput;
            if (!fn)
                continue;
            snprintf(names[k], sizeof names[k], "%s_%s", lat ? "lat" : "tput", mf->method);
            dc[k] = (dcase){.name = names[k], .is_lat = lat};
            cases[k] = (clh_case){.name = names[k], .fn = fn, .arg = &dc[k],
                                  .units_per_iter = lat ? 1 : g_n, .unit = "division",
                                  .teardown = verify};
            k++;
        }
    return clh_run(cases, k);
}
