/* quo_seed.h — seed row S4's quo(): exact division by 10^9, two ways, out of line. */
#ifndef QUO_SEED_H
#define QUO_SEED_H

#include <stdint.h>

/* Not divisible: the caller falls back to a slow path (CRuby calls Integer#quo). */
#define QUO_INEXACT INT64_MIN

/* CRuby's time.c: c = a / b; if (c * b == a) return c; with b = 1000000000 known at
 * compile time: a multiply by the magic number 0x112e0be826d694b3 and shifts, then a
 * multiply back and a compare. */
int64_t quo_mul_check(int64_t a);

/* The rewrite the seed tried: if (a % b == 0) return a / b; the compiler computes the
 * remainder as a - (a / b) * b, so this is the same work plus the subtraction. */
int64_t quo_mod_check(int64_t a);

/* With the divisibility test of a modular inverse (no quotient needed to decide), then
 * the quotient only for the exact ones: rtdiv's idea at compile time. */
int64_t quo_inverse_check(int64_t a);

#endif
