/* bigdec_bench.c — big integer to decimal: seed row S5's case, bigdec, and GMP.
 *
 * One iteration = one conversion of the same random `bits`-bit number (top bit set,
 * fixed seed) to a decimal string. Cases:
 *   seed_twodiv  CRuby r54102's scheme: peel 19-digit chunks by dividing the number by
 *                10^19 with the hardware 128/64 `div` (one per limb), then write each
 *                chunk with the two-division digit loop (2 `div` per digit);
 *   seed_fused   the same with the fused loop (1 `div` per digit): the seed's patch;
 *   bigdec       this project's library (reciprocal instead of `div`, pair table,
 *                divide and conquer above 64 limbs), its powers of ten cached (warm):
 *                after bigdec_cold has released the cache (the cases are interleaved),
 *                two untimed conversions first build what a converting program keeps
 *                (some of it is built only when a second conversion asks);
 *   bigdec_cold  the same after bigdec_cache_release: every call builds the powers and
 *                inverses it needs, as the first conversion of a process does;
 *   gmp          GMP's mpz_get_str into a caller buffer;
 *   flint        FLINT's fmpz_get_str into a caller buffer (FLINT 3's own subquadratic
 *                conversion), with --param flint=PATH to a libflint.so, which is dlopened
 *                (build_flint_peer.sh takes it from the python-flint wheel); the case
 *                exists only then;
 *   gmp@LABEL    mpz_get_str of another GMP build (one for this CPU), with
 *                --param gmp_builds=LABEL:PATH[,LABEL:PATH...]: each libgmp.so is
 *                dlopened beside Debian's with RTLD_DEEPBIND, so that its calls inside
 *                itself stay its own, and converts its own copy of the number. In one
 *                process with bigdec, rep by rep, as every case here: a comparison in
 *                which the machine's speed changing between processes cancels out.
 * The seed's measurement is --param bits=1000 with 10^6 iterations (8.686 s -> 6.392 s
 * in CRuby on Ivy Bridge). The size sweep runs bigdec and gmp for bits from 64 to
 * 3321929 (10^6 digits); the seed cases are quadratic with a large constant, so an
 * experiment selects them (--case) only for small sizes.
 *
 * Every case checks its last string against GMP's after each timed call (teardown,
 * outside the timing) and fails the run with an error line if they differ.
 */
#define _GNU_SOURCE /* realpath */
#include "cpulab_harness.h"

#include <dlfcn.h>
#include <gmp.h>
#include <limits.h>

#include <bigdec.h>

#include "big2str_seed.h"

#define CHUNK_DIGITS 19
#define TEN19 UINT64_C(10000000000000000000)

static struct {
    uint64_t bits;
    size_t n;             /* limbs */
    uint64_t *x;          /* the number */
    uint64_t *tmp;        /* scratch copy for the seed's in-place division */
    uint64_t *chunks;
    mpz_t z;
    char *want;           /* GMP's string */
    size_t want_len, cap; /* cap: bigdec_size, enough for every method */
} B;

typedef struct {
    const char *name;
    char *out;
    size_t len;
} bcase;

/* ---- the seed's scheme: hardware division by 10^19, then the digit loops ---- */

/* (hi:lo) / d with hi < d: the 128/64 `div` instruction, as CRuby's bigdivrem_single
 * (BDIGIT_DBL division) compiles to. */
static inline uint64_t div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem) {
#if defined(__x86_64__)
    uint64_t q, r;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d));
    *rem = r;
    return q;
#else
    unsigned __int128 n = ((unsigned __int128)hi << 64) | lo;
    *rem = (uint64_t)(n % d);
    return (uint64_t)(n / d);
#endif
}

static const struct big2str_struct seed_b2s = {10, CHUNK_DIGITS};

/* Convert B.x with hardware division and the given digit loops; returns the length. */
static size_t seed_convert(char *out, int fused) {
    size_t m = B.n, k = 0;
    memcpy(B.tmp, B.x, m * sizeof *B.tmp);
    while (m > 0 && B.tmp[m - 1] == 0)
        m--;
    while (m > 1 || (m == 1 && B.tmp[0] >= TEN19)) {
        uint64_t r = 0;
        for (size_t i = m; i-- > 0;)
            B.tmp[i] = div128(r, B.tmp[i], TEN19, &r);
        B.chunks[k++] = r;
        m -= B.tmp[m - 1] == 0;
    }
    /* the most significant chunk, variable width (m == 0 only when x == 0 or when the
     * last pass consumed everything: then the last remainder leads) */
    uint64_t top = m ? B.tmp[0] : k ? B.chunks[--k] : 0;
    char head[24];
    size_t len = fused ? big2str_fused_top(&seed_b2s, top, head, sizeof head)
                       : big2str_twodiv_top(&seed_b2s, top, head, sizeof head);
    memcpy(out, head + sizeof head - len, len);
    char *p = out + len;
    while (k > 0) {
        if (fused)
            big2str_fused_loop(&seed_b2s, B.chunks[--k], p, CHUNK_DIGITS);
        else
            big2str_twodiv_loop(&seed_b2s, B.chunks[--k], p, CHUNK_DIGITS);
        p += CHUNK_DIGITS;
    }
    *p = '\0';
    return (size_t)(p - out);
}

static uint64_t seed_twodiv_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        c->len = seed_convert(c->out, 0);
        clh_clobber();
    }
    return c->len;
}

static uint64_t seed_fused_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        c->len = seed_convert(c->out, 1);
        clh_clobber();
    }
    return c->len;
}

static uint64_t bigdec_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        bigdec_status st = bigdec_write(c->out, B.cap, B.x, B.n, &c->len);
        if (st != BIGDEC_OK)
            clh_fail("bigdec_write: %s", bigdec_status_str(st));
#ifdef BIGDEC_BENCH_BREAK /* tests only: a wrong digit the verification must catch */
        c->out[c->len / 2] ^= 1;
#endif
        clh_clobber();
    }
    return c->len;
}

/* Set by bigdec_cold, which leaves the cache as one cold conversion built it. */
static int cache_released;

static void bigdec_warm_up(void *arg) {
    bcase *c = arg;
    for (int i = 0; cache_released && i < 2; i++)
        if (bigdec_write(c->out, B.cap, B.x, B.n, &c->len) != BIGDEC_OK)
            clh_fail("bigdec_write failed while warming the cache");
    cache_released = 0;
}

static uint64_t bigdec_cold_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    cache_released = 1;
    for (uint64_t i = 0; i < iters; i++) {
        bigdec_cache_release();
        bigdec_status st = bigdec_write(c->out, B.cap, B.x, B.n, &c->len);
        if (st != BIGDEC_OK)
            clh_fail("bigdec_write: %s", bigdec_status_str(st));
        clh_clobber();
    }
    return c->len;
}

static uint64_t gmp_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        mpz_get_str(c->out, 10, B.z);
        clh_clobber();
    }
    c->len = strlen(c->out);
    return c->len;
}

/* FLINT's integer is one word (a small value, or a tagged pointer to an mpz): an fmpz_t
 * is fmpz[1] with fmpz a signed long; 0 is a valid, initialised zero. */
typedef long flint_fmpz;
static struct {
    void (*set_ui_array)(flint_fmpz *out, const unsigned long *in, long len);
    char *(*get_str)(char *str, int base, const flint_fmpz *f);
    flint_fmpz x;
} F;

static uint64_t flint_case(uint64_t iters, void *arg) {
    bcase *c = arg;
    for (uint64_t i = 0; i < iters; i++) {
        F.get_str(c->out, 10, &F.x);
        clh_clobber();
    }
    c->len = strlen(c->out);
    return c->len;
}

/* The other GMP builds: each's mpz_get_str and the number made by its own mpz_import
 * (an mpz_t is the same three words in every GMP 6; what it points to is the build's). */
#define MAX_GMP_BUILDS 4
typedef struct {
    bcase c;       /* first, so that verify() takes the build as its case */
    char name[40]; /* the case: gmp@LABEL */
    char *(*get_str)(char *str, int base, mpz_srcptr z);
    mpz_t z;
} gmp_build;
static gmp_build G[MAX_GMP_BUILDS];

static uint64_t gmp_build_case(uint64_t iters, void *arg) {
    gmp_build *g = arg;
    for (uint64_t i = 0; i < iters; i++) {
        g->get_str(g->c.out, 10, g->z);
        clh_clobber();
    }
    g->c.len = strlen(g->c.out);
    return g->c.len;
}

/* --param gmp_builds=LABEL:PATH,...: dlopen each (RTLD_DEEPBIND: a GMP calls its own
 * mpn functions through the PLT, which would otherwise bind to Debian's, loaded first)
 * and import the number into it. Returns how many. */
static int gmp_builds_load(const char *spec) {
    char *list = strdup(spec), *save = NULL;
    int n = 0;
    if (!list)
        clh_fail("out of memory");
    for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (!colon || colon == item || !colon[1])
            clh_usage_error("--param gmp_builds=%s: each item is LABEL:PATH", spec);
        if (n == MAX_GMP_BUILDS)
            clh_usage_error("--param gmp_builds: at most %d builds", MAX_GMP_BUILDS);
        *colon = 0;
        if (strlen(item) + 5 > sizeof G[n].name) /* "gmp@" and the NUL */
            clh_usage_error("--param gmp_builds: label %s is longer than %zu characters",
                            item, sizeof G[n].name - 5);
        const char *path = colon + 1;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
        if (!h)
            clh_fail("cannot load GMP build %s from %s: %s", item, path, dlerror());
        void (*init)(mpz_ptr) = (void (*)(mpz_ptr))dlsym(h, "__gmpz_init");
        void (*import)(mpz_ptr, size_t, int, size_t, int, size_t, const void *) =
            (void (*)(mpz_ptr, size_t, int, size_t, int, size_t, const void *))dlsym(
                h, "__gmpz_import");
        G[n].get_str = (char *(*)(char *, int, mpz_srcptr))dlsym(h, "__gmpz_get_str");
        const char *const *version = dlsym(h, "__gmp_version");
        if (!init || !import || !G[n].get_str)
            clh_fail("%s has no __gmpz_init/__gmpz_import/__gmpz_get_str: not GMP", path);
        snprintf(G[n].name, sizeof G[n].name, "gmp@%s", item);
        init(G[n].z);
        import(G[n].z, B.n, -1, sizeof(uint64_t), 0, 0, B.x);
        fprintf(stderr, "bigdec_bench: %s is GMP %s from %s\n", G[n].name,
                version ? *version : "?", path);
        n++;
    }
    free(list);
    return n;
}

/* dlopen the library at its real path: the wheel's libflint finds the GMP and MPFR
 * beside it through RPATH $ORIGIN, which is the folder of the path opened. */
static void flint_load(const char *path) {
    char real[PATH_MAX];
    if (!realpath(path, real))
        clh_fail("--param flint=%s: %s", path, strerror(errno));
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        clh_fail("cannot load FLINT from %s: %s", real, dlerror());
    F.set_ui_array = (void (*)(flint_fmpz *, const unsigned long *, long))dlsym(
        h, "fmpz_set_ui_array");
    F.get_str = (char *(*)(char *, int, const flint_fmpz *))dlsym(h, "fmpz_get_str");
    const char *version = dlsym(h, "flint_version"); /* char flint_version[] */
    if (!F.set_ui_array || !F.get_str)
        clh_fail("%s has no fmpz_set_ui_array/fmpz_get_str: not FLINT", real);
    F.set_ui_array(&F.x, (const unsigned long *)B.x, (long)B.n);
    fprintf(stderr, "bigdec_bench: flint %s from %s\n", version ? version : "?", real);
}

static void verify(void *arg) {
    bcase *c = arg;
    if (c->len != B.want_len || memcmp(c->out, B.want, B.want_len) != 0) {
        size_t i = 0;
        while (i < B.want_len && c->out[i] == B.want[i])
            i++;
        clh_fail("case %s: wrong digits for a %" PRIu64 "-bit number (length %zu, want %zu,"
                 " first difference at %zu)", c->name, B.bits, c->len, B.want_len, i);
    }
    memset(c->out, 'X', 4); /* the next call must write again */
    c->len = 0;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    clh_init(argc, argv);
    B.bits = clh_param_u64("bits", 1000);
    uint64_t seed = clh_param_u64("seed", 54102);
    if (B.bits == 0 || B.bits > (UINT64_C(1) << 32))
        clh_usage_error("--param bits=%" PRIu64 ": must be in 1 .. 2^32", B.bits);
    B.n = (size_t)((B.bits + 63) / 64);
    B.x = calloc(B.n, sizeof *B.x);
    B.tmp = calloc(B.n, sizeof *B.tmp);
    B.chunks = calloc(B.n + 2, sizeof *B.chunks);
    if (!B.x || !B.tmp || !B.chunks)
        clh_fail("out of memory for a %" PRIu64 "-bit number", B.bits);
    for (size_t i = 0; i < B.n; i++)
        B.x[i] = splitmix(&seed);
    unsigned top = (unsigned)(B.bits - 64 * (B.n - 1)); /* bits in the top limb, 1..64 */
    if (top < 64)
        B.x[B.n - 1] &= (UINT64_C(1) << top) - 1;
    B.x[B.n - 1] |= UINT64_C(1) << (top - 1);

    mpz_init(B.z);
    mpz_import(B.z, B.n, -1, sizeof(uint64_t), 0, 0, B.x);
    B.cap = bigdec_size(B.x, B.n);
    size_t gcap = mpz_sizeinbase(B.z, 10) + 2;
    if (gcap > B.cap)
        B.cap = gcap;
    B.want = malloc(B.cap);
    if (!B.want)
        clh_fail("out of memory");
    mpz_get_str(B.want, 10, B.z);
    B.want_len = strlen(B.want);

    static bcase cs[6] = {{"seed_twodiv", 0, 0}, {"seed_fused", 0, 0}, {"bigdec", 0, 0},
                          {"gmp", 0, 0}, {"bigdec_cold", 0, 0}, {"flint", 0, 0}};
    for (int i = 0; i < 6; i++)
        if (!(cs[i].out = malloc(B.cap + 24)))
            clh_fail("out of memory");
    static clh_case cases[6 + MAX_GMP_BUILDS] = {
        {.name = "seed_twodiv", .fn = seed_twodiv_case, .arg = &cs[0], .units_per_iter = 1,
         .unit = "conversion", .teardown = verify},
        {.name = "seed_fused", .fn = seed_fused_case, .arg = &cs[1], .units_per_iter = 1,
         .unit = "conversion", .teardown = verify},
        {.name = "bigdec", .fn = bigdec_case, .arg = &cs[2], .units_per_iter = 1,
         .unit = "conversion", .setup = bigdec_warm_up, .teardown = verify},
        {.name = "gmp", .fn = gmp_case, .arg = &cs[3], .units_per_iter = 1,
         .unit = "conversion", .teardown = verify},
        {.name = "bigdec_cold", .fn = bigdec_cold_case, .arg = &cs[4], .units_per_iter = 1,
         .unit = "conversion", .teardown = verify},
        {.name = "flint", .fn = flint_case, .arg = &cs[5], .units_per_iter = 1,
         .unit = "conversion", .teardown = verify},
    };
    size_t ncases = 6;
    const char *flint = clh_param_str("flint", "");
    if (*flint)
        flint_load(flint);
    else
        ncases--; /* no FLINT given: no flint case */
    int nbuilds = gmp_builds_load(clh_param_str("gmp_builds", ""));
    for (int k = 0; k < nbuilds; k++) {
        G[k].c.name = G[k].name;
        if (!(G[k].c.out = malloc(B.cap + 24)))
            clh_fail("out of memory");
        cases[ncases++] = (clh_case){.name = G[k].name, .fn = gmp_build_case, .arg = &G[k],
                                     .units_per_iter = 1, .unit = "conversion",
                                     .teardown = verify};
    }
    return clh_run(cases, ncases);
}
