/* adler32_avx2.c — Adler-32 on 32 bytes per step with AVX2 (src/adler32.c says how).
 *
 * Per 32-byte block: vpsadbw sums its bytes into four 64-bit lanes (s1), vpmaddubsw then
 * vpmaddwd weigh them 32..1 into eight 32-bit lanes (s2's part within the block), and the
 * running byte sum before each block is added up once more (each block moves every earlier
 * byte 32 places further from the end: 32 times that sum at the reduction). Two blocks per
 * step, with two weighted-sum registers, so that no multiply waits for the one before.
 * Loads start at a 32-byte boundary (the bytes before it by the scalar loop) and each step
 * prefetches 2 KiB ahead, as the AVX-512 paths do (src/adler32_avx512.c says why).
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/adler32.h"

#define TARGET __attribute__((target("avx2")))

TARGET static uint64_t hsum64(__m256i v) {
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

TARGET static uint64_t hsum32(__m256i v) {
    __m256i z = _mm256_setzero_si256();
    return hsum64(_mm256_add_epi64(_mm256_unpacklo_epi32(v, z), _mm256_unpackhi_epi32(v, z)));
}

TARGET uint32_t gzw_adler32_avx2(uint32_t adler, const uint8_t *p, size_t n) {
    size_t head = (size_t)(-(uintptr_t)p & 31);
    if (head && n >= head + 64) { /* no load splits a cache line from here */
        adler = gzw_adler32_scalar(adler, p, head);
        p += head, n -= head;
    }
    uint32_t s1 = adler & 0xffff, s2 = adler >> 16;
    const __m256i weights = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21,
                                             20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
                                             8, 7, 6, 5, 4, 3, 2, 1);
    const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    while (n >= 32) {
        size_t k = (n < GZW_ADLER_NMAX ? n : GZW_ADLER_NMAX) & ~(size_t)31;
        n -= k;
        s2 += s1 * (uint32_t)k; /* < 65521 * 5552 + 65521: fits */
        __m256i v1 = zero, v3 = zero, va = zero, vb = zero;
        for (; k >= 64; k -= 64, p += 64) {
            _mm_prefetch((const char *)p + GZW_PREFETCH_AHEAD, _MM_HINT_T0);
            __m256i a = _mm256_loadu_si256((const __m256i *)p);
            __m256i b = _mm256_loadu_si256((const __m256i *)(p + 32));
            v3 = _mm256_add_epi64(v3, v1);
            v1 = _mm256_add_epi64(v1, _mm256_sad_epu8(a, zero));
            v3 = _mm256_add_epi64(v3, v1);
            v1 = _mm256_add_epi64(v1, _mm256_sad_epu8(b, zero));
            va = _mm256_add_epi32(va, _mm256_madd_epi16(_mm256_maddubs_epi16(a, weights), ones));
            vb = _mm256_add_epi32(vb, _mm256_madd_epi16(_mm256_maddubs_epi16(b, weights), ones));
        }
        if (k) { /* one block of 32 left */
            __m256i a = _mm256_loadu_si256((const __m256i *)p);
            v3 = _mm256_add_epi64(v3, v1);
            v1 = _mm256_add_epi64(v1, _mm256_sad_epu8(a, zero));
            va = _mm256_add_epi32(va, _mm256_madd_epi16(_mm256_maddubs_epi16(a, weights), ones));
            p += 32;
        }
        s1 = (uint32_t)((s1 + hsum64(v1)) % GZW_ADLER_BASE);
        s2 = (uint32_t)((s2 + 32 * hsum64(v3) + hsum32(_mm256_add_epi32(va, vb))) %
                        GZW_ADLER_BASE);
    }
    return gzw_adler32_scalar(s2 << 16 | s1, p, n);
}
#else
typedef int gzw_no_avx2; /* ISO C wants something in every translation unit */
#endif
