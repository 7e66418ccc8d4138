/* adler32_avx512.c — Adler-32 on 64 bytes per step with AVX-512 BW, and with VNNI's
 * vpdpbusd where the CPU has it (src/adler32.c says how, src/adler32_avx2.c the steps).
 *
 * The block's weighted sum (weights 64..1) takes vpmaddubsw, vpmaddwd and an add with BW
 * alone, one vpdpbusd with VNNI. Four blocks per step, the weighted sums in two registers.
 * The bytes before the first 64-byte boundary go through the scalar loop, so that every
 * load is one cache line, and each step prefetches the lines 2 KiB ahead
 * (GZW_PREFETCH_STEP): 256 MiB from a buffer 16 bytes past a page (malloc's), streamed
 * from memory, went 27.9 -> 49 GB/s (libdeflate's 42-44), 16 MiB from L3 71 -> 100.
 * The two paths are one template; WEIGH names the weighted sum when it is expanded.
 */
#if defined(__x86_64__)
#include "internal/adler32_avx512.h"

#define ADLER32_AVX512(NAME, TARGET)                                                       \
    TARGET uint32_t NAME(uint32_t adler, const uint8_t *p, size_t n) {                     \
        size_t head = (size_t)(-(uintptr_t)p & 63);                                        \
        if (head && n >= head + 256) { /* whole-line loads: a split one costs two */       \
            adler = gzw_adler32_scalar(adler, p, head);                                    \
            p += head, n -= head;                                                          \
        }                                                                                  \
        uint32_t s1 = adler & 0xffff, s2 = adler >> 16;                                    \
        const __m512i weights = adler_weights();                                           \
        const __m512i zero = _mm512_setzero_si512();                                       \
        while (n >= 64) {                                                                  \
            size_t k = (n < GZW_ADLER_NMAX ? n : GZW_ADLER_NMAX) & ~(size_t)63;            \
            n -= k;                                                                        \
            s2 += s1 * (uint32_t)k;                                                        \
            __m512i v1 = zero, v3 = zero, va = zero, vb = zero;                            \
            for (; k >= 256; k -= 256, p += 256) {                                         \
                GZW_PREFETCH_STEP(p);                                                      \
                __m512i a = _mm512_loadu_si512(p), b = _mm512_loadu_si512(p + 64);         \
                __m512i c = _mm512_loadu_si512(p + 128), d = _mm512_loadu_si512(p + 192);  \
                ADLER_BLOCK(a, va);                                                        \
                ADLER_BLOCK(b, vb);                                                        \
                ADLER_BLOCK(c, va);                                                        \
                ADLER_BLOCK(d, vb);                                                        \
            }                                                                              \
            for (; k; k -= 64, p += 64) {                                                  \
                __m512i a = _mm512_loadu_si512(p);                                         \
                ADLER_BLOCK(a, va);                                                        \
            }                                                                              \
            adler_reduce(&s1, &s2, v1, v3, va, vb);                                        \
        }                                                                                  \
        return gzw_adler32_scalar(s2 << 16 | s1, p, n);                                    \
    }

#define WEIGH weigh_bw
ADLER32_AVX512(gzw_adler32_avx512, GZW_TARGET_BW)
#undef WEIGH
#define WEIGH weigh_vnni
ADLER32_AVX512(gzw_adler32_avx512_vnni, GZW_TARGET_VNNI)
#undef WEIGH
#else
typedef int gzw_no_avx512; /* ISO C wants something in every translation unit */
#endif
