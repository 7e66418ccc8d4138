/* mulpre benchmark: ns per z[2N] = x[N] * y[N] call, every implementation beside GMP.
 *
 * Cases (unit "call", one call per iteration), for each N of --param n (default 1-9):
 *   portable/N=k   mulpre's C path (unsigned __int128), built by this kernel's compiler
 *   intrin/N=k     mulpre's _mulx_u64/_addcarryx_u64 path      (needs BMI2+ADX)
 *   asm/N=k        mulpre's generated mulx/adox/adcx assembly   (needs BMI2+ADX); its
 *                  rows stream y (mulpre_mul_fn_get)
 *   asm_sx/N=k     the same assembly with its rows over x (mulpre_mul_stream_fn_get,
 *                  MULPRE_STREAM_X): the order a call site chaining x chooses
 *   asm_sqr/N=k    its dedicated squaring, z = x^2
 *   mulpre_mul/N=k the checked, dispatched public entry point (argument checks included)
 *   gmp_mul_n/N=k  mpn_mul_n of the GMP this kernel links (Debian's: generic x86-64)
 *   gmp_sqr/N=k    mpn_sqr of that GMP
 *   mulx_bound/N=k the machine's bound: N^2 independent mulx per call (the form the asm
 *                  issues, `mulx r, r, [mem]`), no adds, no call; its time per call is N^2
 *                  mulx at this core's measured mulx throughput   (needs BMI2)
 *   mix_bound/N=k  N^2 times the asm's triple `mulx; adox; adcx` (N^2 mulx, 2N^2 adds, the
 *                  asm has 2N^2 - 1), independent but for their flags: what the mix costs
 *                  where mulx and the adds share ports                (needs BMI2+ADX)
 * and, for peers loaded at run time (each into its own link namespace with dlmopen, so
 * two libgmp.so.10 never share symbols):
 *   --param gmp_peers=LABEL:PATH,...     gmp_mul_n@LABEL/N=k, gmp_sqr@LABEL/N=k
 *       (a host-tuned or fat GMP from build_gmp_peer.sh, the libgmp inside a wheel)
 *   --param mulpre_peers=LABEL:PATH,...  portable@LABEL/N=k, intrin@LABEL/N=k
 *       (libmulpre.so built by another compiler, so gcc's and clang's C paths run side
 *       by side in one process)
 *   --param mcl_peer=PATH                 mcl/N=k: mcl's mclb_mul_fastN (z, x, y), the
 *       hand-written mulx/adox/adcx code of seed S11 (build_mcl_peer.sh builds it)
 * --param mode=throughput (default: the same inputs every call, calls overlap in the
 * out-of-order core, as in seed S11's loop), mode=chain_x (each call's x is the low half
 * of the previous product, so calls form one dependency chain through memory; `latency`
 * is its older name) or mode=chain_y (the same chain through y). The two chains differ
 * because mulx takes one operand in rdx: code that loads x[i] into rdx (mcl) waits on a
 * chained x row by row, code that loads y[i] (mulpre's asm) waits on a chained y.
 * --param impls=a,b,... keeps only those case prefixes (e.g. asm,gmp_mul_n@fat).
 *
 * Every function is called through a pointer fetched once (mulpre_mul_fn_get, dlsym), so
 * all cases pay the same indirect call; GMP's entry points are themselves calls into a
 * shared library. For each GMP, stderr says whether it is a fat build and which
 * mpn_mul_basecase its cpuvec selected on this CPU.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulab_harness.h"
#include "mulpre.h"

typedef void (*gmp_mul_n_fn)(mp_limb_t *, const mp_limb_t *, const mp_limb_t *, mp_size_t);
typedef void (*gmp_sqr_fn)(mp_limb_t *, const mp_limb_t *, mp_size_t);
typedef mulpre_mul_fn (*mul_fn_get_fn)(mulpre_impl, size_t);
typedef mulpre_sqr_fn (*sqr_fn_get_fn)(mulpre_impl, size_t);

enum kind { K_MUL, K_SQR, K_CHECKED, K_GMP_MUL, K_GMP_SQR, K_MULX_BOUND, K_MIX_BOUND };

typedef struct {
    enum kind kind;
    size_t n;
    int mode; /* enum mode */
    mulpre_mul_fn mul;
    mulpre_sqr_fn sqr;
    gmp_mul_n_fn gmul;
    gmp_sqr_fn gsqr;
    uint64_t x[MULPRE_MAX_LIMBS], y[MULPRE_MAX_LIMBS];
    uint64_t z[2][2 * MULPRE_MAX_LIMBS];
} bench;

/* The three modes of --param mode: same x, y every call; or x (y) of call k+1 is the low
 * half of z of call k. */
enum mode { M_THROUGHPUT, M_CHAIN_X, M_CHAIN_Y };

#define BENCH_LOOP(CALL)                                                               \
    do {                                                                               \
        switch (b->mode) {                                                             \
        case M_THROUGHPUT: {                                                           \
            uint64_t *z = b->z[0];                                                     \
            const uint64_t *x = b->x, *y = b->y;                                       \
            (void)y; /* a square reads x alone */                                      \
            for (uint64_t i = 0; i < iters; i++) {                                     \
                CALL;                                                                  \
                clh_clobber();                                                         \
            }                                                                          \
        } break;                                                                       \
        case M_CHAIN_X:                                                                \
            for (uint64_t i = 0; i < iters; i++) {                                     \
                uint64_t *z = b->z[i & 1];                                             \
                const uint64_t *x = b->z[(i & 1) ^ 1], *y = b->y;                      \
                (void)y; /* a square reads x alone */                                  \
                CALL;                                                                  \
                clh_clobber();                                                         \
            }                                                                          \
            break;                                                                     \
        case M_CHAIN_Y:                                                                \
            for (uint64_t i = 0; i < iters; i++) {                                     \
                uint64_t *z = b->z[i & 1];                                             \
                const uint64_t *x = b->x, *y = b->z[(i & 1) ^ 1];                      \
                (void)y; /* a square reads x alone */                                  \
                CALL;                                                                  \
                clh_clobber();                                                         \
            }                                                                          \
            break;                                                                     \
        }                                                                              \
    } while (0)

/* The bounds. mulx_bound: N^2 mulx per iteration, all independent (rdx and the memory
 * operand never change, the written registers are renamed), so only the multiplier's
 * throughput limits them. mix_bound: the same mulx, each followed by the asm's two adds;
 * blocks of four triples add into four register pairs, and the xor opening a block (a
 * zero idiom, as in the asm's rows) starts fresh flag chains, so the adds wait on little
 * but their ports. */
#define MULX_ONE "mulx %[src], %%r8, %%r9\n\t"
#define MIX_ONE(a, b) MULX_ONE "adox %%r8, %%" a "\n\tadcx %%r9, %%" b "\n\t"
#define MIX_FOUR                                                                       \
    "xor %%eax, %%eax\n\t" MIX_ONE("r10", "r11") MIX_ONE("r12", "r13")                   \
        MIX_ONE("r14", "r15") MIX_ONE("rbx", "rsi")
#define BOUND_CASE(n)                                                                  \
    case n:                                                                            \
        if (mix) {                                                                     \
            for (uint64_t i = 0; i < iters; i++)                                       \
                __asm__ volatile(".rept (" #n "*" #n ")/4\n\t" MIX_FOUR ".endr\n\t"       \
                                 "xor %%eax, %%eax\n\t"                                  \
                                 ".rept (" #n "*" #n ")%%4\n\t"                         \
                                 MIX_ONE("r10", "r11") ".endr"                         \
                                 :                                                     \
                                 : "d"(b->x[0]), [src] "m"(b->y[0])                    \
                                 : "rax", "rbx", "rsi", "r8", "r9", "r10", "r11",      \
                                   "r12", "r13", "r14", "r15", "cc");                  \
        } else {                                                                       \
            for (uint64_t i = 0; i < iters; i++)                                       \
                __asm__ volatile(".rept " #n "*" #n "\n\t" MULX_ONE ".endr"              \
                                 :                                                     \
                                 : "d"(b->x[0]), [src] "m"(b->y[0])                    \
                                 : "r8", "r9");                                        \
        }                                                                              \
        break;

static void run_bound(uint64_t iters, const bench *b, int mix) {
    switch (b->n) {
        BOUND_CASE(1) BOUND_CASE(2) BOUND_CASE(3) BOUND_CASE(4) BOUND_CASE(5)
        BOUND_CASE(6) BOUND_CASE(7) BOUND_CASE(8) BOUND_CASE(9)
    }
}

static uint64_t run_case(uint64_t iters, void *arg) {
    bench *b = arg;
    size_t n = b->n;
    switch (b->kind) {
    case K_MUL: BENCH_LOOP(b->mul(z, x, y)); break;
    case K_SQR: BENCH_LOOP(b->sqr(z, x)); break;
    case K_CHECKED: BENCH_LOOP(mulpre_mul(z, x, y, n)); break;
    case K_GMP_MUL: BENCH_LOOP(b->gmul(z, x, y, (mp_size_t)n)); break;
    case K_GMP_SQR: BENCH_LOOP(b->gsqr(z, x, (mp_size_t)n)); break;
    case K_MULX_BOUND: run_bound(iters, b, 0); break;
    case K_MIX_BOUND: run_bound(iters, b, 1); break;
    }
    return b->z[0][0] ^ b->z[1][0];
}

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rng(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ---- case list ---------------------------------------------------------------------- */

#define MAX_CASES 512
static clh_case cases[MAX_CASES];
static size_t ncases;
static const char *impl_filter; /* comma list of case prefixes, or NULL */
static enum mode bench_mode;

static int wanted(const char *prefix) {
    if (!impl_filter || !*impl_filter)
        return 1;
    size_t len = strlen(prefix);
    for (const char *p = impl_filter; *p;) {
        const char *end = strchr(p, ',');
        size_t l = end ? (size_t)(end - p) : strlen(p);
        if (l == len && strncmp(p, prefix, l) == 0)
            return 1;
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static void add_case(const char *prefix, size_t n, bench proto) {
    if (!wanted(prefix))
        return;
    if (ncases == MAX_CASES)
        clh_fail("mulpre_bench: too many cases (%s)", prefix);
    bench *b = malloc(sizeof *b);
    char *name = malloc(strlen(prefix) + 16);
    if (!b || !name)
        clh_fail("mulpre_bench: out of memory");
    *b = proto;
    b->n = n;
    b->mode = bench_mode;
    for (size_t i = 0; i < n; i++) {
        b->x[i] = rng();
        b->y[i] = rng();
    }
    /* Both buffers start with the chained operand in the low half. */
    for (int k = 0; k < 2; k++)
        memcpy(b->z[k], bench_mode == M_CHAIN_Y ? b->y : b->x, sizeof b->x);
    sprintf(name, "%s/N=%zu", prefix, n);
    cases[ncases++] = (clh_case){.name = name, .fn = run_case, .arg = b,
                                 .units_per_iter = 1, .unit = "call"};
}

/* ---- peers: dlmopen, and which code path a GMP runs ---------------------------------- */

static void *load_isolated(const char *path) {
    void *h = dlmopen(LM_ID_NEWLM, path, RTLD_NOW | RTLD_LOCAL);
    if (!h) /* dlmopen namespaces are limited (16 in glibc); DEEPBIND keeps own symbols */
        h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    return h;
}

/* A fat GMP picks its mpn functions on the first call and keeps them in __gmpn_cpuvec, a
 * struct of function pointers; whichever entry dladdr names __gmpn_mul_basecase_<cpu> is
 * the code path. A GMP without __gmpn_cpuvec was built for one CPU at configure time. */
static void describe_gmp(const char *label, void *handle, gmp_mul_n_fn mul) {
    mp_limb_t x[4] = {1, 2, 3, 4}, z[8];
    mul(z, x, x, 4); /* initialises the cpuvec of a fat build */
    const char **version = dlsym(handle, "__gmp_version");
    void **cpuvec = dlsym(handle, "__gmpn_cpuvec");
    const char *path = "(not a fat build: code chosen when it was configured)";
    if (cpuvec) {
        path = "(fat build; cpuvec entry not found)";
        for (int i = 0; i < 64; i++) {
            Dl_info info;
            if (dladdr(cpuvec[i], &info) && info.dli_sname &&
                strncmp(info.dli_sname, "__gmpn_mul_basecase_", 20) == 0) {
                path = info.dli_sname;
                break;
            }
        }
    }
    Dl_info self;
    const char *file = dladdr((void *)mul, &self) && self.dli_fname ? self.dli_fname : "?";
    fprintf(stderr, "mulpre_bench: gmp %s: %s, version %s, mpn_mul_basecase: %s\n", label,
            file, version ? *version : "?", path);
}

/* Calls f(label, path) for each "label:path" of a comma list. */
static void each_peer(const char *list, void (*f)(const char *, const char *)) {
    if (!list || !*list)
        return;
    char *copy = strdup(list);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (!colon || colon == item || !colon[1])
            clh_usage_error("mulpre_bench: peer '%s' is not LABEL:PATH", item);
        *colon = 0;
        f(item, colon + 1);
    }
    /* labels live on in case names: copy is never freed */
}

static size_t n_lo = 1, n_hi = MULPRE_MAX_LIMBS;

static void add_gmp_peer(const char *label, const char *path) {
    void *h = load_isolated(path);
    if (!h)
        clh_fail("mulpre_bench: cannot load GMP peer %s: %s", path, dlerror());
    gmp_mul_n_fn mul = (gmp_mul_n_fn)dlsym(h, "__gmpn_mul_n");
    gmp_sqr_fn sqr = (gmp_sqr_fn)dlsym(h, "__gmpn_sqr");
    if (!mul || !sqr)
        clh_fail("mulpre_bench: %s has no __gmpn_mul_n/__gmpn_sqr: not a GMP", path);
    describe_gmp(label, h, mul);
    char pm[128], ps[128];
    snprintf(pm, sizeof pm, "gmp_mul_n@%s", label);
    snprintf(ps, sizeof ps, "gmp_sqr@%s", label);
    for (size_t n = n_lo; n <= n_hi; n++) {
        add_case(pm, n, (bench){.kind = K_GMP_MUL, .gmul = mul});
        add_case(ps, n, (bench){.kind = K_GMP_SQR, .gsqr = sqr});
    }
}

static void add_mulpre_peer(const char *label, const char *path) {
    void *h = load_isolated(path);
    if (!h)
        clh_fail("mulpre_bench: cannot load mulpre peer %s: %s", path, dlerror());
    mul_fn_get_fn get = (mul_fn_get_fn)dlsym(h, "mulpre_mul_fn_get");
    if (!get)
        clh_fail("mulpre_bench: %s has no mulpre_mul_fn_get: not a libmulpre", path);
    static const mulpre_impl impls[] = {MULPRE_IMPL_PORTABLE, MULPRE_IMPL_INTRIN};
    for (size_t k = 0; k < 2; k++) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s@%s", mulpre_impl_name(impls[k]), label);
        for (size_t n = n_lo; n <= n_hi; n++) {
            mulpre_mul_fn f = get(impls[k], n);
            if (f)
                add_case(prefix, n, (bench){.kind = K_MUL, .mul = f});
        }
    }
}

/* mcl's functions are plain exported symbols with mulpre's (z, x, y) signature. */
static void add_mcl_peer(const char *path) {
    void *h = load_isolated(path);
    if (!h)
        clh_fail("mulpre_bench: cannot load mcl peer %s: %s", path, dlerror());
    for (size_t n = n_lo; n <= n_hi; n++) {
        char sym[32];
        snprintf(sym, sizeof sym, "mclb_mul_fast%zu", n);
        mulpre_mul_fn f = (mulpre_mul_fn)dlsym(h, sym);
        if (!f)
            clh_fail("mulpre_bench: %s has no %s: not mcl's bint library", path, sym);
        add_case("mcl", n, (bench){.kind = K_MUL, .mul = f});
    }
}

int main(int argc, char **argv) {
    clh_init(argc, argv);
    const char *ns = clh_param_str("n", "1-9");
    if (sscanf(ns, "%zu-%zu", &n_lo, &n_hi) != 2) {
        if (sscanf(ns, "%zu", &n_lo) != 1)
            clh_usage_error("mulpre_bench: --param n=%s: expected K or LO-HI", ns);
        n_hi = n_lo;
    }
    if (n_lo < 1 || n_hi > MULPRE_MAX_LIMBS || n_lo > n_hi)
        clh_usage_error("mulpre_bench: --param n=%s: sizes must lie in 1-9", ns);
    const char *mode = clh_param_str("mode", "throughput");
    if (strcmp(mode, "chain_x") == 0 || strcmp(mode, "latency") == 0)
        bench_mode = M_CHAIN_X;
    else if (strcmp(mode, "chain_y") == 0)
        bench_mode = M_CHAIN_Y;
    else if (strcmp(mode, "throughput") != 0)
        clh_usage_error("mulpre_bench: --param mode=%s: expected throughput, chain_x or "
                        "chain_y", mode);
    impl_filter = clh_param_str("impls", "");

    describe_gmp("linked", RTLD_DEFAULT, (gmp_mul_n_fn)__gmpn_mul_n);
    fprintf(stderr, "mulpre_bench: mulpre best=%s\n", mulpre_impl_name(mulpre_impl_best()));
    for (size_t n = n_lo; n <= n_hi; n++) {
        static const mulpre_impl impls[] = {MULPRE_IMPL_PORTABLE, MULPRE_IMPL_INTRIN,
                                            MULPRE_IMPL_ASM};
        for (size_t k = 0; k < 3; k++) {
            mulpre_mul_fn f = mulpre_mul_fn_get(impls[k], n);
            if (f) /* an implementation this CPU cannot run has no case */
                add_case(mulpre_impl_name(impls[k]), n, (bench){.kind = K_MUL, .mul = f});
        }
        if (mulpre_impl_available(MULPRE_IMPL_ASM)) {
            add_case("asm_sx", n,
                     (bench){.kind = K_MUL, .mul = mulpre_mul_stream_fn_get(
                                                    MULPRE_IMPL_ASM, n, MULPRE_STREAM_X)});
            add_case("asm_sqr", n,
                     (bench){.kind = K_SQR, .sqr = mulpre_sqr_fn_get(MULPRE_IMPL_ASM, n)});
            add_case("mulx_bound", n, (bench){.kind = K_MULX_BOUND});
            add_case("mix_bound", n, (bench){.kind = K_MIX_BOUND});
        }
        add_case("mulpre_mul", n, (bench){.kind = K_CHECKED});
        add_case("gmp_mul_n", n, (bench){.kind = K_GMP_MUL, .gmul = __gmpn_mul_n});
        add_case("gmp_sqr", n, (bench){.kind = K_GMP_SQR, .gsqr = __gmpn_sqr});
    }
    each_peer(clh_param_str("gmp_peers", ""), add_gmp_peer);
    each_peer(clh_param_str("mulpre_peers", ""), add_mulpre_peer);
    const char *mcl = clh_param_str("mcl_peer", "");
    if (*mcl) {
        if (!mulpre_impl_available(MULPRE_IMPL_ASM)) /* mcl needs the same BMI2 + ADX */
            clh_fail("mulpre_bench: mcl's mclb_mul_fastN need BMI2 and ADX, which this "
                     "CPU lacks");
        add_mcl_peer(mcl);
    }
    if (ncases == 0)
        clh_usage_error("mulpre_bench: no case left (--param impls=%s)", impl_filter);
    return clh_run(cases, ncases);
}
