/* quo_bench.c — seed row S4's quo(): exact division by the constant 10^9, three ways.
 *
 * Cases, per variant <v> of quo_seed.h (mul: `c = a / b; c * b == a`, the original;
 * mod: `a % b == 0` first, the rewrite the seed tried; inverse: the modular-inverse
 * divisibility test written out):
 *   tput_<v>  sum of quo_<v>_check(x[i]) over --param n values (default 4096);
 *   lat_<v>   the same values, each call waiting for the previous result (the next
 *             argument is x[i] + (result & z) with z an opaque zero: a data
 *             dependency that changes no value).
 * --param exact_pct=P (default 50): the share of values that are multiples of 10^9
 * (k * 10^9 for random |k| < 2^33); the others are random 63-bit values of either sign
 * (almost never multiples). Unit: "call".
 *
 * Verification after every call: the sum against iters * (the sum by hardware division,
 * divisor hidden from the compiler).
 */
#include "cpulab_harness.h"

#include "quo_seed.h"

typedef int64_t (*quo_fn)(int64_t);

static size_t g_n;
static int64_t *X;
static uint64_t REF; /* one pass's sum */

typedef struct {
    const char *name;
    quo_fn fn;
    uint64_t result;
} qcase;

static uint64_t tput_run(uint64_t iters, void *arg) {
    qcase *c = arg;
    quo_fn fn = c->fn;
    uint64_t acc = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (size_t i = 0; i < g_n; i++)
            acc += (uint64_t)fn(X[i]);
    c->result = acc;
    return acc;
}

static uint64_t lat_run(uint64_t iters, void *arg) {
    qcase *c = arg;
    quo_fn fn = c->fn;
    uint64_t acc = 0, z = clh_opaque_u64(0);
    int64_t r = 0;
    for (uint64_t it = 0; it < iters; it++)
        for (size_t i = 0; i < g_n; i++) {
            r = fn((int64_t)((uint64_t)X[i] + ((uint64_t)r & z)));
            acc += (uint64_t)r;
        }
    c->result = acc;
    return acc;
}

static void verify(void *arg) {
    qcase *c = arg;
    uint64_t want = clh_call_iters() * REF;
    if (c->result != want)
        clh_fail("case %s: sum %" PRIu64 ", hardware division gives %" PRIu64, c->name,
                 c->result, want);
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    clh_init(argc, argv);
    g_n = (size_t)clh_param_u64("n", 4096);
    uint64_t pct = clh_param_u64("exact_pct", 50), seed = clh_param_u64("seed", 9);
    if (g_n < 1 || g_n > (1u << 26))
        clh_usage_error("--param n=%zu: want 1 .. 2^26", g_n);
    if (pct > 100)
        clh_usage_error("--param exact_pct=%" PRIu64 ": want 0 .. 100", pct);
    X = malloc(g_n * sizeof *X);
    if (!X)
        clh_fail("out of memory");
    for (size_t i = 0; i < g_n; i++) {
        if (splitmix(&seed) % 100 < pct) {
            int64_t k = (int64_t)(splitmix(&seed) % (UINT64_C(1) << 33));
            X[i] = (splitmix(&seed) & 1 ? -k : k) * INT64_C(1000000000);
        } else {
            X[i] = (int64_t)(splitmix(&seed) >> 1) * (splitmix(&seed) & 1 ? -1 : 1);
        }
    }
    int64_t b = (int64_t)clh_opaque_u64(1000000000);
    for (size_t i = 0; i < g_n; i++)
        REF += (uint64_t)(X[i] % b == 0 ? X[i] / b : QUO_INEXACT);
#ifdef QUO_BREAK /* tests only: a reference the verification must disagree with */
    REF += 1;
#endif

    static qcase qc[6] = {
        {"tput_mul", quo_mul_check, 0}, {"tput_mod", quo_mod_check, 0},
        {"tput_inverse", quo_inverse_check, 0}, {"lat_mul", quo_mul_check, 0},
        {"lat_mod", quo_mod_check, 0}, {"lat_inverse", quo_inverse_check, 0},
    };
    static clh_case cases[6];
    for (int i = 0; i < 6; i++)
        cases[i] = (clh_case){.name = qc[i].name, .fn = i < 3 ? tput_run : lat_run,
                              .arg = &qc[i], .units_per_iter = g_n, .unit = "call",
                              .teardown = verify};
    return clh_run(cases, 6);
}
