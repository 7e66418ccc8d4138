/* overflow_bench.c — the cost of calloc's size-overflow check, six ways (seed row S3).
 *
 * For each check of size_checks.h (<v> = div_forced, div, mul_first_forced, mul_first,
 * builtin, u128) three cases:
 *   lat_<v>    a dependent chain: the next count is derived from the previous product
 *              (count = (total & 0xffff) + 1), so each check waits for the one before;
 *              what stays on the chain is the multiply, and the `div` only as far as
 *              the branch on its result is not predicted (it always is here).
 *   tput_<v>   independent checks over --param n (count, size) pairs (default 1024,
 *              sizes 1..4096, counts up to 2^20, one pair in 256 overflowing): how many
 *              checks per ns the core sustains; a `div` that is not pipelined shows
 *              here.
 *   alloc_<v>  seed row S3's `GC.disable; 1_000_000.times { Hash.new }`: per iteration
 *              one object, two calloc-like allocations (check + calloc(1, total)) of
 *              a 40-byte header and 8 bins of 8 bytes, kept until the end of the timed
 *              call (the garbage collector is off), then freed outside the timing.
 *              With --iters 1000000 it is the seed's run; fresh pages make the kernel
 *              zero memory (the seed's clear_page_c_e) as in the original.
 * Unit: "check" (lat, tput) or "object" (alloc).
 *
 * Verification, outside the timed region after every call: lat against the same chain
 * computed with a 128-bit reference, tput against the reference sum and overflow count,
 * alloc by reading back one zero byte per object and counting the objects.
 */
#include "cpulab_harness.h"

#include "size_checks.h"

typedef size_t (*check_fn)(size_t count, size_t size);

static size_t npairs;
static size_t *counts, *sizes;

/* reference: sum of products and number of overflows over one pass of the pairs */
static uint64_t ref_sum, ref_ovf;

static size_t ref_check(size_t count, size_t size, uint64_t *ovf) {
    unsigned __int128 p = (unsigned __int128)count * size;
    if (p >> 64) {
        ++*ovf;
        return 0;
    }
    return (size_t)p;
}

typedef struct {
    const char *name;
    check_fn fn;
    uint64_t result, overflows; /* of the last call */
    void **objs;                /* alloc: the objects of the call */
    uint64_t nobjs;
} ocase;

/* ---- latency: one dependent chain ---- */

static uint64_t lat_run(uint64_t iters, void *arg) {
    ocase *c = arg;
    check_fn fn = c->fn;
    uint64_t ovf0 = size_overflows;
    size_t count = 1, mask = npairs - 1;
    for (uint64_t i = 0; i < iters; i++) {
        size_t total = fn(count, sizes[i & mask]);
        count = (total & 0xffff) + 1;
    }
    c->result = count;
    c->overflows = size_overflows - ovf0;
    return count;
}

static void lat_verify(void *arg) {
    ocase *c = arg;
    uint64_t iters = clh_call_iters(), ovf = 0;
    size_t count = 1, mask = npairs - 1;
    for (uint64_t i = 0; i < iters; i++)
        count = (ref_check(count, sizes[i & mask], &ovf) & 0xffff) + 1;
    if (c->result != count || c->overflows != ovf)
        clh_fail("case %s: chain ends at %" PRIu64 " with %" PRIu64 " overflows, reference %zu"
                 " with %" PRIu64, c->name, c->result, c->overflows, count, ovf);
}

/* ---- throughput: independent checks ---- */

static uint64_t tput_run(uint64_t iters, void *arg) {
    ocase *c = arg;
    check_fn fn = c->fn;
    uint64_t ovf0 = size_overflows, sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (size_t i = 0; i < npairs; i++)
            sum += fn(counts[i], sizes[i]);
    c->result = sum;
    c->overflows = size_overflows - ovf0;
    return sum;
}

static void tput_verify(void *arg) {
    ocase *c = arg;
    uint64_t iters = clh_call_iters();
    if (c->result != iters * ref_sum || c->overflows != iters * ref_ovf)
        clh_fail("case %s: sum %" PRIu64 " / %" PRIu64 " overflows, reference %" PRIu64
                 " / %" PRIu64, c->name, c->result, c->overflows, iters * ref_sum,
                 iters * ref_ovf);
}

/* ---- allocation loop: the seed's Hash.new with the GC off ---- */

#define HDR_SIZE 40 /* an object header (RVALUE in CRuby 2.3) */
#define NBINS 8     /* a small table's bins */

static void alloc_setup(void *arg) {
    ocase *c = arg;
    uint64_t n = clh_call_iters();
    c->objs = malloc((size_t)n * 2 * sizeof *c->objs);
    if (!c->objs)
        clh_fail("case %s: no memory for %" PRIu64 " object pointers", c->name, n);
    c->nobjs = 0;
}

static uint64_t alloc_run(uint64_t iters, void *arg) {
    ocase *c = arg;
    check_fn fn = c->fn;
    void **objs = c->objs;
    for (uint64_t i = 0; i < iters; i++) {
        /* the sizes come from memory, as a call site's constants reach xcalloc */
        void *hdr = calloc(1, fn(1, sizes[0]));
        void *bins = calloc(1, fn(NBINS, sizes[1]));
        if (!hdr || !bins)
            clh_fail("case %s: calloc failed after %" PRIu64 " objects", c->name, i);
        objs[2 * i] = hdr;
        objs[2 * i + 1] = bins;
    }
    c->nobjs = iters;
    return iters;
}

static void alloc_teardown(void *arg) {
    ocase *c = arg;
    uint64_t nonzero = 0;
    for (uint64_t i = 0; i < 2 * c->nobjs; i++) {
        const unsigned char *p = c->objs[i];
        nonzero += p[(i & 1) ? NBINS * 8 - 1 : HDR_SIZE - 1] != 0;
        free(c->objs[i]);
    }
    free(c->objs);
    c->objs = NULL;
    if (c->nobjs != clh_call_iters() || nonzero)
        clh_fail("case %s: %" PRIu64 " objects of %" PRIu64 ", %" PRIu64 " not zeroed",
                 c->name, c->nobjs, clh_call_iters(), nonzero);
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define NV 6
#define LIST_FN(v) size_check_##v,
#define LIST_NAME(v) #v,

int main(int argc, char **argv) {
    clh_init(argc, argv);
    npairs = (size_t)clh_param_u64("n", 1024);
    uint64_t seed = clh_param_u64("seed", 3);
    if (npairs < 2 || (npairs & (npairs - 1)) || npairs > (1u << 24))
        clh_usage_error("--param n=%zu: want a power of two from 2 to 2^24", npairs);
    counts = malloc(npairs * sizeof *counts);
    sizes = malloc(npairs * sizeof *sizes);
    if (!counts || !sizes)
        clh_fail("out of memory");
    for (size_t i = 0; i < npairs; i++) {
        sizes[i] = (size_t)(splitmix(&seed) % 4096) + 1;
        counts[i] = (size_t)(splitmix(&seed) % (1u << 20));
        if (splitmix(&seed) % 256 == 0) /* a rare overflow: the cold path exists */
            counts[i] = SIZE_MAX / sizes[i] + 1 + (splitmix(&seed) % 1000);
    }
    sizes[0] = HDR_SIZE; /* the allocation loop's element sizes */
    sizes[1] = 8;
    for (size_t i = 0; i < npairs; i++)
        ref_sum += ref_check(counts[i], sizes[i], &ref_ovf);

    static const check_fn fns[NV] = {SIZE_CHECKS(LIST_FN)};
    static const char *const names[NV] = {SIZE_CHECKS(LIST_NAME)};
    static ocase oc[3][NV];
    static char cname[3][NV][40];
    static clh_case cases[3 * NV];
    static const char *const kind[3] = {"lat", "tput", "alloc"};
    size_t k = 0;
    for (int t = 0; t < 3; t++)
        for (int v = 0; v < NV; v++) {
            snprintf(cname[t][v], sizeof cname[t][v], "%s_%s", kind[t], names[v]);
            oc[t][v] = (ocase){.name = cname[t][v], .fn = fns[v]};
            clh_case cs = {.name = cname[t][v], .arg = &oc[t][v]};
            if (t == 0)
                cs.fn = lat_run, cs.teardown = lat_verify, cs.unit = "check",
                cs.units_per_iter = 1;
            else if (t == 1)
                cs.fn = tput_run, cs.teardown = tput_verify, cs.unit = "check",
                cs.units_per_iter = npairs;
            else
                cs.fn = alloc_run, cs.setup = alloc_setup, cs.teardown = alloc_teardown,
                cs.unit = "object", cs.units_per_iter = 1;
            cases[k++] = cs;
        }
    return clh_run(cases, k);
}
