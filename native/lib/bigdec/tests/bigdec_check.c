/* bigdec_check.c — bigdec against GMP's mpz_get_str, and its error statuses.
 *
 *   bigdec_check random SEED MINLIMBS MAXLIMBS COUNT
 *       COUNT numbers with limb counts spread log-uniformly over [MINLIMBS, MAXLIMBS];
 *       shapes: random limbs, random bits (sparse and dense), all ones, 10^k - 1, 10^k,
 *       10^k + 1 for k near the size, and a power of ten times a random limb; each
 *       also with a high zero limb, and through the signed form.
 *   bigdec_check edge MAXK
 *       0, single limbs (1, 9, 10, 2^63, 10^19 - 1, 10^19, 2^64 - 1, ...), 10^k - 1,
 *       10^k, 10^k + 1 for k = 0..MAXK, 2^(64k) - 1 and 2^(64k) for k up to MAXK / 19.
 *   bigdec_check boundary SEED MINDIGITS MAXDIGITS COUNT
 *       numbers whose digits change at a block edge of the conversion (19 * 2^j and
 *       3 * 19 * 2^j digits from the bottom, and four random multiples of 19 * 2^7):
 *       9s above the edge and 0...0c below, random digits above and 0...0c or 9...9
 *       below, at COUNT digit counts spread over [MINDIGITS, MAXDIGITS]: what a
 *       conversion that approximates (bigdec_srt.c) gets wrong by one unit.
 *   bigdec_check cold-random ... | cold-edge ... | cold-boundary ...
 *       the same with the power cache released before every conversion: each is the
 *       first to ask for its powers' inverses, so splits divide by the powers' odd
 *       parts except where a power is used BIGDEC__DIV_INV_SPLITS times (bigdec_dc.c).
 *   bigdec_check tree-random ... | tree-boundary ...
 *       the same with the scaled remainder tree taking fixed-width parts from 19 * 2^11
 *       digits (bigdec__srt_min_log) rather than 19 * 2^15, so that its block edges
 *       lie within sizes a test converts quickly.
 *   bigdec_check status
 *       NULL arguments, a buffer one byte short: the right status, the buffer untouched.
 *   bigdec_check mul SEED MINLIMBS MAXLIMBS COUNT
 *       the internal multiplication (schoolbook, Karatsuba, Toom-3, NTT by size) against
 *       GMP's mpn_mul: COUNT products, balanced and not, of random limbs, all-ones limbs
 *       (every carry and the largest values at 1, -1 and 2) and sparse limbs.
 *   bigdec_check mulmod SEED MINLOG MAXLOG COUNT
 *       the product modulo B^L - 1 (L = 2^log, the cyclic NTT that Barrett's division
 *       uses for q d) against mpn_mul folded by hand, with operands up to L limbs.
 *   bigdec_check divrem SEED MINLIMBS MAXLIMBS COUNT
 *       the divide-and-conquer division (its schoolbook below the threshold) against
 *       GMP's mpn_tdiv_qr: quotient and remainder, divisors of random, all-ones, sparse
 *       limbs and B^n / 2, quotients up to three divisors long, numerators with the
 *       largest and smallest remainders.
 *   bigdec_check invert SEED MINLIMBS MAXLIMBS COUNT
 *       the Newton inverse y of normalised d (random, all ones, B^n / 2, sparse) against
 *       GMP's exact floor(B^(2n) / d): |y - floor| <= INVERT_SLACK units (Barrett
 *       corrects what is left, so a worse inverse would only cost time); prints the
 *       largest deviation seen.
 *   bigdec_check shift SEED MINLIMBS MAXLIMBS COUNT
 *       the internal shifts (bigdec__lshift, bigdec__rshift) against GMP's mpn_lshift
 *       and mpn_rshift for every count 1..63 (0 is a copy) and every length from
 *       MINLIMBS to MAXLIMBS, COUNT random operands each: into another array, in place,
 *       and into the same array a few limbs up (left) or down (right), the overlaps
 *       the loops' direction allows.
 *   bigdec_check threads SEED MINLIMBS MAXLIMBS COUNT
 *       four threads at once, each converting COUNT numbers of random limbs (sizes
 *       spread log-uniformly, warm) against mpz_get_str: the power cache, its inverses
 *       and kept transforms, and the NTT's twiddle tables are built and grown while
 *       other threads read them (the tests run it under ThreadSanitizer too).
 *   bigdec_check cache LIMBS
 *       the heap bytes that the power cache holds after one cold conversion of a
 *       LIMBS-limb number (glibc's mallinfo2: the conversion's own scratch is freed by
 *       then): a deterministic figure for what a first conversion builds.
 *
 * One JSON line per mode ({"ok": true, "checked": N}) or per mismatch; exit 1 on any
 * mismatch. Sizes are also checked: bigdec_size() is exactly the digit count or one
 * more, and exactly right for 2^bits - 1.
 */
#include <gmp.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bigdec.h>

#include "internal/bigdec_conv.h" /* bigdec__mul, bigdec__divrem_dc, bigdec__srt_min_log */

static uint64_t rng_state;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A limb count spread log-uniformly over [lo, hi]. */
static size_t log_uniform(size_t lo, size_t hi) {
    double u = (double)(rng() >> 11) / 9007199254740992.0;
    size_t n = (size_t)((double)lo * __builtin_pow((double)hi / (double)lo, u) + 0.5);
    return n < lo ? lo : n > hi ? hi : n;
}

static long checked, failed;
/* "cold-" modes: the power cache is released before every conversion, so each one is
 * the first to ask for its powers' inverses (splits by the odd parts, bigdec_dc.c) */
static int cold;

/* Compare bigdec (unsigned and signed forms) with GMP for z >= 0, given as limbs with
 * `extra` high zero limbs appended. */
static void check(const mpz_t z, int extra, const char *shape) {
    size_t n = mpz_size(z);
    uint64_t *limbs = calloc(n + extra + 1, sizeof *limbs);
    mpz_export(limbs, NULL, -1, sizeof(uint64_t), 0, 0, z);
    size_t want_len = mpz_sizeinbase(z, 10) + 2;
    char *want = malloc(want_len + 1);
    mpz_get_str(want, 10, z);
    size_t wl = strlen(want);

    size_t cap = bigdec_size(limbs, n + extra);
    size_t bits = mpz_sgn(z) ? mpz_sizeinbase(z, 2) : 0;
    /* the size is digits + 1 or digits + 2 (one more digit than needed at most) */
    int size_ok = cap == wl + 1 || cap == wl + 2;
    char *got = malloc(cap + 2);
    memset(got, 'X', cap + 2);
    size_t len = 12345;
    if (cold)
        bigdec_cache_release();
    bigdec_status st = bigdec_write(got, cap, limbs, n + extra, &len);
    int ok = size_ok && st == BIGDEC_OK && len == wl && !strcmp(got, want) &&
             got[cap] == 'X' && got[cap + 1] == 'X'; /* nothing past cap */
    /* signed: -z */
    if (ok) {
        size_t scap = bigdec_size_signed(1, limbs, n + extra);
        char *sg = malloc(scap + 1);
        sg[scap] = 'X';
        size_t slen = 0;
        if (cold)
            bigdec_cache_release();
        st = bigdec_write_signed(sg, scap, 1, limbs, n + extra, &slen);
        mpz_t neg;
        mpz_init(neg);
        mpz_neg(neg, z);
        char *swant = mpz_get_str(NULL, 10, neg);
        ok = st == BIGDEC_OK && !strcmp(sg, swant) && slen == strlen(swant) && sg[scap] == 'X';
        free(swant);
        mpz_clear(neg);
        free(sg);
    }
    checked++;
    if (!ok) {
        failed++;
        size_t i = 0;
        while (i < wl && got[i] == want[i])
            i++;
        printf("{\"type\":\"mismatch\",\"shape\":\"%s\",\"limbs\":%zu,\"bits\":%zu,"
               "\"status\":%d,\"size\":%zu,\"want_len\":%zu,\"got_len\":%zu,"
               "\"first_diff\":%zu,\"want\":\"%.60s\"}\n",
               shape, n, bits, (int)st, cap, wl, len, i, want + (i > 20 ? i - 20 : 0));
    }
    free(limbs), free(want), free(got);
}

static void random_limbs(mpz_t z, size_t n, int mode) {
    uint64_t *l = malloc(n * sizeof *l);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = rng();
        if (mode == 1) /* sparse bits */
            v &= rng() & rng() & rng();
        else if (mode == 2) /* dense bits */
            v |= rng() | rng() | rng();
        l[i] = v;
    }
    if (n)
        l[n - 1] |= 1; /* keep the size: a nonzero top limb */
    mpz_import(z, n, -1, sizeof *l, 0, 0, l);
    free(l);
}

static int run_random(size_t lo, size_t hi, long count) {
    mpz_t z, p;
    mpz_inits(z, p, NULL);
    for (long c = 0; c < count; c++) {
        size_t n = log_uniform(lo, hi);
        int shape = (int)(c % 7);
        const char *name = "random";
        if (shape <= 2) {
            random_limbs(z, n, shape);
            name = shape == 0 ? "random" : shape == 1 ? "sparse" : "dense";
        } else if (shape == 3) {
            mpz_set_ui(z, 1);
            mpz_mul_2exp(z, z, 64 * n);
            mpz_sub_ui(z, z, 1);
            name = "all-ones";
        } else {
            double kd = (double)(64 * n) * 0.30102999566398 - (double)(rng() % 40);
            unsigned long k = kd < 0 ? 0 : (unsigned long)kd;
            mpz_ui_pow_ui(p, 10, k);
            if (shape == 4) { mpz_sub_ui(z, p, 1); name = "10^k-1"; }
            else if (shape == 5) { mpz_set(z, p); name = "10^k"; }
            else { mpz_mul_ui(z, p, rng() | 1); mpz_add_ui(z, z, rng() & 1); name = "10^k*m"; }
        }
        check(z, (int)(c & 1), name);
    }
    mpz_clears(z, p, NULL);
    printf("{\"type\":\"random\",\"checked\":%ld,\"ok\":%s}\n", checked, failed ? "false" : "true");
    return failed ? 1 : 0;
}

static int run_edge(unsigned long maxk) {
    mpz_t z, p;
    mpz_inits(z, p, NULL);
    static const uint64_t singles[] = {0, 1, 2, 9, 10, 11, 99, 100, 999999999, 1000000000,
        UINT64_C(9999999999999999999), UINT64_C(10000000000000000000),
        UINT64_C(10000000000000000001), UINT64_C(9223372036854775807),
        UINT64_C(9223372036854775808), UINT64_C(18446744073709551615),
        UINT64_C(1844674407370955161), UINT64_C(1000000000000000000)};
    for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
        mpz_import(z, 1, -1, 8, 0, 0, &singles[i]);
        check(z, 0, "single");
        check(z, 2, "single+zeros");
    }
    for (unsigned long k = 0; k <= maxk; k += (k < 2000 ? 1 : k / 200)) {
        mpz_ui_pow_ui(p, 10, k);
        mpz_sub_ui(z, p, 1);
        check(z, 0, "10^k-1");
        check(p, 0, "10^k");
        mpz_add_ui(z, p, 1);
        check(z, 0, "10^k+1");
    }
    for (unsigned long k = 1; k <= maxk / 19 + 1; k += (k < 200 ? 1 : k / 50)) {
        mpz_set_ui(z, 1);
        mpz_mul_2exp(z, z, 64 * k);
        check(z, 0, "2^64k");
        mpz_sub_ui(z, z, 1);
        check(z, 0, "2^64k-1");
    }
    mpz_clears(z, p, NULL);
    printf("{\"type\":\"edge\",\"checked\":%ld,\"ok\":%s}\n", checked, failed ? "false" : "true");
    return failed ? 1 : 0;
}

/* (top * 10^b + low) for the shapes of the boundary mode, digits in all */
static void boundary_shapes(mpz_t z, mpz_t t, mpz_t u, unsigned long digits, unsigned long b) {
    static const char *names[] = {"9s|0..0c", "9s|0..0", "rand|0..0c", "rand|9..9",
                                  "9s|0..0c+far", "rand-1|9..9c"};
    for (int shape = 0; shape < 6; shape++) {
        /* the part above the edge: all 9s or random digits (top digit nonzero) */
        if (shape == 0 || shape == 1 || shape == 4) {
            mpz_ui_pow_ui(t, 10, digits - b);
            mpz_sub_ui(t, t, 1);
        } else {
            mpz_ui_pow_ui(t, 10, digits - b - 1);
            mpz_mul_ui(t, t, 1 + rng() % 9);
            mpz_add_ui(t, t, rng() % 1000000007);
        }
        mpz_ui_pow_ui(u, 10, b);
        mpz_mul(z, t, u);
        switch (shape) {
        case 0: case 2: mpz_add_ui(z, z, 1 + rng() % 1000); break;     /* 0...0c */
        case 3: mpz_sub_ui(z, z, 1); break;                           /* ...9|9...9 */
        case 4: /* 0...0 then digits 25 below the edge: beyond one limb of fraction */
            if (b > 25) {
                mpz_ui_pow_ui(u, 10, b - 25);
                mpz_add(z, z, u);
            }
            break;
        case 5: mpz_sub_ui(z, z, 1 + rng() % 1000); break;            /* 9...9(10^4-c) */
        }
        check(z, 0, names[shape]);
    }
}

static int run_boundary(unsigned long lo, unsigned long hi, long count) {
    mpz_t z, t, u;
    mpz_inits(z, t, u, NULL);
    for (long i = 0; i < count; i++) {
        double f = count > 1 ? (double)i / (double)(count - 1) : 0.0;
        unsigned long digits = (unsigned long)((double)lo * __builtin_pow((double)hi / (double)lo, f));
        digits += rng() % 64;
        /* edges at 19 * 2^j * {1, 3} digits from the bottom (a tree's top edges and the
         * divisions' above it) and at four random leaf edges (multiples of 2432) */
        for (unsigned long j = 0; ((unsigned long)19 << j) < digits; j++)
            for (unsigned long m = 1; m <= 3; m += 2)
                if (((unsigned long)19 << j) * m < digits)
                    boundary_shapes(z, t, u, digits, ((unsigned long)19 << j) * m);
        for (int k = 0; k < 4 && digits > 2432; k++)
            boundary_shapes(z, t, u, digits, 2432 * (1 + rng() % ((digits - 1) / 2432)));
    }
    mpz_clears(z, t, u, NULL);
    printf("{\"type\":\"boundary\",\"checked\":%ld,\"ok\":%s}\n", checked,
           failed ? "false" : "true");
    return failed ? 1 : 0;
}

static int run_status(void) {
    int bad = 0;
    uint64_t x[3] = {UINT64_C(12345678901234567890), 7, 0};
    char buf[64];
    size_t len = 99;
    memset(buf, 'X', sizeof buf);
    size_t need = bigdec_size(x, 3);
    bad += need != 22; /* 7 * 2^64 + ...: 67 bits -> floor(67 log10 2) + 1 = 21, + NUL */
    bad += bigdec_write(buf, need - 1, x, 3, &len) != BIGDEC_ERR_SPACE;
    bad += bigdec_write(NULL, 64, x, 3, &len) != BIGDEC_ERR_ARG;
    bad += bigdec_write(buf, 64, NULL, 3, &len) != BIGDEC_ERR_ARG;
    bad += bigdec_write_signed(buf, bigdec_size_signed(1, x, 3) - 1, 1, x, 3, &len) !=
           BIGDEC_ERR_SPACE;
    bad += bigdec_size(NULL, 1) != 0;
    for (size_t i = 0; i < sizeof buf; i++)
        bad += buf[i] != 'X'; /* nothing written by any failed call */
    bad += len != 99;
    bad += bigdec_write(buf, 2, NULL, 0, &len) != BIGDEC_OK || strcmp(buf, "0") || len != 1;
    bad += bigdec_write_signed(buf, 3, 1, x + 2, 1, &len) != BIGDEC_OK || strcmp(buf, "0");
    bad += bigdec_digits_max(0) != 1 || bigdec_digits_max(64) != 20 ||
           bigdec_digits_max(63) != 19 || bigdec_digits_max(1000) != 302;
    bad += strcmp(bigdec_status_str(BIGDEC_ERR_SPACE), "buffer too small") != 0;
    printf("{\"type\":\"status\",\"ok\":%s,\"bad\":%d}\n", bad ? "false" : "true", bad);
    return bad ? 1 : 0;
}

/* Bytes in use from the heap and from glibc's mmap-ed large blocks. */
static size_t heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static int run_cache(size_t n) {
    uint64_t *x = malloc(n * sizeof *x);
    char *buf = malloc(20 * n + 2);
    if (!x || !buf)
        return 2;
    for (size_t i = 0; i < n; i++)
        x[i] = rng();
    x[n - 1] |= UINT64_C(1) << 63;
    size_t len;
    /* the NTT's twiddle tables, which outlive the cache, grown by a first conversion */
    bigdec_status st = bigdec_write(buf, 20 * n + 2, x, n, &len);
    bigdec_cache_release();
    size_t before = heap_in_use();
    if (st == BIGDEC_OK)
        st = bigdec_write(buf, 20 * n + 2, x, n, &len);
    size_t held = heap_in_use() - before;
    bigdec_cache_release();
    free(x), free(buf);
    printf("{\"type\":\"cache\",\"limbs\":%zu,\"held_bytes\":%zu,\"ntt_fast\":%d,\"ok\":%s}\n",
           n, held, bigdec__ntt_fast(), st == BIGDEC_OK ? "true" : "false");
    return st == BIGDEC_OK ? 0 : 1;
}

/* One operand of n limbs in shape 0 (random), 1 (all ones), 2 (sparse: a few set bits),
 * 3 (a run of all-ones limbs over random ones: |p(-1)| and carries at the thirds). */
static void fill_shape(bigdec__limb *x, size_t n, int shape) {
    for (size_t i = 0; i < n; i++)
        x[i] = shape == 1 ? ~(bigdec__limb)0 : shape == 2 ? 0 : rng();
    if (shape == 2)
        for (int j = 0; j < 4; j++)
            x[rng() % n] |= (bigdec__limb)1 << (rng() % 64);
    if (shape == 3)
        for (size_t i = rng() % n, e = i + rng() % (n - i + 1); i < e; i++)
            x[i] = ~(bigdec__limb)0;
    x[n - 1] |= 1; /* n significant limbs */
}

static int run_mul(size_t lo, size_t hi, long count) {
    for (long c = 0; c < count; c++) {
        size_t an = log_uniform(lo, hi);
        size_t bn = c % 3 == 0 ? 1 + rng() % an : an; /* a third unbalanced */
        bigdec__limb *a = malloc(an * 8), *b = malloc(bn * 8);
        bigdec__limb *r = malloc((an + bn) * 8), *want = malloc((an + bn) * 8);
        size_t cap = bigdec__mul_scratch(an);
        bigdec__arena ar = {malloc(cap * 8), 0, cap, 0};
        if (!a || !b || !r || !want || !ar.base) {
            printf("{\"type\":\"error\",\"message\":\"out of memory\"}\n");
            return 2;
        }
        fill_shape(a, an, (int)(c % 4));
        fill_shape(b, bn, (int)(c / 4 % 4));
        bigdec__mul(r, a, an, b, bn, &ar);
        mpn_mul((mp_limb_t *)want, (const mp_limb_t *)a, (mp_size_t)an,
                (const mp_limb_t *)b, (mp_size_t)bn);
        int ok = !ar.overflow && ar.used == 0 && memcmp(r, want, (an + bn) * 8) == 0;
        checked++;
        if (!ok && failed++ < 5)
            printf("{\"type\":\"mismatch\",\"op\":\"mul\",\"an\":%zu,\"bn\":%zu,"
                   "\"shapes\":[%ld,%ld],\"overflow\":%d}\n", an, bn, c % 4, c / 4 % 4,
                   ar.overflow);
        free(a), free(b), free(r), free(want), free(ar.base);
    }
    printf("{\"type\":\"mul\",\"checked\":%ld,\"ok\":%s}\n", checked,
           failed ? "false" : "true");
    return failed ? 1 : 0;
}

/* x (n <= 2L limbs) mod B^L - 1, in L limbs: the two halves added, the carry wrapped;
 * B^L - 1 itself becomes 0. */
static void fold_bnm1(bigdec__limb *r, const bigdec__limb *x, size_t n, size_t L) {
    memset(r, 0, L * 8);
    memcpy(r, x, (n < L ? n : L) * 8);
    bigdec__limb c = n > L ? bigdec__add(r, r, L, x + L, n - L) : 0;
    while (c)
        c = bigdec__add_1(r, r, L, c);
    size_t i = 0;
    while (i < L && r[i] == ~(bigdec__limb)0)
        i++;
    if (i == L)
        memset(r, 0, L * 8);
}

static int run_mulmod(unsigned lo, unsigned hi, long count) {
    for (long c = 0; c < count; c++) {
        unsigned log = lo + (unsigned)(rng() % (hi - lo + 1));
        size_t L = (size_t)1 << log;
        size_t an = L / 2 + 1 + rng() % (L / 2), bn = c % 2 ? an : 1 + rng() % an;
        bigdec__limb *a = malloc(an * 8), *b = malloc(bn * 8), *prod = malloc((an + bn) * 8);
        bigdec__limb *r = malloc(L * 8), *want = malloc(L * 8), *got = malloc(L * 8);
        size_t cap = 6 * L + 64;
        bigdec__arena ar = {malloc(cap * 8), 0, cap, 0};
        if (!a || !b || !prod || !r || !want || !got || !ar.base) {
            printf("{\"type\":\"error\",\"message\":\"out of memory\"}\n");
            return 2;
        }
        fill_shape(a, an, (int)(c % 4));
        fill_shape(b, bn, (int)(c / 4 % 4));
        int st = bigdec__mulmod_bnm1(r, a, an, b, bn, log, &ar);
        mpn_mul((mp_limb_t *)prod, (const mp_limb_t *)a, (mp_size_t)an, (const mp_limb_t *)b,
                (mp_size_t)bn);
        fold_bnm1(want, prod, an + bn, L);
        fold_bnm1(got, r, L, L);
        int ok = st == 0 && !ar.overflow && ar.used == 0 && memcmp(got, want, L * 8) == 0;
        checked++;
        if (!ok && failed++ < 5)
            printf("{\"type\":\"mismatch\",\"op\":\"mulmod\",\"log\":%u,\"an\":%zu,"
                   "\"bn\":%zu,\"status\":%d}\n", log, an, bn, st);
        free(a), free(b), free(prod), free(r), free(want), free(got), free(ar.base);
    }
    printf("{\"type\":\"mulmod\",\"checked\":%ld,\"ok\":%s}\n", checked,
           failed ? "false" : "true");
    return failed ? 1 : 0;
}

/* bigdec__invert's error bound in units of y (see its comment: a few units). */
/* One shift of a (n limbs, by s) into r at offset `at` limbs from a's array (0: in
 * place; NO_OVERLAP: another array), against GMP's on a copy. */
#define NO_OVERLAP ((ptrdiff_t)1 << 20)
static int shift_once(int left, const bigdec__limb *src, size_t n, unsigned s, ptrdiff_t at) {
    enum { PAD = 4 };
    bigdec__limb buf[2 * PAD + 80], out[80], want[80];
    bigdec__limb *a = buf + PAD, *r = at == NO_OVERLAP ? out : a + at;
    memcpy(a, src, n * 8);
    mp_limb_t wout = left ? mpn_lshift(want, src, (mp_size_t)n, s)
                          : mpn_rshift(want, src, (mp_size_t)n, s);
    bigdec__limb got = left ? bigdec__lshift(r, a, n, s) : bigdec__rshift(r, a, n, s);
    return got == wout && memcmp(r, want, n * 8) == 0;
}

static int run_shift(size_t lo, size_t hi, long count) {
    bigdec__limb src[80];
    if (hi > 64)
        return 2;
    for (size_t n = lo; n <= hi; n++)
        for (unsigned s = 1; s < 64; s++)
            for (long c = 0; c < count; c++) {
                fill_shape(src, n, (int)(c % 3));
                for (int left = 0; left <= 1; left++) {
                    /* left shifts run top down: r may lie at or above a; right, below */
                    static const ptrdiff_t ats[] = {NO_OVERLAP, 0, 1, 2, 3};
                    for (size_t k = 0; k < sizeof ats / sizeof *ats; k++) {
                        ptrdiff_t at = left || ats[k] == NO_OVERLAP ? ats[k] : -ats[k];
                        int ok = shift_once(left, src, n, s, at);
                        checked++;
                        if (!ok && failed++ < 5)
                            printf("{\"type\":\"mismatch\",\"op\":\"%s\",\"n\":%zu,"
                                   "\"s\":%u,\"at\":%td}\n",
                                   left ? "lshift" : "rshift", n, s, at);
                    }
                }
            }
    printf("{\"type\":\"shift\",\"checked\":%ld,\"ok\":%s}\n", checked,
           failed ? "false" : "true");
    return failed ? 1 : 0;
}

#define INVERT_SLACK 4

static int run_invert(size_t lo, size_t hi, long count) {
    mpz_t num, dz, yz, want, diff;
    mpz_inits(num, dz, yz, want, diff, NULL);
    long worst = 0;
    for (long c = 0; c < count; c++) {
        size_t n = log_uniform(lo, hi);
        bigdec__limb *d = malloc(n * 8), *y = malloc((n + 1) * 8);
        size_t cap = bigdec__invert_scratch(n);
        bigdec__arena ar = {malloc(cap * 8), 0, cap, 0};
        if (!d || !y || !ar.base) {
            printf("{\"type\":\"error\",\"message\":\"out of memory\"}\n");
            return 2;
        }
        int shape = (int)(c % 4);
        fill_shape(d, n, shape == 3 ? 2 : shape);
        if (shape == 2)
            memset(d, 0, n * 8); /* B^n / 2 */
        d[n - 1] |= (bigdec__limb)1 << 63;
        bigdec__invert(y, d, n, &ar);
        mpz_import(dz, n, -1, 8, 0, 0, d);
        mpz_import(yz, n + 1, -1, 8, 0, 0, y);
        mpz_set_ui(num, 1);
        mpz_mul_2exp(num, num, 128 * n);
        mpz_fdiv_q(want, num, dz);
        mpz_sub(diff, yz, want);
        long dev = mpz_cmpabs_ui(diff, INVERT_SLACK) > 0 ? INVERT_SLACK + 1 : mpz_get_si(diff);
        if (labs(dev) > labs(worst))
            worst = dev;
        int ok = !ar.overflow && ar.used == 0 && labs(dev) <= INVERT_SLACK;
        checked++;
        if (!ok && failed++ < 5)
            printf("{\"type\":\"mismatch\",\"op\":\"invert\",\"n\":%zu,\"shape\":%d,"
                   "\"deviation\":%ld}\n", n, shape, dev);
        free(d), free(y), free(ar.base);
    }
    mpz_clears(num, dz, yz, want, diff, NULL);
    printf("{\"type\":\"invert\",\"checked\":%ld,\"worst\":%ld,\"ok\":%s}\n", checked,
           worst, failed ? "false" : "true");
    return failed ? 1 : 0;
}

/* bigdec__divrem_dc against GMP's mpn_tdiv_qr: dn limbs of divisor (log-uniform in
 * [lo, hi]), normalised, of the shapes of fill_shape and B^dn / 2, quotients from 1 limb
 * to 3 dn (blocks of dn and a partial top block, on both sides of the divide-and-conquer
 * threshold), numerators of the same shapes and d times a random quotient plus d - 1 or
 * 0 (the largest and smallest remainders, where a quotient one off shows first). */
static int run_divrem(size_t lo, size_t hi, long count) {
    for (long c = 0; c < count; c++) {
        size_t dn = log_uniform(lo, hi);
        size_t qn = c % 4 == 0 ? 1 + rng() % 64 : 1 + rng() % (3 * dn), nn = dn + qn;
        bigdec__limb *d = malloc(dn * 8), *n = malloc(nn * 8), *q = malloc((qn + 1) * 8);
        bigdec__limb *wq = malloc((qn + 1) * 8), *wr = malloc(dn * 8);
        size_t cap = bigdec__divrem_dc_scratch(dn);
        bigdec__arena ar = {malloc(cap * 8), 0, cap, 0};
        if (!d || !n || !q || !wq || !wr || !ar.base) {
            printf("{\"type\":\"error\",\"message\":\"out of memory\"}\n");
            return 2;
        }
        int dshape = (int)(c % 5), nshape = (int)(c / 5 % 6);
        fill_shape(d, dn, dshape == 4 ? 2 : dshape);
        if (dshape == 4)
            memset(d, 0, dn * 8); /* B^dn / 2 */
        d[dn - 1] |= (bigdec__limb)1 << 63;
        if (nshape < 4) {
            fill_shape(n, nn, nshape);
        } else { /* d * t + (d - 1 or 0), t < B^qn */
            bigdec__limb *t = malloc(qn * 8);
            fill_shape(t, qn, 0);
            t[qn - 1] >>= 1; /* so that d t + d stays within nn limbs */
            mpn_mul((mp_limb_t *)n, (const mp_limb_t *)(qn >= dn ? t : d),
                    (mp_size_t)(qn >= dn ? qn : dn), (const mp_limb_t *)(qn >= dn ? d : t),
                    (mp_size_t)(qn >= dn ? dn : qn));
            if (nshape == 4) {
                mpn_add(n, n, nn, d, dn);
                mpn_sub_1(n, n, nn, 1);
            }
            free(t);
        }
        mpn_tdiv_qr((mp_limb_t *)wq, (mp_limb_t *)wr, 0, (const mp_limb_t *)n, (mp_size_t)nn,
                    (const mp_limb_t *)d, (mp_size_t)dn);
        bigdec__divrem_dc(q, n, nn, d, dn, &ar);
        int ok = !ar.overflow && ar.used == 0 && memcmp(q, wq, (qn + 1) * 8) == 0 &&
                 memcmp(n, wr, dn * 8) == 0;
        checked++;
        if (!ok && failed++ < 5)
            printf("{\"type\":\"mismatch\",\"op\":\"divrem\",\"dn\":%zu,\"qn\":%zu,"
                   "\"shapes\":[%d,%d],\"overflow\":%d}\n", dn, qn, dshape, nshape,
                   ar.overflow);
        free(d), free(n), free(q), free(wq), free(wr), free(ar.base);
    }
    printf("{\"type\":\"divrem\",\"checked\":%ld,\"ok\":%s}\n", checked,
           failed ? "false" : "true");
    return failed ? 1 : 0;
}

/* One thread of `threads`: its own generator, GMP's digits for every number. */
typedef struct {
    uint64_t seed;
    size_t lo, hi;
    long count, bad;
} thread_job;

static void *thread_run(void *arg) {
    thread_job *job = arg;
    uint64_t state = job->seed;
    mpz_t z;
    mpz_init(z);
    for (long c = 0; c < job->count; c++) {
        state += 0x9E3779B97F4A7C15ull; /* splitmix64, as rng() */
        uint64_t r = state;
        r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ull;
        r = (r ^ (r >> 27)) * 0x94D049BB133111EBull;
        r ^= r >> 31;
        double u = (double)(r >> 11) / 9007199254740992.0;
        size_t n = (size_t)((double)job->lo * __builtin_pow((double)job->hi / (double)job->lo, u));
        n = n < job->lo ? job->lo : n > job->hi ? job->hi : n;
        uint64_t *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            x[i] = r ^ (r >> 29);
        }
        x[n - 1] |= UINT64_C(1) << 63;
        mpz_import(z, n, -1, sizeof *x, 0, 0, x);
        char *want = mpz_get_str(NULL, 10, z);
        size_t cap = bigdec_size(x, n), len = 0;
        char *got = malloc(cap);
        job->bad += bigdec_write(got, cap, x, n, &len) != BIGDEC_OK || strcmp(got, want) != 0;
        free(got), free(want), free(x);
    }
    mpz_clear(z);
    return NULL;
}

static int run_threads(size_t lo, size_t hi, long count) {
    enum { T = 4 };
    pthread_t th[T];
    thread_job jobs[T];
    long bad = 0;
    for (int t = 0; t < T; t++) {
        jobs[t] = (thread_job){rng(), lo, hi, count, 0};
        if (pthread_create(&th[t], NULL, thread_run, &jobs[t]) != 0)
            return 2;
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        bad += jobs[t].bad;
    }
    printf("{\"type\":\"threads\",\"checked\":%ld,\"failed\":%ld,\"ok\":%s}\n",
           T * count, bad, bad ? "false" : "true");
    bigdec_cache_release();
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strncmp(argv[1], "cold-", 5)) {
        cold = 1;
        argv[1] += 5;
    }
    if (argc >= 2 && !strncmp(argv[1], "tree-", 5)) {
        bigdec__srt_min_log = 11; /* the tree from 38,912 digits, not 622,592 */
        argv[1] += 5;
    }
    if (argc == 6 && !strcmp(argv[1], "random")) {
        rng_state = strtoull(argv[2], NULL, 0);
        size_t lo = strtoull(argv[3], NULL, 0), hi = strtoull(argv[4], NULL, 0);
        if (lo < 1 || hi < lo) {
            fprintf(stderr, "bad limb range\n");
            return 2;
        }
        int rc = run_random(lo, hi, strtol(argv[5], NULL, 0));
        bigdec_cache_release(); /* and a leak checker sees everything freed */
        return rc;
    }
    /* SEED MINLIMBS MAXLIMBS COUNT on an internal routine (its smallest size) */
    static const struct {
        const char *name;
        size_t min;
        int (*run)(size_t, size_t, long);
    } limb_modes[] = {{"mul", 1, run_mul},
                      {"divrem", 2, run_divrem},
                      {"invert", 1, run_invert},
                      {"shift", 1, run_shift},
                      {"threads", 1, run_threads}};
    for (size_t i = 0; argc == 6 && i < sizeof limb_modes / sizeof *limb_modes; i++) {
        if (strcmp(argv[1], limb_modes[i].name))
            continue;
        rng_state = strtoull(argv[2], NULL, 0);
        size_t lo = strtoull(argv[3], NULL, 0), hi = strtoull(argv[4], NULL, 0);
        if (lo < limb_modes[i].min || hi < lo)
            return 2;
        return limb_modes[i].run(lo, hi, strtol(argv[5], NULL, 0));
    }
    if (argc == 6 && !strcmp(argv[1], "mulmod")) {
        rng_state = strtoull(argv[2], NULL, 0);
        unsigned lo = (unsigned)strtoul(argv[3], NULL, 0), hi = (unsigned)strtoul(argv[4], NULL, 0);
        if (lo < 2 || hi < lo || hi > 20)
            return 2;
        return run_mulmod(lo, hi, strtol(argv[5], NULL, 0));
    }
    if (argc == 6 && !strcmp(argv[1], "boundary")) {
        rng_state = strtoull(argv[2], NULL, 0);
        return run_boundary(strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0),
                            strtol(argv[5], NULL, 0));
    }
    if (argc == 3 && !strcmp(argv[1], "edge"))
        return run_edge(strtoul(argv[2], NULL, 0));
    if (argc == 2 && !strcmp(argv[1], "status"))
        return run_status();
    if (argc == 3 && !strcmp(argv[1], "cache"))
        return run_cache(strtoull(argv[2], NULL, 0));
    fprintf(stderr, "usage: %s random SEED MINLIMBS MAXLIMBS COUNT | edge MAXK | status | "
            "boundary SEED MINDIGITS MAXDIGITS COUNT | "
            "mul|mulmod|divrem|invert|shift|threads SEED LO HI COUNT | "
            "cache LIMBS\n", argv[0]);
    return 2;
}
