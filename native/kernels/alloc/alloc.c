/* alloc.c — what a zero-initialised heap object costs in C, the analogues of S7's Go forms.
 *
 *   malloc-memset  malloc, then memset to zero     (Go: `return &container{}`, rep stosq)
 *   calloc         calloc: the allocator zeroes, or knows fresh kernel pages are zero
 *   malloc-memcpy  malloc, then memcpy from a zero template  (Go: `c := container{}`)
 *   malloc-only    malloc alone, no initialisation (Go: `new(container)`)
 *
 * One iteration allocates one object of --param size=N bytes, initialises it, uses it (one
 * read and one write per 4 KiB page, the same in every case: memory that calloc leaves
 * unmapped pays its page faults here, not later) and frees it; unit "alloc". For N = 64,
 * the seed's size, each case is a copy specialised to the constant 64, so the compiler
 * chooses inline stores, `rep stos`/`rep movs` or a call (`cpulab asm alloc VARIANT`).
 *
 * --param mmap_threshold=B (0: glibc's default) fixes glibc's M_MMAP_THRESHOLD. By default
 * the threshold rises to the size of the last freed mapped block, so after the first call
 * large blocks come from the reused heap; a fixed threshold makes every block of B bytes or
 * more a fresh mapping of zero pages from the kernel.
 */
#include "cpulab_harness.h"

#include <malloc.h>

#define SEED_SIZE 64 /* S7's container{ v [64]byte } */
#define TOUCH 4096   /* bytes between the reads and writes that use the object */

static size_t size;
static unsigned char *zero_template; /* written once; the compiler may not assume it zero */

/* The old value of *b, after adding 1 to it in one read-modify-write instruction: a page
 * first touched this way takes one write fault, where a load then a store would take two
 * (the load maps the zero page, the store copies it). */
static inline unsigned char bump(unsigned char *b)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned char v = 1;
    __asm__ volatile("xaddb %0, %1" : "+q"(v), "+m"(*b));
    return v;
#else
    return __atomic_fetch_add(b, 1, __ATOMIC_RELAXED);
#endif
}

/* Uses the object: one bump per 4 KiB and one at the last byte; returns the bits seen. */
static inline uint64_t use(unsigned char *p, size_t n)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i += TOUCH)
        seen |= bump(p + i);
    return seen | bump(p + n - 1);
}

/* clh_escape(p) right after the allocation: without it gcc and clang fuse malloc + memset
 * into calloc, and the variant would no longer do what its name says. The escape after
 * the initialisation keeps it from being deleted as stores to memory about to be freed. */
#define INIT_MEMSET(p, n) (clh_escape(p), memset(p, 0, n))
#define INIT_MEMCPY(p, n) (clh_escape(p), memcpy(p, zero_template, n))
#define INIT_NONE(p, n) clh_escape(p)

/* One timed loop: allocate `size_expr` bytes, initialise, touch, free. `checked`: the
 * object must read as zero, or the run fails. */
#define ALLOC_LOOP(fname, name, size_expr, alloc_expr, init, checked)                      \
    static uint64_t fname(uint64_t iters, void *arg)                                       \
    {                                                                                      \
        (void)arg;                                                                         \
        uint64_t seen = 0;                                                                 \
        for (uint64_t i = 0; i < iters; i++) {                                             \
            const size_t n = size_expr;                                                    \
            unsigned char *p = alloc_expr;                                                 \
            if (!p)                                                                        \
                clh_fail(#name ": out of memory for %zu bytes", n);                        \
            init(p, n);                                                                    \
            clh_escape(p);                                                                 \
            seen |= use(p, n);                                                             \
            free(p);                                                                       \
        }                                                                                  \
        if ((checked) && seen)                                                             \
            clh_fail(#name ": the object was not zero");                                   \
        return iters;                                                                      \
    }

/* One case: NAME_64 with the size a constant (what `cpulab asm` shows), NAME_n with the
 * size a variable. */
#define ALLOC_CASE(name, alloc_expr, init, checked)                                        \
    ALLOC_LOOP(name##_64, name, SEED_SIZE, alloc_expr, init, checked)                      \
    ALLOC_LOOP(name##_n, name, size, alloc_expr, init, checked)

ALLOC_CASE(malloc_memset, malloc(n), INIT_MEMSET, 1)
ALLOC_CASE(calloc_zeroed, calloc(1, n), INIT_NONE, 1)
ALLOC_CASE(malloc_memcpy, malloc(n), INIT_MEMCPY, 1)
ALLOC_CASE(malloc_only, malloc(n), INIT_NONE, 0)

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    uint64_t want = clh_param_u64("size", SEED_SIZE);
    uint64_t threshold = clh_param_u64("mmap_threshold", 0);
    if (want == 0 || want > (UINT64_C(1) << 32))
        clh_usage_error("--param size=%" PRIu64 ": want 1 .. 4 GiB", want);
    if (threshold > (UINT64_C(32) << 20))
        clh_usage_error("--param mmap_threshold=%" PRIu64 ": glibc accepts at most 32 MiB",
                        threshold);
    size = (size_t)want;
    if (threshold && !mallopt(M_MMAP_THRESHOLD, (int)threshold))
        clh_fail("mallopt(M_MMAP_THRESHOLD, %" PRIu64 ") refused", threshold);
    zero_template = malloc(size);
    if (!zero_template)
        clh_fail("out of memory for a %zu-byte template", size);
    memset(zero_template, 0, size);
    clh_escape(zero_template);

    int seed = size == SEED_SIZE;
    const clh_case cases[] = {
        { .name = "malloc-memset", .fn = seed ? malloc_memset_64 : malloc_memset_n,
          .unit = "alloc" },
        { .name = "calloc", .fn = seed ? calloc_zeroed_64 : calloc_zeroed_n, .unit = "alloc" },
        { .name = "malloc-memcpy", .fn = seed ? malloc_memcpy_64 : malloc_memcpy_n,
          .unit = "alloc" },
        { .name = "malloc-only", .fn = seed ? malloc_only_64 : malloc_only_n, .unit = "alloc" },
    };
    int rc = clh_run(cases, sizeof cases / sizeof cases[0]);
    free(zero_template);
    return rc;
}
