/* bigdec_srt.c — fixed-width parts by a scaled remainder tree (Bernstein; Brent and
 * Zimmermann, "Modern Computer Arithmetic" 1.7).
 *
 * Instead of dividing an integer r < 10^W (W = 19 * 2^K digits) at every node, take once
 * the fraction f = (r + 1/2) / 10^W in fixed point (one product by a long inverse of
 * 10^W) and work on fractions: a block of 2w digits with fraction f has its high half's
 * fraction f itself (the top limbs, no work) and its low half's frac(f * 10^w) (one
 * product, of which only the limbs below the integer part and above the precision the
 * child needs are kept, so a cyclic NTT product of half the whole product's transform
 * length suffices: what wraps lands on discarded limbs; Barrett's split at the same
 * place takes a product of that length and one of half of it). A leaf's digits are the
 * limbs that overflow out of the top as its fraction is multiplied by 10^38 over and
 * over: two products per limb and 38 digits instead of the basecase's two divisions.
 *
 * The fraction costs one product of the block's size (by a long inverse, built for
 * the tree's top level only), more than the tree saves below ~2^15 chunks: trees start
 * at 19 * 2^15 digits (BIGDEC__SRT_MIN_LOG in bigdec_dc.c), divisions above them.
 *
 * Precision: a node with fraction F limbs splitting at 10^w (m limbs) gives both
 * children F - m limbs; a leaf of c chunks gets c + 1, so 10^(19 c) < B^c leaves a guard
 * limb. An error of E units of the parent's last limb becomes, times 10^w < B^m, at
 * most E units of the child's, plus one for truncation and one for the carry a cyclic
 * product may add: after d levels below the entry's 3 units, E <= 3 + 2 d (< 70).
 * The leaf drops low limbs as its digits leave (keeping one limb more than the chunks
 * still to come), each drop costing below B^-1 of a digit unit at the end.
 *
 * Exactness: f is an approximation, and a leaf's digits are wrong exactly when the
 * true value of what remains below them lies within the error of a digit boundary
 * (the digits below the leaf are 999... or 000...). The leaf checks that the fraction
 * left after its last digit is at least 2^-48 away from 0 and from 1 (the error is
 * below 2^-55); otherwise the whole tree reports "ambiguous" and the caller
 * converts r by exact divisions (bigdec_dc.c). The 1/2 added to r puts the lowest
 * leaf's remainder at one half, away from both ends, so only genuine runs of 9s or 0s
 * at a block edge (~2^-47 of random leaves) fall back.
 */
#include "internal/bigdec_conv.h"

/* After a leaf's last chunk its fraction is off by less than 2^9 units of its top
 * limb: the tree's 3 + 2 d (d < 32) and one per dropped limb (a leaf has 2^8 + 1).
 * The top limb must be this far from 0 and from 2^64. */
#define BIGDEC__SRT_MARGIN (UINT64_C(1) << 16)

/* Leaves of 2^LEAF_LOG chunks (19 * 2^LEAF_LOG digits). Instructions per warm
 * conversion at 262,144 and 1,048,576 bits (gcc 12 -O2): 2^6 chunks 4.84e7 and 2.77e8,
 * 2^7 4.70e7 and 2.72e8, 2^8 4.55e7 and 2.66e8, 2^9 4.64e7 and 2.69e8. */
#ifndef BIGDEC__SRT_LEAF_LOG
#define BIGDEC__SRT_LEAF_LOG 8
#endif

/* From this power size (limbs) on, a node's product is the cyclic NTT's, with the
 * power's kept transform (Toom-3's full products below): instructions per warm
 * conversion at 262,144 and 1,048,576 bits 4.55e7 and 2.66e8 from 128 limbs, 4.71e7
 * and 2.72e8 from 300, 5.11e7 and 2.88e8 from 600. */
#ifndef BIGDEC__SRT_CYCLIC_MIN
#define BIGDEC__SRT_CYCLIC_MIN 128
#endif

/* Limbs of the fraction at a node of 19 * 2^e digits for leaves of 2^leaf chunks:
 * 2^leaf + 1 at a leaf, plus the limbs of every power it splits at above. */
static size_t bigdec__srt_frac_limbs(unsigned e, unsigned leaf) {
    size_t F = ((size_t)1 << (e < leaf ? e : leaf)) + 1;
    for (unsigned i = leaf; i < e; i++)
        F += bigdec__pow_get(i)->rawn; /* built: level e is */
    return F;
}

/* t[0 .. l) *= 10^38, returning the two limbs that leave at the top (a value below
 * 10^38: two chunks). Two products per limb in one pass, as in bigdec_mul.c's addmul_2:
 * ~7 instructions per limb and chunk against mul_1's 10 (gcc 12 -O2). */
static bigdec__dlimb bigdec__srt_mul_ten38(bigdec__limb *t, size_t l) {
    const bigdec__limb b0 = UINT64_C(0x098a224000000000), b1 = UINT64_C(0x4b3b4ca85a86c47a);
    bigdec__limb lo = 0, hi = 0;
    for (size_t i = 0; i < l; i++) {
        bigdec__limb a = t[i];
        bigdec__dlimb u = (bigdec__dlimb)a * b0 + lo;
        t[i] = (bigdec__limb)u;
        bigdec__dlimb v = (bigdec__dlimb)a * b1 + (bigdec__limb)(u >> 64) + hi;
        lo = (bigdec__limb)v;
        hi = (bigdec__limb)(v >> 64);
    }
    return ((bigdec__dlimb)hi << 64) | lo;
}

/* Digits of a leaf: f (F >= c + 1 limbs, c = 2^e >= 2 chunks, f untouched) times 10^38,
 * c / 2 times; 1 when the remainder is too near a boundary to trust the digits. */
static int bigdec__srt_leaf(char *out, const bigdec__limb *f, size_t F, unsigned e,
                            bigdec__arena *ar) {
    size_t c = (size_t)1 << e, mark = ar->used;
    bigdec__limb *t = bigdec__alloc(ar, F);
    if (!t)
        return -1;
    bigdec__copy(t, f, F);
    size_t lo = 0;
    for (size_t left = c; left > 0; left -= 2) {
        /* an error below B^-l now is below B^(left - l) <= B^-1 units at the end */
        if (F - lo > left + 1)
            lo = F - (left + 1);
        bigdec__dlimb two = bigdec__srt_mul_ten38(t + lo, F - lo);
        bigdec__limb low;
        bigdec__limb high = bigdec__div_2by1(&low, (bigdec__limb)(two >> 64), (bigdec__limb)two,
                                             BIGDEC__TEN19, BIGDEC__TEN19_INV);
        bigdec__chunk_fixed(out, high);
        bigdec__chunk_fixed(out + BIGDEC__CHUNK_DIGITS, low);
        out += 2 * BIGDEC__CHUNK_DIGITS;
    }
    bigdec__limb top = t[F - 1];
    ar->used = mark;
    return top < BIGDEC__SRT_MARGIN || top > ~BIGDEC__SRT_MARGIN;
}

/* The 19 * 2^e digits of the block whose fraction is f (F limbs). 0, 1 (ambiguous:
 * digits written may be wrong) or -1 (internal error). */
static int bigdec__srt_node(char *out, const bigdec__limb *f, size_t F, unsigned e,
                            unsigned leaf, bigdec__arena *ar) {
    if (e <= leaf)
        return bigdec__srt_leaf(out, f, F, e, ar);
    const bigdec__pow *w = bigdec__pow_get(e - 1);
    if (!w)
        return -1;
    size_t m = w->rawn, Fc = F - m;
    /* the high half: f's top limbs */
    int st = bigdec__srt_node(out, f + m, Fc, e - 1, leaf, ar);
    if (st != 0)
        return st;
    /* the low half: limbs [m, F) of f * 10^w; its integer part (above F) is not needed,
     * so a cyclic product of length L >= F works where it is shorter than the whole */
    size_t mark = ar->used;
    unsigned log = 0;
    while (((size_t)1 << log) < F)
        log++;
    size_t L = (size_t)1 << log;
    bigdec__limb *p = NULL;
    if (m >= BIGDEC__SRT_CYCLIC_MIN && L < F + m) {
        const uint64_t *tr = log == w->ylog ? bigdec__pow_transform(w, 2) : NULL;
        p = bigdec__alloc(ar, L);
        if (p && (tr ? bigdec__ntt_conv_pre(p, f, F, tr, m, log, 1, ar)
                     : bigdec__mulmod_bnm1(p, f, F, w->raw, m, log, ar)) != 0) {
            ar->used = mark;
            p = NULL;
        }
    }
    if (!p) {
        p = bigdec__alloc(ar, F + m);
        if (!p)
            return -1;
        bigdec__mul(p, f, F, w->raw, m, ar);
    }
    st = bigdec__srt_node(out + w->digits, p + m, Fc, e - 1, leaf, ar);
    ar->used = mark;
    return st;
}

/* Guard limbs of the long inverse: the fraction at the entry has at most n + this
 * many limbs for an n-limb power (a few per level above the leaves). */
#define BIGDEC__SRT_INV_GUARD 48

size_t bigdec__srt_inverse_limbs(size_t n) { return n + BIGDEC__SRT_INV_GUARD + 1; }

int bigdec__srt_inverse(bigdec__limb *yl, const bigdec__pow *w, bigdec__arena *ar) {
    /* floor(B^(2n) / p) from y (a few units off) corrected against the exact remainder,
     * then G more limbs of quotient by schoolbook division of the remainder */
    size_t n = w->n, G = BIGDEC__SRT_INV_GUARD, mark = ar->used;
    bigdec__limb *q = yl + G; /* n + 1 limbs */
    bigdec__limb *e = bigdec__alloc(ar, 2 * n + 2), *num = bigdec__alloc(ar, n + G + 1);
    bigdec__limb *qq = bigdec__alloc(ar, G + 2);
    if (!qq)
        return -1;
    bigdec__copy(q, w->y, n + 1);
    bigdec__mul(e, q, n + 1, w->p, n, ar); /* 2n + 1 limbs */
    /* e = B^(2n) - q p, in 2n + 1 limbs two's complement */
    for (size_t i = 0; i < 2 * n + 1; i++)
        e[i] = ~e[i];
    bigdec__add_1(e, e, 2 * n + 1, 1);
    e[2 * n] += 1;
    int steps = 0;
    while ((int64_t)e[2 * n] < 0) {
        bigdec__sub_1(q, q, n + 1, 1);
        e[2 * n] += bigdec__add(e, e, 2 * n, w->p, n);
        if (++steps > 64)
            return -1;
    }
    while (bigdec__normlen(e + n, n + 1) != 0 || bigdec__cmp(e, w->p, n) >= 0) {
        bigdec__add_1(q, q, n + 1, 1);
        e[2 * n] -= bigdec__sub(e, e, 2 * n, w->p, n);
        if (++steps > 64)
            return -1;
    }
    bigdec__zero(num, G);
    bigdec__copy(num + G, e, n);
    num[n + G] = 0;
    bigdec__divrem_school(qq, num, n + G + 1, w->p, n);
    bigdec__copy(yl, qq, G);
    ar->used = mark;
    return 0;
}

size_t bigdec__srt_scratch(size_t n) {
    /* f (F + 2 <= n + 50 limbs), then the larger of the entry, (2r + 1) << s and its
     * product (3n + 52) with that product's scratch (24n + 1700), and the tree: its
     * products' p (< 2F, F/2 a level down: 4n + 200 in all), the top one's scratch
     * (24 F + 512), a leaf's copy (<= n) */
    return 32 * n + 4096;
}

int bigdec__srt(char *out, const bigdec__limb *r, size_t rn, size_t width, bigdec__arena *ar) {
    unsigned K = 0;
    while ((size_t)BIGDEC__CHUNK_DIGITS << K < width)
        K++;
    if ((size_t)BIGDEC__CHUNK_DIGITS << K != width || K < 1) /* a leaf has >= 2 chunks */
        return 2;
    const bigdec__pow *w = bigdec__pow_get(K);
    const bigdec__limb *yl = w ? bigdec__pow_inverse_long(w) : NULL;
    if (!yl)
        return 2;
    unsigned leaf = BIGDEC__SRT_LEAF_LOG;
    size_t n = w->n, F = bigdec__srt_frac_limbs(K, leaf);
    rn = bigdec__normlen(r, rn);
    /* only the top G of the long inverse's guard limbs: those the fraction needs */
    size_t G = F > n ? F - n : 1;
    if (G > BIGDEC__SRT_INV_GUARD || rn > n)
        return 2;
    yl += BIGDEC__SRT_INV_GUARD - G;
    size_t mark = ar->used;
    /* f = floor(((2r + 1) << s) yl / (2 B^(2n + G - F))): yl is below B^(2n+G) / p by
     * less than 2, which moves the product by less than 4 B^n, under 2 units of f, and
     * the floor one more */
    bigdec__limb *f = bigdec__alloc(ar, F + 2), *t = bigdec__alloc(ar, n + 1);
    bigdec__limb *prod = bigdec__alloc(ar, 2 * n + G + 2);
    if (!prod)
        return -1;
    bigdec__zero(t, n + 1);
    bigdec__copy(t, r, rn);
    bigdec__lshift(t, t, n + 1, 1);
    t[0] |= 1;
    bigdec__lshift(t, t, n + 1, w->shift);
    size_t k0 = 2 * n + G - F;
    /* from the tree's cyclic size on, by the NTT with yl's kept transform where the
     * product fits its length */
    const uint64_t *tyl = n + 1 >= BIGDEC__SRT_CYCLIC_MIN && 2 * n + G + 2 <= (size_t)1 << w->ylog
                              ? bigdec__pow_transform_long(w, G)
                              : NULL;
    if (!(tyl && bigdec__ntt_conv_pre(prod, t, n + 1, tyl, n + G + 1, w->ylog, 0, ar) == 0))
        bigdec__mul(prod, yl, n + G + 1, t, n + 1, ar);
    bigdec__rshift(f, prod + k0, F + 2, 1);
    ar->used = mark + F + 2;
    int st = f[F] || f[F + 1] ? -1 : bigdec__srt_node(out, f, F, K, leaf, ar);
    ar->used = mark;
    return st;
}
