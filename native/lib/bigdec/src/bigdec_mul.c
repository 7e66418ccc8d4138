/* bigdec_mul.c — multiplication: schoolbook, Karatsuba, Toom-3 (bigdec_toom.c), and
 * (large) the NTT.
 *
 * Karatsuba (subtractive form): with a = a1 B^l + a0, b = b1 B^l + b0,
 *   a b = a1 b1 B^2l + (a0 b0 + a1 b1 + (a0 - a1)(b1 - b0)) B^l + a0 b0,
 * three half-size products instead of four: O(n^1.585). The differences are taken as
 * absolute values with a sign, so every intermediate is an unsigned limb array.
 * Unbalanced operands are cut into pieces of the shorter one's size.
 *
 * The threshold (BIGDEC__KARA_THRESHOLD limbs, where Karatsuba starts to win over the
 * schoolbook rows) was timed on an AMD family 26 with gcc 12 -O2, with the ADX rows
 * (bigdec_adx.c) and the adc sums (bigdec_mpn.c), over whole conversions (medians of
 * 5): 65,536 bits 193 us at 24, 191 at 32, 196 at 48, 198 at 64; 262,144 bits 1648,
 * 1647, 1662, 1681; 1,048,576 bits 10.70, 10.74, 10.79, 10.86 ms. (Before the adc sums,
 * with Karatsuba's sums in C, 52-80 was best.)
 */
#include "internal/bigdec_mpn.h"

#ifndef BIGDEC__KARA_THRESHOLD
#define BIGDEC__KARA_THRESHOLD 32
#endif
/* from here on (balanced operands, in limbs) Toom-3 instead of Karatsuba. Instructions
 * per product (cachegrind, AMD family 26, gcc 12 -O2) were fewest with the threshold at
 * 100-150 for 64 to 1000 limbs: at 1000 limbs Toom-3 saved 10% of the instructions of
 * the whole differential run, GMP's share included (the machine was too loaded for
 * times to resolve it). */
#ifndef BIGDEC__TOOM3_THRESHOLD
#define BIGDEC__TOOM3_THRESHOLD 100
#endif

/* r[0 .. n+1] = r[0 .. n-1] + a * (b0 + b1 B): r[n] is written, the limb at n + 1
 * returned. Two rows per pass load and store each limb of r once for two products, and give
 * the core two independent multiplies per limb: t at limb i, u at limb i + 1 (each sum
 * stays below 2^128: (2^64-1)^2 + 2 (2^64-1) = 2^128 - 1). */
static bigdec__limb bigdec__addmul_2(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                     bigdec__limb b0, bigdec__limb b1) {
    bigdec__limb lo = 0, hi = 0; /* pending at limbs i and i + 1 */
    for (size_t i = 0; i < n; i++) {
        bigdec__dlimb t = (bigdec__dlimb)a[i] * b0 + r[i] + lo;
        r[i] = (bigdec__limb)t;
        bigdec__dlimb u = (bigdec__dlimb)a[i] * b1 + (bigdec__limb)(t >> 64) + hi;
        lo = (bigdec__limb)u;
        hi = (bigdec__limb)(u >> 64);
    }
    r[n] = lo;
    return hi;
}

static void bigdec__mul_school(bigdec__limb *r, const bigdec__limb *a, size_t an,
                               const bigdec__limb *b, size_t bn) {
#if BIGDEC__X86_ASM
    if (bigdec__have_adx()) { /* one row per pass, each with two carry chains */
        bigdec__mul_school_adx(r, a, an, b, bn);
        return;
    }
#endif
    r[an] = bigdec__mul_1(r, a, an, b[0]);
    size_t j = 1;
    for (; j + 2 <= bn; j += 2)
        r[an + j + 1] = bigdec__addmul_2(r + j, a, an, b[j], b[j + 1]);
    if (j < bn)
        r[an + j] = bigdec__addmul_1(r + j, a, an, b[j]);
}

/* |x - y| with x of n limbs and y of m <= n limbs (y padded with zeros). */
static int bigdec__absdiff_pad(bigdec__limb *r, const bigdec__limb *x, size_t n,
                               const bigdec__limb *y, size_t m) {
    if (bigdec__normlen(x + m, n - m) == 0 && bigdec__cmp(x, y, m) < 0) {
        bigdec__sub_n(r, y, x, m);
        bigdec__zero(r + m, n - m);
        return 1;
    }
    bigdec__sub(r, x, n, y, m);
    return 0;
}

static void bigdec__kara(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                         size_t n, bigdec__arena *ar);

void bigdec__mul_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b, size_t n,
                   bigdec__arena *ar) {
    if (n < BIGDEC__KARA_THRESHOLD)
        bigdec__mul_school(r, a, n, b, n);
    else if (n < BIGDEC__TOOM3_THRESHOLD)
        bigdec__kara(r, a, b, n, ar);
    else
        bigdec__toom3(r, a, b, n, ar);
}

static void bigdec__kara(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                         size_t n, bigdec__arena *ar) {
    size_t h = n / 2, l = n - h; /* low parts l limbs, high parts h <= l limbs */
    size_t mark = ar->used;
    bigdec__limb *da = bigdec__alloc(ar, l), *db = bigdec__alloc(ar, l);
    bigdec__limb *z1 = bigdec__alloc(ar, 2 * l);
    if (!z1) /* arena too small: a sizing bug, reported by the caller via ar->overflow */
        return;
    /* (a0 - a1) and (b1 - b0) */
    int sa = bigdec__absdiff_pad(da, a, l, a + l, h);
    int sb = bigdec__absdiff_pad(db, b, l, b + l, h);
    sb ^= 1; /* absdiff_pad computed b0 - b1; we want b1 - b0 */
    bigdec__mul_n(z1, da, db, l, ar);
    bigdec__mul_n(r, a, b, l, ar);                     /* z0 = a0 b0 -> r[0, 2l) */
    if (h == l)
        bigdec__mul_n(r + 2 * l, a + l, b + l, h, ar); /* z2 = a1 b1 -> r[2l, 2n) */
    else
        bigdec__mul(r + 2 * l, a + l, h, b + l, h, ar);
    /* r += (z0 + z2 +- z1) B^l in place. With z0 = r0 + r1 B^l and z2 = r2 + r3 B^l,
     * the limbs at B^l get r1 + r2 + r0 and those at B^2l r1 + r2 + r3: s = r1 + r2 is
     * taken once, into r1's place (three passes of l limbs, against a copy and three
     * sums of 2l). The carries out of each sum land one block up; whatever leaves the
     * top cancels against the z1 subtraction, all of it modulo B^2n. */
    bigdec__limb *r1 = r + l, *r2 = r + 2 * l, *r3 = r + 3 * l;
    size_t m = 2 * h - l; /* r3's limbs */
    bigdec__limb cs = bigdec__add_n(r1, r1, r2, l);
    bigdec__limb c2 = bigdec__add(r2, r1, l, r3, m);
    bigdec__limb c1 = bigdec__add_n(r1, r1, r, l);
    bigdec__add_1(r2, r2, 2 * n - 2 * l, cs + c1);
    if (m > 0)
        bigdec__add_1(r3, r3, m, cs + c2);
    if (sa ^ sb) /* (a0 - a1)(b1 - b0) < 0 */
        bigdec__sub(r1, r1, 2 * n - l, z1, 2 * l);
    else
        bigdec__add(r1, r1, 2 * n - l, z1, 2 * l);
    ar->used = mark;
}

size_t bigdec__mul_scratch(size_t an) {
    /* Karatsuba at size n takes 6l + 1 limbs (l = ceil(n/2)) plus its recursion:
     * 6(n/2 + 1) + 1 + 6(n/4 + 1) + 1 + ... < 6n + 7 log2(n) + ...; an unbalanced
     * product adds one 2bn-limb piece: 8n + 512. Toom-3 takes 8k + 8 limbs per level
     * (k = n/3 + 1) and recurses on k + 1: 4n + 24 log n over its levels, with
     * Karatsuba's below them. The NTT takes 6 L + 8 limbs with
     * L < 2 (an + bn) <= 4 an: 24 an + 8; an unbalanced product's pieces, the 2bn-limb
     * piece and a bn x bn product by the NTT (L < 4 bn): 26 an + 8. */
    return 26 * an + 512;
}

/* Whether the NTT beats Toom-3 for an x bn limbs, by this CPU's models of both
 * (bigdec_cost.c). */
static int bigdec__ntt_pays(size_t an, size_t bn) {
    if (bn < bigdec__ntt_threshold() || 2 * bn < an)
        return 0;
    unsigned log = 0;
    while (((size_t)1 << log) < an + bn)
        log++;
    return bigdec__ntt_ticks(log) < bigdec__toom_ticks(an, bn);
}

void bigdec__mul(bigdec__limb *r, const bigdec__limb *a, size_t an, const bigdec__limb *b,
                 size_t bn, bigdec__arena *ar) {
    if (bigdec__ntt_pays(an, bn) && bigdec__mul_ntt(r, a, an, b, bn, ar) == 0)
        return;
    if (bn < BIGDEC__KARA_THRESHOLD) {
        bigdec__mul_school(r, a, an, b, bn);
        return;
    }
    if (an == bn) {
        bigdec__mul_n(r, a, b, an, ar);
        return;
    }
    /* unbalanced: pieces of bn limbs of a, each times b, added into r */
    size_t mark = ar->used;
    bigdec__limb *tmp = bigdec__alloc(ar, 2 * bn);
    if (!tmp)
        return;
    bigdec__mul_n(r, a, b, bn, ar);
    size_t done = bn;
    bigdec__zero(r + 2 * bn, an - bn);
    while (done < an) {
        size_t len = an - done < bn ? an - done : bn;
        if (len == bn) /* balanced: the NTT's if it pays */
            bigdec__mul(tmp, a + done, bn, b, bn, ar);
        else
            bigdec__mul(tmp, b, bn, a + done, len, ar);
        bigdec__add(r + done, r + done, an + bn - done, tmp, len + bn);
        done += len;
    }
    ar->used = mark;
}
