/* bigdec_ntt.c — multiplication of large numbers by number-theoretic transforms.
 *
 * The product of two limb arrays is the convolution of their limbs followed by carry
 * propagation. Its coefficients are below L 2^128 < 2^148 for transforms of length
 * L <= 2^20, so computing the convolution modulo three primes just below 2^62 (product
 * ~2^186) and recombining by the Chinese remainder theorem (Garner) gives it exactly.
 * Each prime p = c 2^32 + 1 has 2^32-th roots of unity, so lengths up to 2^32 exist;
 * the limit here is the coefficient bound: L <= 2^20 (products up to ~10^7 digits);
 * longer products fall back to Karatsuba.
 *
 * Cost: per prime, two forward transforms, a pointwise product and one inverse
 * transform, (3/2) L log2 L butterflies. The butterflies are Harvey's lazy ones
 * ("Faster arithmetic for number-theoretic transforms", 2014): residues stay below 2p
 * or 4p (hence primes below 2^62), corrected by one conditional subtraction, and the
 * product by a twiddle w is Shoup's, q = hi(x w') with w' = floor(w 2^64 / p), then
 * x w - q p: one high and two low multiplies (Montgomery's, which the pointwise product
 * of two transforms still takes, needs two high ones; the transforms ran 1.3x slower
 * with it). O(n log n) against Toom-3's n^1.465, ahead from a few thousand limbs.
 * Forward transforms are decimation in frequency (natural order in, bit-reversed out)
 * and the inverse is decimation in time (bit-reversed in, natural out): no bit-reversal
 * pass is needed because the pointwise product does not care about order.
 *
 * Where the CPU has AVX-512 IFMA the transforms run eight lanes at a time instead
 * (bigdec_ntt_ifma.c, three primes below 2^50), 2.4-2.7x faster than GMP's products from
 * 1000 limbs, Garner's step included; this file then adds up the words it leaves.
 *
 * Twiddle factors are tabulated once per prime for the largest length used so far and
 * kept (a table for length L serves every shorter length). Each table is reserved at
 * the largest length, 2^20 words (pages the OS maps only once written), and growing,
 * under a mutex, writes only the new, longer stages: a transform running in another
 * thread reads shorter ones, which never move (a table reallocated to grow would be
 * freed under it). The tables outlive bigdec_cache_release.
 */
#include <pthread.h>
#include <stdlib.h>

#include "internal/bigdec_mpn.h"

/* The three largest primes below 2^62 of the form c 2^32 + 1 (so that 4p < 2^64 for the
 * lazy butterflies), with a generator each (tests/test_lib_bigdec.py checks primality,
 * order and generator); their product is above 2^185.99. */
static const uint64_t bigdec__scalar_p[BIGDEC__NTT_PRIMES] = {
    UINT64_C(0x3fffffee00000001), UINT64_C(0x3fffffb400000001), UINT64_C(0x3fffffa000000001)};
static const uint64_t bigdec__scalar_g[BIGDEC__NTT_PRIMES] = {3, 19, 3};
static bigdec__ntt_tables bigdec__scalar_tab[BIGDEC__NTT_PRIMES];
static pthread_mutex_t bigdec__ntt_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether a residue wraps is a coin flip: the corrections must compile to cmov, not
 * branches. clang 19 turned both `?:` and mask arithmetic into branches that mispredict
 * about half the time (transforms 1.9x slower than gcc's at 10^6 digits) unless told
 * that the condition is unpredictable. */
#if defined(__clang__)
#define BIGDEC__COIN(c) __builtin_unpredictable(c)
#else
#define BIGDEC__COIN(c) __builtin_expect_with_probability(!!(c), 1, 0.5)
#endif

/* a b R^-1 mod p for a b < p 2^64, result in [0, p) */
static inline uint64_t bigdec__mont(uint64_t a, uint64_t b, uint64_t p, uint64_t pinv) {
    bigdec__dlimb t = (bigdec__dlimb)a * b;
    uint64_t m = (uint64_t)t * pinv;
    uint64_t h = (uint64_t)(((bigdec__dlimb)m * p) >> 64), th = (uint64_t)(t >> 64);
    uint64_t r = th - h;
    return BIGDEC__COIN(th < h) ? r + p : r;
}
static inline uint64_t bigdec__subm(uint64_t a, uint64_t b, uint64_t p) {
    uint64_t d = a - b;
    return BIGDEC__COIN(a < b) ? d + p : d;
}
/* x in [0, 2c) to [0, c) */
static inline uint64_t bigdec__below(uint64_t x, uint64_t c) {
    return BIGDEC__COIN(x >= c) ? x - c : x;
}
/* x w mod p in [0, 2p) for any x < 2^64 and w < p, ws = floor(w 2^64 / p) (Shoup):
 * q = floor(x ws / 2^64) is floor(x w / p) or one less, so x w - q p is below 2p and
 * exact modulo 2^64. */
static inline uint64_t bigdec__shoup(uint64_t x, uint64_t w, uint64_t ws, uint64_t p) {
    uint64_t q = (uint64_t)(((bigdec__dlimb)x * ws) >> 64);
    return x * w - q * p;
}
uint64_t bigdec__ntt_powm(uint64_t a, uint64_t e, uint64_t p) { /* plain, for set-up */
    bigdec__dlimb r = 1, x = a % p;
    for (; e; e >>= 1, x = x * x % p)
        if (e & 1)
            r = r * x % p;
    return (uint64_t)r;
}

/* p^-1 mod 2^64 (Newton: each step doubles the correct low bits) and 2^128 mod p */
static uint64_t bigdec__ntt_pinv(uint64_t p) {
    uint64_t inv = p;
    for (int i = 0; i < 5; i++)
        inv *= 2 - p * inv;
    return inv;
}
static uint64_t bigdec__ntt_r2(uint64_t p) {
    uint64_t r = (uint64_t)(((bigdec__dlimb)1 << 64) % p); /* R mod p */
    return (uint64_t)((bigdec__dlimb)r * r % p);
}
/* floor(w 2^bits / p) for w < p, 2^(bits-3) < p < 2^(bits-2), from
 * v = floor(2^(bits+61) / p) < 2^64: w v / 2^61 is below it by less than w / 2^61 + 1
 * < 3, so at most two steps up. */
static uint64_t bigdec__shoup_of(uint64_t w, uint64_t p, uint64_t v, unsigned bits) {
    uint64_t t = (uint64_t)(((bigdec__dlimb)w * v) >> 61);
    bigdec__dlimb r = ((bigdec__dlimb)w << bits) - (bigdec__dlimb)t * p;
    while (r >= p)
        r -= p, t++;
    return t;
}

/* One prime's stages of half-length `from` up to L / 2. The longest stage's roots come
 * from Shoup products by root^8 in eight interleaved chains, a shorter stage's are every
 * other one of the next (root_len^j = root_2len^2j), an inverse root is root_2len^-j =
 * -root_2len^(len - j). */
static void bigdec__ntt_fill(const bigdec__ntt_tables *t, size_t from, size_t L, uint64_t g,
                             uint64_t p, unsigned bits) {
    uint64_t *tw = t->w, *tws = t->ws, *twi = t->wi, *twis = t->wis;
    const uint64_t v = (uint64_t)((((bigdec__dlimb)1) << (bits + 61)) / p);
    size_t top = L / 2;
    uint64_t *w = tw + top, root = bigdec__ntt_powm(g, (p - 1) / L, p);
    w[0] = 1;
    for (size_t j = 1; j < 8 && j < top; j++)
        w[j] = (uint64_t)((bigdec__dlimb)w[j - 1] * root % p);
    if (top > 8) {
        uint64_t r8 = (uint64_t)((bigdec__dlimb)w[7] * root % p);
        uint64_t r8s = bigdec__shoup_of(r8, p, v, bits);
        for (size_t j = 8; j < top; j++) { /* Shoup: below 2p, then below p */
            uint64_t q = (uint64_t)(((bigdec__dlimb)w[j - 8] * r8s) >> bits);
            w[j] = bigdec__below(w[j - 8] * r8 - q * p, p);
        }
    }
    for (size_t len = top / 2; len >= from; len /= 2)
        for (size_t j = 0; j < len; j++)
            tw[len + j] = tw[2 * len + 2 * j];
    for (size_t len = from; len <= top; len *= 2) {
        twi[len] = 1;
        for (size_t j = 1; j < len; j++)
            twi[len + j] = p - tw[2 * len - j];
        for (size_t j = 0; j < len; j++) {
            tws[len + j] = bigdec__shoup_of(tw[len + j], p, v, bits);
            twis[len + j] = bigdec__shoup_of(twi[len + j], p, v, bits);
        }
    }
}

int bigdec__ntt_tables_grow(bigdec__ntt_tables tab[BIGDEC__NTT_PRIMES], const uint64_t p[],
                            const uint64_t g[], unsigned log, unsigned bits) {
    int ok = 1;
    pthread_mutex_lock(&bigdec__ntt_lock);
    for (int k = 0; k < BIGDEC__NTT_PRIMES && ok; k++) {
        bigdec__ntt_tables *t = &tab[k];
        if (t->log >= log)
            continue;
        if (!t->w) {
            uint64_t *a[4];
            for (int i = 0; i < 4; i++)
                a[i] = aligned_alloc(64, sizeof(uint64_t) << BIGDEC__NTT_MAX_LOG);
            if (!a[0] || !a[1] || !a[2] || !a[3]) {
                for (int i = 0; i < 4; i++)
                    free(a[i]);
                ok = 0;
                break;
            }
            t->w = a[0], t->ws = a[1], t->wi = a[2], t->wis = a[3];
            t->linv[0] = 1;
        }
        bigdec__ntt_fill(t, (size_t)1 << t->log, (size_t)1 << log, g[k], p[k], bits);
        const uint64_t half = (p[k] + 1) / 2; /* 2^-1 mod p */
        for (unsigned j = t->log + 1; j <= log; j++)
            t->linv[j] = (uint64_t)((bigdec__dlimb)t->linv[j - 1] * half % p[k]);
        t->log = log;
    }
    pthread_mutex_unlock(&bigdec__ntt_lock);
    return ok ? 0 : -1;
}

/* The butterflies of one stage; the loop over the blocks is innermost when blocks are
 * short (len < 8), so that no stage runs a loop of one or two iterations per block
 * (the last stages of a transform of 2^20 would otherwise be mostly loop overhead). */
#define BIGDEC__STAGE(L, len, BUTTERFLY)                                  \
    do {                                                                  \
        if ((len) >= 8) {                                                 \
            for (size_t s = 0; s < (L); s += 2 * (len))                   \
                for (size_t j = 0; j < (len); j++)                        \
                    BUTTERFLY(s + j, s + j + (len), w[j], ws[j]);         \
        } else {                                                          \
            for (size_t j = 0; j < (len); j++)                            \
                for (size_t s = j; s < (L); s += 2 * (len))               \
                    BUTTERFLY(s, s + (len), w[j], ws[j]);                 \
        }                                                                 \
    } while (0)

/* forward, decimation in frequency: natural order in, bit-reversed out; Harvey's lazy
 * Gentleman-Sande butterfly, residues in [0, 2p) throughout. Not inlined: gcc 12's
 * code for it inside bigdec__ntt_forward ran 4% slower (218 against 228 ticks a point
 * at 2^14 points). */
__attribute__((noinline)) static void bigdec__ntt_fwd(uint64_t *a, size_t L, const bigdec__ntt_tables *t, uint64_t p) {
    const uint64_t p2 = 2 * p;
#define BIGDEC__DIF(i, k, wj, wsj)                                          \
    do {                                                                    \
        uint64_t x = a[i], y = a[k];                                        \
        a[i] = bigdec__below(x + y, p2);                                    \
        a[k] = bigdec__shoup(x - y + p2, (wj), (wsj), p);                   \
    } while (0)
    for (size_t len = L / 2; len >= 1; len >>= 1) {
        const uint64_t *w = t->w + len, *ws = t->ws + len;
        BIGDEC__STAGE(L, len, BIGDEC__DIF);
    }
#undef BIGDEC__DIF
}

/* inverse, decimation in time: bit-reversed in, natural order out (times L); Harvey's
 * lazy Cooley-Tukey butterfly, residues in [0, 4p) */
static void bigdec__ntt_inv(uint64_t *a, size_t L, const bigdec__ntt_tables *t, uint64_t p) {
    const uint64_t p2 = 2 * p;
#define BIGDEC__DIT(i, k, wj, wsj)                                          \
    do {                                                                    \
        uint64_t x = bigdec__below(a[i], p2);                               \
        uint64_t t = bigdec__shoup(a[k], (wj), (wsj), p);                   \
        a[i] = x + t;                                                       \
        a[k] = x - t + p2;                                                  \
    } while (0)
    for (size_t len = 1; len < L; len <<= 1) {
        const uint64_t *w = t->wi + len, *ws = t->wis + len;
        BIGDEC__STAGE(L, len, BIGDEC__DIT);
    }
#undef BIGDEC__DIT
}

/* a reduced into [0, 2p) (a Shoup product by 1), zero-padded to L */
static void bigdec__ntt_load(uint64_t *x, const bigdec__limb *a, size_t an, size_t L,
                             const bigdec__ntt_tables *t, uint64_t p) {
    const uint64_t ones = t->ws[1]; /* w[1] = 1 */
    for (size_t i = 0; i < an; i++)
        x[i] = bigdec__shoup(a[i], 1, ones, p);
    memset(x + an, 0, (L - an) * sizeof *x);
}

size_t bigdec__ntt_scratch(size_t an, size_t bn) {
    size_t L = 1;
    while (L < an + bn)
        L <<= 1;
    return 2 * BIGDEC__NTT_PRIMES * L + 8;
}

/* Whether transforms of length 2^log run on the IFMA lanes (their primes, their
 * residues) or the scalar code (this file's primes): decided alike for
 * a fixed operand's kept transforms and the products that use them. */
static int bigdec__ntt_ifma(unsigned log) {
#if BIGDEC__X86_IFMA
    return log >= 4 && bigdec__have_ifma();
#else
    (void)log;
    return 0;
#endif
}

static int bigdec__ntt_ready(unsigned log) {
    if (log > BIGDEC__NTT_MAX_LOG)
        return -1;
#if BIGDEC__X86_IFMA
    if (bigdec__ntt_ifma(log))
        return bigdec__ifma_tables_grow(log);
#endif
    return bigdec__ntt_tables_grow(bigdec__scalar_tab, bigdec__scalar_p, bigdec__scalar_g, log,
                                   64);
}

/* x = b's forward transform for prime k, zero-padded to 2^log points */
static void bigdec__ntt_forward(uint64_t *x, const bigdec__limb *b, size_t bn, unsigned log,
                                int k) {
    size_t L = (size_t)1 << log;
#if BIGDEC__X86_IFMA
    if (bigdec__ntt_ifma(log)) {
        bigdec__ifma_forward(x, b, bn, L, k);
        return;
    }
#endif
    bigdec__ntt_load(x, b, bn, L, &bigdec__scalar_tab[k], bigdec__scalar_p[k]);
    bigdec__ntt_fwd(x, L, &bigdec__scalar_tab[k], bigdec__scalar_p[k]);
}

/* x = the pointwise product of the transforms x and y, transformed back: the cyclic
 * convolution's first `coeffs` coefficients modulo prime k, in [0, p); returns p. */
static uint64_t bigdec__ntt_backward(uint64_t *x, const uint64_t *y, size_t coeffs,
                                     unsigned log, int k) {
    size_t L = (size_t)1 << log;
#if BIGDEC__X86_IFMA
    if (bigdec__ntt_ifma(log)) {
        bigdec__ifma_backward(x, y, L, k);
        return bigdec__ifma_p[k];
    }
#endif
    const uint64_t p = bigdec__scalar_p[k], pinv = bigdec__ntt_pinv(p);
    /* the products' R^-1 (x, y < 2p: x y < 4 p^2 < p R), the transform's L, then one
     * Montgomery product by R^2 L^-1 leaves c_i mod p in [0, p) (x < 4p) */
    for (size_t i = 0; i < L; i++)
        x[i] = bigdec__mont(x[i], y[i], p, pinv);
    bigdec__ntt_inv(x, L, &bigdec__scalar_tab[k], p);
    uint64_t scale =
        (uint64_t)((bigdec__dlimb)bigdec__scalar_tab[k].linv[log] * bigdec__ntt_r2(p) % p);
    for (size_t i = 0; i < coeffs; i++)
        x[i] = bigdec__mont(x[i], scale, p, pinv);
    return p;
}

/* Garner's constants for the scalar primes p1 > p2 > p3, in Montgomery form (so that
 * mont(a, c R) = a c mod p): p1^-1 mod p2, p1^-1 mod p3, p2^-1 mod p3; once, as their
 * powers by squaring cost as much as a short product. */
static uint64_t bigdec__garner_c[3];
static pthread_once_t bigdec__garner_once = PTHREAD_ONCE_INIT;
static void bigdec__garner_init(void) {
    const uint64_t p1 = bigdec__scalar_p[0], p2 = bigdec__scalar_p[1], p3 = bigdec__scalar_p[2];
    const uint64_t p2inv = bigdec__ntt_pinv(p2), p3inv = bigdec__ntt_pinv(p3);
    const uint64_t p2r2 = bigdec__ntt_r2(p2), p3r2 = bigdec__ntt_r2(p3);
    bigdec__garner_c[0] = bigdec__mont(bigdec__ntt_powm(p1 % p2, p2 - 2, p2), p2r2, p2, p2inv);
    bigdec__garner_c[1] = bigdec__mont(bigdec__ntt_powm(p1 % p3, p3 - 2, p3), p3r2, p3, p3inv);
    bigdec__garner_c[2] = bigdec__mont(bigdec__ntt_powm(p2 % p3, p3 - 2, p3), p3r2, p3, p3inv);
}

/* r = the sum of n coefficients given as words w0, w1, w2 at limbs i, i + 1, i + 2: the
 * product (cyclic = 0: n + 1 limbs, which it fits, so nothing carries out) or the sum
 * modulo B^n - 1 (cyclic = 1: n limbs; what passes limb n - 1 wraps to limb 0). */
static void bigdec__ntt_words(bigdec__limb *r, const uint64_t *w0, const uint64_t *w1,
                              const uint64_t *w2, size_t n, int cyclic) {
    bigdec__copy(r, w0, n);
    if (!cyclic) {
        r[n] = 0;
        bigdec__add(r + 1, r + 1, n, w1, n);
        bigdec__add(r + 2, r + 2, n - 1, w2, n - 1); /* w2[n - 1] = 0: it would pass r */
        return;
    }
    bigdec__limb c = bigdec__add_n(r + 1, r + 1, w1, n - 1);
    c += bigdec__add_1(r, r, n, w1[n - 1]);
    c += bigdec__add_n(r + 2, r + 2, w2, n - 2);
    c += bigdec__add(r, r, n, w2 + n - 2, 2);
    while (c)
        c = bigdec__add_1(r, r, n, c);
}

/* The convolution of a and b in transforms of length 2^log, recombined and carried
 * into r: the product (cyclic = 0: r gets an + bn limbs, an + bn <= 2^log) or the
 * product modulo B^L - 1, L = 2^log (cyclic = 1: r gets L limbs; an, bn <= L), where
 * the cyclic convolution's coefficients fold the top half onto the bottom one (at most
 * twice the bound above, still below p1 p2 p3) and the carry out of limb L - 1 comes
 * back at limb 0, as B^L = 1 there. With tb, b's transforms come from
 * bigdec__ntt_transform (b is not read). */
static int bigdec__ntt_conv(bigdec__limb *r, const bigdec__limb *a, size_t an,
                            const bigdec__limb *b, const uint64_t *tb, size_t bn,
                            unsigned log, int cyclic, bigdec__arena *ar) {
    if (bigdec__ntt_ready(log) != 0)
        return -1;
    size_t L = (size_t)1 << log, mark = ar->used;
    size_t coeffs = cyclic ? L : an + bn - 1, out = cyclic ? L : an + bn;
    /* on a 64-byte boundary: a vector that straddles two cache lines costs two */
    uint64_t *buf = bigdec__alloc(ar, 2 * BIGDEC__NTT_PRIMES * L + 8);
    if (!buf)
        return -1;
    buf += (8 - ((uintptr_t)buf / sizeof *buf) % 8) % 8;
    uint64_t primes[BIGDEC__NTT_PRIMES];
    const int square = !tb && b == a && bn == an; /* one forward transform, not two */
    for (int k = 0; k < BIGDEC__NTT_PRIMES; k++) {
        uint64_t *x = buf + 2 * k * L;
        bigdec__ntt_forward(x, a, an, log, k);
        if (!tb && !square)
            bigdec__ntt_forward(x + L, b, bn, log, k);
        primes[k] = bigdec__ntt_backward(x, tb ? tb + k * L : square ? x : x + L, coeffs, log, k);
    }
#if BIGDEC__X86_IFMA
    if (bigdec__ntt_ifma(log)) { /* coefficients past an + bn - 2 are 0, as their words */
        uint64_t *w0 = buf, *w1 = buf + 2 * L, *w2 = buf + 4 * L;
        bigdec__ifma_garner(w0, w1, w2, (coeffs + 7) & ~(size_t)7);
        bigdec__ntt_words(r, w0, w1, w2, coeffs, cyclic);
        ar->used = mark;
        return 0;
    }
#endif
    /* Garner: c = x1 + p1 (x2' + p2 x3'), with
     * x2' = (x2 - x1) p1^-1 mod p2, x3' = ((x3 - x1) p1^-1 - x2') p2^-1 mod p3
     * (either prime set: p1 > p2 > p3, below 2^63, residues in [0, p)) */
    const uint64_t p1 = primes[0], p2 = primes[1], p3 = primes[2];
    const uint64_t p2inv = bigdec__ntt_pinv(p2), p3inv = bigdec__ntt_pinv(p3);
    pthread_once(&bigdec__garner_once, bigdec__garner_init);
    const uint64_t c12 = bigdec__garner_c[0], c13 = bigdec__garner_c[1], c23 = bigdec__garner_c[2];
    const bigdec__dlimb p12 = (bigdec__dlimb)p1 * p2;
    const uint64_t p12lo = (uint64_t)p12, p12hi = (uint64_t)(p12 >> 64);
    const uint64_t *x1s = buf, *x2s = buf + 2 * L, *x3s = buf + 4 * L;
    uint64_t c0 = 0, c1 = 0, c2 = 0; /* running carry, 3 limbs */
    for (size_t i = 0; i < out; i++) {
        uint64_t v0 = 0, v1 = 0, v2 = 0;
        if (i < coeffs) {
            uint64_t x1 = x1s[i], x2 = x2s[i], x3 = x3s[i];
            uint64_t x1m2 = x1 >= p2 ? x1 - p2 : x1, x1m3 = x1 >= p3 ? x1 - p3 : x1;
            uint64_t y2 = bigdec__mont(bigdec__subm(x2, x1m2, p2), c12, p2, p2inv);
            uint64_t t = bigdec__mont(bigdec__subm(x3, x1m3, p3), c13, p3, p3inv);
            uint64_t y2m3 = y2 >= p3 ? y2 - p3 : y2;
            uint64_t y3 = bigdec__mont(bigdec__subm(t, y2m3, p3), c23, p3, p3inv);
            /* v = x1 + y2 p1 + y3 p1 p2 < p1 p2 p3 < 2^189 */
            /* = (y2 p1 + x1) + y3 p12lo + y3 p12hi 2^64; the first two sums are below
             * 2^126 + 2^127 and 2^64 + 2^125: no 128-bit overflow */
            bigdec__dlimb lo = (bigdec__dlimb)y2 * p1 + x1 + (bigdec__dlimb)y3 * p12lo;
            bigdec__dlimb hi = (bigdec__dlimb)y3 * p12hi + (uint64_t)(lo >> 64);
            v0 = (uint64_t)lo;
            v1 = (uint64_t)hi;
            v2 = (uint64_t)(hi >> 64);
        }
        /* (c2, c1, c0) += v, emit c0, shift */
        bigdec__dlimb s0 = (bigdec__dlimb)c0 + v0;
        bigdec__dlimb s1 = (bigdec__dlimb)c1 + v1 + (uint64_t)(s0 >> 64);
        r[i] = (uint64_t)s0;
        c0 = (uint64_t)s1;
        c1 = c2 + v2 + (uint64_t)(s1 >> 64);
        c2 = 0;
    }
    if (cyclic) { /* the carry out, below B^3, wraps around; at most once more after */
        bigdec__limb carry[3] = {c0, c1, c2};
        bigdec__limb c = bigdec__add(r, r, L, carry, 3);
        while (c)
            c = bigdec__add_1(r, r, L, c);
    }
    ar->used = mark;
    return 0;
}

int bigdec__ntt_fast(void) { return bigdec__ntt_ifma(4); }

size_t bigdec__ntt_threshold(void) {
    return bigdec__ntt_fast() ? BIGDEC__NTT_IFMA_THRESHOLD : BIGDEC__NTT_THRESHOLD;
}

int bigdec__mul_ntt(bigdec__limb *r, const bigdec__limb *a, size_t an, const bigdec__limb *b,
                    size_t bn, bigdec__arena *ar) {
    unsigned log = 0;
    while (((size_t)1 << log) < an + bn)
        log++;
    return bigdec__ntt_conv(r, a, an, b, NULL, bn, log, 0, ar);
}

int bigdec__mulmod_bnm1(bigdec__limb *r, const bigdec__limb *a, size_t an,
                        const bigdec__limb *b, size_t bn, unsigned log, bigdec__arena *ar) {
    if (log < 2 || an > ((size_t)1 << log) || bn > ((size_t)1 << log))
        return -1;
    return bigdec__ntt_conv(r, a, an, b, NULL, bn, log, 1, ar);
}

int bigdec__ntt_transform(uint64_t *t, const bigdec__limb *b, size_t bn, unsigned log) {
    if (log < 2 || bn > ((size_t)1 << log) || bigdec__ntt_ready(log) != 0)
        return -1;
    for (int k = 0; k < BIGDEC__NTT_PRIMES; k++)
        bigdec__ntt_forward(t + ((size_t)k << log), b, bn, log, k);
    return 0;
}

int bigdec__ntt_conv_pre(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const uint64_t *tb, size_t bn, unsigned log, int cyclic,
                         bigdec__arena *ar) {
    size_t L = (size_t)1 << log;
    if (log < 2 || an > L || (!cyclic && an + bn > L))
        return -1;
    return bigdec__ntt_conv(r, a, an, NULL, tb, bn, log, cyclic, ar);
}
