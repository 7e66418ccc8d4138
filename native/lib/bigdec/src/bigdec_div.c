/* bigdec_div.c — division: one-limb reciprocal, schoolbook, Newton inverse, Barrett.
 *
 * The divide-and-conquer conversion divides by the same powers of ten over and over, so
 * each power carries a precomputed inverse y ~ B^(2n)/d (B = 2^64): a division is then
 * two multiplications (Barrett), O(M(n)) instead of the schoolbook O(n^2). The inverse
 * comes from Newton's iteration (each step doubles the correct limbs, starting from the
 * inverse of the divisor's top half), so computing it costs a few multiplications too.
 *
 * Where q d goes to the NTT, it is taken modulo B^L - 1 (a cyclic transform of half
 * the length) and the remainder recovered from n folded the same way: the second
 * multiplication costs about half the first (cachegrind, AMD family 26: 12% fewer
 * instructions per warm conversion at 262,144 bits, 13% at 1,048,576). Newton's d y_h
 * is taken the same way, as only its low limbs are unknown (11% fewer instructions
 * per cold conversion at 1,048,576 bits).
 *
 * Exactness does not rest on the error analysis of y: Barrett's quotient is corrected
 * against the exact remainder, one add or subtract of d per unit of error. y is within a
 * few units of the true inverse (analysis at bigdec__invert), so corrections are rare
 * and short; a y that is far off is reported (-1) rather than looped on.
 */
#include "internal/bigdec_mpn.h"

#ifndef BIGDEC__INV_SCHOOL_THRESHOLD
#define BIGDEC__INV_SCHOOL_THRESHOLD 48 /* below: exact inverse by schoolbook division */
#endif

bigdec__limb bigdec__invert_limb(bigdec__limb d) {
    /* floor((2^128 - 1) / d) - 2^64; the quotient is in [2^64, 2^65) for normalised d */
    return (bigdec__limb)(~(bigdec__dlimb)0 / d);
}

/* Knuth's algorithm D: q[0 .. nn-dn) and the remainder in n[0 .. dn); returns the top
 * quotient limb (0 or 1) rather than storing it, for the divide-and-conquer division
 * below, whose blocks have a neighbour there. */
static bigdec__limb bigdec__school(bigdec__limb *q, bigdec__limb *n, size_t nn,
                                   const bigdec__limb *d, size_t dn) {
    const bigdec__limb d1 = d[dn - 1], d0 = d[dn - 2];
    const bigdec__limb v = bigdec__invert_limb(d1);
#if BIGDEC__X86_ASM
    const int adx = bigdec__have_adx();
#endif
    /* top quotient limb: 0 or 1, as d is normalised */
    bigdec__limb *top = n + nn - dn;
    int qh = bigdec__cmp(top, d, dn) >= 0;
    if (qh)
        bigdec__sub_n(top, top, d, dn);
    for (size_t j = nn - dn; j-- > 0;) {
        bigdec__limb u2 = n[j + dn], u1 = n[j + dn - 1], u0 = n[j + dn - 2];
        bigdec__limb qhat, rhat;
        if (u2 >= d1) { /* u2 == d1: the estimate saturates; add-backs fix it */
            qhat = ~(bigdec__limb)0;
        } else {
            qhat = bigdec__div_2by1(&rhat, u2, u1, d1, v);
            /* Knuth's test with the second divisor limb: qhat is then q or q + 1 */
            while ((bigdec__dlimb)qhat * d0 > (((bigdec__dlimb)rhat << 64) | u0)) {
                qhat--;
                rhat += d1;
                if (rhat < d1) /* rhat overflowed: the test can no longer fail */
                    break;
            }
        }
#if BIGDEC__X86_ASM
        bigdec__limb c = adx ? bigdec__submul_1_adx(n + j, d, dn, qhat)
                             : bigdec__submul_1(n + j, d, dn, qhat);
#else
        bigdec__limb c = bigdec__submul_1(n + j, d, dn, qhat);
#endif
        bigdec__limb t = u2 - c;
        int neg = u2 < c;
        while (neg) { /* went below zero: add d back until the top limb returns to 0 */
            qhat--;
            t += bigdec__add_n(n + j, n + j, d, dn);
            neg = t != 0;
        }
        n[j + dn] = 0;
        q[j] = qhat;
    }
    return (bigdec__limb)qh;
}

void bigdec__divrem_school(bigdec__limb *q, bigdec__limb *n, size_t nn, const bigdec__limb *d,
                           size_t dn) {
    q[nn - dn] = bigdec__school(q, n, nn, d, dn);
}

/* 2 dn limbs n by dn limbs d (Burnikel & Ziegler; GMP's dcpi1_div_qr_n): the top half of
 * the quotient from n's top 2 hi limbs by d's top hi limbs, corrected by the product of
 * that half and d's low limbs, then the low half the same way. q[0 .. dn), the remainder
 * in n[0 .. dn); returns the top quotient limb (0 or 1). An estimate from d's top limbs
 * is at most a few units high, d being normalised: each unit costs one add-back. tp:
 * dn limbs. Cost ~2 D(dn/2) + 2 M(dn/2), against the schoolbook's dn^2. */
static bigdec__limb bigdec__dc_n(bigdec__limb *q, bigdec__limb *n, const bigdec__limb *d,
                                 size_t dn, bigdec__limb *tp, bigdec__arena *ar) {
    size_t lo = dn / 2, hi = dn - lo;
    bigdec__limb qh, ql, cy;
    qh = hi < BIGDEC__DIV_DC_THRESHOLD ? bigdec__school(q + lo, n + 2 * lo, 2 * hi, d + lo, hi)
                                       : bigdec__dc_n(q + lo, n + 2 * lo, d + lo, hi, tp, ar);
    bigdec__mul(tp, q + lo, hi, d, lo, ar);
    cy = bigdec__sub_n(n + lo, n + lo, tp, dn);
    if (qh)
        cy += bigdec__sub_n(n + dn, n + dn, d, lo);
    while (cy) {
        qh -= bigdec__sub_1(q + lo, q + lo, hi, 1);
        cy -= bigdec__add_n(n + lo, n + lo, d, dn);
    }
    ql = lo < BIGDEC__DIV_DC_THRESHOLD ? bigdec__school(q, n + hi, 2 * lo, d + hi, lo)
                                       : bigdec__dc_n(q, n + hi, d + hi, lo, tp, ar);
    bigdec__mul(tp, d, hi, q, lo, ar);
    cy = bigdec__sub_n(n, n, tp, dn);
    if (ql)
        cy += bigdec__sub_n(n + lo, n + lo, d, hi);
    while (cy) {
        bigdec__sub_1(q, q, lo, 1);
        cy -= bigdec__add_n(n, n, d, dn);
    }
    return qh;
}

size_t bigdec__divrem_dc_scratch(size_t dn) { return dn + bigdec__mul_scratch(dn); }

void bigdec__divrem_dc(bigdec__limb *q, bigdec__limb *n, size_t nn, const bigdec__limb *d,
                       size_t dn, bigdec__arena *ar) {
    size_t qn = nn - dn, mark = ar->used;
    bigdec__limb *tp;
    if (dn < BIGDEC__DIV_DC_THRESHOLD || qn < BIGDEC__DIV_DC_THRESHOLD ||
        !(tp = bigdec__alloc(ar, dn))) {
        bigdec__divrem_school(q, n, nn, d, dn);
        return;
    }
    /* quotient blocks of dn limbs from the bottom; the top one, b <= dn limbs, first */
    size_t b = qn - (qn - 1) / dn * dn;
    bigdec__limb *qp = q + qn - b, *np = n + nn - dn - b, qh, cy;
    if (b == dn) {
        qh = bigdec__dc_n(qp, np, d, dn, tp, ar);
    } else if (b < BIGDEC__DIV_DC_THRESHOLD) {
        qh = bigdec__school(qp, np, dn + b, d, dn);
    } else {
        /* b quotient limbs from the top 2b limbs by d's top b, then as in dc_n */
        qh = bigdec__dc_n(qp, np + dn - b, d + dn - b, b, tp, ar);
        if (b >= dn - b)
            bigdec__mul(tp, qp, b, d, dn - b, ar);
        else
            bigdec__mul(tp, d, dn - b, qp, b, ar);
        cy = bigdec__sub_n(np, np, tp, dn);
        if (qh)
            cy += bigdec__sub_n(np + b, np + b, d, dn - b);
        while (cy) {
            qh -= bigdec__sub_1(qp, qp, b, 1);
            cy -= bigdec__add_n(np, np, d, dn);
        }
    }
    q[qn] = qh;
    for (size_t left = qn - b; left > 0; left -= dn) {
        qp -= dn, np -= dn;
        bigdec__dc_n(qp, np, d, dn, tp, ar); /* its top quotient limb is 0: np's top < d */
    }
    ar->used = mark;
}

size_t bigdec__invert_scratch(size_t dn) { return 24 * dn + bigdec__mul_scratch(2 * dn) + 64; }

/* Newton's e = B^(dn+h) - d y_h, |e| < 2 B^(dn+1), from d y_h modulo B^L - 1 (L >= dn + 2,
 * a cyclic transform of about half the length of the whole product): as B^L = 1 there,
 * E' = (B^(dn+h-L) - d y_h) mod B^L - 1, and e is E' below B^L / 2, E' - (B^L - 1) above.
 * |e| goes to t (L limbs), its sign to *negative. Used where d y_h would go to the NTT
 * and the cyclic length is shorter; -1 otherwise, and the caller multiplies in full. */
static int bigdec__invert_e_wrap(bigdec__limb *t, int *negative, const bigdec__limb *d,
                                 size_t dn, const bigdec__limb *yh, size_t h,
                                 bigdec__arena *ar) {
    if (h + 1 < bigdec__ntt_threshold())
        return -1;
    unsigned log = 0, full = 0;
    while (((size_t)1 << log) < dn + 2)
        log++;
    while (((size_t)1 << full) < dn + h + 1)
        full++;
    size_t L = (size_t)1 << log; /* dn + 2 <= L <= dn + h < 2 L when log < full */
    if (log >= full)
        return -1;
    if (bigdec__mulmod_bnm1(t, d, dn, yh, h + 1, log, ar) != 0)
        return -1;
    for (size_t i = 0; i < L; i++) /* -t mod B^L - 1 */
        t[i] = ~t[i];
    size_t at = dn + h - L;        /* + B^(dn+h) = B^at */
    if (bigdec__add_1(t + at, t + at, L - at, 1))
        bigdec__add_1(t, t, L, 1); /* the carry out wraps; cannot carry again */
    *negative = (int)(t[L - 1] >> 63);
    if (*negative) /* |e| = (B^L - 1) - E' */
        for (size_t i = 0; i < L; i++)
            t[i] = ~t[i];
    if (L < dn + h + 1) /* |e| < B^(dn+2): the caller reads dn + h + 1 limbs */
        bigdec__zero(t + L, dn + h + 1 - L);
    return 0;
}

/* y (dn + 1 limbs) ~ B^(2 dn) / d, d normalised (B^dn / 2 <= d < B^dn, so y lies in
 * (B^dn, 2 B^dn]).
 *
 * Newton: with h = ceil(dn/2) + 1 and d_h the top h limbs of d, y_h ~ B^(2h) / d_h
 * (recursively) gives y0 = y_h B^(dn-h), whose relative error is below ~2 B^(1-h) (from
 * dropping d's low limbs). One step y1 = y0 + y0 (B^(2dn) - d y0) / B^(2dn) squares
 * the relative error: 4 B^(2-2h) <= 4 B^-dn, i.e. a few units of y. In the scale of y_h
 * the step reads
 *     e  = B^(dn+h) - d y_h            (signed, |e| <~ 2 B^(dn+1))
 *     y1 = y_h B^(dn-h) + floor(y_h e / B^(2h)),
 * two multiplications of dn x dn/2 limbs. Truncations add at most 2 units. */
void bigdec__invert(bigdec__limb *y, const bigdec__limb *d, size_t dn, bigdec__arena *ar) {
    size_t mark = ar->used;
    if (dn <= BIGDEC__INV_SCHOOL_THRESHOLD) {
        bigdec__limb *num = bigdec__alloc(ar, 2 * dn + 1);
        bigdec__limb *quo = bigdec__alloc(ar, dn + 2); /* the top limb is always 0 */
        if (!quo)
            return;
        bigdec__zero(num, 2 * dn);
        num[2 * dn] = 1;
        if (dn == 1) {
            /* B^2 / d = B + floor((2^128 - B d) / d); the one-limb path of divrem_school
             * needs dn >= 2, so do it directly */
            bigdec__dlimb rest = ((bigdec__dlimb)1 << 64) * (bigdec__limb)(0 - d[0]);
            y[1] = 1;
            y[0] = (bigdec__limb)(rest / d[0]);
            if (rest / d[0] >> 64) /* only for d = B/2: y = 2B */
                y[1] = 2, y[0] = 0;
        } else {
            bigdec__divrem_school(quo, num, 2 * dn + 1, d, dn);
            bigdec__copy(y, quo, dn + 1);
        }
        ar->used = mark;
        return;
    }
    size_t h = (dn + 1) / 2 + 1;
    bigdec__limb *yh = y + (dn - h); /* y_h sits in the top h + 1 limbs of y: y0 */
    bigdec__invert(yh, d + (dn - h), h, ar);
    bigdec__zero(y, dn - h);
    /* t = d * y_h, dn + h + 1 limbs; its top limb is 0 or 1 (d y_h < B^dn 2 B^h) */
    size_t tn = dn + h + 1;
    bigdec__limb *t = bigdec__alloc(ar, 2 * tn); /* room for a cyclic product's L < 2 tn */
    if (!t)
        return;
    int negative; /* e = B^(dn+h) - t < 0 */
    if (bigdec__invert_e_wrap(t, &negative, d, dn, yh, h, ar) != 0) {
        bigdec__mul(t, d, dn, yh, h + 1, ar);
        if (t[dn + h] == 0) {
            /* e = B^(dn+h) - t_low > 0: two's complement of the low dn + h limbs */
            negative = 0;
            for (size_t i = 0; i < dn + h; i++)
                t[i] = ~t[i];
            bigdec__add_1(t, t, dn + h, 1);
        } else {
            negative = 1; /* e = -(t - B^(dn+h)) */
            t[dn + h] -= 1;
        }
    }
    size_t en = bigdec__normlen(t, tn);
    if (en == 0) { /* y0 is exact */
        ar->used = mark;
        return;
    }
    /* c = floor(y_h |e| / B^(2h)) */
    size_t pn = (h + 1) + en;
    bigdec__limb *p = bigdec__alloc(ar, pn);
    if (!p)
        return;
    if (en >= h + 1)
        bigdec__mul(p, t, en, yh, h + 1, ar);
    else
        bigdec__mul(p, yh, h + 1, t, en, ar);
    if (pn > 2 * h) {
        size_t cn = pn - 2 * h;
        if (cn > dn + 1)
            cn = dn + 1; /* |c| < B^(dn+1) always; the rest are zeros */
        if (negative)
            bigdec__sub(y, y, dn + 1, p + 2 * h, cn);
        else
            bigdec__add(y, y, dn + 1, p + 2 * h, cn);
    }
    ar->used = mark;
}

/* rr = (n - q d) mod B^(dn+1) from q d mod B^L - 1, the cyclic product of half the
 * transform length of q d itself (B^L >= B^(dn+1)): with n mod B^L - 1 folded from
 * n, R' = (n - q d) mod B^L - 1, and as the true remainder R is a few d, |R| < B^L / 2,
 * R is R' below B^L / 2 and R' - (B^L - 1) above, whose low limbs are R' + 1. Used
 * where q d would go to the NTT and the cyclic length is shorter; -1 otherwise (or if
 * the transform cannot be had), and rr is then for the caller to compute. */
static int bigdec__barrett_rem_wrap(bigdec__limb *rr, const bigdec__limb *n, size_t nn,
                                    const bigdec__limb *q, size_t qn, const bigdec__limb *d,
                                    size_t dn, const bigdec__ntt_pre *pre,
                                    bigdec__arena *ar) {
    if (qn < bigdec__ntt_threshold() || dn < bigdec__ntt_threshold())
        return -1;
    unsigned log = 0, full = 0;
    while (((size_t)1 << log) < dn + 1)
        log++;
    while (((size_t)1 << full) < qn + dn)
        full++;
    size_t L = (size_t)1 << log, mark = ar->used;
    if (log >= full || nn > 2 * L || qn > L)
        return -1;
    bigdec__limb *w = bigdec__alloc(ar, L), *r = bigdec__alloc(ar, L);
    int st = !r ? -1
             : pre && pre->td && pre->dlog == log
                 ? bigdec__ntt_conv_pre(w, q, qn, pre->td, dn, log, 1, ar)
                 : bigdec__mulmod_bnm1(w, q, qn, d, dn, log, ar);
    if (st != 0) {
        ar->used = mark;
        return -1;
    }
    /* r = n mod B^L - 1 (n < B^2L: one fold, carries wrapped) */
    bigdec__zero(r, L);
    bigdec__copy(r, n, nn < L ? nn : L);
    bigdec__limb c = nn > L ? bigdec__add(r, r, L, n + L, nn - L) : 0;
    while (c)
        c = bigdec__add_1(r, r, L, c);
    /* r = (r - w) mod B^L - 1: a borrow took B^L, one more than the modulus */
    if (bigdec__sub_n(r, r, w, L))
        bigdec__sub_1(r, r, L, 1);
    bigdec__copy(rr, r, dn + 1);
    if (r[L - 1] >> 63) /* R' >= B^L / 2: R = R' - (B^L - 1) = R' + 1 mod B^(dn+1) */
        bigdec__add_1(rr, rr, dn + 1, 1);
    ar->used = mark;
    return 0;
}

size_t bigdec__divrem_pre_scratch(size_t dn) { return 6 * dn + 16 + bigdec__mul_scratch(dn + 1); }

int bigdec__divrem_pre(bigdec__limb *q, bigdec__limb *r, const bigdec__limb *n, size_t nn,
                       const bigdec__limb *d, size_t dn, const bigdec__limb *y,
                       const bigdec__ntt_pre *pre, bigdec__arena *ar) {
    size_t mark = ar->used;
    size_t qn = nn - dn + 1; /* quotient limbs (the top may be 0) */
    /* q_est = floor(floor(n / B^(dn-1)) * y / B^(dn+1)): within a few units of q */
    bigdec__limb *p = bigdec__alloc(ar, qn + dn + 1);
    bigdec__limb *rr = bigdec__alloc(ar, dn + 1);
    if (!rr)
        return -1;
    /* y * n_top, by y's kept transforms where their length is this product's */
    unsigned log = 0;
    while (((size_t)1 << log) < dn + 1 + qn)
        log++;
    if (!(pre && pre->ty && pre->ylog == log && qn >= bigdec__ntt_threshold() &&
          bigdec__ntt_conv_pre(p, n + dn - 1, qn, pre->ty, dn + 1, log, 0, ar) == 0))
        bigdec__mul(p, y, dn + 1, n + dn - 1, qn, ar);
    bigdec__limb *qe = p + dn + 1; /* qn limbs */
    /* r = n - q_est d, kept modulo B^(dn+1): |r| is a few d < B^(dn+1) / 2 */
    if (bigdec__barrett_rem_wrap(rr, n, nn, qe, qn, d, dn, pre, ar) != 0) {
        bigdec__limb *qd = bigdec__alloc(ar, qn + dn);
        if (!qd)
            return -1;
        if (qn > dn)
            bigdec__mul(qd, qe, qn, d, dn, ar);
        else
            bigdec__mul(qd, d, dn, qe, qn, ar);
        bigdec__sub_n(rr, n, qd, dn + 1);
    }
    int steps = 0;
    while ((int64_t)rr[dn] < 0) { /* q_est too large */
        bigdec__sub_1(qe, qe, qn, 1);
        rr[dn] += bigdec__add_n(rr, rr, d, dn);
        if (++steps > 64)
            return -1;
    }
    while (rr[dn] != 0 || bigdec__cmp(rr, d, dn) >= 0) { /* q_est too small */
        bigdec__add_1(qe, qe, qn, 1);
        rr[dn] -= bigdec__sub_n(rr, rr, d, dn);
        if (++steps > 64)
            return -1;
    }
    bigdec__copy(q, qe, qn);
    bigdec__copy(r, rr, dn);
    ar->used = mark;
    return 0;
}
