/* bigdec_submul.c — submul_1, schoolbook division's inner loop: r -= a * b, the borrow
 * returned.
 *
 * It is over half of a warm conversion's instructions at 65,536 bits with the C loop,
 * which takes 13.5 instructions per limb (gcc 12 -O2). On x86-64 two loops in inline
 * assembly: with BMI2's `mulx` 5 instructions a limb (flags untouched, outputs in any
 * register, so the carry alternates between two and is never moved), picked at the
 * first call by cpuid; else the baseline `mul`, which every x86-64 has, 7 (the product
 * in rdx:rax, the carry in with add/adc, the subtraction one `sub` to memory). Warm,
 * callgrind: 16,384 bits 4.76e5 instructions in C, 3.59e5 with mul, 3.18e5 with mulx
 * (3.22e5 with four limbs an iteration, as the mul loop has: eight halve the loop
 * instructions, 65,536 bits 2.95e6 -> 2.86e6).
 * Other targets, and builds with BIGDEC_PORTABLE_SUBMUL defined, use the C loop;
 * bigdec_check's `submul` mode tests all three against GMP.
 */
#include "internal/bigdec_mpn.h"

#if BIGDEC__SUBMUL_X86_64
#include <cpuid.h>
#endif

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
/* One limb with `mul`; %[c] is the carry in and out. */
#define BIGDEC__SUBMUL_LIMB_MUL(off)                                                      \
    "movq " off "(%[a],%[i],8), %%rax\n\t"                                                \
    "mulq %[b]\n\t"                                                                       \
    "addq %[c], %%rax\n\t"                                                                \
    "adcq $0, %%rdx\n\t"                                                                  \
    "subq %%rax, " off "(%[r],%[i],8)\n\t"                                                \
    "adcq $0, %%rdx\n\t"                                                                  \
    "movq %%rdx, %[c]\n\t"

/* n mod 4 limbs by the C step, then four limbs per iteration with a negative index
 * counting up to zero (one add and one jnz per four limbs). */
bigdec__limb bigdec__submul_1_mul(bigdec__limb *r, const bigdec__limb *a, size_t n,
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
    __asm__("1:\n\t" BIGDEC__SUBMUL_LIMB_MUL("0") BIGDEC__SUBMUL_LIMB_MUL("8")
                BIGDEC__SUBMUL_LIMB_MUL("16") BIGDEC__SUBMUL_LIMB_MUL("24")
            "addq $4, %[i]\n\t"
            "jnz 1b"
            : [c] "+&r"(c), [i] "+&r"(i)
            : [a] "r"(a), [r] "r"(r), [b] "r"(b)
            : "rax", "rdx", "cc", "memory");
    return c;
}

/* One limb with BMI2's `mulx` (b in rdx, flags untouched, any output registers): the
 * carry comes in in cin and leaves in cout, so alternating two registers needs no
 * move: 5 instructions a limb against `mul`'s 7. */
#define BIGDEC__SUBMUL_LIMB_MULX(off, cin, cout)                                          \
    "mulxq " off "(%[a],%[i],8), %[lo], %[" cout "]\n\t"                                  \
    "addq %[" cin "], %[lo]\n\t"                                                          \
    "adcq $0, %[" cout "]\n\t"                                                            \
    "subq %[lo], " off "(%[r],%[i],8)\n\t"                                                \
    "adcq $0, %[" cout "]\n\t"

bigdec__limb bigdec__submul_1_mulx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                   bigdec__limb b) {
    bigdec__limb c = 0, c1, lo;
    size_t head = n & 3;
    for (size_t i = 0; i < head; i++)
        c = bigdec__submul_step(r, a, i, b, c);
    if (n == head)
        return c;
    r += n;
    a += n;
    long i = -(long)(n - head);
    /* i = -(a multiple of 4): four limbs once where it is not a multiple of 8, then
     * eight per iteration (0.25 loop instructions a limb) */
    __asm__("testq $4, %[i]\n\t"
            "jz 1f\n\t"
            BIGDEC__SUBMUL_LIMB_MULX("0", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("8", "c1", "c")
            BIGDEC__SUBMUL_LIMB_MULX("16", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("24", "c1", "c")
            "addq $4, %[i]\n\t"
            "jz 2f\n\t"
            "1:\n\t"
            BIGDEC__SUBMUL_LIMB_MULX("0", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("8", "c1", "c")
            BIGDEC__SUBMUL_LIMB_MULX("16", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("24", "c1", "c")
            BIGDEC__SUBMUL_LIMB_MULX("32", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("40", "c1", "c")
            BIGDEC__SUBMUL_LIMB_MULX("48", "c", "c1")
            BIGDEC__SUBMUL_LIMB_MULX("56", "c1", "c")
            "addq $8, %[i]\n\t"
            "jnz 1b\n\t"
            "2:"
            : [c] "+&r"(c), [c1] "=&r"(c1), [lo] "=&r"(lo), [i] "+&r"(i)
            : [a] "r"(a), [r] "r"(r), [b] "d"(b)
            : "cc", "memory");
    return c;
}

/* BMI2 is cpuid leaf 7, subleaf 0, EBX bit 8; a plain integer instruction, so no OS
 * support is needed. */
int bigdec__submul_has_mulx(void) {
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ebx & (1u << 8));
}

typedef bigdec__limb (*bigdec__submul_fn)(bigdec__limb *, const bigdec__limb *, size_t,
                                          bigdec__limb);
static bigdec__submul_fn bigdec__submul_impl;

/* cpuid once (under a hypervisor it traps: microseconds); two threads racing store the
 * same pointer. */
static bigdec__submul_fn bigdec__submul_pick(void) {
    bigdec__submul_fn f = __atomic_load_n(&bigdec__submul_impl, __ATOMIC_RELAXED);
    if (__builtin_expect(!f, 0)) {
        f = bigdec__submul_has_mulx() ? bigdec__submul_1_mulx : bigdec__submul_1_mul;
        __atomic_store_n(&bigdec__submul_impl, f, __ATOMIC_RELAXED);
    }
    return f;
}

int bigdec__submul_uses_mulx(void) { return bigdec__submul_pick() == bigdec__submul_1_mulx; }

bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    return bigdec__submul_pick()(r, a, n, b);
}
#else
bigdec__limb bigdec__submul_1(bigdec__limb *r, const bigdec__limb *a, size_t n,
                              bigdec__limb b) {
    return bigdec__submul_1_portable(r, a, n, b);
}
#endif
