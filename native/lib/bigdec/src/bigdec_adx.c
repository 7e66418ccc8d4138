/* bigdec_adx.c — the schoolbook rows with two carry chains (x86-64 BMI2 + ADX).
 *
 * A row r += a * b needs, per limb, the product's low half plus the previous product's
 * high half plus r[i], two carries. The C loop (bigdec_mpn.c, bigdec_mul.c) has one
 * carry flag, so the compiler serialises the two sums through adc; `mulx` leaves the
 * flags alone and `adox` / `adcx` carry in OF and CF separately, so the two sums run as
 * two independent chains (Intel's "New Instructions Supporting Large Integer
 * Arithmetic", 2012; GMP's mul_basecase for Broadwell and later). Four limbs per pass,
 * counted by `lea` and `jrcxz`, which touch no flag.
 *
 * A subtraction row r -= a * b has no flag-preserving subtract, so it runs as the
 * addition on the complement: with ~r = B^n - 1 - r, ~r + a b = c B^n + X gives
 * r - a b = -c B^n + ~X, and `not` touches no flag either.
 *
 * Measured per product of two n-limb numbers (TSC ticks, best of 7, AMD family 26,
 * gcc 12 -O2), against the two-row C loop and GMP 6.2.1's mpn_mul_n: 8 limbs 89
 * (C 110, GMP 77), 16 limbs 298 (373, 273), 24 limbs 626 (870, 633).
 *
 * Chosen at run time (cpuid leaf 7: BMI2 and ADX); elsewhere the C rows run.
 */
#include "internal/bigdec_mpn.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

int bigdec__have_adx(void) {
    static int have = -1; /* racing first calls compute the same answer */
    int h = __atomic_load_n(&have, __ATOMIC_RELAXED);
    if (h < 0) {
        unsigned a, b, c, d;
        const unsigned bmi2 = 1u << 8, adx = 1u << 19;
        h = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (bmi2 | adx)) == (bmi2 | adx);
        __atomic_store_n(&have, h, __ATOMIC_RELAXED);
    }
    return h;
}

/* r[0 .. n) += a[0 .. n) * b + cin, n a positive multiple of 4, with r's limbs
 * complemented on the way in and out when `NOT` is "not": the carry limb. */
#define BIGDEC__ADX_ROW(NOT)                                                                \
    uint64_t lo0, lo1, hi0, hi = cin;                                                       \
    long i = -(long)n;                                                                      \
    a += n, r += n;                                                                         \
    __asm__ volatile("xor %k[lo0], %k[lo0]\n\t" /* CF = OF = 0 */                           \
                     "1:\n\t"                                                               \
                     "mulx (%[a],%[i],8), %[lo0], %[hi0]\n\t"                               \
                     "adox %[hi], %[lo0]\n\t"                                               \
                     "mov (%[r],%[i],8), %[hi]\n\t" NOT " %[hi]\n\t"                        \
                     "adcx %[hi], %[lo0]\n\t" NOT " %[lo0]\n\t"                             \
                     "mov %[lo0], (%[r],%[i],8)\n\t"                                        \
                     "mulx 8(%[a],%[i],8), %[lo1], %[hi]\n\t"                               \
                     "adox %[hi0], %[lo1]\n\t"                                              \
                     "mov 8(%[r],%[i],8), %[hi0]\n\t" NOT " %[hi0]\n\t"                     \
                     "adcx %[hi0], %[lo1]\n\t" NOT " %[lo1]\n\t"                            \
                     "mov %[lo1], 8(%[r],%[i],8)\n\t"                                       \
                     "mulx 16(%[a],%[i],8), %[lo0], %[hi0]\n\t"                             \
                     "adox %[hi], %[lo0]\n\t"                                               \
                     "mov 16(%[r],%[i],8), %[hi]\n\t" NOT " %[hi]\n\t"                      \
                     "adcx %[hi], %[lo0]\n\t" NOT " %[lo0]\n\t"                             \
                     "mov %[lo0], 16(%[r],%[i],8)\n\t"                                      \
                     "mulx 24(%[a],%[i],8), %[lo1], %[hi]\n\t"                              \
                     "adox %[hi0], %[lo1]\n\t"                                              \
                     "mov 24(%[r],%[i],8), %[hi0]\n\t" NOT " %[hi0]\n\t"                    \
                     "adcx %[hi0], %[lo1]\n\t" NOT " %[lo1]\n\t"                            \
                     "mov %[lo1], 24(%[r],%[i],8)\n\t"                                      \
                     "lea 4(%[i]), %[i]\n\t"                                                \
                     "jrcxz 2f\n\t"                                                         \
                     "jmp 1b\n"                                                             \
                     "2:\n\t"                                                               \
                     "mov $0, %k[lo0]\n\t" /* the carries into the top limb */              \
                     "adox %[lo0], %[hi]\n\t"                                               \
                     "adcx %[lo0], %[hi]\n\t"                                               \
                     : [lo0] "=&r"(lo0), [lo1] "=&r"(lo1), [hi0] "=&r"(hi0), [hi] "+&r"(hi), \
                       [i] "+&c"(i)                                                         \
                     : [a] "r"(a), [r] "r"(r), "d"(b)                                       \
                     : "cc", "memory");                                                     \
    return hi

/* The hi register is reused for r's limb once its product's high half is consumed:
 * the chains still see hi_prev first (adox), then r[i] (adcx). */
static uint64_t bigdec__addmul4(uint64_t *r, const uint64_t *a, size_t n, uint64_t b,
                                uint64_t cin) {
    BIGDEC__ADX_ROW("#");
}

static uint64_t bigdec__submul4(uint64_t *r, const uint64_t *a, size_t n, uint64_t b,
                                uint64_t cin) {
    BIGDEC__ADX_ROW("not");
}

/* The n % 4 low limbs in C, the rest four at a time. */
bigdec__limb bigdec__addmul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    size_t h = n % 4;
    bigdec__limb c = 0;
    for (size_t i = 0; i < h; i++) {
        bigdec__dlimb t = (bigdec__dlimb)a[i] * b + r[i] + c;
        r[i] = (bigdec__limb)t, c = (bigdec__limb)(t >> 64);
    }
    return n > h ? bigdec__addmul4(r + h, a + h, n - h, b, c) : c;
}

bigdec__limb bigdec__submul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    size_t h = n % 4;
    bigdec__limb c = 0;
    for (size_t i = 0; i < h; i++) {
        bigdec__dlimb t = (bigdec__dlimb)a[i] * b + c;
        bigdec__limb lo = (bigdec__limb)t;
        c = (bigdec__limb)(t >> 64) + (r[i] < lo);
        r[i] -= lo;
    }
    return n > h ? bigdec__submul4(r + h, a + h, n - h, b, c) : c;
}
#else
int bigdec__have_adx(void) { return 0; }
bigdec__limb bigdec__addmul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    return bigdec__addmul_1(r, a, n, b);
}
bigdec__limb bigdec__submul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    return bigdec__submul_1(r, a, n, b);
}
#endif
