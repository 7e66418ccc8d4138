/* rtdiv_types.h — the one list of integer types rtdiv serves.
 *
 * Every per-type definition in rtdiv (the struct, the inline verbs, generation, the
 * batch paths) is expanded from this list, so the four types cannot drift apart.
 * Columns: suffix, value type, unsigned type of the same width, signed type of the same
 * width, double-width unsigned and signed types (for the high half of a product), width
 * in bits, and whether the type is signed.
 *
 * Not part of the public interface: include <rtdiv.h>.
 */
#ifndef RTDIV_INTERNAL_TYPES_H
#define RTDIV_INTERNAL_TYPES_H

#include <stdint.h>

/* The double-width types need __int128, present in gcc and clang on every 64-bit target. */
typedef unsigned __int128 rtdiv__u128;
typedef __int128 rtdiv__s128;

/* X(S, T, UT, ST, UW, SW, N, SIGNED) */
#define RTDIV_FOR_EACH_UNSIGNED(X)                                                       \
    X(u32, uint32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 0)                        \
    X(u64, uint64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 0)

#define RTDIV_FOR_EACH_SIGNED(X)                                                         \
    X(s32, int32_t, uint32_t, int32_t, uint64_t, int64_t, 32, 1)                         \
    X(s64, int64_t, uint64_t, int64_t, rtdiv__u128, rtdiv__s128, 64, 1)

#define RTDIV_FOR_EACH_TYPE(X) RTDIV_FOR_EACH_UNSIGNED(X) RTDIV_FOR_EACH_SIGNED(X)

#endif
