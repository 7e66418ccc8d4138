/* size_checks.c — the six overflow checks of size_checks.h, each out of line.
 *
 * Out of line (noinline) as CRuby's ruby_xcalloc -> objspace_xcalloc ->
 * xmalloc2_size is: every allocation pays a call, and `cpulab asm size_check_*` shows
 * exactly the code the benchmark runs.
 *
 * gcc 12 and clang 19 both rewrite `size != 0 && count > SIZE_MAX / size` into
 * "multiply and test the overflow flag" (mul; jo), whatever they know of `size`: the
 * pattern alone proves it. The forced variants therefore hide the numerator SIZE_MAX
 * behind an empty asm statement that claims to modify it; the value is unchanged, but
 * the compiler can no longer see the pattern and must keep the `div`.
 */
#include "size_checks.h"

#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define NOINLINE __attribute__((noinline))

uint64_t size_overflows;

/* Cold and out of line, like rb_raise: the error path must not shape the fast path. */
NOINLINE __attribute__((cold)) size_t size_overflow(size_t count, size_t size) {
    (void)count, (void)size;
    size_overflows++;
    return 0;
}

static inline size_t opaque(size_t x) {
    __asm__("" : "+r"(x));
    return x;
}

NOINLINE size_t size_check_div_forced(size_t count, size_t size) {
    if (size != 0 && count > opaque(SIZE_MAX) / size)
        return size_overflow(count, size);
    return count * size;
}

NOINLINE size_t size_check_div(size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return size_overflow(count, size);
    return count * size;
}

NOINLINE size_t size_check_mul_first_forced(size_t count, size_t size) {
    size_t total = count * size;
    if (UNLIKELY(size != 0 && count > opaque(SIZE_MAX) / size))
        return size_overflow(count, size);
    return total;
}

NOINLINE size_t size_check_mul_first(size_t count, size_t size) {
    size_t total = count * size;
    if (UNLIKELY(size != 0 && count > SIZE_MAX / size))
        return size_overflow(count, size);
    return total;
}

NOINLINE size_t size_check_builtin(size_t count, size_t size) {
    size_t total;
    if (UNLIKELY(__builtin_mul_overflow(count, size, &total)))
        return size_overflow(count, size);
    return total;
}

NOINLINE size_t size_check_u128(size_t count, size_t size) {
    unsigned __int128 p = (unsigned __int128)count * size;
    if (UNLIKELY((uint64_t)(p >> 64) != 0))
        return size_overflow(count, size);
#ifdef OVERFLOW_BREAK /* tests only: a wrong product the kernel's verification must catch */
    return (size_t)p + (count & 1);
#endif
    return (size_t)p;
}
