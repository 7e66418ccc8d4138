/* bigdec_dc.c — large numbers: divide and conquer on cached powers of ten.
 *
 * x = q * 10^w + r with 10^w = 10^(19 * 2^i) about the square root of x: q's digits
 * then r's, r zero-padded to exactly w digits; each half recursively, down to the
 * basecase. With Barrett division by the cached inverse, one split costs ~2 M(k) for a
 * k-limb power, and the splits of one recursion depth add up to about the cost of the
 * one above divided by 2^0.415 (Karatsuba), so the whole conversion costs O(M(n)),
 * ~n^1.585, instead of the basecase's n^2. Where the inverse costs more than it saves
 * (powers up to BIGDEC__DIV_ODD_MAX limbs, short quotients, and a conversion that would
 * be the first to use it and splits by it fewer than BIGDEC__DIV_INV_SPLITS times) a
 * split divides by the power's odd part, by divide and conquer, and the inverse is left
 * to a later conversion that asks for it again.
 *
 * Widths: the top part has variable width; a lower part of width 19 * 2^(i+1) splits at
 * level i into two halves of 19 * 2^i digits. Division is of x << shift by
 * p = 10^w << shift (normalised), so the remainder is shifted back afterwards.
 */
#include "internal/bigdec_conv.h"

size_t bigdec__dc_scratch(size_t n) {
    /* per depth: the shifted copy (n + 1), quotient (n - k + 2) and remainder (k) of
     * this split, ~2n + 3, kept while the children run on halves: 4n + 3 log n over
     * the recursion; plus one Barrett division's scratch at the top (6k + mul scratch
     * of k + 1, k <= n). */
    return 6 * n + 64 + 6 * n + bigdec__divrem_pre_scratch(n + 1) + 64 * 8 +
           bigdec__srt_scratch(n);
}

/* Fixed-width parts (never the whole number, whose basecase limit is
 * BIGDEC__DC_THRESHOLD) split by schoolbook down to this many limbs: warm, 16,384 bits
 * took 4.95e5 instructions at 64, 4.76e5 at 32 and 48, 4.78e5 at 16 and 24. */
#ifndef BIGDEC__DC_FIXED_THRESHOLD
#define BIGDEC__DC_FIXED_THRESHOLD 32
#endif

/* Fixed-width parts of at least 19 * 2^this digits go to the scaled remainder tree
 * (bigdec_srt.c) first. Below, its entry product costs more than the tree saves. With
 * splits by division at 20 limbs and up (bigdec__divrem_dc) and the ADX rows, warm,
 * timed (medians of 5, AMD family 26, gcc 12 -O2), from 19 * 2^11 digits against
 * 2^15: 262,144 bits 2142 against 1865 us, 524,288 bits 5115 against 4782, 2,097,152
 * bits 27.9 against 27.8 ms, 10^6 digits 51.0 against 50.8 (by division alone, 51.5).
 * With the IFMA transforms the tree pays from 2^11 (262,144 bits 1117 us at 2^15, 790
 * at 2^11 and 2^10, 797 at 2^12; 10^6 digits 16.1 ms, 14.5, 14.5, 14.7).
 * The tests lower it (bigdec__srt_min_log) to reach the tree at smaller sizes. */
#ifndef BIGDEC__SRT_MIN_LOG
#define BIGDEC__SRT_MIN_LOG 15
#endif
#ifndef BIGDEC__SRT_MIN_LOG_IFMA
#define BIGDEC__SRT_MIN_LOG_IFMA 11
#endif
unsigned bigdec__srt_min_log = 0;

/* The choices above and in bigdec_conv.h for the transforms this CPU runs. */
typedef struct {
    size_t odd_max, inv_min, inv_splits;
    unsigned srt_min_log;
} bigdec__dc_tuning;
static const bigdec__dc_tuning *bigdec__dc_tune(void) {
    static const bigdec__dc_tuning scalar = {BIGDEC__DIV_ODD_MAX, BIGDEC__DIV_INV_MIN,
                                             BIGDEC__DIV_INV_SPLITS, BIGDEC__SRT_MIN_LOG},
                                   ifma = {BIGDEC__DIV_ODD_MAX_IFMA, BIGDEC__DIV_INV_MIN_IFMA,
                                           BIGDEC__DIV_INV_SPLITS_IFMA,
                                           BIGDEC__SRT_MIN_LOG_IFMA};
    return bigdec__ntt_fast() ? &ifma : &scalar;
}

/* The level to split x (`bits` bits) in variable width: the smallest i whose shifted
 * power p = 10^w << s (k limbs) leaves x << s below B^(2k), which Barrett needs. At
 * that level x >= 10^w: otherwise x < 10^(2w') for the level below (w' = w/2), so
 * x << s' < (10^w' << s')^2 / 2^s' < B^(2k'), and the level below would have done. */
static unsigned bigdec__split_level(size_t bits) {
    unsigned i = 0;
    for (;;) {
        const bigdec__pow *w = bigdec__pow_get(i);
        if (!w || bits + w->shift <= 128 * w->n)
            return i;
        /* Division by the odd part has no such bound: a quotient up to 1/8 longer than
         * the power is taken here rather than a tiny one at the next level, which would
         * have to be built (8192 bits: split at 10^1216 instead of 10^2432, cold
         * 2.46e5 -> 1.91e5 instructions, 2.01e5 in the basecase before); by powers of up
         * to BIGDEC__DIV_LONG_MAX limbs too, where the next level is not built yet
         * and no earlier conversion wanted it (then a later one builds it and divides
         * by Barrett's method: cold 262,144 bits 1848 -> 1660 us, warm as before) */
        size_t pbits = 64 * w->n - w->shift;
        if (8 * (bits - pbits) <= 9 * pbits &&
            (w->n <= bigdec__dc_tune()->odd_max ||
             (w->n <= BIGDEC__DIV_LONG_MAX && !bigdec__pow_next_wanted(w, i))))
            return i;
        i++;
    }
}

/* The top split is the largest: its quotient and remainder split at lower levels. A
 * bound from sizes alone (the level whose k reaches (n + 2) / 2, plus one for a margin)
 * built one level too many: at 1024 limbs a 2020-limb power and its
 * inverse where the 1010-limb one splits, so a cold 65536-bit conversion cost 7.1x a
 * warm one (3.6x now; Xeon, gcc 12). The exact level is found by building upwards, as
 * the conversion will. */
unsigned bigdec__dc_top_level(size_t bits) { return bigdec__split_level(bits); }

int bigdec__dc_top_cached(size_t bits) {
    for (unsigned i = 0;; i++) {
        const bigdec__pow *w = bigdec__pow_peek(i);
        if (!w)
            return 0;
        size_t pbits = 64 * w->n - w->shift;
        if (bits + w->shift <= 128 * w->n ||
            (8 * (bits - pbits) <= 9 * pbits && w->n <= bigdec__dc_tune()->odd_max))
            return 1;
    }
}

/* The kept transforms this split's division can use: y's where the product y * n_top has
 * the length they were made for (every split but, often, the top one), p's where q p is
 * taken cyclically (bigdec_div.c: both operands from the NTT threshold on, the cyclic
 * length shorter than the product's); NULL when neither applies. */
static const bigdec__ntt_pre *bigdec__dc_pre(bigdec__ntt_pre *pre, const bigdec__pow *w,
                                             size_t nn) {
    size_t k = w->n, qn = nn - k + 1;
    if (k < bigdec__ntt_threshold() || qn < bigdec__ntt_threshold())
        return NULL;
    unsigned ylog = 0, full = 0;
    while (((size_t)1 << ylog) < k + 1 + qn)
        ylog++;
    while (((size_t)1 << full) < qn + k)
        full++;
    *pre = (bigdec__ntt_pre){NULL, NULL, w->ylog, w->dlog};
    if (ylog == w->ylog)
        pre->ty = bigdec__pow_transform(w, 0);
    if (w->dlog < full)
        pre->td = bigdec__pow_transform(w, 1);
    return pre;
}

/* x = q 10^w + r by division by 10^w's odd part: with x = h 2^w + l
 * (l < 2^w), q = floor(h / 5^w) and r = (h mod 5^w) 2^w + l; the divisor has ~70% of
 * the power's limbs, and so has the division's cost. x >= 10^w. Returns q (*qn limbs),
 * *r gets w->n limbs, both from the arena; NULL if it is full. */
static bigdec__limb *bigdec__dc_divrem_odd(bigdec__limb **r, size_t *qn,
                                           const bigdec__limb *x, size_t n,
                                           const bigdec__pow *w, bigdec__arena *ar) {
    size_t zl = w->digits / 64, m = n - zl, k = w->n, ko = w->pon;
    unsigned zb = (unsigned)(w->digits % 64);
    /* q and r stay for the halves' conversions, h is released: q has at most
     * (m + 1) - ko + 1 limbs (or 2, padded), h m + 2 */
    bigdec__limb *q = bigdec__alloc(ar, m + 3 - ko), *rr = bigdec__alloc(ar, k);
    size_t mark = ar->used;
    bigdec__limb *h = bigdec__alloc(ar, m + 2);
    if (!h)
        return NULL;
    bigdec__rshift(h, x + zl, m, zb);
    h[m] = bigdec__lshift(h, h, m, w->poshift);
    h[m + 1] = 0;
    size_t hn = bigdec__normlen(h, m + 1);
    if (hn <= ko) /* h >= 5^w: pad to one limb more than the divisor */
        hn = ko + 1;
    *qn = hn - ko + 1;
    bigdec__divrem_dc(q, h, hn, w->po, ko, ar);
    bigdec__rshift(h, h, ko, w->poshift);
    /* r = (h mod 5^w) 2^w + l: l's whole limbs, then the remainder shifted by zb with
     * l's top bits below it */
    bigdec__copy(rr, x, zl);
    bigdec__limb top = bigdec__lshift(rr + zl, h, ko, zb);
    if (zl + ko < k) {
        rr[zl + ko] = top;
        bigdec__zero(rr + zl + ko + 1, k - zl - ko - 1);
    }
    if (zb)
        rr[zl] |= x[zl] & (((bigdec__limb)1 << zb) - 1);
    ar->used = mark;
    *r = rr;
    return q;
}

/* srt: whether fixed-width parts may try the scaled remainder tree (not below one it
 * gave back as ambiguous: that subtree is done exactly, by division, all the way).
 * top_n: the limbs of the whole number, which say how often this conversion splits by
 * a power, and so whether a Barrett split builds the power's inverse at once (else only
 * when a later conversion asks again: bigdec__pow_inverse). */
static size_t bigdec__dc_rec(char *out, const bigdec__limb *x, size_t n, size_t width,
                             bigdec__arena *ar, int srt, size_t top_n) {
    n = bigdec__normlen(x, n);
    unsigned srt_log = bigdec__srt_min_log ? bigdec__srt_min_log : bigdec__dc_tune()->srt_min_log;
    if (srt && width >= (size_t)BIGDEC__CHUNK_DIGITS << srt_log) {
        int st = bigdec__srt(out, x, n, width, ar);
        if (st == 0)
            return width;
        if (st < 0)
            return (size_t)-1;
        srt = st == 2; /* after an ambiguous tree, division all the way down */
    }
    if (n <= (width ? BIGDEC__DC_FIXED_THRESHOLD : BIGDEC__DC_THRESHOLD))
        return bigdec__basecase(out, x, n, width);
    /* level: the half of the fixed width, or for variable width the smallest power
     * whose square exceeds x (so that the quotient fits the Barrett division) */
    unsigned level;
    if (width) {
        level = 0;
        while ((size_t)BIGDEC__CHUNK_DIGITS << (level + 1) < width)
            level++;
    } else {
        level = bigdec__split_level(64 * n - (size_t)__builtin_clzll(x[n - 1]));
    }
    const bigdec__pow *w = bigdec__pow_get(level);
    if (!w)
        return (size_t)-1;
    size_t k = w->n, mark = ar->used;
    bigdec__limb *xs = bigdec__alloc(ar, n + 1);
    if (!xs)
        return (size_t)-1;
    xs[n] = bigdec__lshift(xs, x, n, w->shift);
    size_t nn = bigdec__normlen(xs, n + 1);
    size_t len;
    if (nn <= k && (nn < k || bigdec__cmp(xs, w->p, k) < 0)) {
        /* x < 10^w: the high part is 0 (only in fixed width, see split_level) */
        ar->used = mark;
        if (!width)
            return (size_t)-1;
        memset(out, '0', width - w->digits);
        if (bigdec__dc_rec(out + width - w->digits, x, n, w->digits, ar, srt, top_n) ==
            (size_t)-1)
            return (size_t)-1;
        return width;
    }
    if (nn <= k) /* k limbs but >= p: pad so that dn < nn holds (x >= p has n >= k) */
        nn = k + 1;
    if (nn > 2 * k && k > BIGDEC__DIV_LONG_MAX) /* too low for Barrett: a bug */
        return (size_t)-1;
    size_t qn = nn - k + 1;
    const bigdec__limb *y = NULL;
    const bigdec__dc_tuning *tune = bigdec__dc_tune();
    if (k > tune->odd_max && qn * BIGDEC__DIV_ODD_QUOTIENT > k && nn <= 2 * k)
        y = bigdec__pow_inverse(w, top_n >= tune->inv_splits * k && k >= tune->inv_min);
    bigdec__limb *q, *r;
    if (y) {
        bigdec__ntt_pre pre;
        q = bigdec__alloc(ar, qn);
        r = bigdec__alloc(ar, k);
        if (!r || bigdec__divrem_pre(q, r, xs, nn, w->p, k, y, bigdec__dc_pre(&pre, w, nn),
                                     ar) != 0)
            return (size_t)-1;
        bigdec__rshift(r, r, k, w->shift);
    } else {
        ar->used = mark; /* xs is not needed */
        q = bigdec__dc_divrem_odd(&r, &qn, x, n, w, ar);
        if (!q)
            return (size_t)-1;
    }
    if (width) {
        if (bigdec__dc_rec(out, q, qn, width - w->digits, ar, srt, top_n) == (size_t)-1)
            return (size_t)-1;
        len = width - w->digits;
    } else {
        len = bigdec__dc_rec(out, q, qn, 0, ar, srt, top_n); /* q > 0 here */
        if (len == (size_t)-1)
            return len;
    }
    if (bigdec__dc_rec(out + len, r, k, w->digits, ar, srt, top_n) == (size_t)-1)
        return (size_t)-1;
    ar->used = mark;
    return len + w->digits;
}

size_t bigdec__dc(char *out, const bigdec__limb *x, size_t n, size_t width, bigdec__arena *ar) {
    return bigdec__dc_rec(out, x, n, width, ar, 1, bigdec__normlen(x, n));
}
