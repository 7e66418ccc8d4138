/* internal/adler32_avx512.h — the Adler-32 steps on 64-byte vectors, shared by the
 * Adler-32 alone (src/adler32_avx512.c) and the pass that also folds the CRC-32
 * (src/crc32_avx512.c). Include only in files built for x86-64.
 *
 * Per 64-byte block x of a chunk: v3 += v1 (every earlier byte moves 64 places further
 * from the chunk's end), v1 += the bytes' sum (vpsadbw), acc += the bytes weighted 64..1
 * (WEIGH: weigh_bw or weigh_vnni, defined by the file before it uses ADLER_BLOCK). At the
 * chunk's end, adler_reduce folds them into s1 and s2 mod 65521.
 */
#ifndef GZWRAP_INTERNAL_ADLER32_AVX512_H
#define GZWRAP_INTERNAL_ADLER32_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#include "internal/adler32.h"

#define GZW_TARGET_BW __attribute__((target("avx512f,avx512bw")))
#define GZW_TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define GZW_INLINE static inline __attribute__((always_inline))

GZW_TARGET_BW GZW_INLINE __m512i adler_weights(void) {
    return _mm512_set_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                           20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36,
                           37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,
                           54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64);
}

GZW_TARGET_BW GZW_INLINE __m512i weigh_bw(__m512i acc, __m512i x, __m512i w) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(x, w),
                                                   _mm512_set1_epi16(1)));
}

GZW_TARGET_VNNI GZW_INLINE __m512i weigh_vnni(__m512i acc, __m512i x, __m512i w) {
    return _mm512_dpbusd_epi32(acc, x, w);
}

/* The four cache lines GZW_PREFETCH_AHEAD past p, for the 256-byte step about to load p. */
#define GZW_PREFETCH_STEP(p)                                                               \
    do {                                                                                   \
        for (int line_ = 0; line_ < 256; line_ += 64)                                      \
            _mm_prefetch((const char *)(p) + GZW_PREFETCH_AHEAD + line_, _MM_HINT_T0);     \
    } while (0)

#define ADLER_BLOCK(x, acc)                                                                \
    do {                                                                                   \
        v3 = _mm512_add_epi64(v3, v1);                                                     \
        v1 = _mm512_add_epi64(v1, _mm512_sad_epu8(x, zero));                               \
        acc = WEIGH(acc, x, weights);                                                      \
    } while (0)

/* s1 and s2 after a chunk: v1 the byte sums (64-bit lanes), v3 the sums before each
 * block, va and vb the weighted sums (32-bit lanes). */
GZW_TARGET_BW GZW_INLINE void adler_reduce(uint32_t *s1, uint32_t *s2, __m512i v1, __m512i v3,
                                           __m512i va, __m512i vb) {
    __m512i z = _mm512_setzero_si512(), w = _mm512_add_epi32(va, vb);
    uint64_t ws = (uint64_t)_mm512_reduce_add_epi64(
        _mm512_add_epi64(_mm512_unpacklo_epi32(w, z), _mm512_unpackhi_epi32(w, z)));
    *s1 = (uint32_t)((*s1 + (uint64_t)_mm512_reduce_add_epi64(v1)) % GZW_ADLER_BASE);
    *s2 = (uint32_t)((*s2 + 64 * (uint64_t)_mm512_reduce_add_epi64(v3) + ws) % GZW_ADLER_BASE);
}

#endif
