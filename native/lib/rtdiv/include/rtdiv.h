/* rtdiv.h — division by a divisor known only at run time, as fast as by a constant.
 *
 * A compiler turns `n / 7` into a multiply by a "magic" number and shifts, because 7 is
 * known when it compiles. rtdiv does the same transformation at run time: generate once
 * per divisor (`rtdiv_<T>_gen`, which uses hardware division a few times), then every
 * quotient, remainder and divisibility test costs a multiply and a few adds and shifts
 * instead of a `div` (20–90 cycles on Ivy Bridge, 10–18 on Zen 4 for 64 bits).
 *
 * Types: <T> is one of u32, u64, s32, s64 (uint32_t, uint64_t, int32_t, int64_t).
 * Every type has the same verbs:
 *
 *   rtdiv_status rtdiv_<T>_gen(rtdiv_<T> *dv, <type> d)
 *       Prepare division by `d`. Returns RTDIV_OK, RTDIV_ERR_ZERO when d == 0 or
 *       RTDIV_ERR_NULL when dv is NULL; on error *dv is left unchanged. Any other d,
 *       including 1, powers of two, the type's maximum and (signed) negative values and
 *       the minimum, is valid.
 *   <type> rtdiv_<T>_div(const rtdiv_<T> *dv, <type> n)       quotient
 *   <type> rtdiv_<T>_div_bf(const rtdiv_<T> *dv, <type> n)    quotient, branchfree form
 *   <type> rtdiv_<T>_rem(const rtdiv_<T> *dv, <type> n)       remainder
 *   <type> rtdiv_<T>_rem_bf(const rtdiv_<T> *dv, <type> n)    remainder (branchfree)
 *   int    rtdiv_<T>_divisible(const rtdiv_<T> *dv, <type> n) 1 if d divides n, else 0;
 *       a multiply by the modular inverse of d's odd part, a rotate and a compare: no
 *       division and no quotient.
 *   <type> rtdiv_<T>_divisor(const rtdiv_<T> *dv)             the d it was made for
 *   rtdiv_kind rtdiv_<T>_kind(const rtdiv_<T> *dv)            the divisor's sequence
 *   <type> rtdiv_<T>_div_kind(const rtdiv_<T> *dv, <type> n, rtdiv_kind kind)
 *   <type> rtdiv_<T>_rem_kind(const rtdiv_<T> *dv, <type> n, rtdiv_kind kind)
 *       quotient and remainder by the sequence of `kind`, which must be
 *       rtdiv_<T>_kind(dv) (another kind gives wrong results); with `kind` a constant
 *       only that sequence is compiled. RTDIV_DISPATCH(T, dv, BODY) compiles BODY once per
 *       kind and runs the divisor's own: a loop in BODY pays no branch on the kind.
 *
 * Quotients truncate toward zero and remainders take the sign of n, as C's / and %.
 * For signed types, MIN / -1 (which traps in hardware and is undefined in C) returns MIN
 * and MIN % -1 returns 0: the results modulo 2^N.
 *
 * Three ways to divide, by how the divisor varies:
 *   - one divisor for a whole loop: RTDIV_DISPATCH and the _kind verbs. The divisor's
 *     kind (rtdiv_kind: a shift for powers of two, multiply-high and shift, a pre-shift
 *     for even divisors, the N+1-bit "add" sequence) is chosen once, outside the loop,
 *     and each copy of the loop is the code a compiler emits for a constant of that kind
 *     (at most 1.10x the constant loop's instructions for 7 and 10^9, every type, gcc 12
 *     and clang 19; README, "Speed").
 *   - a divisor that changes rarely: div and rem branch on the kind in the loop (a
 *     well-predicted branch, a few instructions more than the constant).
 *   - divisors that change unpredictably: div_bf and rem_bf run the same sequence
 *     (multiply, add, shifts) for every divisor, with no branch at all.
 *
 * Batch: rtdiv_<T>_div_batch / rtdiv_<T>_rem_batch divide an array by one divisor with
 * AVX-512 or AVX2 when the CPU (cpuid) and the OS (xgetbv) allow it, else a portable
 * loop; all paths give the same results as the scalar verbs. rtdiv_isa_force() selects
 * a path (for tests and measurements).
 *
 * Thread safety: a generated rtdiv_<T> is read-only and can be shared. The batch
 * dispatch is resolved once, on first use, with atomic operations.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns an rtdiv_status checks
 * the others and returns RTDIV_ERR_NULL for a NULL one, writing nothing (the arrays of a
 * batch may be NULL when n is 0); the inline verbs do not check their divider (a NULL
 * there is undefined behaviour).
 */
#ifndef RTDIV_H
#define RTDIV_H

/* The version of this header and of the library built with it (semantic versioning).
 * RTDIV_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define RTDIV_VERSION_MAJOR 0
#define RTDIV_VERSION_MINOR 2
#define RTDIV_VERSION_PATCH 0
#define RTDIV_VERSION (RTDIV_VERSION_MAJOR * 10000 + RTDIV_VERSION_MINOR * 100 + RTDIV_VERSION_PATCH)
#define RTDIV_VERSION_STRING "0.2.0"

#include <stddef.h>
#include <stdint.h>

/* The one list of integer types rtdiv serves. Every per-type definition (the struct, the
 * inline verbs, generation, the batch paths) is expanded from it, so the four types cannot
 * drift apart. Columns: suffix, value type, unsigned type of the same width, signed type
 * of the same width, double-width unsigned and signed types (for the high half of a
 * product), width in bits, and whether the type is signed.
 *
 * Compilers. The library is built with gcc or clang: its sources use the double-width
 * types, which for 64 bits are __int128 (gcc and clang on every 64-bit target). This
 * header needs neither: it compiles as C99 with any compiler. Where __int128 exists
 * (__SIZEOF_INT128__) rtdiv__u128 and rtdiv__s128 are defined and the 64-bit verbs take
 * the high half of one 128-bit product; elsewhere they compose it from four 32 x 32-bit
 * products (the slow path, tested against the same answers). always_inline is asked for
 * only of GNU-compatible compilers (__GNUC__); others get plain `static inline`. */
#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 rtdiv__u128;
typedef __int128 rtdiv__s128;
#endif

/* X(S, T, UT, ST, UW, SW, N, SIGNED) */
#define RTDIV_FOR_EACH_UNSIGNED(X)                                                       \
    X(u32, uint32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 0)                        \
    X(u64, uint64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 0)

#define RTDIV_FOR_EACH_SIGNED(X)                                                         \
    X(s32, int32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 1)                         \
    X(s64, int64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 1)

#define RTDIV_FOR_EACH_TYPE(X) RTDIV_FOR_EACH_UNSIGNED(X) RTDIV_FOR_EACH_SIGNED(X)

#ifdef __cplusplus
extern "C" {
#endif

/** Status of a call that can fail. */
typedef enum rtdiv_status {
    RTDIV_OK = 0,
    RTDIV_ERR_ZERO = 1,        /**< divisor is 0 */
    RTDIV_ERR_NULL = 2,        /**< a required pointer is NULL */
    RTDIV_ERR_UNSUPPORTED = 3, /**< rtdiv_isa_force: this CPU or OS cannot run that path */
} rtdiv_status;

/** A short English description of a status ("ok", "divisor is zero", ...); never NULL. */
const char *rtdiv_status_str(rtdiv_status status);

/** Instruction-set path of the batch functions. */
typedef enum rtdiv_isa {
    RTDIV_ISA_AUTO = 0,     /**< the best the CPU supports (the default) */
    RTDIV_ISA_PORTABLE = 1, /**< plain C, any CPU */
    RTDIV_ISA_AVX2 = 2,     /**< x86-64 AVX2: 8 x 32-bit or 4 x 64-bit lanes */
    RTDIV_ISA_AVX512 = 3,   /**< x86-64 AVX-512 F+DQ: 16 x 32-bit or 8 x 64-bit lanes */
} rtdiv_isa;

/** Which sequence a divisor takes: fixed when the divider is made (rtdiv_<T>_kind). Each
 * is the code a compiler emits for a constant of that kind, with the magic number and
 * shifts read from the divider instead of the instruction stream. */
typedef enum rtdiv_kind {
    RTDIV_KIND_SHIFT = 0, /**< d = 2^s > 0 (1 included): a shift (signed: of n biased
                               by 2^s - 1 when negative) */
    RTDIV_KIND_MUL = 1,   /**< an N-bit magic: multiply-high, shift (signed: the magic
                               carries d's sign, then +1 for a negative quotient; 32-bit
                               types: the 64-bit magic `wide`, one multiply-high) */
    RTDIV_KIND_PRE = 2,   /**< unsigned even d whose own magic needs N+1 bits: shift n
                               right by d's trailing zeros first, then as MUL (u32: as
                               MUL, no pre-shift) */
    RTDIV_KIND_ADD = 3,   /**< the N+1-bit magic: multiply-high, add n back, shift
                               (32-bit types: as MUL) */
    RTDIV_KIND_NEG = 4,   /**< signed d < 0 that is -2^s or needs the N+1-bit magic: the
                               branchfree sequence, negated */
} rtdiv_kind;

/* Layout of a generated divider (the same for every type; UT is the unsigned type of
 * the type's width N). The fields are visible so that the verbs can be inline; treat
 * them as read-only and fill them only with rtdiv_<T>_gen.
 *
 *   magic     the kind's magic number: MUL and PRE m = floor(2^(N+post)/o) + 1 (o the
 *             odd part of d for PRE, else |d|; negated for a signed d < 0); ADD the low N
 *             bits of the N+1-bit magic (signed: read as negative, n is added back);
 *             SHIFT 2^post - 1 (the bias of a negative n, the mask of a remainder: a
 *             field, not a value computed from post, so that a loop keeps it in a
 *             register instead of rebuilding it); 0 for NEG.
 *   magic_bf  branchfree magic: always the add kind (0 for powers of two and 1).
 *   d         the divisor, as UT (two's complement for signed types).
 *   inv       inverse of d's odd part modulo 2^N (divisibility).
 *   lim       divisibility: n is divisible iff rotr(n*inv + ofs, tz) <= lim.
 *   ofs       divisibility offset: 0 for unsigned; (-jmin) << tz for signed, where jmin
 *             is the most negative multiplier j with j*|d| representable.
 *   kind      an rtdiv_kind.
 *   pre, post the kind's shifts: every kind shifts its result right by post (but the
 *             32-bit types' scalar kind verbs, which take `wide`; their batch paths
 *             use magic and post). PRE
 *             clears n's low pre bits before the multiply instead of shifting n right
 *             by pre: n with its low bits clear is a multiple of 2^pre, so the product
 *             is exact and the pre-shift joins post (one shift count for the loop:
 *             without BMI2 every variable shift needs cl).
 *   sh1, sh2  branchfree shifts. Unsigned: q = (((n - hi) >> sh1) + hi) >> sh2 with
 *             hi = mulhi(n, magic_bf); sh1 is 0 only for d == 1. Signed: sh2 only; a
 *             negative intermediate is biased by 2^sh2 (2^sh2 - 1 for powers of two,
 *             magic_bf == 0) before the shift, and the quotient negated when d < 0.
 *   tz        trailing zero bits of |d| (the rotate of the divisibility test).
 *   wide      u32's MUL, ADD and PRE kinds: ceil(2^64 / d). With 64 bits of magic the
 *             quotient of every 32-bit n is the high half of one 64 x 64-bit product
 *             (Lemire, Kaser & Kurz 2019): no add, no shifts, as fast as or faster than
 *             the constant's own sequence (README, "Speed"). s32's MUL and
 *             ADD kinds: ceil(2^64 / |d|) with d's sign, as a signed 64-bit number:
 *             the signed high half of n times it is n/d rounded down (an error below
 *             2^-33 cannot cross an integer; a negative exact quotient lands one
 *             below), so +1 for a negative result truncates, as for every signed
 *             kind. No shift count: a variable shift costs extra uops on Intel cores.
 *             0 elsewhere.
 *
 * Size: 64 bytes for the 64-bit types, 40 for the 32-bit ones (libdivide's divider is
 * 9 or 5 bytes, packed). What the size buys: both forms from one divider (the kind's own
 * magic and the branchfree one: a plain-kind divisor needs different magic numbers
 * for the two), the divisor for the remainder (libdivide's remainder must be given d or
 * recover it), and the modular inverse and limit of `divisible` (libdivide has no
 * divisibility test). A divider still fits one cache line; in a loop the fields are
 * read once into registers, so the size costs nothing per division.
 */
#define RTDIV__STRUCT(S, T, UT, ST, UW, SW, N, SG)                                       \
    typedef struct rtdiv_##S {                                                           \
        UT magic, magic_bf, d, inv, lim, ofs;                                            \
        uint64_t wide;                                                                   \
        uint8_t kind, pre, post, sh1, sh2, tz;                                           \
    } rtdiv_##S;
RTDIV_FOR_EACH_TYPE(RTDIV__STRUCT)
#undef RTDIV__STRUCT

/* Out-of-line verbs: generation and the batch functions.
 *
 *   rtdiv_status rtdiv_<T>_div_batch(const rtdiv_<T> *dv, const <type> *num, <type> *quo,
 *                                    size_t n)
 *   rtdiv_status rtdiv_<T>_rem_batch(const rtdiv_<T> *dv, const <type> *num, <type> *rem,
 *                                    size_t n)
 *       out[i] = num[i] / d (or % d) for i < n. num and out may be the same array (in
 *       place) but must not otherwise overlap. RTDIV_ERR_NULL if dv is NULL, or num or out
 *       is NULL while n > 0; nothing is written then.
 */
#define RTDIV__DECLARE(S, T, UT, ST, UW, SW, N, SG)                                      \
    rtdiv_status rtdiv_##S##_gen(rtdiv_##S *dv, T d);                                    \
    rtdiv_status rtdiv_##S##_div_batch(const rtdiv_##S *dv, const T *num, T *quo,        \
                                       size_t n);                                        \
    rtdiv_status rtdiv_##S##_rem_batch(const rtdiv_##S *dv, const T *num, T *rem,        \
                                       size_t n);
RTDIV_FOR_EACH_TYPE(RTDIV__DECLARE)
#undef RTDIV__DECLARE

/** The batch path in use (resolving RTDIV_ISA_AUTO to what was detected). */
rtdiv_isa rtdiv_isa_active(void);

/** Whether this CPU and OS can run `isa` (cpuid feature bits and xgetbv state). */
int rtdiv_isa_supported(rtdiv_isa isa);

/** Select the batch path for the whole process: RTDIV_ISA_AUTO restores detection.
 * Returns RTDIV_ERR_UNSUPPORTED (and changes nothing) when the CPU cannot run `isa`. */
rtdiv_status rtdiv_isa_force(rtdiv_isa isa);

/** A short name for an ISA value: "auto", "portable", "avx2", "avx512". */
const char *rtdiv_isa_name(rtdiv_isa isa);

#ifdef __cplusplus
}
#endif

/* ---- Inline implementation: not API; it may change between versions. ---- */

/* The inline verbs (div_kind, div, div_bf, rem_kind, rem, rem_bf, divisible, divisor,
 * kind), expanded once per type from RTDIV_FOR_EACH_TYPE.
 *
 * Two bodies only, unsigned and signed. rtdiv_<T>_div_kind holds one sequence per kind;
 * with a constant kind (RTDIV_DISPATCH) the compiler keeps only that one, so a loop
 * costs what the constant's loop costs: the same instructions, with the shift counts
 * in a register instead of the instruction. The branchfree bodies:
 *   unsigned: hi = mulhi(n, m); q = (((n - hi) >> sh1) + hi) >> sh2
 *             (n - hi >= 0, so this is floor((n + hi) / 2^(sh1+sh2)) without the N+1-bit
 *             sum; 32-bit types add in a 64-bit register instead)
 *   signed:   q = mulhi(n, m) + n; q += (q < 0 ? bias : 0); q >>= sh2;
 *             q = (q ^ neg) - neg
 * The 32-bit types' kind verbs take the high half of one 64-bit product by `wide` and
 * no shift (no compiler vectorises that product: an array takes the batch verbs); their
 * branchfree verbs multiply 32 by 32 bits in a 64-bit register, which vectorises (a loop
 * the compiler should vectorise takes them). Signed
 * intermediate arithmetic is done in the unsigned type: wrap-around is intended
 * (MIN / -1) and must not be undefined behaviour. Right shifts of negative values are
 * arithmetic in gcc and clang (documented GNU C behaviour), as in every C compiler for
 * two's-complement targets that we know of (C leaves it to the implementation).
 */
#if defined(__GNUC__)
#define RTDIV__INLINE static inline __attribute__((always_inline))
#else
#define RTDIV__INLINE static inline
#endif

/* The high half of a full product, one function per type. */
RTDIV__INLINE uint32_t rtdiv_u32_mulhi(uint32_t a, uint32_t b) {
    return (uint32_t)(((uint64_t)a * b) >> 32);
}
RTDIV__INLINE int32_t rtdiv_s32_mulhi(int32_t a, int32_t b) {
    return (int32_t)(((int64_t)a * b) >> 32);
}
RTDIV__INLINE uint64_t rtdiv_u64_mulhi(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((rtdiv__u128)a * b) >> 64);
#else
    /* schoolbook on 32-bit halves; mid cannot overflow: 3 (2^32 - 1) < 2^64 */
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}
RTDIV__INLINE int64_t rtdiv_s64_mulhi(int64_t a, int64_t b) {
#if defined(__SIZEOF_INT128__)
    return (int64_t)(((rtdiv__s128)a * b) >> 64);
#else
    /* the signed high half is the unsigned one less b when a < 0 and less a when b < 0 */
    uint64_t hi = rtdiv_u64_mulhi((uint64_t)a, (uint64_t)b);
    hi -= (a < 0 ? (uint64_t)b : 0) + (b < 0 ? (uint64_t)a : 0);
    return (int64_t)hi;
#endif
}

/* The high half of a product shifted right by sh more, for the 64-bit kind verbs (the
 * 32-bit ones take `wide` first; theirs exist because one body serves every type). */
RTDIV__INLINE uint32_t rtdiv_u32_mulsh(uint32_t a, uint32_t b, unsigned sh) {
    return (uint32_t)(((uint64_t)a * b) >> (32 + sh));
}
RTDIV__INLINE int32_t rtdiv_s32_mulsh(int32_t a, int32_t b, unsigned sh) {
    return (int32_t)(((int64_t)a * b) >> (32 + sh));
}
RTDIV__INLINE uint64_t rtdiv_u64_mulsh(uint64_t a, uint64_t b, unsigned sh) {
    return rtdiv_u64_mulhi(a, b) >> sh;
}
RTDIV__INLINE int64_t rtdiv_s64_mulsh(int64_t a, int64_t b, unsigned sh) {
    return rtdiv_s64_mulhi(a, b) >> sh;
}

/* RTDIV_DISPATCH(S, dv, BODY): run the statement BODY(K) once, with K the constant
 * rtdiv_kind of *dv (one copy of BODY per kind the type has), so that a loop inside
 * BODY that calls rtdiv_<S>_div_kind(dv, n, K) has no branch on the kind:
 *
 *   #define SUM_QUOTIENTS(K) for (i = 0; i < n; i++) acc += rtdiv_u64_div_kind(&dv, x[i], K)
 *   RTDIV_DISPATCH(u64, &dv, SUM_QUOTIENTS);
 *
 * (libdivide 1.x's "strategy" functions chose an algorithm once the same way.) */
#define RTDIV_DISPATCH(S, dv, BODY) RTDIV__DISPATCH_##S(rtdiv_##S##_kind(dv), BODY)
#define RTDIV__DISPATCH_UNSIGNED(k, BODY)                                                \
    switch (k) {                                                                         \
    case RTDIV_KIND_SHIFT: { BODY(RTDIV_KIND_SHIFT); } break;                            \
    case RTDIV_KIND_MUL: { BODY(RTDIV_KIND_MUL); } break;                                \
    case RTDIV_KIND_PRE: { BODY(RTDIV_KIND_PRE); } break;                                \
    default: { BODY(RTDIV_KIND_ADD); } break;                                            \
    }
#define RTDIV__DISPATCH_SIGNED(k, BODY)                                                  \
    switch (k) {                                                                         \
    case RTDIV_KIND_SHIFT: { BODY(RTDIV_KIND_SHIFT); } break;                            \
    case RTDIV_KIND_MUL: { BODY(RTDIV_KIND_MUL); } break;                                \
    case RTDIV_KIND_ADD: { BODY(RTDIV_KIND_ADD); } break;                                \
    default: { BODY(RTDIV_KIND_NEG); } break;                                            \
    }
#define RTDIV__DISPATCH_u32 RTDIV__DISPATCH_UNSIGNED
#define RTDIV__DISPATCH_u64 RTDIV__DISPATCH_UNSIGNED
#define RTDIV__DISPATCH_s32 RTDIV__DISPATCH_SIGNED
#define RTDIV__DISPATCH_s64 RTDIV__DISPATCH_SIGNED

#define RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)                                       \
    RTDIV__INLINE T rtdiv_##S##_divisor(const rtdiv_##S *dv) { return (T)dv->d; }        \
    RTDIV__INLINE rtdiv_kind rtdiv_##S##_kind(const rtdiv_##S *dv) {                     \
        return (rtdiv_kind)dv->kind;                                                     \
    }                                                                                    \
    RTDIV__INLINE int rtdiv_##S##_divisible(const rtdiv_##S *dv, T n) {                  \
        UT x = (UT)((UT)n * dv->inv + dv->ofs);                                          \
        unsigned k = dv->tz;                                                             \
        x = (UT)((x >> k) | (x << ((N - k) & (N - 1)))); /* rotate right by k */         \
        return x <= dv->lim;                                                             \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_div(const rtdiv_##S *dv, T n) {                          \
        return rtdiv_##S##_div_kind(dv, n, (rtdiv_kind)dv->kind);                        \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem(const rtdiv_##S *dv, T n) {                          \
        return rtdiv_##S##_rem_kind(dv, n, (rtdiv_kind)dv->kind);                        \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem_bf(const rtdiv_##S *dv, T n) {                       \
        return (T)((UT)n - (UT)rtdiv_##S##_div_bf(dv, n) * dv->d);                       \
    }

#define RTDIV__UNSIGNED(S, T, UT, ST, UW, SW, N, SG)                                     \
    RTDIV__INLINE T rtdiv_##S##_div_bf(const rtdiv_##S *dv, T n) {                       \
        T hi = rtdiv_##S##_mulhi(n, dv->magic_bf);                                       \
        if (N < 64) /* the N+1-bit sum fits a 64-bit register: one op fewer */          \
            return (T)(((uint64_t)hi + n) >> (dv->sh1 + dv->sh2));                       \
        return (((n - hi) >> dv->sh1) + hi) >> dv->sh2;                                  \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_div_kind(const rtdiv_##S *dv, T n, rtdiv_kind kind) {    \
        unsigned post = dv->post;                                                        \
        if (kind == RTDIV_KIND_SHIFT)                                                    \
            return n >> post;                                                            \
        if (N == 32) /* MUL, ADD, PRE: the wide magic */                                 \
            return (T)rtdiv_u64_mulhi(dv->wide, n);                                      \
        if (kind == RTDIV_KIND_MUL)                                                      \
            return rtdiv_##S##_mulsh(n, dv->magic, post);                                \
        if (kind == RTDIV_KIND_PRE) /* n's low pre = ctz(d) bits cleared: the mask */   \
            /* -(d & -d) needs no shift count, so `cl` holds post alone in a loop */     \
            return rtdiv_##S##_mulsh(n & (T)(0 - (dv->d & (0 - dv->d))), dv->magic, post); \
        T hi = rtdiv_##S##_mulhi(n, dv->magic); /* ADD */                                \
        return (((n - hi) >> 1) + hi) >> post;                                           \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem_kind(const rtdiv_##S *dv, T n, rtdiv_kind kind) {    \
        if (kind == RTDIV_KIND_SHIFT) /* the constant's `and` */                         \
            return n & dv->magic;                                                        \
        return (T)(n - rtdiv_##S##_div_kind(dv, n, kind) * dv->d);                       \
    }                                                                                    \
    RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)

#define RTDIV__SIGNED(S, T, UT, ST, UW, SW, N, SG)                                       \
    RTDIV__INLINE T rtdiv_##S##_div_bf(const rtdiv_##S *dv, T n) {                       \
        UT neg = (UT)((T)dv->d >> (N - 1));                                              \
        UT bias = ((UT)1 << dv->sh2) - (dv->magic_bf == 0);                              \
        UT q = (UT)rtdiv_##S##_mulhi(n, (T)dv->magic_bf) + (UT)n;                        \
        q += (UT)((T)q >> (N - 1)) & bias;                                               \
        q = (UT)((T)q >> dv->sh2);                                                       \
        return (T)((q ^ neg) - neg);                                                     \
    }                                                                                    \
    /* SHIFT: n biased by 2^post - 1 (magic) when negative, so the shift truncates. By   \
     * the sign mask: gcc 12 makes `n < 0 ? n + magic : n` a cmov in some loops and a    \
     * branch in others, taken on every other random numerator (s32 / 1024, a loop that  \
     * stores its quotients: 10-12 TSC ticks a division; with the mask 1.7-2.7 at -O2,   \
     * 0.25-0.4 at -O3, vectorised) */                                                   \
    RTDIV__INLINE T rtdiv_##S##__biased(const rtdiv_##S *dv, T n) {                      \
        return (T)((UT)n + ((UT)(n >> (N - 1)) & dv->magic));                            \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_div_kind(const rtdiv_##S *dv, T n, rtdiv_kind kind) {    \
        unsigned post = dv->post;                                                        \
        T t;                                                                             \
        if (kind == RTDIV_KIND_SHIFT)                                                    \
            return rtdiv_##S##__biased(dv, n) >> post;                                   \
        if (kind == RTDIV_KIND_NEG)                                                      \
            return rtdiv_##S##_div_bf(dv, n);                                            \
        if (N == 32) /* MUL, ADD: the wide magic, floor(n w / 2^64) */                   \
            t = (T)rtdiv_s64_mulhi((int64_t)dv->wide, (int64_t)n);                       \
        else if (kind == RTDIV_KIND_MUL)                                                 \
            t = rtdiv_##S##_mulsh(n, (T)dv->magic, post);                                \
        else /* ADD */                                                                   \
            t = (T)((UT)rtdiv_##S##_mulhi(n, (T)dv->magic) + (UT)n) >> post;             \
        /* floor -> truncation: +1 for a negative quotient */                           \
        return (T)((UT)t + ((UT)t >> (N - 1)));                                          \
    }                                                                                    \
    RTDIV__INLINE T rtdiv_##S##_rem_kind(const rtdiv_##S *dv, T n, rtdiv_kind kind) {    \
        if (kind == RTDIV_KIND_SHIFT) /* n less q * 2^post: the biased n's high bits */ \
            return (T)((UT)n - ((UT)rtdiv_##S##__biased(dv, n) & ~dv->magic));           \
        return (T)((UT)n - (UT)rtdiv_##S##_div_kind(dv, n, kind) * dv->d);               \
    }                                                                                    \
    RTDIV__COMMON(S, T, UT, ST, UW, SW, N, SG)

RTDIV_FOR_EACH_UNSIGNED(RTDIV__UNSIGNED)
RTDIV_FOR_EACH_SIGNED(RTDIV__SIGNED)

#undef RTDIV__UNSIGNED
#undef RTDIV__SIGNED
#undef RTDIV__COMMON

#endif /* RTDIV_H */
