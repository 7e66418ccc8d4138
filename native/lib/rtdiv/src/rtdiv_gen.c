/* rtdiv_gen.c — computing the magic numbers, once per divisor.
 *
 * The theory (Granlund & Montgomery 1994; Warren, Hacker's Delight ch. 10): for a
 * divisor d with 2^s < d < 2^(s+1) and m = floor(2^(N+s)/d) + 1, the error of
 * n*m / 2^(N+s) against n/d is n*e / (d*2^(N+s)) with e = m*d - 2^(N+s) in (0, d];
 * floor() of both agree for every N-bit n when that error stays below 1/d, i.e. when
 * e < 2^s. Half the divisors pass ("plain": one multiply, one shift). The others take
 * one more bit of precision, m' = floor(2^(N+s+1)/d) + 1, which is N+1 bits wide: the
 * top bit is applied by adding n back ("add": sub, shift, add, shift). Signed types work
 * on |d| with N-1 magnitude bits plus the one value -2^(N-1), and truncate toward zero by
 * adding 1 to negative intermediate quotients.
 *
 * Divisibility (Granlund & Montgomery §9, Lemire et al. 2019): with d = o * 2^k, o odd,
 * multiplication by o^-1 mod 2^N maps the multiples j*d onto j*2^k; offsetting the
 * smallest representable j to 0 and rotating right by k sends the multiples to
 * 0..jmax-jmin and every other value above that.
 *
 * Generation uses hardware division (a few per divisor); the verbs never do.
 */
#include <rtdiv.h>

static unsigned rtdiv__log2_u64(uint64_t x) { return 63u - (unsigned)__builtin_clzll(x); }

/* The inverse of odd o modulo 2^64 by Newton's iteration: x = o is right to 3 bits
 * (o*o = 1 mod 8 for odd o); each step doubles them: 3, 6, 12, 24, 48, 96. */
static uint64_t rtdiv__inverse_u64(uint64_t o) {
    uint64_t x = o;
    for (int i = 0; i < 5; i++)
        x *= 2 - o * x;
    return x;
}

#define RTDIV__GEN(S, T, UT, ST, UW, SW, N, SG)                                          \
    rtdiv_status rtdiv_##S##_gen(rtdiv_##S *out, T d) {                                  \
        if (!out)                                                                        \
            return RTDIV_ERR_NULL;                                                       \
        if (d == 0)                                                                      \
            return RTDIV_ERR_ZERO;                                                       \
        rtdiv_##S dv = {0};                                                              \
        int negative = SG && (ST)d < 0;                                                  \
        /* a = |d| as unsigned: exact for the minimum too (2^(N-1)) */                  \
        UT a = negative ? (UT)0 - (UT)d : (UT)d;                                         \
        unsigned s = rtdiv__log2_u64(a); /* 2^s <= a < 2^(s+1) */                        \
        dv.d = (UT)d;                                                                    \
        if ((a & (a - 1)) == 0) {                                                        \
            dv.kind = (uint8_t)(negative ? RTDIV_KIND_NEG : RTDIV_KIND_SHIFT);           \
            dv.post = (uint8_t)s;                                                        \
            dv.magic = (UT)(a - 1); /* the bias of a negative n; the remainder's mask */ \
            dv.magic_bf = 0;                                                             \
            if (SG) {                                                                    \
                dv.sh2 = (uint8_t)s;                                                     \
            } else { /* ((n - 0) >> sh1) + 0) >> sh2 == n >> s */                        \
                dv.sh1 = (uint8_t)(s > 0);                                               \
                dv.sh2 = (uint8_t)(s > 0 ? s - 1 : 0);                                   \
            }                                                                            \
        } else if (!SG) {                                                                \
            /* plain: m = floor(2^(N+s)/a) + 1 when e = a - 2^(N+s) mod a < 2^s */      \
            UW p = (UW)1 << (N + s);                                                     \
            UT m0 = (UT)(p / a), r0 = (UT)(p % a);                                       \
            UT e = a - r0;                                                               \
            /* add kind: floor(2^(N+s+1)/a) + 1 - 2^N, from m0 and r0 without the */    \
            /* 2N+1-bit numerator: 2^(N+s+1)/a = 2*m0 + (2*r0 >= a) */                  \
            UT madd = (UT)(2 * m0 + ((UW)2 * r0 >= a) + 1);                              \
            unsigned k = (unsigned)__builtin_ctzll((uint64_t)a);                         \
            if (e < ((UT)1 << s)) {                                                      \
                dv.kind = RTDIV_KIND_MUL;                                                \
                dv.magic = m0 + 1;                                                       \
                dv.post = (uint8_t)s;                                                    \
            } else if (k > 0) {                                                          \
                /* PRE: o = a >> k takes N-k-bit numerators, for which the plain */     \
                /* magic always suffices: e <= o < 2^(so+1) <= 2^(so+k) */               \
                UT o = a >> k;                                                           \
                unsigned so = rtdiv__log2_u64(o);                                        \
                dv.kind = RTDIV_KIND_PRE;                                                \
                dv.magic = (UT)(((UW)1 << (N + so)) / o + 1);                            \
                dv.pre = (uint8_t)k;                                                     \
                dv.post = (uint8_t)(so + k); /* the pre-shift, folded (rtdiv.h) */       \
            } else {                                                                     \
                dv.kind = RTDIV_KIND_ADD;                                                \
                dv.magic = madd;                                                         \
                dv.post = (uint8_t)s;                                                    \
            }                                                                            \
            if (N == 32) /* ceil(2^64 / a), a > 1 and no power of two */                 \
                dv.wide = UINT64_MAX / a + 1;                                            \
            dv.magic_bf = madd;                                                          \
            dv.sh1 = 1;                                                                  \
            dv.sh2 = (uint8_t)s;                                                         \
        } else {                                                                         \
            /* signed: |n| <= 2^(N-1). plain: m = floor(2^(N-1+s)/a) + 1 < 2^(N-1), */  \
            /* shift s-1; for d < 0 the magic is negated. The quotient of n with */     \
            /* residue j (of |n| mod a, |n| = u) stays exact while j + u*e/2^p <= a */  \
            /* (< a where the floor must not move: n >= 0 for d > 0, n < 0 for */       \
            /* d < 0); the worst n are the largest of residue a - 1, nc <= 2^(N-1) - 1 */ \
            /* and uc <= 2^(N-1) (Warren 10-3's test, with MIN's side exact: s64 / 3 */ \
            /* is plain as for a compiler, s64 / -3 not). add: m = floor(2^(N+s)/a) */  \
            /* + 1 in (2^(N-1), 2^N), read as the negative m - 2^N, n added back. */    \
            UW p = (UW)1 << (N - 1 + s);                                                 \
            UT m0 = (UT)(p / a), e = a - (UT)(p % a);                                    \
            UW p2 = (UW)1 << (N + s);                                                    \
            UT madd = (UT)(p2 / a + 1);                                                  \
            UT half = (UT)1 << (N - 1);                                                  \
            UT uc = half - (UT)((half % a + 1) % a);                                     \
            UT nc = uc == half ? half - a : uc;                                          \
            UW ue = (UW)uc * e, ne = (UW)nc * e;                                         \
            int plain = negative ? ne <= p && ue < p : ne < p && ue <= p;                \
            if (plain) {                                                                 \
                dv.kind = RTDIV_KIND_MUL;                                                \
                dv.magic = negative ? (UT)0 - (m0 + 1) : m0 + 1;                         \
                dv.post = (uint8_t)(s - 1);                                              \
            } else if (!negative) {                                                      \
                dv.kind = RTDIV_KIND_ADD;                                                \
                dv.magic = madd;                                                         \
                dv.post = (uint8_t)s;                                                    \
            } else {                                                                     \
                dv.kind = RTDIV_KIND_NEG;                                                \
            }                                                                            \
            /* s32 MUL and ADD: +-ceil(2^64 / a), d's sign (rtdiv.h, `wide`) */          \
            if (N == 32 && dv.kind != RTDIV_KIND_NEG) {                                  \
                uint64_t w = UINT64_MAX / a + 1;                                         \
                dv.wide = negative ? 0 - w : w;                                          \
            }                                                                            \
            dv.magic_bf = madd;                                                          \
            dv.sh2 = (uint8_t)s;                                                         \
        }                                                                                \
        /* divisibility */                                                               \
        unsigned k = (unsigned)__builtin_ctzll((uint64_t)a);                             \
        dv.tz = (uint8_t)k;                                                              \
        dv.inv = (UT)rtdiv__inverse_u64((uint64_t)(a >> k));                             \
        if (SG) {                                                                        \
            UT half = (UT)1 << (N - 1);       /* 2^(N-1) = -MIN */                       \
            UT jneg = half / a;               /* -jmin: multiples down to MIN */         \
            UT jmax = (half - 1) / a;                                                    \
            dv.ofs = (UT)(jneg << k);                                                    \
            dv.lim = jmax + jneg;                                                        \
        } else {                                                                         \
            dv.ofs = 0;                                                                  \
            dv.lim = (UT)~(UT)0 / a;                                                     \
        }                                                                                \
        *out = dv;                                                                       \
        return RTDIV_OK;                                                                 \
    }
RTDIV_FOR_EACH_TYPE(RTDIV__GEN)

const char *rtdiv_status_str(rtdiv_status status) {
    switch (status) {
    case RTDIV_OK: return "ok";
    case RTDIV_ERR_ZERO: return "divisor is zero";
    case RTDIV_ERR_NULL: return "a required pointer is NULL";
    case RTDIV_ERR_UNSUPPORTED: return "this CPU or OS cannot run that path";
    }
    return "unknown status";
}
