/* mulpre: fixed-size multi-precision multiplication, z[2n] = x[n] * y[n], 1 <= n <= 9.
 *
 * Numbers are little-endian arrays of 64-bit limbs (limb 0 is the least significant),
 * as in GMP's mpn layer. The product always has 2n limbs, even when its top limb is 0.
 *
 * Three implementations sit behind one API; `mulpre_mul` picks the best one that this
 * CPU can run (decided once, from cpuid):
 *   MULPRE_IMPL_ASM       generated x86-64 assembly (mulx/adox/adcx, whole product in
 *                         registers); needs BMI2 and ADX.
 *   MULPRE_IMPL_INTRIN    C with _mulx_u64 / _addcarryx_u64; needs BMI2 and ADX.
 *   MULPRE_IMPL_PORTABLE  C with unsigned __int128; runs everywhere (the slow path).
 * Every implementation gives the same bits; the tests compare each with GMP.
 *
 * Aliasing. The checked entry points (mulpre_mul, mulpre_mul_with, mulpre_sqr,
 * mulpre_sqr_with) accept any overlap of z with x or y: they detect it and compute through
 * a 2n-limb temporary (a 144-byte copy at n = 9). x and y may be the same array. The
 * unchecked per-size functions of mulpre_mul_fn_get / mulpre_sqr_fn_get require that z
 * not overlap x or y (the assembly stores z[i] while it still reads x).
 *
 * All functions are thread-safe; none allocates, none aborts.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns a mulpre_status checks
 * its arrays and returns MULPRE_ERR_NULL for a NULL one, writing nothing; the unchecked
 * per-size functions do not (a NULL there is undefined behaviour).
 */
#ifndef MULPRE_H
#define MULPRE_H

/* The version of this header and of the library built with it (semantic versioning).
 * MULPRE_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define MULPRE_VERSION_MAJOR 0
#define MULPRE_VERSION_MINOR 2
#define MULPRE_VERSION_PATCH 0
#define MULPRE_VERSION (MULPRE_VERSION_MAJOR * 10000 + MULPRE_VERSION_MINOR * 100 + MULPRE_VERSION_PATCH)
#define MULPRE_VERSION_STRING "0.2.0"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest supported n: the assembly keeps n + 6 values in registers and x86-64 has 15. */
#define MULPRE_MAX_LIMBS 9

/* An implementation. MULPRE_IMPL_AUTO means "the best available one". */
typedef enum mulpre_impl {
    MULPRE_IMPL_AUTO = 0,
    MULPRE_IMPL_PORTABLE = 1,
    MULPRE_IMPL_INTRIN = 2,
    MULPRE_IMPL_ASM = 3,
    MULPRE_IMPL_COUNT = 4 /* number of values, AUTO included */
} mulpre_impl;

/* Result of every checked entry point. Nothing is written to z unless MULPRE_OK. */
typedef enum mulpre_status {
    MULPRE_OK = 0,
    MULPRE_ERR_SIZE = 1,        /* n is 0 or above MULPRE_MAX_LIMBS */
    MULPRE_ERR_NULL = 2,        /* z, x or y is NULL */
    MULPRE_ERR_IMPL = 3,        /* not a mulpre_impl value */
    MULPRE_ERR_UNAVAILABLE = 4  /* not built for this target, or this CPU lacks its
                                   instructions (BMI2/ADX), or masked by
                                   mulpre_cpu_features_limit */
} mulpre_status;

/* CPU features the implementations need (bits of mulpre_cpu_features). */
enum {
    MULPRE_CPU_BMI2 = 1u << 0, /* mulx */
    MULPRE_CPU_ADX = 1u << 1   /* adcx, adox */
};

/* Unchecked per-size functions: z must not overlap x or y; n is fixed by the function. */
typedef void (*mulpre_mul_fn)(uint64_t *z, const uint64_t *x, const uint64_t *y);
typedef void (*mulpre_sqr_fn)(uint64_t *z, const uint64_t *x);

/* z[0 .. 2n-1] = x[0 .. n-1] * y[0 .. n-1] with the best available implementation. */
mulpre_status mulpre_mul(uint64_t *z, const uint64_t *x, const uint64_t *y, size_t n);

/* The same with a chosen implementation; MULPRE_ERR_UNAVAILABLE if this CPU cannot run it
 * (then z is untouched and the caller may fall back to MULPRE_IMPL_PORTABLE). */
mulpre_status mulpre_mul_with(mulpre_impl impl, uint64_t *z, const uint64_t *x,
                              const uint64_t *y, size_t n);

/* z[0 .. 2n-1] = x[0 .. n-1]^2 with the best available implementation: the asm squaring
 * where asm runs (n(n+1)/2 mulx; faster than the asm multiply at every n measured),
 * otherwise the portable multiply with y = x. */
mulpre_status mulpre_sqr(uint64_t *z, const uint64_t *x, size_t n);

/* Squaring with a chosen implementation. Only MULPRE_IMPL_ASM has a dedicated squaring
 * (n(n+1)/2 mulx instead of n^2); the C implementations square by multiplying. */
mulpre_status mulpre_sqr_with(mulpre_impl impl, uint64_t *z, const uint64_t *x, size_t n);

/* The unchecked function for (impl, n), for callers that multiply many times at one size
 * (benchmarks, inner loops); NULL if n is out of range or impl unavailable. */
mulpre_mul_fn mulpre_mul_fn_get(mulpre_impl impl, size_t n);
mulpre_sqr_fn mulpre_sqr_fn_get(mulpre_impl impl, size_t n);

/* The operand that an unchecked multiply reads one limb per row (into mulx's rdx); the
 * other one is read whole by the first row. A call site whose operand comes from the
 * call just before (a chain of products, the low half of one feeding the next) streams
 * that operand, so the multiply starts on its first limb while the previous call still
 * stores the others: on a Xeon (family 6, model 207) streaming the wrong operand of a
 * chain cost 1.1-1.4x (README.md, "Figures"). With independent operands either serves. */
typedef enum mulpre_stream {
    MULPRE_STREAM_Y = 0, /* y streamed, x read whole: mulpre_mul_fn_get's order */
    MULPRE_STREAM_X = 1  /* x streamed, y read whole */
} mulpre_stream;

/* mulpre_mul_fn_get's function, or its twin that streams x: the same product z = x * y
 * with the same contract, the rows taken over the operand `stream` names; NULL where
 * mulpre_mul_fn_get gives NULL, or for a stream that is not a mulpre_stream value. */
mulpre_mul_fn mulpre_mul_stream_fn_get(mulpre_impl impl, size_t n, mulpre_stream stream);

/* Whether impl runs on this CPU (and is built for this target). AUTO is always true. */
bool mulpre_impl_available(mulpre_impl impl);

/* The implementation that MULPRE_IMPL_AUTO resolves to here: never AUTO itself. */
mulpre_impl mulpre_impl_best(void);

/* Short stable name: "auto", "portable", "intrin", "asm"; "?" for other values. */
const char *mulpre_impl_name(mulpre_impl impl);

/* A sentence for a status ("n must be 1..9", ...). */
const char *mulpre_status_str(mulpre_status status);

/* Features detected by cpuid (MULPRE_CPU_* bits), restricted by the current limit. */
unsigned mulpre_cpu_features(void);

/* Pretend this CPU has only the features in mask (detected & mask); ~0u restores all.
 * Lets tests and benchmarks exercise the portable fallback on a machine that has
 * BMI2/ADX. Takes effect for calls that start after it returns. */
void mulpre_cpu_features_limit(unsigned mask);

#ifdef __cplusplus
}
#endif

#endif /* MULPRE_H */
