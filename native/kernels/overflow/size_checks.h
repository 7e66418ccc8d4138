/* size_checks.h — six ways to compute count * size for a calloc-like allocator and
 * detect overflow (seed row S3). Each returns count * size, or 0 after calling
 * size_overflow() when the product does not fit a size_t (CRuby raises there).
 *
 *   size_check_div_forced     if (size && count > SIZE_MAX / size) ... ; SIZE_MAX
 *                             passes through an empty asm, so no compiler can rewrite
 *                             the division into a multiply-overflow test: a real `div`
 *   size_check_div            the same as written in C: what the compiler makes of it
 *   size_check_mul_first_forced  the seed's patch: multiply first, then the division
 *                             check marked UNLIKELY (forced division)
 *   size_check_mul_first      the seed's patch as written in C
 *   size_check_builtin        __builtin_mul_overflow (a `mul` and a `jo`/`seto`)
 *   size_check_u128           the high half of the 128-bit product must be zero
 */
#ifndef SIZE_CHECKS_H
#define SIZE_CHECKS_H

#include <stddef.h>
#include <stdint.h>

/* How many times size_overflow() ran (the kernels compare it with a reference). */
extern uint64_t size_overflows;
size_t size_overflow(size_t count, size_t size);

size_t size_check_div_forced(size_t count, size_t size);
size_t size_check_div(size_t count, size_t size);
size_t size_check_mul_first_forced(size_t count, size_t size);
size_t size_check_mul_first(size_t count, size_t size);
size_t size_check_builtin(size_t count, size_t size);
size_t size_check_u128(size_t count, size_t size);

/* The list the kernel and the experiment iterate over: X(name). */
#define SIZE_CHECKS(X) X(div_forced) X(div) X(mul_first_forced) X(mul_first) X(builtin) X(u128)

#endif
