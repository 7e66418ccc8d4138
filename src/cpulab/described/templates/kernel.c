/* ${name}: the kernel of the experiment described in experiment.toml.
 *
 * One source, two variants chosen by a define (the [[variants]] of experiment.toml).
 * The harness (cpulab_harness.h, found by the lab's build) times one case; its unit
 * of work is one item, so every figure comes out per item. Change `select_below` and
 * the data, keep the harness calls; this rebuilds what changed:
 *     ${cpulab} run ${folder}
 * The harness API, with a complete example: ${harness_doc}
 */
#include <stdint.h>
#include <stdlib.h>

#include "cpulab_harness.h"

static uint32_t *items;
static uint64_t n_items;
static uint32_t limit;

/* The hot function, kept out of line so that `cpulab asm` finds it by name. */
__attribute__((noinline)) uint32_t select_below(uint32_t x, uint32_t bound)
{
#if defined(SELECT_BRANCHY)
    if (x < bound) {
        /* An empty volatile asm on one side: the compiler cannot turn it into a cmov. */
        __asm__ volatile("");
        return x;
    }
    return 0;
#elif defined(SELECT_BRANCHFREE)
    return x & -(uint32_t)(x < bound); /* a mask, no branch */
#else
#error "define SELECT_BRANCHY or SELECT_BRANCHFREE (experiment.toml's defines)"
#endif
}

static uint64_t sum_below(uint64_t iters, void *arg)
{
    (void)arg;
    uint64_t sum = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (uint64_t i = 0; i < n_items; i++)
            sum += select_below(items[i], limit);
    return sum;
}

int main(int argc, char **argv)
{
    clh_init(argc, argv);
    n_items = clh_param_u64("n", 4096); /* [params] n */
    if (n_items == 0)
        clh_usage_error("n must be at least 1");
    items = malloc(n_items * sizeof *items);
    if (!items)
        clh_fail("out of memory for %llu items", (unsigned long long)n_items);
    uint64_t s = 0x9e3779b97f4a7c15u; /* xorshift: the same items in every process */
    for (uint64_t i = 0; i < n_items; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        items[i] = (uint32_t)s;
    }
    limit = UINT32_MAX / 2; /* half the items below: the branch is a coin toss */
    const clh_case cases[] = {
        {.name = "sum_below", .fn = sum_below, .units_per_iter = n_items, .unit = "item"},
    };
    return clh_run(cases, sizeof cases / sizeof cases[0]);
}
