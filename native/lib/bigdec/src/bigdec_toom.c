/* bigdec_toom.c — Toom-Cook 3-way multiplication: five products of a third of the size
 * instead of Karatsuba's nine (two levels), O(n^1.465).
 *
 * With x = B^k, k = ceil(n / 3), a = a2 x^2 + a1 x + a0 and b alike (a2, b2 of s <= k
 * limbs), the product's five coefficients come from its values at 0, 1, -1, 2 and
 * infinity:
 *     v0 = a0 b0,  v1 = a(1) b(1),  vm1 = a(-1) b(-1),  v2 = a(2) b(2),  vinf = a2 b2,
 * and Bodrato's interpolation sequence (one exact division by 3, two by 2):
 *     r3 = (v2 - vm1) / 3,  r1 = (v1 - vm1) / 2,  r2 = v1 - v0,
 *     c3 = (r3 - r2) / 2 - 2 vinf,  c2 = r2 - r1 - vinf,  c1 = r1 - c3.
 * Only vm1 can be negative (a(2) >= |a(-1)| for non-negative parts, so every other
 * intermediate is a non-negative sum of coefficients): it is kept as a magnitude and a
 * sign, and everything else is unsigned limb arithmetic. The values at 1, -1 and 2 have
 * k + 1 limbs (a(2) < 7 B^k); their products and the intermediates fit 2k + 2.
 */
#include "internal/bigdec_mpn.h"

/* r = a / 3 for a multiple of 3 (Hensel division: each limb times 3^-1 mod B). */
static void bigdec__divexact_3(bigdec__limb *r, const bigdec__limb *a, size_t n) {
    const bigdec__limb inv3 = UINT64_C(0xAAAAAAAAAAAAAAAB); /* 3 * inv3 = 1 mod 2^64 */
    bigdec__limb c = 0;
    for (size_t i = 0; i < n; i++) {
        bigdec__limb s = a[i] - c;
        c = s > a[i];
        bigdec__limb q = s * inv3;
        r[i] = q;
        c += (bigdec__limb)(((bigdec__dlimb)q * 3) >> 64);
    }
}

/* The values of p = p2 x^2 + p1 x + p0 (p0, p1 of k limbs, p2 of s) at 1, -1 and 2, in
 * k + 1 limbs each; returns 1 when p(-1) < 0 (m holds |p(-1)|). */
static int bigdec__toom3_eval(bigdec__limb *e1, bigdec__limb *m, bigdec__limb *e2,
                              const bigdec__limb *p, size_t k, size_t s) {
    const bigdec__limb *p0 = p, *p1 = p + k, *p2 = p + 2 * k;
    int neg = 0;
    e1[k] = bigdec__add(e1, p0, k, p2, s);          /* p0 + p2 */
    if (e1[k] == 0 && bigdec__cmp(e1, p1, k) < 0) { /* p0 + p2 - p1 < 0 */
        bigdec__sub_n(m, p1, e1, k);
        m[k] = 0;
        neg = 1;
    } else {
        m[k] = e1[k] - bigdec__sub_n(m, e1, p1, k);
    }
    e1[k] += bigdec__add_n(e1, e1, p1, k);          /* p0 + p1 + p2 */
    /* p(2) = ((2 p2 + p1) 2) + p0 */
    e2[k] = 0;
    bigdec__copy(e2, p2, s);
    bigdec__zero(e2 + s, k - s);
    e2[k] = bigdec__lshift(e2, e2, k, 1);
    e2[k] += bigdec__add_n(e2, e2, p1, k);
    bigdec__lshift(e2, e2, k + 1, 1);
    bigdec__add(e2, e2, k + 1, p0, k);
    return neg;
}

void bigdec__toom3(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b, size_t n,
                   bigdec__arena *ar) {
    size_t k = (n + 2) / 3, s = n - 2 * k, l = 2 * k + 2;
    size_t mark = ar->used;
    bigdec__limb *ea1 = bigdec__alloc(ar, k + 1), *eam = bigdec__alloc(ar, k + 1);
    bigdec__limb *ea2 = bigdec__alloc(ar, k + 1), *eb1 = bigdec__alloc(ar, k + 1);
    bigdec__limb *ebm = bigdec__alloc(ar, k + 1), *eb2 = bigdec__alloc(ar, k + 1);
    bigdec__limb *v1 = bigdec__alloc(ar, l), *vm1 = bigdec__alloc(ar, l);
    bigdec__limb *v2 = bigdec__alloc(ar, l);
    if (!v2) /* arena too small: a sizing bug, reported by the caller via ar->overflow */
        return;
    int neg = bigdec__toom3_eval(ea1, eam, ea2, a, k, s);
    neg ^= bigdec__toom3_eval(eb1, ebm, eb2, b, k, s);
    bigdec__mul_n(v1, ea1, eb1, k + 1, ar);
    bigdec__mul_n(vm1, eam, ebm, k + 1, ar);
    bigdec__mul_n(v2, ea2, eb2, k + 1, ar);
    bigdec__limb *v0 = r, *vinf = r + 4 * k; /* 2k and 2s limbs, in place */
    bigdec__mul_n(v0, a, b, k, ar);
    bigdec__mul_n(vinf, a + 2 * k, b + 2 * k, s, ar);
    /* r3 = (v2 - vm1) / 3, into v2 */
    if (neg)
        bigdec__add_n(v2, v2, vm1, l);
    else
        bigdec__sub_n(v2, v2, vm1, l);
    bigdec__divexact_3(v2, v2, l);
    /* r1 = (v1 - vm1) / 2, into vm1; r2 = v1 - v0, into v1 */
    if (neg)
        bigdec__add_n(vm1, v1, vm1, l);
    else
        bigdec__sub_n(vm1, v1, vm1, l);
    bigdec__rshift(vm1, vm1, l, 1);
    bigdec__sub(v1, v1, l, v0, 2 * k);
    /* c3 = (r3 - r2) / 2 - 2 vinf, into v2 */
    bigdec__sub_n(v2, v2, v1, l);
    bigdec__rshift(v2, v2, l, 1);
    if (s > 0) {
        bigdec__sub(v2, v2, l, vinf, 2 * s);
        bigdec__sub(v2, v2, l, vinf, 2 * s);
    }
    /* c2 = r2 - r1 - vinf, into v1; c1 = r1 - c3, into vm1 */
    bigdec__sub_n(v1, v1, vm1, l);
    if (s > 0)
        bigdec__sub(v1, v1, l, vinf, 2 * s);
    bigdec__sub_n(vm1, vm1, v2, l);
    /* r = v0 + c1 x + c2 x^2 + c3 x^3 + vinf x^4; each c_i x^i is below the product,
     * so its significant limbs fit what is left of r */
    bigdec__zero(r + 2 * k, 2 * k);
    const bigdec__limb *c[3] = {vm1, v1, v2};
    for (size_t i = 0; i < 3; i++) {
        size_t cn = bigdec__normlen(c[i], l);
        if (cn > 0)
            bigdec__add(r + (i + 1) * k, r + (i + 1) * k, 2 * n - (i + 1) * k, c[i], cn);
    }
    ar->used = mark;
}
