/* bigdec_submul.c — submul_1, schoolbook division's inner loop: r -= a * b, the borrow
 * returned.
 *
 * It is over half of a warm conversion's instructions at 65,536 bits. The portable C
 * loop takes 13.5 instructions per limb (gcc 12 -O2); on x86-64 a loop in inline
 * assembly with the baseline `mul` (every x86-64 has it, so no cpuid) takes 7: `mul`
 * leaves the product in rdx:rax, the carry goes in with add/adc, and the subtraction
 * is one `sub` to memory. Other targets, and builds with BIGDEC_PORTABLE_SUBMUL
 * defined, use the C loop; bigdec_check's `submul` mode tests one against the other.
 */
#include "internal/bigdec_mpn.h"

/* One limb: the product plus the carry subtracted from r[i], the borrow added to the
 * high half. (2^64-1)^2 + (2^64-1) < 2^128, so p cannot overflow, and hi + borrow
 * cannot either (hi = 2^64-1 only when lo = 0). With the carry added by
 * __builtin_add_overflow 14.5 instructions per limb; four limbs a step gcc spills
 * (16,384 bits 5.32e5 instructions against 4.95e5). */
static inline __attribute__((always_inline)) bigdec__limb
bigdec__submul_step(bigdec__limb *r, const bigdec__limb *a, size_t i, bigdec__limb b,
                    bigdec__limb c) {
    bigdec__dlimb p = (bigdec__dlimb)a[i] * b + c;
    bigdec__limb lo = (bigdec__limb)p, hi = (bigdec__limb)(p >> 64), ri = r[i];
    r[i] = ri - lo;
    return hi + (ri < lo);
}

/* Two limbs per iteration (fewer loop instructions, two independent products). */
bigdec__limb bigdec__submul_1_portable(bigdec__limb *r, const bigdec__limb *a, size_t n,
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

#if BIGDEC__SUBMUL_X86_64
/* One limb of the loop below; %[c] is the carry in and out. */
#define BIGDEC__SUBMUL_LIMB(off)                                                          \
    "movq " off "(%[a],%[i],8), %%rax\n\t"                                                \
    "mulq %[b]\n\t"                                                                       \
    "addq %[c], %%rax\n\t"                                                                \
    "adcq $0, %%rdx\n\t"                                                                  \
    "subq %%rax, " off "(%[r],%[i],8)\n\t"                                                \
    "adcq $0, %%rdx\n\t"                                                                  \
    "movq %%rdx, %[c]\n\t"

/* n mod 4 limbs by the C step, then four limbs per iteration with a negative index
 * counting up to zero (one add and one jnz per four limbs). */
bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    bigdec__limb c = 0;
    size_t head = n & 3;
    for (size_t i = 0; i < head; i++)
        c = bigdec__submul_step(r, a, i, b, c);
    if (n == head)
        return c;
    r += n;
    a += n;
    long i = -(long)(n - head);
    __asm__("1:\n\t" BIGDEC__SUBMUL_LIMB("0") BIGDEC__SUBMUL_LIMB("8")
                BIGDEC__SUBMUL_LIMB("16") BIGDEC__SUBMUL_LIMB("24")
            "addq $4, %[i]\n\t"
            "jnz 1b"
            : [c] "+&r"(c), [i] "+&r"(i)
            : [a] "r"(a), [r] "r"(r), [b] "r"(b)
            : "rax", "rdx", "cc", "memory");
    return c;
}
#else
bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    return bigdec__submul_1_portable(r, a, n, b);
}
#endif
