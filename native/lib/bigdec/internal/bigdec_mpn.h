/* bigdec_mpn.h — the limb arithmetic bigdec is built on (private).
 *
 * Numbers are arrays of 64-bit limbs, least significant first, with an explicit length
 * (no sign, no allocation inside). Names follow the usual multi-precision vocabulary:
 * add_n / sub_n (equal lengths, carry out), mul_1 / addmul_1 / submul_1 (times one limb),
 * mul (any lengths, schoolbook or Karatsuba), divrem (quotient and remainder).
 *
 * Scratch memory comes from an arena allocated once per conversion (bigdec__arena), so a
 * conversion either gets all its memory before it writes a digit or writes nothing.
 */
#ifndef BIGDEC_INTERNAL_MPN_H
#define BIGDEC_INTERNAL_MPN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t bigdec__limb;
typedef unsigned __int128 bigdec__dlimb;
#define BIGDEC__LIMB_BITS 64

/* ---- scratch arena: a stack of limbs, released in reverse order of allocation ---- */

typedef struct bigdec__arena {
    bigdec__limb *base;
    size_t used, cap; /* in limbs */
    int overflow;     /* set if a request ever exceeded cap (a sizing bug, tested) */
} bigdec__arena;

/* Allocate n limbs (uninitialised) from the arena; NULL and overflow = 1 if it is full. */
static inline bigdec__limb *bigdec__alloc(bigdec__arena *a, size_t n) {
    if (n > a->cap - a->used) {
        a->overflow = 1;
        return NULL;
    }
    bigdec__limb *p = a->base + a->used;
    a->used += n;
    return p;
}

/* ---- small helpers ---- */

/* Length without high zero limbs. */
static inline size_t bigdec__normlen(const bigdec__limb *x, size_t n) {
    while (n > 0 && x[n - 1] == 0)
        n--;
    return n;
}

static inline void bigdec__zero(bigdec__limb *r, size_t n) { memset(r, 0, n * sizeof *r); }
static inline void bigdec__copy(bigdec__limb *r, const bigdec__limb *a, size_t n) {
    memmove(r, a, n * sizeof *r);
}

/* ---- linear operations (bigdec_mpn.c) ---- */

bigdec__limb bigdec__add_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n);
bigdec__limb bigdec__sub_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n);
/* r = a + b (an >= bn), carry out */
bigdec__limb bigdec__add(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const bigdec__limb *b, size_t bn);
/* r = a - b (an >= bn), borrow out */
bigdec__limb bigdec__sub(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const bigdec__limb *b, size_t bn);
bigdec__limb bigdec__add_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b);
bigdec__limb bigdec__sub_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b);
bigdec__limb bigdec__mul_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b);
bigdec__limb bigdec__addmul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b);
bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b);
bigdec__limb bigdec__lshift(bigdec__limb *r, const bigdec__limb *a, size_t n, unsigned s);
bigdec__limb bigdec__rshift(bigdec__limb *r, const bigdec__limb *a, size_t n, unsigned s);
int bigdec__cmp(const bigdec__limb *a, const bigdec__limb *b, size_t n);

/* ---- multiplication (bigdec_mul.c) ---- */

/* x86-64 inline assembly is built (the adc sums of bigdec_mpn.c, the rows of
 * bigdec_adx.c) with GCC or clang, unless -DBIGDEC_NO_ASM asks for the portable C,
 * which is what every other machine runs and what the tests check it against. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(BIGDEC_NO_ASM)
#define BIGDEC__X86_ASM 1
#else
#define BIGDEC__X86_ASM 0
#endif

#if BIGDEC__X86_ASM
/* (bigdec_adx.c) Schoolbook rows with mulx and two carry chains (adcx, adox), for a CPU
 * with BMI2 and ADX, which bigdec__have_adx() tells (cpuid, once): r -= a * b as
 * submul_1 does, and r[0 .. an+bn) = a * b (an, bn >= 1). */
int bigdec__have_adx(void);
bigdec__limb bigdec__submul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b);
void bigdec__mul_school_adx(bigdec__limb *r, const bigdec__limb *a, size_t an,
                            const bigdec__limb *b, size_t bn);
#endif

/* The NTT's transforms eight lanes at a time (bigdec_ntt_ifma.c), built where the x86
 * code is (unless -DBIGDEC_NO_IFMA asks for the scalar transforms alone, as the tests
 * do to check them on any CPU) and chosen at run time where bigdec__have_ifma() (cpuid,
 * once) says the CPU and the OS have AVX-512 IFMA: prime k's forward transform of a
 * (an <= L limbs, zero-padded) into x, and back from the pointwise product of x and y
 * to the cyclic convolution modulo that prime, in [0, p); L >= 16, tables grown to L
 * first. */
#define BIGDEC__NTT_PRIMES 3
#define BIGDEC__NTT_MAX_LOG 20 /* the coefficient bound's limit (bigdec_ntt.c) */
/* (bigdec_ntt.c) One prime's twiddle tables, for both kinds of transform: w[len + j] =
 * root_{2 len}^j in [0, p) for each stage's half-length len (roots of the prime's
 * generator), wi the inverse roots, ws and wis their Shoup companions floor(w 2^bits / p)
 * (bits 64 for the scalar transforms, 52 for the IFMA lanes). Stages up to half-length
 * 2^(log-1) are filled, and linv[j] = 2^-j mod p for j <= log, the inverse transform's
 * scale (a power by squaring per product cost as much as a 2^7-point transform). */
typedef struct {
    unsigned log;
    uint64_t *w, *ws, *wi, *wis;
    uint64_t linv[BIGDEC__NTT_MAX_LOG + 1];
} bigdec__ntt_tables;
/* Grow the three primes' tables of one kind to 2^log points (2^(bits-3) < p <
 * 2^(bits-2)); 0 on success, -1 if memory runs out. Each array is reserved at its
 * largest, 2^BIGDEC__NTT_MAX_LOG words (pages the OS maps only once written), and
 * growing, under one lock for both kinds, writes only the new, longer stages: a
 * transform running in another thread reads the shorter ones, which never move. */
int bigdec__ntt_tables_grow(bigdec__ntt_tables tab[BIGDEC__NTT_PRIMES], const uint64_t p[],
                            const uint64_t g[], unsigned log, unsigned bits);
/* a^e mod p, with 128-bit remainders: for set-up, not for loops */
uint64_t bigdec__ntt_powm(uint64_t a, uint64_t e, uint64_t p);
#if BIGDEC__X86_ASM && !defined(BIGDEC_NO_IFMA)
#define BIGDEC__X86_IFMA 1
int bigdec__have_ifma(void);
extern const uint64_t bigdec__ifma_p[BIGDEC__NTT_PRIMES];
int bigdec__ifma_tables_grow(unsigned log);
void bigdec__ifma_forward(uint64_t *x, const bigdec__limb *a, size_t an, size_t L, int k);
void bigdec__ifma_backward(uint64_t *x, const uint64_t *y, size_t L, int k);
/* ... and Garner's step for the first n coefficients (n a multiple of 8): each as
 * three words over its residues, w0 (limb i) into x1, w1 (limb i + 1) into x2, w2
 * (limb i + 2) into x3. */
void bigdec__ifma_garner(uint64_t *x1, uint64_t *x2, uint64_t *x3, size_t n);
#else
#define BIGDEC__X86_IFMA 0
#endif

/* From here on (the shorter operand, in limbs) products may go to the NTT of
 * bigdec_ntt.c, and Barrett's q d to its cyclic form (bigdec_div.c): with the scalar
 * transforms, and with the IFMA ones. bigdec__ntt_threshold() is the one this CPU runs;
 * bigdec__ntt_ticks(log) what a product by transforms of 2^log points costs, and
 * bigdec__toom_ticks(an, bn) what one by Toom-3 does (TSC ticks, fitted per vendor in
 * bigdec_cost.c), for the choice between them. */
#ifndef BIGDEC__NTT_THRESHOLD
#define BIGDEC__NTT_THRESHOLD 1500
#endif
#ifndef BIGDEC__NTT_IFMA_THRESHOLD
#define BIGDEC__NTT_IFMA_THRESHOLD 128
#endif
int bigdec__ntt_fast(void); /* whether the transforms run on the IFMA lanes */
size_t bigdec__ntt_threshold(void);
double bigdec__ntt_ticks(unsigned log);
double bigdec__toom_ticks(size_t an, size_t bn);

/* r[0 .. an+bn) = a * b, an >= bn >= 1; r must not overlap a or b. Scratch from `ar`:
 * at most bigdec__mul_scratch(an) limbs. */
void bigdec__mul(bigdec__limb *r, const bigdec__limb *a, size_t an, const bigdec__limb *b,
                 size_t bn, bigdec__arena *ar);
size_t bigdec__mul_scratch(size_t an);

/* r[0 .. 2n) = a * b, both of n limbs: schoolbook, Karatsuba or Toom-3 by size. */
void bigdec__mul_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b, size_t n,
                   bigdec__arena *ar);

/* (bigdec_toom.c) r[0 .. 2n) = a * b by Toom-Cook 3-way, n >= 7 (so that the top third
 * is not empty); the five products of about n/3 limbs recurse through bigdec__mul_n.
 * Scratch: within bigdec__mul_scratch(n). */
void bigdec__toom3(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b, size_t n,
                   bigdec__arena *ar);

/* (bigdec_ntt.c) r = a * b by three-prime NTT; -1 if too long (> 2^20 limbs in all) or
 * out of memory for the twiddle tables, then r is untouched. Scratch:
 * bigdec__ntt_scratch(an, bn) limbs. */
int bigdec__mul_ntt(bigdec__limb *r, const bigdec__limb *a, size_t an, const bigdec__limb *b,
                    size_t bn, bigdec__arena *ar);
size_t bigdec__ntt_scratch(size_t an, size_t bn);

/* (bigdec_ntt.c) r[0 .. L) = a * b mod (B^L - 1), L = 2^log, an, bn <= L: the cyclic
 * convolution, half the transform length of the whole product when an + bn is near 2L.
 * The result is below B^L (B^L - 1 stands for 0 as well). -1 as bigdec__mul_ntt, or for
 * log < 2 or an operand longer than L; then r is untouched. Scratch: 6 L + 8 limbs. */
int bigdec__mulmod_bnm1(bigdec__limb *r, const bigdec__limb *a, size_t an,
                        const bigdec__limb *b, size_t bn, unsigned log, bigdec__arena *ar);

/* (bigdec_ntt.c) A fixed operand's transforms, kept to multiply by it again: t (3 << log
 * words) = b's forward transforms of length 2^log for each prime. -1 if log is out of
 * range or bn > 2^log, or the twiddle tables cannot be had. */
#define BIGDEC__NTT_PRE_WORDS(log) ((size_t)3 << (log))
int bigdec__ntt_transform(uint64_t *t, const bigdec__limb *b, size_t bn, unsigned log);

/* r = a * b (cyclic = 0: an + bn limbs, an + bn <= 2^log) or a * b mod (B^L - 1)
 * (cyclic = 1: L = 2^log limbs), b given by its transforms tb of that length (bn limbs
 * long): one forward transform per prime fewer. -1 as bigdec__mul_ntt, or for sizes
 * that do not fit 2^log. Scratch: (6 << log) + 8 limbs. */
int bigdec__ntt_conv_pre(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const uint64_t *tb, size_t bn, unsigned log, int cyclic,
                         bigdec__arena *ar);

/* A divisor's kept transforms (bigdec_pow.c builds them for the large powers): y's of
 * length 2^ylog for Barrett's y * n_top, d's cyclic ones of length 2^dlog for q d; a NULL
 * pointer where there are none. */
typedef struct bigdec__ntt_pre {
    const uint64_t *ty, *td;
    unsigned ylog, dlog;
} bigdec__ntt_pre;

/* ---- division (bigdec_div.c) ---- */

/* Quotient and remainder of the two-limb (u1, u0) by normalised d (top bit set),
 * u1 < d, with v = floor((2^128 - 1) / d) - 2^64 (Möller & Granlund 2011, alg. 4):
 * one 64 x 64 -> 128 multiply, one low multiply, and adjustments; no `div`. */
static inline bigdec__limb bigdec__div_2by1(bigdec__limb *rem, bigdec__limb u1,
                                            bigdec__limb u0, bigdec__limb d, bigdec__limb v) {
    bigdec__dlimb p = (bigdec__dlimb)v * u1;
    /* (q1, q0) = v u1 + (u1 + 1, u0), in 64-bit halves: gcc keeps these in registers,
     * a 128-bit sum it spills */
    bigdec__limb q0 = (bigdec__limb)p + u0;
    bigdec__limb q1 = (bigdec__limb)(p >> 64) + u1 + 1 + (q0 < u0);
    bigdec__limb r = u0 - q1 * d;
    /* taken about half the time, unpredictably: written as a mask, not an `if`, which
     * gcc 12 compiles to a branch (a misprediction every other limb, ~2x slower) */
    bigdec__limb mask = (bigdec__limb)0 - (bigdec__limb)(r > q0);
    q1 += mask;
    r += mask & d;
    if (__builtin_expect(r >= d, 0)) { /* rare: probability ~ 2^-64 * small */
        q1++;
        r -= d;
    }
    *rem = r;
    return q1;
}

/* v for bigdec__div_2by1: floor((2^128 - 1) / d) - 2^64, d normalised. */
bigdec__limb bigdec__invert_limb(bigdec__limb d);

/* Schoolbook division (Knuth's algorithm D): q[0 .. nn-dn] = n / d, n is overwritten
 * by the remainder (its low dn limbs). d is normalised (top bit set), dn >= 2,
 * nn >= dn. O(dn * (nn - dn)). */
void bigdec__divrem_school(bigdec__limb *q, bigdec__limb *n, size_t nn, const bigdec__limb *d,
                           size_t dn);

/* The same by divide and conquer (Burnikel & Ziegler, as GMP's dcpi1_div_qr) from
 * BIGDEC__DIV_DC_THRESHOLD limbs of divisor and quotient, schoolbook below: blocks of dn
 * quotient limbs, each two half-size divisions and two half-size products, so O(M(dn))
 * per block with no inverse to build. Scratch: bigdec__divrem_dc_scratch(dn) (a short
 * arena is a sizing bug, seen in ar->overflow). The threshold, timed cold (medians of
 * 5, AMD family 26, gcc 12 -O2, the IFMA transforms): 65,536 bits 177.8 us at 20,
 * 173.8 at 24, 174.9 at 28, 175.0 at 32, 175.7 at 40; 262,144 bits 1087, 1071, 1069,
 * 1067, 1073. */
#ifndef BIGDEC__DIV_DC_THRESHOLD
#define BIGDEC__DIV_DC_THRESHOLD 28
#endif
void bigdec__divrem_dc(bigdec__limb *q, bigdec__limb *n, size_t nn, const bigdec__limb *d,
                       size_t dn, bigdec__arena *ar);
size_t bigdec__divrem_dc_scratch(size_t dn);

/* An approximation y (dn + 1 limbs) of B^(2 dn) / d for normalised d, within a few
 * units (exact below a size threshold): Newton's iteration doubling the precision from
 * the top half of d. Scratch: bigdec__invert_scratch(dn). */
void bigdec__invert(bigdec__limb *y, const bigdec__limb *d, size_t dn, bigdec__arena *ar);
size_t bigdec__invert_scratch(size_t dn);

/* Barrett division with the precomputed y = bigdec__invert(d): q[0 .. nn-dn] = n / d and
 * r[0 .. dn) = n % d, for normalised d and dn < nn <= 2 dn. The quotient estimated from
 * y is corrected against the exact remainder, so the result is exact whatever small
 * error y carries. Returns 0, or -1 if y was far off (then nothing is guaranteed; a
 * tested internal error). pre (may be NULL) gives y's and d's transforms where kept.
 * Scratch: bigdec__divrem_pre_scratch(dn). */
int bigdec__divrem_pre(bigdec__limb *q, bigdec__limb *r, const bigdec__limb *n, size_t nn,
                       const bigdec__limb *d, size_t dn, const bigdec__limb *y,
                       const bigdec__ntt_pre *pre, bigdec__arena *ar);
size_t bigdec__divrem_pre_scratch(size_t dn);

#endif
