/* bigdec_mpn.c — linear-time limb operations: add, subtract, multiply by one limb, shift.
 *
 * C with unsigned __int128 for the 64 x 64 -> 128 products and carries, and on x86-64
 * add_n / sub_n in assembly (below: the compilers carry through setb, not adc). The
 * schoolbook rows where the CPU has BMI2 and ADX are bigdec_adx.c's; these C rows are
 * the portable path.
 */
#include "internal/bigdec_mpn.h"

#if BIGDEC__X86_ASM
/* r = a + b or a - b with the carry in CF from limb to limb: `adc` / `sbb`, four limbs a
 * pass, the loop counted by `dec` and pointers moved by `lea`, which leave CF alone.
 * The C loop below (the portable path) carries through setb and or, ~4 cycles a limb of
 * latency; this one ~1 (AMD family 26: Karatsuba's and Toom-3's sums and the division's
 * corrections, 12% and 13% of a cold 262,144-bit conversion's samples, for add_n and
 * sub_n in C). */
#define BIGDEC__CARRY_N(OP)                                                                 \
    bigdec__limb t, c;                                                                      \
    size_t blocks = n / 4, rest = n % 4;                                                    \
    __asm__ volatile("clc\n\t"                                                              \
                     "test %[blocks], %[blocks]\n\t" /* clears CF, which clc set already */  \
                     "jz 2f\n"                                                              \
                     "1:\n\t"                                                               \
                     "mov (%[a]), %[t]\n\t" OP " (%[b]), %[t]\n\t"                          \
                     "mov %[t], (%[r])\n\t"                                                 \
                     "mov 8(%[a]), %[t]\n\t" OP " 8(%[b]), %[t]\n\t"                        \
                     "mov %[t], 8(%[r])\n\t"                                                \
                     "mov 16(%[a]), %[t]\n\t" OP " 16(%[b]), %[t]\n\t"                      \
                     "mov %[t], 16(%[r])\n\t"                                               \
                     "mov 24(%[a]), %[t]\n\t" OP " 24(%[b]), %[t]\n\t"                      \
                     "mov %[t], 24(%[r])\n\t"                                               \
                     "lea 32(%[a]), %[a]\n\t"                                               \
                     "lea 32(%[b]), %[b]\n\t"                                               \
                     "lea 32(%[r]), %[r]\n\t"                                               \
                     "dec %[blocks]\n\t"                                                    \
                     "jnz 1b\n"                                                             \
                     "2:\n\t"                                                               \
                     "inc %[rest]\n\t" /* rest + 1 passes of the test below, CF kept */     \
                     "3:\n\t"                                                               \
                     "dec %[rest]\n\t"                                                      \
                     "jz 4f\n\t"                                                            \
                     "mov (%[a]), %[t]\n\t" OP " (%[b]), %[t]\n\t"                          \
                     "mov %[t], (%[r])\n\t"                                                 \
                     "lea 8(%[a]), %[a]\n\t"                                                \
                     "lea 8(%[b]), %[b]\n\t"                                                \
                     "lea 8(%[r]), %[r]\n\t"                                                \
                     "jmp 3b\n"                                                             \
                     "4:\n\t"                                                               \
                     "mov $0, %[c]\n\t"                                                     \
                     "adc $0, %[c]\n\t"                                                     \
                     : [t] "=&r"(t), [c] "=&r"(c), [a] "+&r"(a), [b] "+&r"(b), [r] "+&r"(r), \
                       [blocks] "+&r"(blocks), [rest] "+&r"(rest)                           \
                     :                                                                      \
                     : "cc", "memory");                                                     \
    return c

bigdec__limb bigdec__add_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n) {
    BIGDEC__CARRY_N("adc");
}

bigdec__limb bigdec__sub_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n) {
    BIGDEC__CARRY_N("sbb");
}
#else
bigdec__limb bigdec__add_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n) {
    bigdec__limb c = 0;
    for (size_t i = 0; i < n; i++) {
        bigdec__limb s, c1, c2;
        c1 = __builtin_add_overflow(a[i], b[i], &s);
        c2 = __builtin_add_overflow(s, c, &r[i]);
        c = c1 | c2;
    }
    return c;
}

bigdec__limb bigdec__sub_n(bigdec__limb *r, const bigdec__limb *a, const bigdec__limb *b,
                           size_t n) {
    bigdec__limb c = 0;
    for (size_t i = 0; i < n; i++) {
        bigdec__limb s, c1, c2;
        c1 = __builtin_sub_overflow(a[i], b[i], &s);
        c2 = __builtin_sub_overflow(s, c, &r[i]);
        c = c1 | c2;
    }
    return c;
}
#endif

bigdec__limb bigdec__add_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b) {
    for (size_t i = 0; i < n; i++) {
        bigdec__limb c = __builtin_add_overflow(a[i], b, &r[i]);
        b = c;
        if (!c) {
            if (r != a)
                bigdec__copy(r + i + 1, a + i + 1, n - i - 1);
            return 0;
        }
    }
    return b;
}

bigdec__limb bigdec__sub_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b) {
    for (size_t i = 0; i < n; i++) {
        bigdec__limb c = __builtin_sub_overflow(a[i], b, &r[i]);
        b = c;
        if (!c) {
            if (r != a)
                bigdec__copy(r + i + 1, a + i + 1, n - i - 1);
            return 0;
        }
    }
    return b;
}

bigdec__limb bigdec__add(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const bigdec__limb *b, size_t bn) {
    bigdec__limb c = bigdec__add_n(r, a, b, bn);
    return an > bn ? bigdec__add_1(r + bn, a + bn, an - bn, c) : c;
}

bigdec__limb bigdec__sub(bigdec__limb *r, const bigdec__limb *a, size_t an,
                         const bigdec__limb *b, size_t bn) {
    bigdec__limb c = bigdec__sub_n(r, a, b, bn);
    return an > bn ? bigdec__sub_1(r + bn, a + bn, an - bn, c) : c;
}

bigdec__limb bigdec__mul_1(bigdec__limb *r, const bigdec__limb *a, size_t n, bigdec__limb b) {
    bigdec__limb c = 0;
    for (size_t i = 0; i < n; i++) {
        bigdec__dlimb p = (bigdec__dlimb)a[i] * b + c;
        r[i] = (bigdec__limb)p;
        c = (bigdec__limb)(p >> 64);
    }
    return c;
}

/* (2^64-1)^2 + 2 (2^64-1) = 2^128 - 1: the sum below never overflows 128 bits. Two
 * limbs per iteration give the out-of-order core two independent products to overlap
 * with the carry chain. */
bigdec__limb bigdec__addmul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    bigdec__limb c = 0;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        bigdec__dlimb p0 = (bigdec__dlimb)a[i] * b + r[i] + c;
        bigdec__dlimb p1 = (bigdec__dlimb)a[i + 1] * b + r[i + 1] + (bigdec__limb)(p0 >> 64);
        r[i] = (bigdec__limb)p0;
        r[i + 1] = (bigdec__limb)p1;
        c = (bigdec__limb)(p1 >> 64);
    }
    if (i < n) {
        bigdec__dlimb p = (bigdec__dlimb)a[i] * b + r[i] + c;
        r[i] = (bigdec__limb)p;
        c = (bigdec__limb)(p >> 64);
    }
    return c;
}

/* Schoolbook division's inner loop: one limb's step, the product plus the carry
 * subtracted from r[i], the borrow added to the high half (13.5 instructions per limb
 * two limbs a step, gcc 12 -O2; with the carry added by __builtin_add_overflow 14.5,
 * four limbs a step gcc spills: 16,384 bits 5.32e5 instructions against 4.95e5). */
static inline __attribute__((always_inline)) bigdec__limb
bigdec__submul_step(bigdec__limb *r, const bigdec__limb *a, size_t i, bigdec__limb b,
                    bigdec__limb c) {
    bigdec__dlimb p = (bigdec__dlimb)a[i] * b + c;
    bigdec__limb lo = (bigdec__limb)p, hi = (bigdec__limb)(p >> 64), ri = r[i];
    r[i] = ri - lo;
    return hi + (ri < lo);
}

/* Two limbs per iteration (fewer loop instructions, two independent products). */
bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    bigdec__limb c = 0;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        c = bigdec__submul_step(r, a, i, b, c);
        c = bigdec__submul_step(r, a, i + 1, b, c);
    }
    if (i < n)
        c = bigdec__submul_step(r, a, i, b, c);
    return c;
}

/* The shifts take two limbs a step in SSE2 (every x86-64 has it): psllq and psrlq read
 * their count from a vector register, where a scalar shift by a count in `cl` is two or
 * three uops on Intel cores and the loop needs two of them a limb (the division's
 * normalisation: 8% of a cold 16,384-bit conversion's samples with scalar shifts).
 * Each step loads its limbs before it stores, in the scalar loop's order, so the same
 * overlaps stay right. */
#if defined(__SSE2__) && !defined(BIGDEC_NO_ASM)
#include <emmintrin.h>
#define BIGDEC__SSE2_SHIFTS 1
#else
#define BIGDEC__SSE2_SHIFTS 0
#endif

/* r = a << s, 0 <= s < 64, returns the bits shifted out; r may equal a (or lie above
 * it: the loop runs from the top down). */
bigdec__limb bigdec__lshift(bigdec__limb *r, const bigdec__limb *a, size_t n, unsigned s) {
    if (s == 0) {
        bigdec__copy(r, a, n);
        return 0;
    }
    bigdec__limb out = a[n - 1] >> (64 - s);
    size_t i = n - 1;
#if BIGDEC__SSE2_SHIFTS
    const __m128i ls = _mm_cvtsi32_si128((int)s), rs = _mm_cvtsi32_si128((int)(64 - s));
    for (; i >= 2; i -= 2) { /* r[i-1], r[i] from a[i-2 .. i] */
        __m128i hi = _mm_loadu_si128((const __m128i *)(a + i - 1));
        __m128i lo = _mm_loadu_si128((const __m128i *)(a + i - 2));
        _mm_storeu_si128((__m128i *)(r + i - 1),
                         _mm_or_si128(_mm_sll_epi64(hi, ls), _mm_srl_epi64(lo, rs)));
    }
#endif
    for (; i > 0; i--)
        r[i] = (a[i] << s) | (a[i - 1] >> (64 - s));
    r[0] = a[0] << s;
    return out;
}

/* r = a >> s, 0 <= s < 64, returns the bits shifted out (at the top of the limb); r may
 * equal a (or lie below it: the loop runs from the bottom up). */
bigdec__limb bigdec__rshift(bigdec__limb *r, const bigdec__limb *a, size_t n, unsigned s) {
    if (s == 0) {
        bigdec__copy(r, a, n);
        return 0;
    }
    bigdec__limb out = a[0] << (64 - s);
    size_t i = 0;
#if BIGDEC__SSE2_SHIFTS
    const __m128i rs = _mm_cvtsi32_si128((int)s), ls = _mm_cvtsi32_si128((int)(64 - s));
    for (; i + 2 < n; i += 2) { /* r[i], r[i+1] from a[i .. i+2] */
        __m128i lo = _mm_loadu_si128((const __m128i *)(a + i));
        __m128i hi = _mm_loadu_si128((const __m128i *)(a + i + 1));
        _mm_storeu_si128((__m128i *)(r + i),
                         _mm_or_si128(_mm_srl_epi64(lo, rs), _mm_sll_epi64(hi, ls)));
    }
#endif
    for (; i + 1 < n; i++)
        r[i] = (a[i] >> s) | (a[i + 1] << (64 - s));
    r[n - 1] = a[n - 1] >> s;
    return out;
}

int bigdec__cmp(const bigdec__limb *a, const bigdec__limb *b, size_t n) {
    while (n-- > 0)
        if (a[n] != b[n])
            return a[n] > b[n] ? 1 : -1;
    return 0;
}
