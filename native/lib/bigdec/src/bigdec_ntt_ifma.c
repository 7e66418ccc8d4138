/* bigdec_ntt_ifma.c — the NTT's transforms eight lanes at a time with AVX-512 IFMA.
 *
 * `vpmadd52luq` / `vpmadd52huq` multiply 52-bit lanes and add the low or high 52 bits
 * of each 104-bit product to a 64-bit accumulator: eight modular products per pair of
 * instructions, against one 64 x 64 -> 128 `mul` per product in the scalar transforms
 * of bigdec_ntt.c. The price is smaller primes: three below 2^50 (product above 2^149.99,
 * still more than twice the bound L 2^128 on a coefficient for L <= 2^20, so the cyclic
 * form fits too), so that values up to 4p stay below 2^52.
 *
 * The butterflies are Harvey's lazy ones ("Faster arithmetic for number-theoretic
 * transforms", 2014): residues are kept in [0, 2p) or [0, 4p) and corrected with one
 * unsigned min, and a product by a fixed twiddle w is Shoup's: with w' = floor(w 2^52 / p),
 * q = hi52(x w') and x w - q p lies in [0, 2p), computed modulo 2^52. The pointwise
 * product of two transforms (neither fixed) is Montgomery's with R = 2^52, whose R^-1
 * is folded into the final scaling by L^-1. The last three forward stages and the first
 * three inverse ones pair lanes inside a vector: they run on two vectors at once with
 * `vpermt2q` gathering each stage's partners (one pair of permutations per stage, one
 * more to put the lanes back in order).
 *
 * The stages of half-length 16 and more go two to a pass over memory. Residues leave
 * the inverse transform in [0, p), in plain (not Montgomery) form, and Garner's step
 * runs here too, eight coefficients at a time, into three words per coefficient that
 * bigdec_ntt.c adds up. Chosen at run time (cpuid: AVX512F and IFMA, and the OS saving
 * the ZMM registers) for transforms of 16 or more points.
 */
#include "internal/bigdec_mpn.h"

#if BIGDEC__X86_IFMA
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdlib.h>

#define BIGDEC__TARGET __attribute__((target("avx512f,avx512ifma")))
#define BIGDEC__MASK52 ((UINT64_C(1) << 52) - 1)

int bigdec__have_ifma(void) {
    static int have = -1; /* racing first calls compute the same answer */
    int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (h < 0) {
        unsigned a, b, c, d;
        const unsigned f = 1u << 16, ifma = 1u << 21, osxsave = 1u << 27;
        h = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (f | ifma)) == (f | ifma) &&
            __get_cpuid(1, &a, &b, &c, &d) && (c & osxsave);
        if (h) { /* XCR0: SSE, AVX, opmask, ZMM upper halves, ZMM 16-31 saved by the OS */
            unsigned lo, hi;
            __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            h = (lo & 0xe6) == 0xe6;
        }
        __atomic_store_n(&have, h, __ATOMIC_RELAXED);
    }
    return h;
}

/* The three largest primes below 2^50 of the form c 2^24 + 1, with a generator each
 * (tests/test_lib_bigdec.py checks primality, order and generator). */
const uint64_t bigdec__ifma_p[BIGDEC__NTT_PRIMES] = {
    UINT64_C(0x3ffffe4000001), UINT64_C(0x3ffffdc000001), UINT64_C(0x3ffffdb000001)};
static const uint64_t bigdec__ifma_g[BIGDEC__NTT_PRIMES] = {5, 3, 5};

static bigdec__ntt_tables bigdec__ifma_tab[BIGDEC__NTT_PRIMES]; /* Shoup width 52 */

static uint64_t bigdec__shoup52_div(uint64_t w, uint64_t p) { /* one 128-bit division */
    return (uint64_t)(((bigdec__dlimb)w << 52) / p);
}

int bigdec__ifma_tables_grow(unsigned log) {
    return bigdec__ntt_tables_grow(bigdec__ifma_tab, bigdec__ifma_p, bigdec__ifma_g, log, 52);
}

/* ---- eight lanes ---- */

typedef struct {
    __m512i p, p2, negp; /* p, 2p, 2^52 - p */
} bigdec__ifma_mod;

/* x w mod p in [0, 2p) for x < 2^52, w < p, ws = floor(w 2^52 / p) */
BIGDEC__TARGET static inline __m512i bigdec__vshoup(__m512i x, __m512i w, __m512i ws,
                                                    const bigdec__ifma_mod *m) {
    __m512i q = _mm512_madd52hi_epu64(_mm512_setzero_si512(), x, ws);
    __m512i r = _mm512_madd52lo_epu64(_mm512_setzero_si512(), x, w);
    r = _mm512_madd52lo_epu64(r, q, m->negp); /* x w - q p, modulo 2^52 */
    return _mm512_and_si512(r, _mm512_set1_epi64((long long)BIGDEC__MASK52));
}
/* x in [0, 2c) to [0, c): the subtraction wraps around when x < c */
BIGDEC__TARGET static inline __m512i bigdec__vreduce(__m512i x, __m512i c) {
    return _mm512_min_epu64(x, _mm512_sub_epi64(x, c));
}

/* Gentleman-Sande, forward: x, y in [0, 2p) -> x + y, (x - y) w, both in [0, 2p) */
#define BIGDEC__VDIF(X, Y, W, WS, M)                                                        \
    do {                                                                                    \
        __m512i s_ = bigdec__vreduce(_mm512_add_epi64(X, Y), (M)->p2);                      \
        __m512i d_ = _mm512_sub_epi64(_mm512_add_epi64(X, (M)->p2), Y);                     \
        Y = bigdec__vshoup(d_, W, WS, M);                                                   \
        X = s_;                                                                             \
    } while (0)
/* Cooley-Tukey, inverse: x, y in [0, 4p) -> x + w y, x - w y, both in [0, 4p) */
#define BIGDEC__VDIT(X, Y, W, WS, M)                                                        \
    do {                                                                                    \
        __m512i x_ = bigdec__vreduce(X, (M)->p2);                                           \
        __m512i t_ = bigdec__vshoup(Y, W, WS, M);                                           \
        X = _mm512_add_epi64(x_, t_);                                                       \
        Y = _mm512_sub_epi64(_mm512_add_epi64(x_, (M)->p2), t_);                            \
    } while (0)

/* One stage of half-length len >= 8: the butterflies of each block of 2 len points,
 * eight at a time, with the stage's twiddles w and their Shoup companions ws. */
#define BIGDEC__VSTAGE(BUTTERFLY, X0, L, LEN, W, WS, M)                                     \
    do {                                                                                    \
        for (size_t s_ = 0; s_ < (L); s_ += 2 * (LEN))                                     \
            for (size_t j_ = 0; j_ < (LEN); j_ += 8) {                                      \
                uint64_t *x_ = (X0) + s_ + j_;                                              \
                __m512i X = _mm512_loadu_si512(x_), Y = _mm512_loadu_si512(x_ + (LEN));     \
                BUTTERFLY(X, Y, _mm512_loadu_si512((W) + j_), _mm512_loadu_si512((WS) + j_), \
                          M);                                                               \
                _mm512_storeu_si512(x_, X);                                                 \
                _mm512_storeu_si512(x_ + (LEN), Y);                                         \
            }                                                                               \
    } while (0)

/* Two stages in one pass over memory (radix 4 in effect): four vectors a half-stage
 * apart, the outer stage's butterflies then the inner's; the forward order (half-length
 * LEN, then LEN / 2, LEN >= 16) and the inverse one (LEN, then 2 LEN). Long transforms
 * outgrow the caches, and each pass over them is a stream through memory. */
#define BIGDEC__VSTAGE2_DIF(X0, L, LEN, T, M)                                               \
    do {                                                                                    \
        const size_t h_ = (LEN) / 2;                                                        \
        const uint64_t *w1_ = (T)->w + (LEN), *s1_ = (T)->ws + (LEN), *w2_ = (T)->w + h_,   \
                       *s2_ = (T)->ws + h_;                                                 \
        for (size_t s_ = 0; s_ < (L); s_ += 2 * (LEN))                                     \
            for (size_t j_ = 0; j_ < h_; j_ += 8) {                                         \
                uint64_t *x_ = (X0) + s_ + j_;                                              \
                __m512i A = _mm512_loadu_si512(x_), B = _mm512_loadu_si512(x_ + h_),        \
                        C = _mm512_loadu_si512(x_ + 2 * h_), D = _mm512_loadu_si512(x_ + 3 * h_); \
                __m512i W2 = _mm512_loadu_si512(w2_ + j_), S2 = _mm512_loadu_si512(s2_ + j_); \
                BIGDEC__VDIF(A, C, _mm512_loadu_si512(w1_ + j_), _mm512_loadu_si512(s1_ + j_), M); \
                BIGDEC__VDIF(B, D, _mm512_loadu_si512(w1_ + h_ + j_),                       \
                             _mm512_loadu_si512(s1_ + h_ + j_), M);                         \
                BIGDEC__VDIF(A, B, W2, S2, M);                                              \
                BIGDEC__VDIF(C, D, W2, S2, M);                                              \
                _mm512_storeu_si512(x_, A);                                                 \
                _mm512_storeu_si512(x_ + h_, B);                                            \
                _mm512_storeu_si512(x_ + 2 * h_, C);                                        \
                _mm512_storeu_si512(x_ + 3 * h_, D);                                        \
            }                                                                               \
    } while (0)
#define BIGDEC__VSTAGE2_DIT(X0, L, LEN, T, M)                                               \
    do {                                                                                    \
        const size_t n_ = (LEN);                                                            \
        const uint64_t *w1_ = (T)->wi + n_, *s1_ = (T)->wis + n_, *w2_ = (T)->wi + 2 * n_,  \
                       *s2_ = (T)->wis + 2 * n_;                                            \
        for (size_t s_ = 0; s_ < (L); s_ += 4 * n_)                                         \
            for (size_t j_ = 0; j_ < n_; j_ += 8) {                                         \
                uint64_t *x_ = (X0) + s_ + j_;                                              \
                __m512i A = _mm512_loadu_si512(x_), B = _mm512_loadu_si512(x_ + n_),        \
                        C = _mm512_loadu_si512(x_ + 2 * n_), D = _mm512_loadu_si512(x_ + 3 * n_); \
                __m512i W1 = _mm512_loadu_si512(w1_ + j_), S1 = _mm512_loadu_si512(s1_ + j_); \
                BIGDEC__VDIT(A, B, W1, S1, M);                                              \
                BIGDEC__VDIT(C, D, W1, S1, M);                                              \
                BIGDEC__VDIT(A, C, _mm512_loadu_si512(w2_ + j_), _mm512_loadu_si512(s2_ + j_), M); \
                BIGDEC__VDIT(B, D, _mm512_loadu_si512(w2_ + n_ + j_),                       \
                             _mm512_loadu_si512(s2_ + n_ + j_), M);                         \
                _mm512_storeu_si512(x_, A);                                                 \
                _mm512_storeu_si512(x_ + n_, B);                                            \
                _mm512_storeu_si512(x_ + 2 * n_, C);                                        \
                _mm512_storeu_si512(x_ + 3 * n_, D);                                        \
            }                                                                               \
    } while (0)

/* The stages of half-length 4, 2 and 1 run on 16 points held in two vectors (a pair:
 * lanes 0-7 and 8-15): gather[s] brings stage s's partners into the pair's two halves,
 * from the layout the stage before left; tw[s] are the stage's twiddles in that lane
 * order (indices into the tables); home puts the points back in order at the end.
 * Built once for the forward order (len 4, 2, 1) and the inverse one (1, 2, 4). */
typedef struct {
    long long gather[3][16], home[16];
    unsigned tw[3][8];
} bigdec__ifma_shuffle;
static bigdec__ifma_shuffle bigdec__ifma_dif, bigdec__ifma_dit;
static pthread_once_t bigdec__ifma_once = PTHREAD_ONCE_INIT;

static void bigdec__ifma_layout(bigdec__ifma_shuffle *sh, const unsigned lens[3]) {
    unsigned pos[16]; /* the point each lane holds */
    for (unsigned l = 0; l < 16; l++)
        pos[l] = l;
    for (int s = 0; s < 3; s++) {
        unsigned len = lens[s], next[16], i = 0;
        for (unsigned q = 0; q < 16; q++)
            if (!(q & len)) {
                next[i] = q, next[i + 8] = q + len;
                sh->tw[s][i] = len + (q & (len - 1));
                i++;
            }
        for (unsigned l = 0; l < 16; l++)
            for (unsigned o = 0; o < 16; o++)
                if (pos[o] == next[l])
                    sh->gather[s][l] = o;
        memcpy(pos, next, sizeof pos);
    }
    for (unsigned l = 0; l < 16; l++)
        for (unsigned o = 0; o < 16; o++)
            if (pos[o] == l)
                sh->home[l] = o;
}

/* Each prime's constants, and Garner's (p1^-1 mod p2, p1^-1 mod p3, p2^-1 mod p3), with
 * their Shoup companions: made once, as the powers by squaring and 128-bit divisions
 * behind them cost as much as a 2^7-point transform when made per product. */
typedef struct {
    uint64_t c52, c52s, ones; /* 2^52 mod p, floor(c52 2^52 / p), floor(2^52 / p) */
} bigdec__ifma_prime;
static bigdec__ifma_prime bigdec__ifma_k[BIGDEC__NTT_PRIMES];
static uint64_t bigdec__ifma_gc[3], bigdec__ifma_gcs[3];

static void bigdec__ifma_setup(void) {
    static const unsigned dif[3] = {4, 2, 1}, dit[3] = {1, 2, 4};
    bigdec__ifma_layout(&bigdec__ifma_dif, dif);
    bigdec__ifma_layout(&bigdec__ifma_dit, dit);
    for (int k = 0; k < BIGDEC__NTT_PRIMES; k++) {
        const uint64_t p = bigdec__ifma_p[k], c52 = (UINT64_C(1) << 52) % p;
        bigdec__ifma_k[k] = (bigdec__ifma_prime){c52, bigdec__shoup52_div(c52, p),
                                                 bigdec__shoup52_div(1, p)};
    }
    const uint64_t p1 = bigdec__ifma_p[0], p2 = bigdec__ifma_p[1], p3 = bigdec__ifma_p[2];
    const uint64_t c[3] = {bigdec__ntt_powm(p1 % p2, p2 - 2, p2),
                           bigdec__ntt_powm(p1 % p3, p3 - 2, p3), bigdec__ntt_powm(p2, p3 - 2, p3)};
    const uint64_t mod[3] = {p2, p3, p3};
    for (int i = 0; i < 3; i++)
        bigdec__ifma_gc[i] = c[i], bigdec__ifma_gcs[i] = bigdec__shoup52_div(c[i], mod[i]);
}

BIGDEC__TARGET static bigdec__ifma_mod bigdec__ifma_modulus(uint64_t p) {
    bigdec__ifma_mod m = {_mm512_set1_epi64((long long)p), _mm512_set1_epi64((long long)(2 * p)),
                          _mm512_set1_epi64((long long)((UINT64_C(1) << 52) - p))};
    return m;
}

/* One of the small stages on a pair (A, B): gather the partners, butterfly, keep the
 * new layout in (A, B). */
#define BIGDEC__VPAIR(BUTTERFLY, S, A, B, M)                                                \
    do {                                                                                    \
        __m512i u_ = _mm512_permutex2var_epi64(A, gi[S][0], B);                             \
        __m512i v_ = _mm512_permutex2var_epi64(A, gi[S][1], B);                             \
        BUTTERFLY(u_, v_, vw[S], vws[S], M);                                                \
        A = u_, B = v_;                                                                     \
    } while (0)

/* The small stages' index and twiddle vectors of one prime's tables. */
BIGDEC__TARGET static void bigdec__ifma_small(const bigdec__ifma_shuffle *sh, const uint64_t *w,
                                              const uint64_t *ws, __m512i gi[3][2],
                                              __m512i hi[2], __m512i vw[3], __m512i vws[3]) {
    for (int s = 0; s < 3; s++) {
        gi[s][0] = _mm512_loadu_si512(sh->gather[s]);
        gi[s][1] = _mm512_loadu_si512(sh->gather[s] + 8);
        uint64_t a[8], b[8];
        for (int i = 0; i < 8; i++)
            a[i] = w[sh->tw[s][i]], b[i] = ws[sh->tw[s][i]];
        vw[s] = _mm512_loadu_si512(a);
        vws[s] = _mm512_loadu_si512(b);
    }
    hi[0] = _mm512_loadu_si512(sh->home);
    hi[1] = _mm512_loadu_si512(sh->home + 8);
}

/* x (L >= 16 points) = the forward transform for prime k of a, zero-padded: decimation
 * in frequency, natural order in, bit-reversed out, residues in [0, 2p). */
BIGDEC__TARGET void bigdec__ifma_forward(uint64_t *x, const bigdec__limb *a, size_t an,
                                         size_t L, int k) {
    const uint64_t p = bigdec__ifma_p[k];
    const bigdec__ntt_tables *t = &bigdec__ifma_tab[k];
    const bigdec__ifma_mod m = bigdec__ifma_modulus(p);
    pthread_once(&bigdec__ifma_once, bigdec__ifma_setup);
    /* a = ah 2^52 + al: al 1 + ah (2^52 mod p), each by Shoup, sum in [0, 4p) */
    const bigdec__ifma_prime *c = &bigdec__ifma_k[k];
    const __m512i one = _mm512_set1_epi64(1), ones = _mm512_set1_epi64((long long)c->ones),
                  vc = _mm512_set1_epi64((long long)c->c52),
                  vcs = _mm512_set1_epi64((long long)c->c52s),
                  mask = _mm512_set1_epi64((long long)BIGDEC__MASK52);
    size_t i = 0;
    for (; i < an; i += 8) {
        /* the last block's lanes past a masked off; no load at all past that, as masked
         * lanes on an unmapped page cost a fault-suppression assist each (a 2^14-point
         * transform of an operand at the end of an mmap-ed block took 2.7x as long) */
        size_t n = an - i < 8 ? an - i : 8;
        __m512i v = _mm512_maskz_loadu_epi64((__mmask8)((1u << n) - 1), a + i);
        __m512i lo = bigdec__vshoup(_mm512_and_si512(v, mask), one, ones, &m);
        __m512i hi = bigdec__vshoup(_mm512_srli_epi64(v, 52), vc, vcs, &m);
        _mm512_storeu_si512(x + i, bigdec__vreduce(_mm512_add_epi64(lo, hi), m.p2));
    }
    memset(x + i, 0, (L - i) * sizeof *x);
    size_t len = L / 2;
    for (; len >= 16; len >>= 2)
        BIGDEC__VSTAGE2_DIF(x, L, len, t, &m);
    if (len == 8)
        BIGDEC__VSTAGE(BIGDEC__VDIF, x, L, len, t->w + len, t->ws + len, &m);
    __m512i gi[3][2], hi[2], vw[3], vws[3];
    bigdec__ifma_small(&bigdec__ifma_dif, t->w, t->ws, gi, hi, vw, vws);
    for (size_t s = 0; s < L; s += 16) {
        __m512i A = _mm512_loadu_si512(x + s), B = _mm512_loadu_si512(x + s + 8);
        BIGDEC__VPAIR(BIGDEC__VDIF, 0, A, B, &m);
        BIGDEC__VPAIR(BIGDEC__VDIF, 1, A, B, &m);
        BIGDEC__VPAIR(BIGDEC__VDIF, 2, A, B, &m);
        _mm512_storeu_si512(x + s, _mm512_permutex2var_epi64(A, hi[0], B));
        _mm512_storeu_si512(x + s + 8, _mm512_permutex2var_epi64(A, hi[1], B));
    }
}

/* x = the pointwise product of the forward transforms x and y (residues below 2p),
 * transformed back and scaled: the cyclic convolution's coefficients modulo prime k,
 * in [0, p). */
BIGDEC__TARGET void bigdec__ifma_backward(uint64_t *x, const uint64_t *y, size_t L, int k) {
    const uint64_t p = bigdec__ifma_p[k];
    const bigdec__ntt_tables *t = &bigdec__ifma_tab[k];
    const bigdec__ifma_mod m = bigdec__ifma_modulus(p);
    pthread_once(&bigdec__ifma_once, bigdec__ifma_setup);
    /* Montgomery, R = 2^52: (x y - u p) / R with u = x y p^-1 mod R, in (0, 2p) once p is
     * added (both terms are below p as x y < 4 p^2 < p R) */
    uint64_t pinv = p; /* p^-1 mod 2^64, hence mod 2^52 */
    for (int i = 0; i < 5; i++)
        pinv *= 2 - p * pinv;
    const __m512i vpinv = _mm512_set1_epi64((long long)(pinv & BIGDEC__MASK52)),
                  zero = _mm512_setzero_si512();
    __m512i gi[3][2], hi[2], vw[3], vws[3];
    bigdec__ifma_small(&bigdec__ifma_dit, t->wi, t->wis, gi, hi, vw, vws);
    for (size_t s = 0; s < L; s += 16) {
        __m512i A, B;
        for (int h = 0; h < 2; h++) {
            __m512i a = _mm512_loadu_si512(x + s + 8 * h), b = _mm512_loadu_si512(y + s + 8 * h);
            __m512i lo = _mm512_madd52lo_epu64(zero, a, b);
            __m512i hp = _mm512_madd52hi_epu64(m.p, a, b);
            __m512i u = _mm512_madd52lo_epu64(zero, lo, vpinv);
            __m512i r = _mm512_sub_epi64(hp, _mm512_madd52hi_epu64(zero, u, m.p));
            if (h == 0)
                A = r;
            else
                B = r;
        }
        BIGDEC__VPAIR(BIGDEC__VDIT, 0, A, B, &m);
        BIGDEC__VPAIR(BIGDEC__VDIT, 1, A, B, &m);
        BIGDEC__VPAIR(BIGDEC__VDIT, 2, A, B, &m);
        _mm512_storeu_si512(x + s, _mm512_permutex2var_epi64(A, hi[0], B));
        _mm512_storeu_si512(x + s + 8, _mm512_permutex2var_epi64(A, hi[1], B));
    }
    size_t len = 8;
    for (; 2 * len < L; len <<= 2)
        BIGDEC__VSTAGE2_DIT(x, L, len, t, &m);
    if (len < L)
        BIGDEC__VSTAGE(BIGDEC__VDIT, x, L, len, t->wi + len, t->wis + len, &m);
    /* times R L^-1: the Montgomery products' R^-1 and the inverse transform's L */
    uint64_t c = (uint64_t)((bigdec__dlimb)bigdec__ifma_k[k].c52 *
                            t->linv[__builtin_ctzll(L)] % p);
    const __m512i vc = _mm512_set1_epi64((long long)c),
                  vcs = _mm512_set1_epi64((long long)bigdec__shoup52_div(c, p));
    for (size_t i = 0; i < L; i += 8) {
        __m512i v = bigdec__vshoup(_mm512_loadu_si512(x + i), vc, vcs, &m);
        _mm512_storeu_si512(x + i, bigdec__vreduce(v, m.p));
    }
}

/* Garner's step on eight coefficients at a time: from the residues x1, x2, x3 (in
 * [0, p)) of the first n coefficients (n a multiple of 8), each coefficient
 * c = x1 + p1 (y2 + p2 y3) < p1 p2 p3 < 2^150 as three 64-bit words, written over the
 * residues: w0 = c mod 2^64 into x1, w1 into x2, w2 = c >> 128 into x3, for the caller
 * to add at limbs i, i + 1, i + 2. With y2 = (x2 - x1) / p1 mod p2 and
 * y3 = ((x3 - x1) / p1 - y2) / p2 mod p3 by Shoup products (the differences offset by
 * 2p to stay positive and below 2^52), c's radix-2^52 digits come from IFMA's halves of
 * y2 p1 and y3 (p1 p2) (p1 p2 = P1 2^52 + P0); the words from the digits, with the
 * carries found by unsigned compares. */
BIGDEC__TARGET void bigdec__ifma_garner(uint64_t *x1, uint64_t *x2, uint64_t *x3, size_t n) {
    const uint64_t p1 = bigdec__ifma_p[0], p2 = bigdec__ifma_p[1], p3 = bigdec__ifma_p[2];
    const bigdec__ifma_mod m2 = bigdec__ifma_modulus(p2), m3 = bigdec__ifma_modulus(p3);
    pthread_once(&bigdec__ifma_once, bigdec__ifma_setup);
    const uint64_t *c = bigdec__ifma_gc, *cs = bigdec__ifma_gcs;
    const bigdec__dlimb P = (bigdec__dlimb)p1 * p2;
    const __m512i vc12 = _mm512_set1_epi64((long long)c[0]),
                  vc12s = _mm512_set1_epi64((long long)cs[0]),
                  vc13 = _mm512_set1_epi64((long long)c[1]),
                  vc13s = _mm512_set1_epi64((long long)cs[1]),
                  vc23 = _mm512_set1_epi64((long long)c[2]),
                  vc23s = _mm512_set1_epi64((long long)cs[2]),
                  vp1 = _mm512_set1_epi64((long long)p1),
                  vP0 = _mm512_set1_epi64((long long)((uint64_t)P & BIGDEC__MASK52)),
                  vP1 = _mm512_set1_epi64((long long)(uint64_t)(P >> 52)),
                  zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
    for (size_t i = 0; i < n; i += 8) {
        __m512i a = _mm512_loadu_si512(x1 + i), b = _mm512_loadu_si512(x2 + i),
                c = _mm512_loadu_si512(x3 + i);
        __m512i t2 = _mm512_sub_epi64(_mm512_add_epi64(b, m2.p2), a);
        __m512i y2 = bigdec__vreduce(bigdec__vshoup(t2, vc12, vc12s, &m2), m2.p);
        __m512i t3 = _mm512_sub_epi64(_mm512_add_epi64(c, m3.p2), a);
        __m512i u = bigdec__vshoup(t3, vc13, vc13s, &m3);
        u = _mm512_sub_epi64(_mm512_add_epi64(u, m3.p2), y2);
        __m512i y3 = bigdec__vreduce(bigdec__vshoup(u, vc23, vc23s, &m3), m3.p);
        /* c = d0 + d1 2^52 + d2 2^104, d0, d1 < 3 2^52, d2 < 2^46 */
        __m512i d0 = _mm512_madd52lo_epu64(_mm512_madd52lo_epu64(a, y2, vp1), y3, vP0);
        __m512i d1 = _mm512_madd52hi_epu64(
            _mm512_madd52hi_epu64(_mm512_madd52lo_epu64(zero, y3, vP1), y2, vp1), y3, vP0);
        __m512i d2 = _mm512_madd52hi_epu64(zero, y3, vP1);
        __m512i w0 = _mm512_add_epi64(d0, _mm512_slli_epi64(d1, 52));
        __mmask8 k0 = _mm512_cmplt_epu64_mask(w0, d0);
        __m512i h = _mm512_srli_epi64(d1, 12);
        __m512i w1 = _mm512_add_epi64(h, _mm512_slli_epi64(d2, 40));
        __mmask8 k1 = _mm512_cmplt_epu64_mask(w1, h);
        w1 = _mm512_mask_add_epi64(w1, k0, w1, one);
        __mmask8 k2 = k0 & _mm512_cmpeq_epi64_mask(w1, zero);
        __m512i w2 = _mm512_srli_epi64(d2, 24);
        w2 = _mm512_mask_add_epi64(w2, k1, w2, one);
        w2 = _mm512_mask_add_epi64(w2, k2, w2, one);
        _mm512_storeu_si512(x1 + i, w0);
        _mm512_storeu_si512(x2 + i, w1);
        _mm512_storeu_si512(x3 + i, w2);
    }
}

#endif
