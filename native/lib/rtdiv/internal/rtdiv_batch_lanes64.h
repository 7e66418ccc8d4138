/* rtdiv_batch_lanes64.h — the batch loops of the 64-bit types, over per-ISA primitives.
 *
 * An instruction-set file (rtdiv_batch_avx2.c, rtdiv_batch_avx512.c) defines, for each
 * 64-bit type S, a vector type v_S, its lane count V_S_LANES and the primitives
 *   v_S_load, v_S_store, v_S_set1, v_S_add, v_S_sub, v_S_xor, v_S_and,
 *   v_S_srl(x, count), v_S_sra(x, count)  (count: __m128i, the same for every lane),
 *   v_S_sign(x)        all ones in lanes holding a negative value (signed types),
 *   v_S_mulhi(x, m)    high half of each lane's product with the broadcast m,
 *   v_S_mullo(x, d)    low half,
 * and rtdiv_batch_body.h includes this file, which defines the branchy sequence per kind
 * (the kind is fixed for a batch, so the switch below sits outside the loop and the loop
 * itself has no branch). Two vectors per iteration: the multiply latency (3-5 cycles on
 * Zen 4) is hidden behind the second vector's work. The tail (< 2 vectors) takes the
 * scalar branchy verbs, which compute the same values.
 */

/* Per 64-bit type: the quotient of one vector for a given kind, then the loop. */
#define RTDIV__LANES64(S, T, UT, ST, UW, SW, N, SG)                                      \
    typedef struct {                                                                     \
        v_##S m, bias, neg, d, pre;                                                      \
        __m128i s, s1;                                                                   \
    } RTDIV__NAME(S, consts);                                                            \
                                                                                         \
    RTDIV__TARGET static inline __attribute__((always_inline)) v_##S                     \
    RTDIV__NAME(S, quo)(v_##S x, int kind, const RTDIV__NAME(S, consts) *c) {             \
        v_##S q;                                                                         \
        if (!SG) {                                                                       \
            if (kind == RTDIV__KIND_POW2)                                                \
                return v_##S##_srl(x, c->s);                                             \
            if (kind == RTDIV__KIND_PRE) /* the low bits cleared (rtdiv.h, pre) */     \
                x = v_##S##_and(x, c->pre);                                              \
            q = v_##S##_mulhi(x, c->m);                                                  \
            if (kind == RTDIV__KIND_ADD)                                                 \
                q = v_##S##_add(v_##S##_srl(v_##S##_sub(x, q), c->s1), q);               \
            return v_##S##_srl(q, c->s);                                                 \
        }                                                                                \
        if (kind == RTDIV__KIND_POW2) {                                                  \
            q = v_##S##_add(x, v_##S##_and(v_##S##_sign(x), c->bias));                   \
            q = v_##S##_sra(q, c->s);                                                    \
        } else {                                                                         \
            q = v_##S##_mulhi(x, c->m);                                                  \
            if (kind == RTDIV__KIND_ADD)                                                 \
                q = v_##S##_add(q, x);                                                   \
            q = v_##S##_sra(q, c->s);                                                    \
            q = v_##S##_sub(q, v_##S##_sign(q)); /* +1 when negative */                  \
        }                                                                                \
        return v_##S##_sub(v_##S##_xor(q, c->neg), c->neg);                              \
    }                                                                                    \
                                                                                         \
    RTDIV__TARGET static inline __attribute__((always_inline)) size_t                    \
    RTDIV__NAME(S, loop)(const T *num, T *out, size_t n, int kind, int rem,              \
                         const RTDIV__NAME(S, consts) *c) {                               \
        size_t i = 0;                                                                    \
        for (; i + 2 * V_##S##_LANES <= n; i += 2 * V_##S##_LANES) {                     \
            v_##S x0 = v_##S##_load(num + i), x1 = v_##S##_load(num + i + V_##S##_LANES); \
            /* in registers: gcc 12 otherwise reads each vector from memory once per */  \
            /* use (three loads a vector for the multiply-high), and the loop becomes */  \
            /* bound by loads, not by arithmetic */                                       \
            __asm__("" : "+v"(x0), "+v"(x1));                                            \
            v_##S q0 = RTDIV__NAME(S, quo)(x0, kind, c);                                  \
            v_##S q1 = RTDIV__NAME(S, quo)(x1, kind, c);                                  \
            if (rem) {                                                                   \
                q0 = v_##S##_sub(x0, v_##S##_mullo(q0, c->d));                          \
                q1 = v_##S##_sub(x1, v_##S##_mullo(q1, c->d));                          \
            }                                                                            \
            v_##S##_store(out + i, q0);                                                  \
            v_##S##_store(out + i + V_##S##_LANES, q1);                                  \
        }                                                                                \
        return i;                                                                        \
    }                                                                                    \
                                                                                         \
    RTDIV__TARGET static void RTDIV__NAME(S, run)(const rtdiv_##S *dv, const T *num,      \
                                                   T *out, size_t n, int rem) {          \
        RTDIV__NAME(S, consts) c;                                                        \
        /* the kind's magic and shift; a signed NEG divider takes the branchfree */     \
        /* fields (a shift for -2^s, else the N+1-bit magic) and negates */             \
        int neg = SG && dv->kind == RTDIV_KIND_NEG;                                      \
        int pow2 = dv->kind == RTDIV_KIND_SHIFT || (neg && dv->magic_bf == 0);           \
        unsigned s = neg ? dv->sh2 : dv->post;                                           \
        c.m = v_##S##_set1((T)(neg ? dv->magic_bf : dv->magic));                         \
        c.bias = v_##S##_set1((T)(((UT)1 << s) - 1));                                    \
        c.neg = v_##S##_set1((T)(neg ? ~(UT)0 : 0));                                     \
        c.d = v_##S##_set1((T)dv->d);                                                    \
        c.s = _mm_cvtsi32_si128((int)s);                                                 \
        c.pre = v_##S##_set1((T)((UT)~(UT)0 << dv->pre));                                \
        c.s1 = _mm_cvtsi32_si128(1);                                                     \
        int kind = pow2 ? RTDIV__KIND_POW2                                               \
                 : neg || dv->kind == RTDIV_KIND_ADD ? RTDIV__KIND_ADD                    \
                 : dv->kind == RTDIV_KIND_PRE ? RTDIV__KIND_PRE : RTDIV__KIND_PLAIN;       \
        size_t i;                                                                        \
        /* eight loops, each with the kind and the verb fixed at compile time */        \
        switch (kind * 2 + rem) {                                                        \
        case 0: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_POW2, 0, &c); break;    \
        case 1: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_POW2, 1, &c); break;    \
        case 2: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_PLAIN, 0, &c); break;   \
        case 3: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_PLAIN, 1, &c); break;   \
        case 4: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_PRE, 0, &c); break;     \
        case 5: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_PRE, 1, &c); break;     \
        case 6: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_ADD, 0, &c); break;     \
        default: i = RTDIV__NAME(S, loop)(num, out, n, RTDIV__KIND_ADD, 1, &c); break;    \
        }                                                                                \
        for (; i < n; i++)                                                               \
            out[i] = rem ? rtdiv_##S##_rem(dv, num[i]) : rtdiv_##S##_div(dv, num[i]);    \
    }
