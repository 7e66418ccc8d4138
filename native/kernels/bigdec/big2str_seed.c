/* big2str_seed.c — the two versions of seed row S5's digit loop, kept out of line.
 *
 * CRuby's big2str_2bdigits (bignum.c, r54102) wrote
 *     p[--j] = ruby_digitmap[num % b2s->base];
 *     num /= b2s->base;
 * and the fix computes the index first. The functions are noinline and in their own
 * file so that `cpulab asm` finds them by name and the benchmark calls exactly this
 * code: the test suite asserts 2 64-bit `div` in the first and 1 in the second (gcc and
 * clang, -O2 and -O3).
 */
#include "big2str_seed.h"

static const char big2str_digitmap[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/* Keep each loop as written (no unrolling), so that the listing maps one to one onto
 * the source and a static count of `div` is the count per digit. clang, tuning for
 * CPUs with a slow 64-bit divide, also guards each 64-bit `div` with a 32-bit `div`
 * for operands that fit 32 bits: one division, two instructions, one of them run. */
#if defined(__clang__)
#define BIG2STR_NO_UNROLL _Pragma("clang loop unroll(disable)")
#elif defined(__GNUC__)
#define BIG2STR_NO_UNROLL _Pragma("GCC unroll 1")
#else
#define BIG2STR_NO_UNROLL
#endif

__attribute__((noinline)) void big2str_twodiv_loop(const struct big2str_struct *b2s,
                                                   uint64_t num, char *p, size_t j) {
    BIG2STR_NO_UNROLL
    do {
        p[--j] = big2str_digitmap[num % b2s->base];
        num /= b2s->base;
    } while (j);
}

__attribute__((noinline)) void big2str_fused_loop(const struct big2str_struct *b2s,
                                                  uint64_t num, char *p, size_t j) {
    BIG2STR_NO_UNROLL
    do {
        uint64_t idx = num % b2s->base;
        num /= b2s->base;
        p[--j] = big2str_digitmap[idx];
    } while (j);
}

__attribute__((noinline)) size_t big2str_twodiv_top(const struct big2str_struct *b2s,
                                                    uint64_t num, char *p, size_t cap) {
    size_t j = cap;
    BIG2STR_NO_UNROLL
    do {
        p[--j] = big2str_digitmap[num % b2s->base];
        num /= b2s->base;
    } while (num);
    return cap - j;
}

__attribute__((noinline)) size_t big2str_fused_top(const struct big2str_struct *b2s,
                                                   uint64_t num, char *p, size_t cap) {
    size_t j = cap;
    BIG2STR_NO_UNROLL
    do {
        uint64_t idx = num % b2s->base;
        num /= b2s->base;
        p[--j] = big2str_digitmap[idx];
    } while (num);
    return cap - j;
}
