/* crc32_avx512.c — CRC-32 (gzip's, reflected) by carry-less multiplication on 64-byte
 * vectors (VPCLMULQDQ), alone or fused with Adler-32 in one pass over the data.
 *
 * Folding (Intel's "Fast CRC Computation Using PCLMULQDQ"): a 128-bit piece X of the
 * message that lies D bits before a later piece Y can be replaced by X * x^D mod P xored
 * into Y without changing the CRC; with X = L x^64 + H (L the earlier bytes), that is
 * clmul(L, x^(D+32) mod P) ^ clmul(H, x^(D-32) mod P) in the bit-reflected domain. Four
 * 64-byte accumulators fold over 256 bytes per step (independent products hide their
 * latency), then into one, then 16 bytes; a tail of fewer than 16 bytes makes, with the
 * last piece, two pieces (byte shuffles) that fold once more, and a Barrett reduction
 * gives the last 16 bytes' 32 bits, all in registers: zlib's bytewise crc32 here took 14%
 * of a conversion of random data, whose stored blocks of 16 KiB each end in a tail. The
 * initial value enters as an xor into the first four bytes (the CRC is linear).
 *
 * The fused pass reads each vector once for both sums: a conversion between gzip and zlib
 * or COMPRESS() needs the CRC-32 to check the source and the Adler-32 for the target
 * (src/adler32_avx512.c explains the Adler-32 steps, done here on the same registers).
 * Given a destination it also stores each vector there: stored blocks then go from the
 * input to the output in one pass. A large output takes streaming (non-temporal) stores,
 * so that it does not push the input out of the caches on its way to memory.
 */
#if defined(__x86_64__)
#include <string.h>
#include <zlib.h>

#include "internal/adler32_avx512.h"
#include "internal/crc32.h"

#define TARGET_BW __attribute__((target("avx512f,avx512bw,avx512vl,vpclmulqdq,pclmul")))
#define TARGET_VNNI                                                                        \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,vpclmulqdq,pclmul")))

/* x^n mod P, bit-reflected and multiplied by x (33 bits), for folding over D bits: the
 * low qword pairs with the earlier half of a piece (n = D + 32), the high with the later
 * (n = D - 32). Computed by `r = 0x80000000; n times: r = r & 1 ? r >> 1 ^ 0xEDB88320 :
 * r >> 1; (uint64_t)r << 1`, and checked against zlib by the tests. */
#define K2048 0x11542778aull, 0x1322d1430ull /* x^2080, x^2016: 256 bytes */
#define K512 0x154442bd4ull, 0x1c6e41596ull  /* x^544, x^480: 64 bytes */
#define K384 0x03db1ecdcull, 0x174359406ull  /* x^416, x^352 */
#define K256 0x0f1da05aaull, 0x15a546366ull  /* x^288, x^224 */
#define K128 0x1751997d0ull, 0x0ccaa009eull  /* x^160, x^96: 16 bytes */
#define K64 0x163cd6124ull                     /* x^64: 96 bits to 64 */
/* Barrett: P itself (33 bits, reflected) and floor(x^64 / P), reflected */
#define KPOLY 0x1db710641ull, 0x1f7011641ull

#define K4(lo, hi) _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo)
#define KX(lo, hi) _mm_set_epi64x((long long)(hi), (long long)(lo))
#define K4_(pair) K4(pair)
#define KX_(pair) KX(pair)

TARGET_BW GZW_INLINE __m512i fold4(__m512i acc, __m512i k, __m512i next) {
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(acc, k, 0x00),
                                     _mm512_clmulepi64_epi128(acc, k, 0x11), next, 0x96);
}

TARGET_BW GZW_INLINE __m128i fold1(__m128i acc, __m128i k, __m128i next) {
    return _mm_ternarylogic_epi64(_mm_clmulepi64_si128(acc, k, 0x00),
                                  _mm_clmulepi64_si128(acc, k, 0x11), next, 0x96);
}

/* The CRC of the message that r (16 bytes, from a zero state) stands for, followed by
 * p[0, n): 16-byte pieces by folding, then the tail (see the top). At least 16 bytes of
 * the message lie before p in memory. */
TARGET_BW GZW_INLINE uint32_t crc_tail(__m128i r, const uint8_t *p, size_t n) {
    for (; n >= 16; n -= 16, p += 16)
        r = fold1(r, KX_(K128), _mm_loadu_si128((const __m128i *)p));
    if (n) {
        /* r stands for a 16-byte message from a zero state, and zeros before it change
         * nothing: 0^(16-n) r t, with t the n bytes left, is two pieces. The first is r's
         * first n bytes at its end; the second r's last 16-n bytes, then t, loaded from
         * the 16 bytes ending at t (the bytes before it were read already). Byte shuffles
         * with an index past 15 or negative give zero or are blended over. */
        const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        __m128i early = _mm_shuffle_epi8(r, _mm_sub_epi8(iota, _mm_set1_epi8((char)(16 - n))));
        __m128i later = _mm_shuffle_epi8(r, _mm_add_epi8(iota, _mm_set1_epi8((char)n)));
        later = _mm_mask_blend_epi8((__mmask16)(0xffffu << (16 - n)), later,
                                    _mm_loadu_si128((const __m128i *)(p + n - 16)));
        r = fold1(early, KX_(K128), later);
    }
    /* 128 bits to 64, to 32 by Barrett reduction (Intel's paper; zlib-ng and Chromium's
     * zlib do the same) */
    const __m128i k = KX_(K128), lo32 = _mm_setr_epi32(-1, 0, -1, 0), poly = KX_(KPOLY);
    r = _mm_xor_si128(_mm_srli_si128(r, 8), _mm_clmulepi64_si128(r, k, 0x10));
    r = _mm_xor_si128(_mm_srli_si128(r, 4),
                      _mm_clmulepi64_si128(_mm_and_si128(r, lo32), _mm_set_epi64x(0, K64), 0x00));
    __m128i q = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(r, lo32), poly, 0x10), lo32);
    r = _mm_xor_si128(r, _mm_clmulepi64_si128(q, poly, 0x00));
    return ~(uint32_t)_mm_extract_epi32(r, 1);
}

/* The four accumulators (acc[0] the earliest 64 bytes) into one 16-byte piece, then the
 * rest of the data: 64-byte pieces by folding, then crc_tail. */
TARGET_BW GZW_INLINE uint32_t crc_finish(__m512i a0, __m512i a1, __m512i a2, __m512i a3,
                                     const uint8_t *p, size_t n) {
    const __m512i k512 = K4_(K512);
    a1 = fold4(a0, k512, a1);
    a2 = fold4(a1, k512, a2);
    a3 = fold4(a2, k512, a3);
    for (; n >= 64; n -= 64, p += 64)
        a3 = fold4(a3, k512, _mm512_loadu_si512(p));
    __m128i r = _mm512_extracti32x4_epi32(a3, 3);
    r = fold1(_mm512_extracti32x4_epi32(a3, 0), KX_(K384), r);
    r = fold1(_mm512_extracti32x4_epi32(a3, 1), KX_(K256), r);
    r = fold1(_mm512_extracti32x4_epi32(a3, 2), KX_(K128), r);
    return crc_tail(r, p, n);
}

/* A short run (the 256-byte steps need more): from 16 bytes 16 at a time, in registers;
 * below that zlib's bytewise loop, which took 29% of a conversion of a 100-byte value
 * when it served every run below 256 bytes. */
TARGET_BW static uint32_t crc_short(uint32_t crc, const uint8_t *p, size_t n) {
    if (n < 16)
        return (uint32_t)crc32(crc, p, (uInt)n);
    __m128i r = _mm_xor_si128(_mm_loadu_si128((const __m128i *)p), _mm_cvtsi32_si128((int)~crc));
    return crc_tail(r, p + 16, n - 16);
}

/* The CRC-32's first 64 bytes from p, of which the first `skip` (< 64) are not the
 * message's: a masked load reads them as zeros (and cannot fault on them), and a zero
 * state stays zero over zeros, so the CRC is the message's when its initial value enters
 * at the first byte that is (`init`, two vectors: it may reach into the next 64 bytes). */
TARGET_BW GZW_INLINE __m512i first_block(const uint8_t *p, unsigned skip, uint32_t crc,
                                         __m512i *into_next) {
    uint8_t init[128] = {0};
    uint32_t x = ~crc;
    memcpy(init + skip, &x, 4);
    *into_next = _mm512_loadu_si512(init + 64);
    return _mm512_xor_si512(_mm512_maskz_loadu_epi8(~0ull << skip, p), _mm512_loadu_si512(init));
}

/* 256 bytes to dst: by streaming stores (dst 64-byte aligned) or plain ones. */
TARGET_BW GZW_INLINE void store4(uint8_t *dst, int stream, __m512i x0, __m512i x1, __m512i x2,
                                 __m512i x3) {
    if (stream) {
        _mm512_stream_si512((void *)dst, x0);
        _mm512_stream_si512((void *)(dst + 64), x1);
        _mm512_stream_si512((void *)(dst + 128), x2);
        _mm512_stream_si512((void *)(dst + 192), x3);
    } else {
        _mm512_storeu_si512(dst, x0);
        _mm512_storeu_si512(dst + 64, x1);
        _mm512_storeu_si512(dst + 128, x2);
        _mm512_storeu_si512(dst + 192, x3);
    }
}

/* Both sums over p[0, n), n >= 256, and a copy to dst unless it is NULL (store4):
 * CRC_ADLER(NAME, TARGET, WITH_ADLER). `skip`: the CRC-32 alone (no Adler-32, no copy)
 * may start up to 63 bytes before the message, at a cache line, so that no load splits
 * two (first_block). */
#define CRC_ADLER(NAME, TARGET, WITH_ADLER)                                                \
    TARGET static void NAME(uint32_t *crc, uint32_t *adler, const uint8_t *p, size_t n,    \
                            uint8_t *dst, int stream, unsigned skip) {                     \
        const __m512i k2048 = K4_(K2048), zero = _mm512_setzero_si512();                   \
        const __m512i weights = adler_weights();                                           \
        uint32_t s1 = *adler & 0xffff, s2 = *adler >> 16;                                  \
        __m512i init1;                                                                     \
        __m512i a0 = first_block(p, skip, *crc, &init1);                                   \
        __m512i a1 = _mm512_xor_si512(_mm512_loadu_si512(p + 64), init1);                  \
        __m512i a2 = _mm512_loadu_si512(p + 128);                                          \
        __m512i a3 = _mm512_loadu_si512(p + 192);                                          \
        int first = 1;                                                                     \
        while (n >= 256) {                                                                 \
            /* an Adler-32 reduction per chunk of at most NMAX bytes, in 256-byte steps */ \
            size_t k = (n < GZW_ADLER_NMAX ? n : GZW_ADLER_NMAX) & ~(size_t)255;           \
            n -= k;                                                                        \
            __m512i v1 = zero, v3 = zero, va = zero, vb = zero;                            \
            if (WITH_ADLER)                                                                \
                s2 += s1 * (uint32_t)k;                                                    \
            for (; k; k -= 256, p += 256) {                                                \
                if (WITH_ADLER) /* the CRC-32 alone: its folds keep it busy, and the */    \
                    GZW_PREFETCH_STEP(p); /* prefetches cost it 3% in cache */             \
                __m512i x0 = _mm512_loadu_si512(p), x1 = _mm512_loadu_si512(p + 64);       \
                __m512i x2 = _mm512_loadu_si512(p + 128), x3 = _mm512_loadu_si512(p + 192); \
                if (dst) {                                                                 \
                    store4(dst, stream, x0, x1, x2, x3);                                   \
                    dst += 256;                                                            \
                }                                                                          \
                if (!first) {                                                              \
                    a0 = fold4(a0, k2048, x0);                                             \
                    a1 = fold4(a1, k2048, x1);                                             \
                    a2 = fold4(a2, k2048, x2);                                             \
                    a3 = fold4(a3, k2048, x3);                                             \
                }                                                                          \
                first = 0;                                                                 \
                if (WITH_ADLER) {                                                          \
                    ADLER_BLOCK(x0, va);                                                   \
                    ADLER_BLOCK(x1, vb);                                                   \
                    ADLER_BLOCK(x2, va);                                                   \
                    ADLER_BLOCK(x3, vb);                                                   \
                }                                                                          \
            }                                                                              \
            if (WITH_ADLER)                                                                \
                adler_reduce(&s1, &s2, v1, v3, va, vb);                                    \
        }                                                                                  \
        if (WITH_ADLER)                                                                    \
            *adler = gzw_adler32_avx512(s2 << 16 | s1, p, n);                              \
        *crc = crc_finish(a0, a1, a2, a3, p, n);                                           \
        if (dst)                                                                           \
            memcpy(dst, p, n);                                                             \
        if (dst && stream)                                                                 \
            _mm_sfence(); /* the streamed stores before any later load of them */          \
    }

#define WEIGH weigh_bw
CRC_ADLER(crc_only, TARGET_BW, 0)
CRC_ADLER(crc_adler_bw, TARGET_BW, 1)
#undef WEIGH
#define WEIGH weigh_vnni
CRC_ADLER(crc_adler_vnni, TARGET_VNNI, 1)
#undef WEIGH

uint32_t gzw_crc32_avx512(uint32_t crc, const uint8_t *p, size_t n) {
    unsigned skip = (unsigned)((uintptr_t)p & 63); /* from the cache line p is in */
    if (n + skip < 256)
        return crc_short(crc, p, n);
    uint32_t unused = 1;
    crc_only(&crc, &unused, p - skip, n + skip, NULL, 0, skip);
    return crc;
}

/* The bytes before dst's next 64-byte boundary where streamed stores need it, and all of
 * a short run, by crc_short and `small`, and copied plainly; then the rest by `big`. Else
 * the loads stay where they are: aligning them would send the first bytes of every stored
 * block through the short path (when it was zlib's bytewise loop, 10% of a conversion of
 * random data), and the folds keep this loop busy enough that split loads cost little. */
#define SUMS_COPY(small, big)                                                              \
    do {                                                                                   \
        size_t head = copy && stream ? (size_t)(-(uintptr_t)copy & 63) : 0;                \
        if (n < head + 256)                                                                \
            head = n;                                                                      \
        if (head) {                                                                        \
            *crc = crc_short(*crc, p, head);                                               \
            *adler = small(*adler, p, head);                                               \
            if (copy)                                                                      \
                memcpy(copy, p, head), copy += head;                                       \
            p += head, n -= head;                                                          \
        }                                                                                  \
        if (n)                                                                             \
            big(crc, adler, p, n, copy, stream, 0);                                        \
    } while (0)

void gzw_crc32_adler32_avx512(uint32_t *crc, uint32_t *adler, const uint8_t *p, size_t n,
                              uint8_t *copy, int stream) {
    SUMS_COPY(gzw_adler32_avx512, crc_adler_bw);
}

void gzw_crc32_adler32_avx512_vnni(uint32_t *crc, uint32_t *adler, const uint8_t *p,
                                   size_t n, uint8_t *copy, int stream) {
    SUMS_COPY(gzw_adler32_avx512_vnni, crc_adler_vnni);
}
#else
typedef int gzw_no_avx512_crc; /* ISO C wants something in every translation unit */
#endif
