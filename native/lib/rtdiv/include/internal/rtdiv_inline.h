/* rtdiv_inline.h — the inline verbs, expanded once per type from RTDIV_FOR_EACH_*.
 *
 * Two bodies only, unsigned and signed; the width comes from the list's double-width
 * type, whose high half is the one multiply every quotient costs:
 *   unsigned branchfree: hi = mulhi(n, m); q = (((n - hi) >> sh1) + hi) >> sh2
 *                        (n - hi >= 0, so this is floor((n + hi) / 2^(sh1+sh2)) without
 *                        the N+1-bit sum; 32-bit types add in a 64-bit register instead)
 *   signed branchfree:   q = mulhi(n, m) + n; q += (q < 0 ? bias : 0); q >>= sh2;
 *                        q = (q ^ neg) - neg
 * Signed intermediate arithmetic is done in the unsigned type: wrap-around is intended
 * (MIN / -1) and must not be undefined behaviour. Right shifts of negative values are
 * arithmetic in gcc and clang (documented GNU C behaviour).
 *
 * Not part of the public interface: include <rtdiv.h>.
 */
#ifndef RTDIV_INTERNAL_INLINE_H
#define RTDIV_INTERNAL_INLINE_H

#define RTDIV__INLINE static inline __attribute__((always_inline))

#define RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)                                       \
    RTDIV__INLINE T rtdiv_##S##_divisor(const rtdiv_##S *dv) { return (T)dv->d; }        \
    RTDIV__INLINE int rtdiv_##S##_divisible(const rtdiv_##S *dv, T n) {                  \
        UT x = (UT)((UT)n * dv->inv + dv->ofs);                                          \
        unsigned k = dv->tz;                                                             \
        x = (UT)((x >> k) | (x << ((N - k) & (N - 1)))); /* rotate right by k */         \
        return x <= dv->lim;                                                             \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem(const rtdiv_##S *dv, T n) {                          \
        return (T)((UT)n - (UT)rtdiv_##S##_div(dv, n) * dv->d);                          \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem_bf(const rtdiv_##S *dv, T n) {                       \
        return (T)((UT)n - (UT)rtdiv_##S##_div_bf(dv, n) * dv->d);                       \
    }

#define RTDIV__UNSIGNED(S, T, UT, ST, UW, SW, N, SG)                                     \
    RTDIV__INLINE T rtdiv_##S##_mulhi(T a, T b) { return (T)(((UW)a * b) >> N); }        \
    RTDIV__INLINE T rtdiv_##S##_div(const rtdiv_##S *dv, T n) {                          \
        unsigned more = dv->more, s = more & RTDIV_MORE_SHIFT;                           \
        if (more & RTDIV_MORE_POW2)                                                      \
            return n >> s;                                                               \
        T hi = rtdiv_##S##_mulhi(n, dv->magic);                                          \
        if (more & RTDIV_MORE_ADD)                                                       \
            return (((n - hi) >> 1) + hi) >> s;                                          \
        return hi >> s;                                                                  \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_div_bf(const rtdiv_##S *dv, T n) {                       \
        T hi = rtdiv_##S##_mulhi(n, dv->magic_bf);                                       \
        if (N < 64) /* the N+1-bit sum fits a 64-bit register: one op fewer */          \
            return (T)(((uint64_t)hi + n) >> (dv->sh1 + dv->sh2));                       \
        return (((n - hi) >> dv->sh1) + hi) >> dv->sh2;                                  \
    }                                                                                    \
    RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)

#define RTDIV__SIGNED(S, T, UT, ST, UW, SW, N, SG)                                       \
    RTDIV__INLINE T rtdiv_##S##_mulhi(T a, T b) { return (T)(((SW)a * b) >> N); }        \
    RTDIV__INLINE T rtdiv_##S##_div(const rtdiv_##S *dv, T n) {                          \
        unsigned more = dv->more, s = more & RTDIV_MORE_SHIFT;                           \
        UT q;                                                                            \
        if (more & RTDIV_MORE_POW2) {                                                    \
            /* bias negative n by 2^s - 1 so the arithmetic shift truncates */          \
            q = (UT)n + ((UT)(n >> (N - 1)) & (((UT)1 << s) - 1));                       \
            q = (UT)((T)q >> s);                                                         \
        } else {                                                                         \
            q = (UT)rtdiv_##S##_mulhi(n, (T)dv->magic);                                  \
            if (more & RTDIV_MORE_ADD)                                                   \
                q += (UT)n;                                                              \
            q = (UT)((T)q >> s);                                                         \
            q += q >> (N - 1); /* floor -> truncation for negative quotients */          \
        }                                                                                \
        return (T)((q ^ dv->neg) - dv->neg);                                             \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_div_bf(const rtdiv_##S *dv, T n) {                       \
        UT q = (UT)rtdiv_##S##_mulhi(n, (T)dv->magic_bf) + (UT)n;                        \
        q += (UT)((T)q >> (N - 1)) & dv->bias_bf;                                        \
        q = (UT)((T)q >> dv->sh2);                                                       \
        return (T)((q ^ dv->neg) - dv->neg);                                             \
    }                                                                                    \
    RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)

RTDIV_FOR_EACH_UNSIGNED(RTDIV__UNSIGNED)
RTDIV_FOR_EACH_SIGNED(RTDIV__SIGNED)

#undef RTDIV__UNSIGNED
#undef RTDIV__SIGNED
#undef RTDIV__COMMON

#endif
