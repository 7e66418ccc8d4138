/* adler32_avx512.c — Adler-32 on 64 bytes per step with AVX-512 BW, and with VNNI's
 * vpdpbusd where the CPU has it (src/adler32.c says how, src/adler32_avx2.c the steps).
 *
 * The block's weighted sum (weights 64..1) takes vpmaddubsw, vpmaddwd and an add with BW
 * alone, one vpdpbusd with VNNI. Four blocks per step, the weighted sums in two registers.
 * The two paths are one template; WEIGH names the weighted sum when it is expanded.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/adler32.h"

#define TARGET_BW __attribute__((target("avx512f,avx512bw")))
#define TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

TARGET_BW static inline __attribute__((always_inline)) uint64_t hsum64(__m512i v) {
    return (uint64_t)_mm512_reduce_add_epi64(v);
}

TARGET_BW static inline __attribute__((always_inline)) uint64_t hsum32(__m512i v) {
    __m512i z = _mm512_setzero_si512();
    return hsum64(_mm512_add_epi64(_mm512_unpacklo_epi32(v, z), _mm512_unpackhi_epi32(v, z)));
}

TARGET_BW static inline __attribute__((always_inline)) __m512i weigh_bw(__m512i acc, __m512i x,
                                                                       __m512i w) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(x, w),
                                                   _mm512_set1_epi16(1)));
}

TARGET_VNNI static inline __attribute__((always_inline)) __m512i weigh_vnni(__m512i acc,
                                                                           __m512i x, __m512i w) {
    return _mm512_dpbusd_epi32(acc, x, w);
}

#define BLOCK(x, acc)                                                                      \
    do {                                                                                   \
        v3 = _mm512_add_epi64(v3, v1);                                                     \
        v1 = _mm512_add_epi64(v1, _mm512_sad_epu8(x, zero));                               \
        acc = WEIGH(acc, x, weights);                                                      \
    } while (0)

#define ADLER32_AVX512(NAME, TARGET)                                             \
    TARGET uint32_t NAME(uint32_t adler, const uint8_t *p, size_t n) {                     \
        uint32_t s1 = adler & 0xffff, s2 = adler >> 16;                                    \
        const __m512i weights = _mm512_set_epi8(                                           \
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, \
            23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41,    \
            42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,    \
            61, 62, 63, 64);                                                               \
        const __m512i zero = _mm512_setzero_si512();                                       \
        while (n >= 64) {                                                                  \
            size_t k = (n < GZW_ADLER_NMAX ? n : GZW_ADLER_NMAX) & ~(size_t)63;            \
            n -= k;                                                                        \
            s2 += s1 * (uint32_t)k;                                                        \
            __m512i v1 = zero, v3 = zero, va = zero, vb = zero;                            \
            for (; k >= 256; k -= 256, p += 256) {                                         \
                __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 64);         \
                __m512i c = _mm512_loadu_si512(p + 128), d = _mm512_loadu_si512(p + 192);  \
                BLOCK(a, va);                                                              \
                BLOCK(b, vb);                                                              \
                BLOCK(c, va);                                                              \
                BLOCK(d, vb);                                                              \
            }                                                                              \
            for (; k; k -= 64, p += 64) {                                                  \
                __m512i a = _mm512_loadu_si512(p);                                         \
                BLOCK(a, va);                                                              \
            }                                                                              \
            s1 = (uint32_t)((s1 + hsum64(v1)) % GZW_ADLER_BASE);                           \
            s2 = (uint32_t)((s2 + 64 * hsum64(v3) + hsum32(_mm512_add_epi32(va, vb))) %    \
                            GZW_ADLER_BASE);                                               \
        }                                                                                  \
        return gzw_adler32_scalar(s2 << 16 | s1, p, n);                                   \
    }

#define WEIGH weigh_bw
ADLER32_AVX512(gzw_adler32_avx512, TARGET_BW)
#undef WEIGH
#define WEIGH weigh_vnni
ADLER32_AVX512(gzw_adler32_avx512_vnni, TARGET_VNNI)
#undef WEIGH
#else
typedef int gzw_no_avx512; /* ISO C wants something in every translation unit */
#endif
