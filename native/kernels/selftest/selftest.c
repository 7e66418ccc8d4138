/* selftest.c — the harness measuring itself; the kernel tests/test_harness.py runs.
 *
 * Cases:
 *   empty  an empty loop with a compiler barrier per iteration: what the harness and a
 *          loop cost by themselves (about 1 cycle per iteration on a modern x86).
 *   work   per iteration, a dependent chain of --param chain=N additions (default 1000),
 *          units_per_iter = N, unit "op": latency-bound at 1 op per cycle on any CPU with
 *          a 1-cycle add, so ns per op ~ 1 / GHz.
 *   touch  per iteration, one read of a page never touched before, unit "page": each is
 *          one minor page fault (a read of fresh anonymous memory maps the shared zero
 *          page, so no memory is used however many pages are touched; --param write=1
 *          writes instead, and then each fault allocates and zeroes a page). The mapping
 *          is made in setup and removed in teardown, outside the timed region.
 */
#include "cpulab_harness.h"

#include <sys/mman.h>

static uint64_t empty_case(uint64_t iters, void *arg)
{
    (void)arg;
    for (uint64_t i = 0; i < iters; i++)
        clh_clobber();
    return iters;
}

static uint64_t chain_len;

static uint64_t work_case(uint64_t iters, void *arg)
{
    (void)arg;
    uint64_t x = clh_opaque_u64(1), k = clh_opaque_u64(0x9e3779b97f4a7c15u);
    uint64_t n = chain_len;
    for (uint64_t i = 0; i < iters; i++)
        for (uint64_t j = 0; j < n; j++) {
            x += k;
            /* x now looks unknown to the compiler: the n additions cannot be folded into
             * one multiply, and each waits for the one before. */
            __asm__("" : "+r"(x));
        }
    return x;
}

struct touch {
    char *base;
    size_t len;
    long page;
    int write;
};

static void touch_setup(void *arg)
{
    struct touch *t = arg;
    uint64_t pages = clh_call_iters();
    if (pages > (UINT64_C(1) << 36) / (uint64_t)t->page)
        clh_fail("touch: %" PRIu64 " pages would map more than 64 GiB", pages);
    t->len = (size_t)pages * (size_t)t->page;
    void *p = mmap(NULL, t->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        clh_fail("touch: mmap(%zu bytes): %s", t->len, strerror(errno));
    /* Transparent huge pages would turn 512 touches into one fault. */
    madvise(p, t->len, MADV_NOHUGEPAGE);
    t->base = p;
}

static void touch_teardown(void *arg)
{
    struct touch *t = arg;
    munmap(t->base, t->len);
    t->base = NULL;
}

static uint64_t touch_case(uint64_t iters, void *arg)
{
    struct touch *t = arg;
    uint64_t sum = 0;
    volatile char *p = t->base;
    if (t->write)
        for (uint64_t i = 0; i < iters; i++)
            p[i * (uint64_t)t->page] = 1;
    else
        for (uint64_t i = 0; i < iters; i++)
            sum += (unsigned char)p[i * (uint64_t)t->page];
    return sum + iters;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    chain_len = clh_param_u64("chain", 1000);
    if (chain_len == 0)
        clh_usage_error("--param chain=0: want at least 1 op per iteration");
    static struct touch touch;
    touch.write = (int)clh_param_u64("write", 0);
    touch.page = sysconf(_SC_PAGESIZE);
    const clh_case cases[] = {
        { .name = "empty", .fn = empty_case, .unit = "iter", .units_per_iter = 1 },
        { .name = "work", .fn = work_case, .unit = "op", .units_per_iter = chain_len },
        { .name = "touch", .fn = touch_case, .arg = &touch, .unit = "page", .units_per_iter = 1,
          .setup = touch_setup, .teardown = touch_teardown },
    };
    return clh_run(cases, sizeof cases / sizeof cases[0]);
}
