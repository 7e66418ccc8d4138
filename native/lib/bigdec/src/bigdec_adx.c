/* bigdec_adx.c — the schoolbook rows with two carry chains (x86-64 BMI2 + ADX).
 *
 * A row r += a * b needs, per limb, the product's low half plus the previous product's
 * high half plus r[i], two carries. The C loop (bigdec_mpn.c, bigdec_mul.c) has one
 * carry flag, so the compiler serialises the two sums through adc; `mulx` leaves the
 * flags alone and `adox` / `adcx` carry in OF and CF separately, so the two sums run as
 * two independent chains (Intel's "New Instructions Supporting Large Integer
 * Arithmetic", 2012; GMP's mul_basecase for Broadwell and later). Eight limbs per pass,
 * counted by `lea` and `jrcxz`, which touch no flag.
 *
 * A subtraction row r -= a * b has no flag-preserving subtract, so it runs as the
 * addition on the complement: with ~r = B^n - 1 - r, ~r + a b = c B^n + X gives
 * r - a b = -c B^n + ~X, and `not` touches no flag either.
 *
 * Measured per product of two n-limb numbers (TSC ticks, best of 7, AMD family 26,
 * gcc 12 -O2), against the two-row C loop and GMP 6.2.1's mpn_mul_n: 8 limbs 89
 * (C 110, GMP 77), 16 limbs 298 (373, 273), 24 limbs 626 (870, 633), with four limbs a
 * pass and r's limbs through a register; eight a pass, r read by adcx from memory: 16
 * limbs 282, 24 limbs 563, 32 limbs 995 (host-tuned GMP 6.3: 280, 538, 884).
 *
 * Chosen at run time (cpuid leaf 7: BMI2 and ADX); elsewhere, and when built with
 * -DBIGDEC_NO_ASM (the tests check those paths so), the C rows run.
 */
#include "internal/bigdec_mpn.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(BIGDEC_NO_ASM)
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
    "mulx " #OFF "(%[a],%[i],8), %[" #LO "], %[" #HOUT "]\n\t"                              \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "adcx " #OFF "(%[r],%[i],8), %[" #LO "]\n\t"                                             \
    "mov %[" #LO "], " #OFF "(%[r],%[i],8)\n\t"
#define BIGDEC__MUL_STEP(OFF, LO, HIN, HOUT) /* r's limb written, not read: one chain */  \
    "mulx " #OFF "(%[a],%[i],8), %[" #LO "], %[" #HOUT "]\n\t"                              \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "mov %[" #LO "], " #OFF "(%[r],%[i],8)\n\t"
#define BIGDEC__SUB_STEP(OFF, LO, HIN, HOUT)                                                \
    "mulx " #OFF "(%[a],%[i],8), %[" #LO "], %[" #HOUT "]\n\t"                              \
    "adox %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "mov " #OFF "(%[r],%[i],8), %[" #HIN "]\n\t"                                             \
    "not %[" #HIN "]\n\t"                                                                    \
    "adcx %[" #HIN "], %[" #LO "]\n\t"                                                       \
    "not %[" #LO "]\n\t"                                                                     \
    "mov %[" #LO "], " #OFF "(%[r],%[i],8)\n\t"

/* r[0 .. n) += a[0 .. n) * b + cin (or the complemented form), n a positive multiple of
 * 4: eight limbs a pass, entered halfway when n / 4 is odd; the carry limb. */
#define BIGDEC__ADX_ROW(STEP)                                                               \
    uint64_t lo0, lo1, hi0, hi = cin;                                                       \
    long i = -(long)n;                                                                      \
    a += n, r += n;                                                                         \
    if (n % 8)                                                                              \
        i -= 4; /* the second half's offsets then address the first four limbs */          \
    __asm__ volatile("test $4, %[n]\n\t" /* and CF = OF = 0 */                              \
                     "jz 1f\n\t"                                                            \
                     "jmp 3f\n"                                                             \
                     "1:\n\t" STEP(0, lo0, hi, hi0) STEP(8, lo1, hi0, hi)                    \
                         STEP(16, lo0, hi, hi0) STEP(24, lo1, hi0, hi)                       \
                     "3:\n\t" STEP(32, lo0, hi, hi0) STEP(40, lo1, hi0, hi)                  \
                         STEP(48, lo0, hi, hi0) STEP(56, lo1, hi0, hi)                       \
                     "lea 8(%[i]), %[i]\n\t"                                                \
                     "jrcxz 2f\n\t"                                                         \
                     "jmp 1b\n"                                                             \
                     "2:\n\t"                                                               \
                     "mov $0, %k[lo0]\n\t" /* the carries into the top limb */              \
                     "adox %[lo0], %[hi]\n\t"                                               \
                     "adcx %[lo0], %[hi]\n\t"                                               \
                     : [lo0] "=&r"(lo0), [lo1] "=&r"(lo1), [hi0] "=&r"(hi0), [hi] "+&r"(hi), \
                       [i] "+&c"(i)                                                         \
                     : [a] "r"(a), [r] "r"(r), [n] "r"(n), "d"(b)                           \
                     : "cc", "memory");                                                     \
    return hi

static inline __attribute__((always_inline)) uint64_t bigdec__addmul4(uint64_t *r, const uint64_t *a, size_t n, uint64_t b,
                                uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__ADD_STEP);
}

static inline __attribute__((always_inline)) uint64_t bigdec__submul4(uint64_t *r, const uint64_t *a, size_t n, uint64_t b,
                                uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__SUB_STEP);
}

/* r[0 .. n) = a[0 .. n) * b + cin: the OF chain alone (CF stays 0 to the end) */
static inline __attribute__((always_inline)) uint64_t bigdec__mul4(uint64_t *r, const uint64_t *a, size_t n, uint64_t b,
                                uint64_t cin) {
    BIGDEC__ADX_ROW(BIGDEC__MUL_STEP);
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

/* r[0 .. an+bn) = a * b by rows, all in this function (a call per row cost ~3 ticks
 * of a 16 x 16-limb product's ~300); the first row onto nothing, with one chain. */
void bigdec__mul_school_adx(bigdec__limb *r, const bigdec__limb *a, size_t an,
                            const bigdec__limb *b, size_t bn) {
    size_t h = an % 4;
    bigdec__limb c = 0, b0 = b[0];
    for (size_t i = 0; i < h; i++) {
        bigdec__dlimb t = (bigdec__dlimb)a[i] * b0 + c;
        r[i] = (bigdec__limb)t, c = (bigdec__limb)(t >> 64);
    }
    r[an] = an > h ? bigdec__mul4(r + h, a + h, an - h, b0, c) : c;
    for (size_t j = 1; j < bn; j++) {
        bigdec__limb c = 0, bj = b[j], *rj = r + j;
        for (size_t i = 0; i < h; i++) {
            bigdec__dlimb t = (bigdec__dlimb)a[i] * bj + rj[i] + c;
            rj[i] = (bigdec__limb)t, c = (bigdec__limb)(t >> 64);
        }
        r[an + j] = an > h ? bigdec__addmul4(rj + h, a + h, an - h, bj, c) : c;
    }
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
void bigdec__mul_school_adx(bigdec__limb *r, const bigdec__limb *a, size_t an,
                            const bigdec__limb *b, size_t bn) {
    r[an] = bigdec__mul_1(r, a, an, b[0]);
    for (size_t j = 1; j < bn; j++)
        r[an + j] = bigdec__addmul_1(r + j, a, an, b[j]);
}
bigdec__limb bigdec__addmul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    return bigdec__addmul_1(r, a, n, b);
}
bigdec__limb bigdec__submul_1_adx(bigdec__limb *r, const bigdec__limb *a, size_t n,
                                  bigdec__limb b) {
    return bigdec__submul_1(r, a, n, b);
}
#endif
