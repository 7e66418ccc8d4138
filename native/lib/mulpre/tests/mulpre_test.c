/* mulpre differential test: every implementation and size against GMP's mpn_mul_n/mpn_sqr.
 *
 * Usage: mulpre_test [--ignore-cpuid] [COUNT [SEED]]
 *   COUNT random inputs per (implementation, n, op), default 20000; SEED, default 1.
 *   --ignore-cpuid: also run the BMI2/ADX implementations where cpuid denies them, through
 *   the internal tables (valgrind 3.19's virtual CPU executes adcx/adox but hides ADX
 *   from cpuid); the checked entry points still refuse them, so their aliasing and
 *   AUTO groups are skipped there.
 * Per (implementation, n) it checks, against GMP:
 *   - the unchecked per-size multiply and square (mulpre_mul_fn_get / mulpre_sqr_fn_get)
 *     and the multiply that streams x (mulpre_mul_stream_fn_get, group "mul_sx")
 *     on edge inputs (uniform limb patterns such as all-ones and zeros, single high
 *     bits, one hole in all-ones limbs) and on COUNT random inputs, a quarter of them
 *     made of extreme limbs (0, 1, 2^63, 2^64-1) so that carries run through every limb;
 *   - that nothing outside z[0 .. 2n-1] is written (guard limbs on both sides) and
 *     nothing past x and y is read (inputs end at the end of their malloc block, so
 *     ASan and valgrind see an over-read);
 *   - the checked entry points with every overlap of z with x and with y, and x == y;
 *   - the status codes: bad n, bad impl, NULL, and an implementation masked away with
 *     mulpre_cpu_features_limit (z untouched, fn_get NULL, fallback still correct).
 * Prints one "ok ..." or "FAIL ..." line per group and ends with
 * "mulpre_test: P passed, F failed"; exit status 1 if anything failed.
 */
#include <gmp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mulpre.h"
#include "internal/mulpre_impl.h" /* internal tables, for --ignore-cpuid */

#define MAXN MULPRE_MAX_LIMBS
#define GUARD 2
#define CANARY 0xC5C5C5C5C5C5C5C5ull

static uint64_t rng_state;

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t extreme_limb(void) {
    static const uint64_t v[] = {0, 1, UINT64_MAX, 1ull << 63, UINT64_MAX - 1};
    uint64_t r = rng();
    return r % 6 == 5 ? rng() : v[r % 6];
}

static void fill_random(uint64_t *a, size_t n, int extreme) {
    for (size_t i = 0; i < n; i++)
        a[i] = extreme ? extreme_limb() : rng();
}

static int passed, failed;

static void report(int ok, const char *what, mulpre_impl impl, size_t n, long cases) {
    if (ok)
        passed++;
    else
        failed++;
    printf("%s %s impl=%s n=%zu cases=%ld\n", ok ? "ok" : "FAIL", what,
           mulpre_impl_name(impl), n, cases);
}

static void print_limbs(const char *name, const uint64_t *a, size_t n) {
    fprintf(stderr, "  %s =", name);
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, " %016" PRIx64, a[i]);
    fprintf(stderr, "\n");
}

/* Buffers for one size: inputs end exactly at the end of their allocation. */
typedef struct {
    size_t n;
    uint64_t *x, *y;               /* n limbs each, malloc'd exactly */
    uint64_t zbuf[2 * MAXN + 2 * GUARD];
    uint64_t want[2 * MAXN];
} bufs;

static int check_one(bufs *b, mulpre_mul_fn mul, mulpre_sqr_fn sqr) {
    size_t n = b->n;
    uint64_t *z = b->zbuf + GUARD;
    for (size_t i = 0; i < 2 * n + 2 * GUARD; i++)
        b->zbuf[i] = CANARY;
    if (sqr) {
        sqr(z, b->x);
        mpn_sqr((mp_limb_t *)b->want, (const mp_limb_t *)b->x, (mp_size_t)n);
    } else {
        mul(z, b->x, b->y);
        mpn_mul_n((mp_limb_t *)b->want, (const mp_limb_t *)b->x, (const mp_limb_t *)b->y,
                  (mp_size_t)n);
    }
    int ok = memcmp(z, b->want, 2 * n * sizeof *z) == 0;
    for (size_t i = 0; i < GUARD; i++)
        ok &= b->zbuf[i] == CANARY && z[2 * n + i] == CANARY;
    static int printed;
    if (!ok && printed++ < 4) { /* the first few are enough to debug */
        fprintf(stderr, "mismatch (%s, n=%zu):\n", sqr ? "sqr" : "mul", n);
        print_limbs("x", b->x, n);
        if (!sqr)
            print_limbs("y", b->y, n);
        print_limbs("got ", z, 2 * n);
        print_limbs("want", b->want, 2 * n);
    }
    return ok;
}

/* Edge inputs; returns the number of cases checked, -1 on a mismatch. */
static long run_edges(bufs *b, mulpre_mul_fn mul, mulpre_sqr_fn sqr) {
    static const uint64_t pat[] = {
        0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, (1ull << 63) + 1,
        0x00000000FFFFFFFFull, 0xFFFFFFFF00000000ull, 0x5555555555555555ull,
        0xAAAAAAAAAAAAAAAAull,
    };
    size_t np = sizeof pat / sizeof pat[0], n = b->n;
    long cases = 0;
    int ok = 1;
    /* Uniform limbs: x all p, y all q (all-ones times all-ones is the largest product). */
    for (size_t p = 0; p < np; p++)
        for (size_t q = 0; q < np; q++) {
            for (size_t i = 0; i < n; i++) {
                b->x[i] = pat[p];
                b->y[i] = pat[q];
            }
            ok &= check_one(b, mul, sqr);
            cases++;
        }
    /* One special limb k in x (a single high bit, 1, all-ones; or a hole of 0 or 1 in
     * all-ones), against all-ones and against random y. */
    static const uint64_t single[] = {1ull << 63, 1, UINT64_MAX};
    for (size_t k = 0; k < n; k++) {
        for (size_t s = 0; s < 3; s++)
            for (int yr = 0; yr < 2; yr++) {
                memset(b->x, 0, n * sizeof *b->x);
                b->x[k] = single[s];
                for (size_t i = 0; i < n; i++)
                    b->y[i] = yr ? rng() : UINT64_MAX;
                ok &= check_one(b, mul, sqr);
                cases++;
            }
        for (uint64_t hole = 0; hole < 2; hole++) {
            for (size_t i = 0; i < n; i++)
                b->x[i] = b->y[i] = UINT64_MAX;
            b->x[k] = hole;
            ok &= check_one(b, mul, sqr);
            cases++;
        }
    }
    return ok ? cases : -1;
}

static long run_random(bufs *b, mulpre_mul_fn mul, mulpre_sqr_fn sqr, long count) {
    for (long c = 0; c < count; c++) {
        int extreme = (c & 3) == 3;
        fill_random(b->x, b->n, extreme);
        fill_random(b->y, b->n, extreme);
        if (!check_one(b, mul, sqr))
            return -1;
    }
    return count;
}

/* Checked entry points with z overlapping x or y at every limb offset. */
static int run_aliasing(mulpre_impl impl, size_t n) {
    uint64_t buf[6 * MAXN], xs[MAXN], ys[MAXN], want[2 * MAXN], wsq[2 * MAXN];
    int ok = 1;
    for (int which = 0; which < 3; which++) /* 0: z over x, 1: z over y, 2: sqr */
        for (size_t off = 0; off < 3 * n; off++) {
            /* source at buf + 2n; z at buf + off: z overlaps it for off in (0, 3n). */
            fill_random(buf, 6 * MAXN, 0);
            uint64_t *src = buf + 2 * n, *z = buf + off;
            fill_random(ys, n, 0);
            memcpy(xs, src, n * sizeof *xs);
            mulpre_status st;
            if (which == 2) {
                mpn_sqr((mp_limb_t *)wsq, (const mp_limb_t *)xs, (mp_size_t)n);
                st = mulpre_sqr_with(impl, z, src, n);
                ok &= st == MULPRE_OK && memcmp(z, wsq, 2 * n * 8) == 0;
            } else {
                const uint64_t *x = which == 0 ? src : ys, *y = which == 0 ? ys : src;
                mpn_mul_n((mp_limb_t *)want, (const mp_limb_t *)(which == 0 ? xs : ys),
                          (const mp_limb_t *)(which == 0 ? ys : xs), (mp_size_t)n);
                st = mulpre_mul_with(impl, z, x, y, n);
                ok &= st == MULPRE_OK && memcmp(z, want, 2 * n * 8) == 0;
            }
        }
    /* x == y == z's low half: in-place squaring through the multiply. */
    fill_random(buf, 2 * n, 0);
    memcpy(xs, buf, n * sizeof *xs);
    mpn_sqr((mp_limb_t *)wsq, (const mp_limb_t *)xs, (mp_size_t)n);
    ok &= mulpre_mul_with(impl, buf, buf, buf, n) == MULPRE_OK &&
          memcmp(buf, wsq, 2 * n * 8) == 0;
    /* x == y, z separate, through the unchecked function. */
    uint64_t z[2 * MAXN];
    mulpre_mul_fn_get(impl, n)(z, xs, xs);
    ok &= memcmp(z, wsq, 2 * n * 8) == 0;
    return ok;
}

/* Status codes; with the features masked away the fast paths must refuse cleanly. */
static void run_status(void) {
    uint64_t x[MAXN + 1] = {3}, y[MAXN + 1] = {5}, z[2 * MAXN + 2];
    int ok = 1;
    memset(z, 0x77, sizeof z);
    ok &= mulpre_mul(z, x, y, 0) == MULPRE_ERR_SIZE;
    ok &= mulpre_mul(z, x, y, MAXN + 1) == MULPRE_ERR_SIZE;
    ok &= mulpre_sqr(z, x, 0) == MULPRE_ERR_SIZE;
    ok &= mulpre_mul_with((mulpre_impl)99, z, x, y, 1) == MULPRE_ERR_IMPL;
    ok &= mulpre_mul_with((mulpre_impl)-1, z, x, y, 1) == MULPRE_ERR_IMPL;
    ok &= mulpre_mul(NULL, x, y, 1) == MULPRE_ERR_NULL;
    ok &= mulpre_mul(z, NULL, y, 1) == MULPRE_ERR_NULL;
    ok &= mulpre_mul(z, x, NULL, 1) == MULPRE_ERR_NULL;
    ok &= mulpre_sqr(z, NULL, 1) == MULPRE_ERR_NULL;
    ok &= mulpre_mul_fn_get(MULPRE_IMPL_PORTABLE, 0) == NULL;
    ok &= mulpre_mul_fn_get(MULPRE_IMPL_PORTABLE, MAXN + 1) == NULL;
    ok &= mulpre_sqr_fn_get((mulpre_impl)7, 1) == NULL;
    ok &= mulpre_mul_stream_fn_get(MULPRE_IMPL_PORTABLE, 4, (mulpre_stream)2) == NULL;
    ok &= mulpre_mul_stream_fn_get(MULPRE_IMPL_PORTABLE, 0, MULPRE_STREAM_X) == NULL;
    ok &= mulpre_mul_stream_fn_get(MULPRE_IMPL_PORTABLE, 4, MULPRE_STREAM_Y) ==
          mulpre_mul_fn_get(MULPRE_IMPL_PORTABLE, 4);
    ok &= mulpre_mul_stream_fn_get(MULPRE_IMPL_PORTABLE, 4, MULPRE_STREAM_X) !=
          mulpre_mul_fn_get(MULPRE_IMPL_PORTABLE, 4);
    for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
        ok &= z[i] == 0x7777777777777777ull;
    ok &= mulpre_impl_best() != MULPRE_IMPL_AUTO;
    report(ok, "status", MULPRE_IMPL_AUTO, 0, 17);

    /* No BMI2/ADX: only the portable path remains, and AUTO still answers correctly. */
    mulpre_cpu_features_limit(0);
    ok = mulpre_cpu_features() == 0 && mulpre_impl_best() == MULPRE_IMPL_PORTABLE;
    ok &= !mulpre_impl_available(MULPRE_IMPL_ASM) && !mulpre_impl_available(MULPRE_IMPL_INTRIN);
    ok &= mulpre_mul_with(MULPRE_IMPL_ASM, z, x, y, 1) == MULPRE_ERR_UNAVAILABLE;
    ok &= mulpre_sqr_with(MULPRE_IMPL_INTRIN, z, x, 1) == MULPRE_ERR_UNAVAILABLE;
    ok &= mulpre_mul_fn_get(MULPRE_IMPL_ASM, 4) == NULL;
    ok &= mulpre_mul_stream_fn_get(MULPRE_IMPL_ASM, 4, MULPRE_STREAM_X) == NULL;
    ok &= z[0] == 0x7777777777777777ull;
    ok &= mulpre_mul(z, x, y, 1) == MULPRE_OK && z[0] == 15 && z[1] == 0;
    ok &= mulpre_sqr(z, y, 1) == MULPRE_OK && z[0] == 25 && z[1] == 0;
    mulpre_cpu_features_limit(~0u);
    report(ok, "masked", MULPRE_IMPL_AUTO, 0, 10);
}

/* The per-size functions of impl (the multiply streaming y, the one streaming x, the
 * squaring), bypassing cpuid when asked (NULL: not built here). */
static void get_fns(mulpre_impl impl, size_t n, int ignore_cpuid, mulpre_mul_fn *mul,
                    mulpre_mul_fn *mul_sx, mulpre_sqr_fn *sqr) {
    *mul = mulpre_mul_fn_get(impl, n);
    *mul_sx = mulpre_mul_stream_fn_get(impl, n, MULPRE_STREAM_X);
    *sqr = mulpre_sqr_fn_get(impl, n);
    if (*mul || !ignore_cpuid)
        return;
#if MULPRE_HAVE_INTRIN
    if (impl == MULPRE_IMPL_INTRIN) {
        *mul = mulpre_intrin_mul[n];
        *mul_sx = mulpre_intrin_mul_sx[n];
        *sqr = mulpre_intrin_sqr[n];
    }
#endif
#if MULPRE_HAVE_ASM
#define MULPRE_ASM_CASE(k)                                                             \
    if (impl == MULPRE_IMPL_ASM && n == k) {                                           \
        *mul = mulpre_asm_mul_##k;                                                     \
        *mul_sx = mulpre_asm_mul_sx_##k;                                               \
        *sqr = mulpre_asm_sqr_##k;                                                     \
    }
    MULPRE_FOR_EACH_N(MULPRE_ASM_CASE)
#undef MULPRE_ASM_CASE
#endif
}

int main(int argc, char **argv) {
    int ignore_cpuid = argc > 1 && strcmp(argv[1], "--ignore-cpuid") == 0;
    argc -= ignore_cpuid;
    argv += ignore_cpuid;
    long count = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    if (count < 0) {
        fprintf(stderr, "mulpre_test: COUNT must be >= 0\n");
        return 2;
    }
    printf("features bmi2=%d adx=%d best=%s\n", !!(mulpre_cpu_features() & MULPRE_CPU_BMI2),
           !!(mulpre_cpu_features() & MULPRE_CPU_ADX), mulpre_impl_name(mulpre_impl_best()));
    run_status();
    static const mulpre_impl impls[] = {MULPRE_IMPL_PORTABLE, MULPRE_IMPL_INTRIN,
                                        MULPRE_IMPL_ASM, MULPRE_IMPL_AUTO};
    for (size_t k = 0; k < sizeof impls / sizeof impls[0]; k++) {
        mulpre_impl impl = impls[k];
        int available = mulpre_impl_available(impl);
        mulpre_mul_fn mul, mul_sx;
        mulpre_sqr_fn sqr;
        get_fns(impl, 1, ignore_cpuid, &mul, &mul_sx, &sqr);
        if (!mul) {
            printf("skip impl=%s (not available on this CPU)\n", mulpre_impl_name(impl));
            continue;
        }
        if (!available)
            printf("forced impl=%s (cpuid denies it; --ignore-cpuid)\n",
                   mulpre_impl_name(impl));
        for (size_t n = 1; n <= MAXN; n++) {
            bufs b = {.n = n, .x = malloc(n * 8), .y = malloc(n * 8)};
            if (!b.x || !b.y) {
                fprintf(stderr, "mulpre_test: out of memory\n");
                return 2;
            }
            get_fns(impl, n, ignore_cpuid, &mul, &mul_sx, &sqr);
            long e = run_edges(&b, mul, NULL);
            long r = e < 0 ? -1 : run_random(&b, mul, NULL, count);
            report(e >= 0 && r >= 0, "mul", impl, n, e + r);
            e = run_edges(&b, mul_sx, NULL);
            r = e < 0 ? -1 : run_random(&b, mul_sx, NULL, count);
            report(e >= 0 && r >= 0, "mul_sx", impl, n, e + r);
            e = run_edges(&b, NULL, sqr);
            r = e < 0 ? -1 : run_random(&b, NULL, sqr, count);
            report(e >= 0 && r >= 0, "sqr", impl, n, e + r);
            if (available)
                report(run_aliasing(impl, n), "alias", impl, n, 9 * (long)n + 2);
            free(b.x);
            free(b.y);
        }
    }
    printf("mulpre_test: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
