/* big2str_seed.h — seed row S5's inner loop, as CRuby r54102 had it and as it was fixed. */
#ifndef BIG2STR_SEED_H
#define BIG2STR_SEED_H

#include <stddef.h>
#include <stdint.h>

/* The state CRuby's big2str_2bdigits reads the base from: through a pointer. */
struct big2str_struct {
    int base;
    size_t hbase2_numdigits; /* 19: digits of one 64-bit chunk in base 10 */
};

/* Write the `j` low base-`b2s->base` digits of num, right to left, ending at p + j.
 * Two divisions per digit: the char store p[--j] may alias b2s->base (a char pointer
 * may point anywhere), so the compiler reloads the base after it and cannot reuse the
 * `div` that produced num % base for num / base. */
void big2str_twodiv_loop(const struct big2str_struct *b2s, uint64_t num, char *p, size_t j);

/* The same with the remainder taken into a temporary before the store: one `div`
 * gives quotient and remainder. */
void big2str_fused_loop(const struct big2str_struct *b2s, uint64_t num, char *p, size_t j);

/* Variable-width versions (CRuby's "beginning" branch: no leading zeros); they return
 * the digit count and write right-aligned ending at p + cap. */
size_t big2str_twodiv_top(const struct big2str_struct *b2s, uint64_t num, char *p, size_t cap);
size_t big2str_fused_top(const struct big2str_struct *b2s, uint64_t num, char *p, size_t cap);

#endif
