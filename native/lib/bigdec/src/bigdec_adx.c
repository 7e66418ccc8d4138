/* bigdec_adx.c — the schoolbook rows with two carry chains (x86-64 BMI2 + ADX).
 *
 * A row r += a * b needs, per limb, the product's low half plus the previous product's
 * high half plus r[i], two carries. The C loop (bigdec_mpn.c, bigdec_mul.c) has one
 * carry flag, so the compiler serialises the two sums through adc; `mulx` leaves the
 * flags alone and `adox` / `adcx` carry in OF and CF separately, so the two sums run as
 * two independent chains (Intel's "New Instructions Supporting Large Integer
 * Arithmetic", 2012; GMP's mul_basecase for Broadwell and later). Eight limbs per pass,
 * counted by `lea` and `jrcxz`, which touch no flag, the first pass entered part-way so
 * that rows of any length run in the chains.
 *
 * A subtraction row r -= a * b has no flag-preserving subtract, so it runs as the
 * addition on the complement: with ~r = B^n - 1 - r, ~r + a b = c B^n + X gives
 * r - a b = -c B^n + ~X, and `not` touches no flag either.
 *
 * Measured per product of two n-limb numbers (TSC ticks, best of 7, AMD family 26,
 * gcc 12 -O2), against the two-row C loop and GMP 6.2.1's mpn_mul_n: 8 limbs 89
 * (C 110, GMP 77), 16 limbs 298 (373, 273), 24 limbs 626 (870, 633), with four limbs a
 * pass and r's limbs through a register; eight a pass, r read by adcx from memory: 16
 * limbs 282, 24 limbs 563, 32 limbs 995 (host-tuned GMP 6.3: 280, 538, 884); with the
 * n % 4 limbs in the chains too (they were a C loop): 16 limbs 267, 27 limbs 810 -> 727,
 * 31 limbs 1049 -> 936, 5 limbs 48 -> 40 (GMP 278, 672, 853, 38).
 *
 * a and r are addressed by base and displacement, the two pointers moved by `lea` each
 * pass, not by an index register: Intel cores split an indexed memory operand off a
 * three-operand `mulx` into a uop of its own (unlamination), a uop a limb. On an Intel
 * Xeon (family 6 model 167, gcc 12 -O2), products of two n-limb numbers in one process
 * with the host-tuned GMP 6.3's mpn_mul_n (best of 30 rounds, two runs), GMP's time over
 * ours, indexed -> not: 24 limbs 0.73-0.77 -> 0.88-0.90, 64 limbs 0.75-0.87 -> 0.86-0.91,
 * 256 limbs (Toom-3 over these rows) 0.65-0.67 -> 0.78-0.82; the divide-and-conquer
 * division against mpn_tdiv_qr, 2n by n limbs, 0.72-0.91 -> 0.83-0.99.
 *
 * Chosen at run time (cpuid leaf 7: BMI2 and ADX); elsewhere, and when built with
 * -DBIGDEC_NO_ASM (the tests check those paths so), the C rows run.
 */
#include "internal/bigdec_mpn.h"

#if BIGDEC__X86_ASM
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

/* One limb of a row: the product's low half plus the previous high half (OF chain)
 * plus r's limb (CF chain, read from memory: ~10% faster than through a register), for
 * an addition; for a subtraction r's limb is complemented in a register on the way in and
 * the sum on the way out. LO, HIN, HOUT alternate between two register sets. */
#define BIGDEC__ADD_STEP(OFF, LO, HIN, HOUT)                                                \
    "mulx " #OFF "(%[a]), %[" #LO "], %[" #HOUT "]\n\t"                                     \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "adcx " #OFF "(%[r]), %[" #LO "]\n\t"                                                    \
    "mov %[" #LO "], " #OFF "(%[r])\n\t"
#define BIGDEC__MUL_STEP(OFF, LO, HIN, HOUT) /* r's limb written, not read: one chain */  \
    "mulx " #OFF "(%[a]), %[" #LO "], %[" #HOUT "]\n\t"                                     \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "mov %[" #LO "], " #OFF "(%[r])\n\t"
#define BIGDEC__SUB_STEP(OFF, LO, HIN, HOUT)                                                \
    "mulx " #OFF "(%[a]), %[" #LO "], %[" #HOUT "]\n\t"                                     \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "mov " #OFF "(%[r]), %[" #HIN "]\n\t"                                                    \
    "not %[" #HIN "]\n\t"                                                                    \
    "adcx %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "not %[" #LO "]\n\t"                                                                     \
    "mov %[" #LO "], " #OFF "(%[r])\n\t"

/* r[0 .. n) += a[0 .. n) * b + cin (or the complemented form), n >= 1: eight limbs a
 * pass, the first pass entered at step (8 - n % 8) % 8 so that every limb is in the
 * chains (a C loop for the n % 8 limbs carried serially, ~6 cycles a limb, and cost more
 * than the rest of a short row). The entry is chosen by compares, which the same n makes
 * predictable; each entry clears CF and OF on its way in. cin goes in both high-half
 * registers, as odd steps read it from the other one. Returns the carry limb. */
#define BIGDEC__ENTER(K) "xor %k[lo0], %k[lo0]\n\t" "jmp 1" #K "f\n\t"
#define BIGDEC__ENTER2(K, K1) /* j is K or K1 */                                            \
    "cmp $" #K1 ", %[j]\n\t" "je 3f\n\t" BIGDEC__ENTER(K) "3:\n\t" BIGDEC__ENTER(K1)
#define BIGDEC__ADX_ROW(STEP)                                                               \
    uint64_t lo0, lo1, hi0 = cin, hi = cin;                                                 \
    size_t j = (8 - n % 8) % 8;                                                             \
    long i = -(long)(n + j); /* counts the passes' limbs up to 0, for jrcxz */              \
    /* a and r stand j limbs before the arrays, as the first pass enters at step j */      \
    uintptr_t ap = (uintptr_t)a - 8 * j, rp = (uintptr_t)r - 8 * j;                         \
    __asm__ volatile("cmp $4, %[j]\n\t"                                                     \
                     "jae 5f\n\t"                                                           \
                     "cmp $2, %[j]\n\t"                                                     \
                     "jae 4f\n\t" BIGDEC__ENTER2(0, 1) "4:\n\t" BIGDEC__ENTER2(2, 3)        \
                     "5:\n\t"                                                               \
                     "cmp $6, %[j]\n\t"                                                     \
                     "jae 4f\n\t" BIGDEC__ENTER2(4, 5) "4:\n\t" BIGDEC__ENTER2(6, 7)        \
                     "10:\n\t" STEP(0, lo0, hi, hi0)                                         \
                     "11:\n\t" STEP(8, lo1, hi0, hi)                                         \
                     "12:\n\t" STEP(16, lo0, hi, hi0)                                        \
                     "13:\n\t" STEP(24, lo1, hi0, hi)                                        \
                     "14:\n\t" STEP(32, lo0, hi, hi0)                                        \
                     "15:\n\t" STEP(40, lo1, hi0, hi)                                        \
                     "16:\n\t" STEP(48, lo0, hi, hi0)                                        \
                     "17:\n\t" STEP(56, lo1, hi0, hi)                                        \
                     "lea 8(%[i]), %[i]\n\t"                                                \
                     "lea 64(%[a]), %[a]\n\t"                                               \
                     "lea 64(%[r]), %[r]\n\t"                                               \
                     "jrcxz 2f\n\t"                                                         \
                     "jmp 10b\n"                                                            \
                     "2:\n\t"                                                               \
                     "mov $0, %k[lo0]\n\t" /* the carries into the top limb */              \
                     "adox %[lo0], %[hi]\n\t"                                               \
                     "adcx %[lo0], %[hi]\n\t"                                               \
                     : [lo0] "=&r"(lo0), [lo1] "=&r"(lo1), [hi0] "+&r"(hi0), [hi] "+&r"(hi), \
                       [i] "+&c"(i), [a] "+&r"(ap), [r] "+&r"(rp)                           \
                     : [j] "r"(j), "d"(b)                                                   \
                     : "cc", "memory");                                                     \
    return hi

static inline __attribute__((always_inline)) uint64_t
bigdec__addmul_row(uint64_t *r, const uint64_t *a, size_t n, uint64_t b, uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__ADD_STEP);
}

static inline __attribute__((always_inline)) uint64_t
bigdec__submul_row(uint64_t *r, const uint64_t *a, size_t n, uint64_t b, uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__SUB_STEP);
}

/* r[0 .. n) = a[0 .. n) * b + cin: the OF chain alone (CF stays 0 to the end) */
static inline __attribute__((always_inline)) uint64_t
bigdec__mul_row(uint64_t *r, const uint64_t *a, size_t n, uint64_t b, uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__MUL_STEP);
}

/* r[0 .. an+bn) = a * b by rows, all in this function (a call per row cost ~3 ticks
 * of a 16 x 16-limb product's ~300); the first row onto nothing, with one chain. */
void bigdec__mul_school_adx(bigdec__limb *r, const bigdec__limb *a, size_t an,
                            const bigdec__limb *b, size_t bn) {
    r[an] = bigdec__mul_row(r, a, an, b[0], 0);
    for (size_t j = 1; j < bn; j++)
        r[an + j] = bigdec__addmul_row(r + j, a, an, b[j], 0);
}

bigdec__limb bigdec__submul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    return n ? bigdec__submul_row(r, a, n, b, 0) : 0;
}
#else
typedef int bigdec__no_adx; /* ISO C wants something in every translation unit */
#endif
