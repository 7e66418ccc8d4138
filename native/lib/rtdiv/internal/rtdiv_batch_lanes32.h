/* rtdiv_batch_lanes32.h — the batch loops of the 32-bit types, over per-ISA primitives.
 *
 * No x86 vector instruction gives the high halves of 32 x 32-bit products: vpmuludq and
 * vpmuldq give the full 64-bit products of the even lanes. A compiler's loop for a
 * constant builds the high halves from two of them and a shuffle (vpermt2d, or a shift
 * and a blend), then shifts again, and for the N+1-bit magic subtracts, shifts, adds and
 * shifts once more: 3-4 shuffle or shift operations a vector, which share two pipes on
 * Zen 4 and Zen 5 and bound its pace. Here every kind's quotient is one shift of the
 * 64-bit products, taken straight from them:
 *   - the odd lanes move to the low halves of the 64-bit lanes by one shift (a second
 *     load one element on, which saves it, splits a cache line at every 64-byte load
 *     and was 1.15-1.3x slower on Zen 5);
 *   - even products shift right by 32 + s, odd ones by s within their high halves, and
 *     the two merge (one masked shift with AVX-512, a blend with AVX2);
 *   - an unsigned divisor whose magic needs N+1 bits takes the round-down magic
 *     m = floor(2^(32+s)/d) instead, with q = (n*m + m) >> (32+s) (Robison, "N-bit
 *     unsigned division via N-bit multiply-add", ARITH 2005: exact wherever the round-up
 *     magic is not): one 64-bit add per product instead of sub, shift, add;
 *   - a signed N+1-bit magic M (in (2^31, 2^32)) multiplies |n| <= 2^31 unsigned, for
 *     which the same M and shift are exact: the magnitude's quotient, negated where n
 *     is negative (vpsignd with AVX2, a masked subtract with AVX-512), with no add and
 *     no rounding step, as the constant's loop needs.
 * That is 3 shifts a vector against the constant's 3-4 (and its add or rounding steps),
 * and remainders of powers of two are one `and`.
 *
 * An instruction-set file defines v32 (the vector type), V32_LANES and the primitives
 *   v32_load, v32_store, v32_set1(int32), v32_set1w(int64: one value per 64-bit lane),
 *   v32_add, v32_sub, v32_and, v32_xor, v32_addw (64-bit lanes),
 *   v32_srl, v32_sra (count: __m128i), v32_sign (all ones where negative),
 *   v32_mulu, v32_muls (the even lanes' 64-bit products, unsigned and signed),
 *   v32_odd(x)  the odd lanes moved to the even places,
 *   v32_joinu(E, O, s, sw), v32_joins(E, O, s, sw)  the high halves of the even
 *               products E and the odd products O shifted right by s (sw = 32 + s),
 *               logically or arithmetically, as one vector of 32-bit lanes,
 *   v32_trunc(t) t + 1 where t < 0 (floor to truncation),
 *   v32_mullo, v32_abs,
 *   v32_negwhere(q, x)  q negated in the lanes where x is negative,
 * then includes this file (after rtdiv_batch_body.h's own definitions, which this file
 * shares: RTDIV__NAME, and the ops table built from both).
 */

/* What a 32-bit batch needs of the divider, broadcast once per call. */
typedef struct {
    v32 m;       /* the multiplier */
    v32 w;       /* added to each 64-bit product (ADD kinds) */
    v32 pre;     /* PRE: n's low bits cleared (rtdiv.h) */
    v32 bias;    /* POW2: 2^s - 1, the bias of a negative n and the remainder's mask */
    v32 d;       /* the divisor, for remainders */
    __m128i s;   /* the kind's final shift */
    __m128i sw;  /* 32 + s: the even products' shift */
} rtdiv__lanes32;

/* The quotients of the vector x. KIND and NEG (negate: d < 0 outside MUL) are constants
 * in each loop: one path remains. */
#define RTDIV__QUO32(SG)                                                                 \
    RTDIV__TARGET static inline __attribute__((always_inline)) v32                       \
    RTDIV__CAT(rtdiv__quo32_, SG)(v32 x, int kind, int neg, const rtdiv__lanes32 *c) {   \
        v32 q;                                                                           \
        if (kind == RTDIV__KIND_POW2) {                                                  \
            if (!SG)                                                                     \
                return v32_srl(x, c->s);                                                 \
            q = v32_sra(v32_add(x, v32_and(v32_sign(x), c->bias)), c->s);                \
        } else {                                                                         \
            if (kind == RTDIV__KIND_PRE)                                                 \
                x = v32_and(x, c->pre);                                                  \
            if (SG && kind == RTDIV__KIND_ADD) {                                         \
                /* |n| <= 2^31 times the unsigned M < 2^32: the magnitude's quotient */   \
                /* in one shift, then n's sign (and d's) */                               \
                v32 a = v32_abs(x);                                                      \
                q = v32_joinu(v32_mulu(a, c->m), v32_mulu(v32_odd(a), c->m), c->s, c->sw); \
                return v32_negwhere(q, neg ? v32_xor(x, v32_set1(-1)) : x);              \
            }                                                                            \
            v32 e, o, xo = v32_odd(x);                                                   \
            if (SG) {                                                                    \
                e = v32_muls(x, c->m);                                                   \
                o = v32_muls(xo, c->m);                                                  \
            } else {                                                                     \
                e = v32_mulu(x, c->m);                                                   \
                o = v32_mulu(xo, c->m);                                                  \
            }                                                                            \
            if (kind == RTDIV__KIND_ADD) {                                               \
                e = v32_addw(e, c->w);                                                   \
                o = v32_addw(o, c->w);                                                   \
            }                                                                            \
            if (!SG)                                                                     \
                return v32_joinu(e, o, c->s, c->sw);                                     \
            q = v32_trunc(v32_joins(e, o, c->s, c->sw));                                 \
        }                                                                                \
        return neg ? v32_sub(v32_set1(0), q) : q;                                        \
    }                                                                                    \
    /* the remainder from the quotient: n - q*d, or for a power of two one `and` */      \
    RTDIV__TARGET static inline __attribute__((always_inline)) v32                       \
    RTDIV__CAT(rtdiv__rem32_, SG)(v32 x, v32 q, int kind, const rtdiv__lanes32 *c) {     \
        if (kind == RTDIV__KIND_POW2 && !SG)                                             \
            return v32_and(x, c->bias);                                                  \
        return v32_sub(x, v32_mullo(q, c->d));                                           \
    }
RTDIV__QUO32(0)
RTDIV__QUO32(1)
#undef RTDIV__QUO32

#define RTDIV__LANES32(S, T, UT, ST, UW, SW, N, SG)                                      \
    RTDIV__TARGET static inline __attribute__((always_inline)) v32                       \
    RTDIV__NAME(S, one)(v32 x, int kind, int neg, int rem, const rtdiv__lanes32 *c) {   \
        /* a signed power of two's remainder needs no quotient (the biased n's high */   \
        /* bits are q * 2^s; d = -2^s leaves the same remainder) */                      \
        if (SG && rem && kind == RTDIV__KIND_POW2) {                                     \
            v32 b = v32_add(x, v32_and(v32_sign(x), c->bias));                           \
            return v32_sub(x, v32_and(b, v32_xor(c->bias, v32_set1(-1))));               \
        }                                                                                \
        v32 q = RTDIV__CAT(rtdiv__quo32_, SG)(x, kind, neg, c);                          \
        return rem ? RTDIV__CAT(rtdiv__rem32_, SG)(x, q, kind, c) : q;                   \
    }                                                                                    \
                                                                                         \
    RTDIV__TARGET static inline __attribute__((always_inline)) size_t                    \
    RTDIV__NAME(S, loop)(const T *num, T *out, size_t n, int kind, int neg, int rem,     \
                         const rtdiv__lanes32 *c) {                                      \
        size_t i = 0;                                                                    \
        /* two vectors an iteration (the multiplies' latency hides behind the other's */ \
        /* work) */                                                                      \
        for (; i + 2 * V32_LANES <= n; i += 2 * V32_LANES) {                             \
            v32 x0 = v32_load(num + i), x1 = v32_load(num + i + V32_LANES);              \
            /* in registers: gcc 12 otherwise reads each vector once per use */          \
            __asm__("" : "+v"(x0), "+v"(x1));                                            \
            v32 q0 = RTDIV__NAME(S, one)(x0, kind, neg, rem, c);                         \
            v32 q1 = RTDIV__NAME(S, one)(x1, kind, neg, rem, c);                         \
            v32_store(out + i, q0);                                                      \
            v32_store(out + i + V32_LANES, q1);                                          \
        }                                                                                \
        for (; i + V32_LANES <= n; i += V32_LANES) {                                     \
            v32 x = v32_load(num + i);                                                   \
            v32_store(out + i, RTDIV__NAME(S, one)(x, kind, neg, rem, c));               \
        }                                                                                \
        return i;                                                                        \
    }                                                                                    \
                                                                                         \
    RTDIV__TARGET static void RTDIV__NAME(S, run)(const rtdiv_##S *dv, const T *num,     \
                                                   T *out, size_t n, int rem) {          \
        rtdiv__lanes32 c;                                                                \
        /* a signed NEG divider takes the branchfree fields (a shift for -2^s, else */   \
        /* the N+1-bit magic) and negates */                                             \
        int neg = SG && dv->kind == RTDIV_KIND_NEG;                                      \
        int pow2 = dv->kind == RTDIV_KIND_SHIFT || (neg && dv->magic_bf == 0);           \
        unsigned s = neg ? dv->sh2 : dv->post;                                           \
        int kind = pow2 ? RTDIV__KIND_POW2                                               \
                 : neg || dv->kind == RTDIV_KIND_ADD ? RTDIV__KIND_ADD                   \
                 : dv->kind == RTDIV_KIND_PRE ? RTDIV__KIND_PRE : RTDIV__KIND_PLAIN;     \
        uint32_t m = (uint32_t)(neg ? dv->magic_bf : dv->magic);                         \
        uint64_t w = 0;                                                                  \
        if (kind == RTDIV__KIND_ADD && !SG) {                                            \
            /* the round-down magic from the add kind's M = 2^32 + m, which is */        \
            /* ceil(2^(33+s)/d) (d odd, not 1): floor(2^(32+s)/d) = (M - 1) / 2 */       \
            m = (uint32_t)((((uint64_t)1 << 32) + m - 1) >> 1);                          \
            w = m;                                                                       \
        }                                                                                \
        c.m = v32_set1((int32_t)m);                                                      \
        c.w = v32_set1w((int64_t)w);                                                     \
        c.pre = v32_set1((int32_t)((UT)~(UT)0 << dv->pre));                              \
        c.bias = v32_set1((int32_t)(((UT)1 << s) - 1));                                  \
        c.d = v32_set1((int32_t)dv->d);                                                  \
        c.s = _mm_cvtsi32_si128((int)s);                                                 \
        c.sw = _mm_cvtsi32_si128((int)s + 32);                                           \
        size_t i;                                                                        \
        /* one loop per (kind, negated, verb), each with its constants fixed */          \
        switch ((kind * 2 + neg) * 2 + rem) {                                            \
        RTDIV__LANES32_CASES(S, SG, RTDIV__KIND_POW2)                                    \
        RTDIV__LANES32_CASES(S, SG, RTDIV__KIND_PLAIN)                                   \
        RTDIV__LANES32_CASES(S, SG, RTDIV__KIND_PRE)                                     \
        RTDIV__LANES32_CASES(S, SG, RTDIV__KIND_ADD)                                     \
        default: i = 0; break;                                                           \
        }                                                                                \
        for (; i < n; i++)                                                               \
            out[i] = rem ? rtdiv_##S##_rem(dv, num[i]) : rtdiv_##S##_div(dv, num[i]);    \
    }

/* The loops of one kind: the negated ones only for a signed type's ADD and POW2, PRE
 * only for an unsigned one (the others never run and are not compiled). */
#define RTDIV__LANES32_HAS(SG, K, NEG)                                                   \
    ((NEG ? SG && (K == RTDIV__KIND_POW2 || K == RTDIV__KIND_ADD) : 1) &&                \
     !(SG && K == RTDIV__KIND_PRE))
#define RTDIV__LANES32_CASE(S, SG, K, NEG, REM)                                          \
    case (K * 2 + NEG) * 2 + REM:                                                        \
        i = RTDIV__LANES32_HAS(SG, K, NEG)                                               \
                ? RTDIV__NAME(S, loop)(num, out, n, K, NEG, REM, &c) : 0;                \
        break;
#define RTDIV__LANES32_CASES(S, SG, K)                                                   \
    RTDIV__LANES32_CASE(S, SG, K, 0, 0)                                                  \
    RTDIV__LANES32_CASE(S, SG, K, 0, 1)                                                  \
    RTDIV__LANES32_CASE(S, SG, K, 1, 0)                                                  \
    RTDIV__LANES32_CASE(S, SG, K, 1, 1)
