/* quo_seed.c — the quo() variants of quo_seed.h, each noinline so that `cpulab asm
 * quo_*_check` shows the code the benchmark calls. */
#include "quo_seed.h"

#define QUO_B INT64_C(1000000000)

__attribute__((noinline)) int64_t quo_mul_check(int64_t a) {
    int64_t c = a / QUO_B;
    if (c * QUO_B == a)
        return c;
    return QUO_INEXACT;
}

__attribute__((noinline)) int64_t quo_mod_check(int64_t a) {
    if (a % QUO_B == 0)
        return a / QUO_B;
    return QUO_INEXACT;
}

/* The inverse of odd o modulo 2^64 (Newton; 3 correct bits doubling five times to
 * 96). Written out, not as a loop, so that gcc too folds it to a constant. */
static inline uint64_t inverse64(uint64_t o) {
    uint64_t x = o;
    x *= 2 - o * x;
    x *= 2 - o * x;
    x *= 2 - o * x;
    x *= 2 - o * x;
    x *= 2 - o * x;
    return x;
}

/* 10^9 = 2^9 * 1953125. Multiplying by 1953125^-1 maps the multiples j * 10^9 onto
 * j * 2^9; adding -jmin * 2^9 (jmin = -floor(2^63 / 10^9), the most negative multiple)
 * and rotating right by 9 sends exactly the multiples into 0 .. jmax - jmin (Granlund &
 * Montgomery 1994, section 9; the same test as rtdiv_s64_divisible, here with
 * compile-time constants). */
__attribute__((noinline)) int64_t quo_inverse_check(int64_t a) {
    const uint64_t half = UINT64_C(1) << 63;
    const uint64_t jneg = half / QUO_B, jmax = (half - 1) / QUO_B;
    uint64_t x = (uint64_t)a * inverse64(1953125) + (jneg << 9);
    x = (x >> 9) | (x << 55);
    if (x <= jmax + jneg)
        return a / QUO_B;
    return QUO_INEXACT;
}
