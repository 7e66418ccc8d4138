/* rtdiv_batch_avx2.c — batch division with AVX2 (8 x 32-bit or 4 x 64-bit lanes).
 *
 * AVX2 multiplies only 32 x 32 -> 64 bits (vpmuludq / vpmuldq, on the even lanes), so:
 *   32-bit lanes: one multiply for the even lanes, one for the odd ones (loaded one
 *                 element on), the high halves blended and shifted once
 *                 (rtdiv_batch_lanes32.h: 2 multiplies per 8 lanes);
 *   64-bit mulhi: four partial products per lane, schoolbook (4 multiplies per 4 lanes,
 *                 plus 7 adds and shifts), with two corrections for signed lanes;
 *   64-bit mullo and arithmetic shift do not exist either and are built from pieces.
 * Compiled with a target attribute per function, so the file builds with the project's
 * common flags and runs only after cpuid says AVX2 is there.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/rtdiv_batch.h"

#define RTDIV__ISA avx2
#define RTDIV__TARGET __attribute__((target("avx2")))
#define P RTDIV__TARGET static inline __attribute__((always_inline))

/* 32-bit lanes (rtdiv_batch_lanes32.h) */
typedef __m256i v32;
#define V32_LANES 8
P v32 v32_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
P void v32_store(void *p, v32 x) { _mm256_storeu_si256((__m256i *)p, x); }
P v32 v32_set1(int32_t x) { return _mm256_set1_epi32(x); }
P v32 v32_set1w(int64_t x) { return _mm256_set1_epi64x(x); }
P v32 v32_add(v32 a, v32 b) { return _mm256_add_epi32(a, b); }
P v32 v32_sub(v32 a, v32 b) { return _mm256_sub_epi32(a, b); }
P v32 v32_and(v32 a, v32 b) { return _mm256_and_si256(a, b); }
P v32 v32_xor(v32 a, v32 b) { return _mm256_xor_si256(a, b); }
P v32 v32_addw(v32 a, v32 b) { return _mm256_add_epi64(a, b); }
P v32 v32_srl(v32 a, __m128i c) { return _mm256_srl_epi32(a, c); }
P v32 v32_sra(v32 a, __m128i c) { return _mm256_sra_epi32(a, c); }
P v32 v32_sign(v32 a) { return _mm256_srai_epi32(a, 31); }
P v32 v32_mulu(v32 a, v32 m) { return _mm256_mul_epu32(a, m); }
P v32 v32_muls(v32 a, v32 m) { return _mm256_mul_epi32(a, m); }
P v32 v32_odd(v32 a) { return _mm256_srli_epi64(a, 32); }
P v32 v32_mullo(v32 a, v32 b) { return _mm256_mullo_epi32(a, b); }
P v32 v32_abs(v32 a) { return _mm256_abs_epi32(a); }
/* vpsignd zeroes where x is 0, where q is 0 too (q = |x| / |d| of an x in {0, ~0}) */
P v32 v32_negwhere(v32 q, v32 x) { return _mm256_sign_epi32(q, x); }
/* the high halves side by side (no vpsraq in AVX2 for the even products, and no masked
 * shift), then one 32-bit shift */
P v32 v32_joinu(v32 e, v32 o, __m128i s, __m128i sw) {
    (void)sw;
    return _mm256_srl_epi32(_mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xAA), s);
}
P v32 v32_joins(v32 e, v32 o, __m128i s, __m128i sw) {
    (void)sw;
    return _mm256_sra_epi32(_mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xAA), s);
}
P v32 v32_trunc(v32 t) { return _mm256_sub_epi32(t, _mm256_cmpgt_epi32(_mm256_setzero_si256(), t)); }

/* 64-bit lanes (rtdiv_batch_lanes64.h) */
typedef __m256i v_u64, v_s64;
#define V_u64_LANES 4
#define V_s64_LANES 4

#define RTDIV__AVX2_COMMON(S)                                                            \
    P v_##S v_##S##_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); } \
    P void v_##S##_store(void *p, v_##S x) { _mm256_storeu_si256((__m256i *)p, x); }     \
    P v_##S v_##S##_xor(v_##S a, v_##S b) { return _mm256_xor_si256(a, b); }            \
    P v_##S v_##S##_and(v_##S a, v_##S b) { return _mm256_and_si256(a, b); }
RTDIV__AVX2_COMMON(u64)
RTDIV__AVX2_COMMON(s64)

P __m256i rtdiv__avx2_mulhi_u64(__m256i a, __m256i b) {
    __m256i a_hi = _mm256_srli_epi64(a, 32), b_hi = _mm256_srli_epi64(b, 32);
    __m256i ll = _mm256_mul_epu32(a, b), lh = _mm256_mul_epu32(a, b_hi);
    __m256i hl = _mm256_mul_epu32(a_hi, b), hh = _mm256_mul_epu32(a_hi, b_hi);
    /* (2^32-1)^2 + 2^32-1 < 2^64: neither sum below can carry out of the lane */
    __m256i t = _mm256_add_epi64(hl, _mm256_srli_epi64(ll, 32));
    __m256i w = _mm256_add_epi64(_mm256_and_si256(t, _mm256_set1_epi64x(0xFFFFFFFF)), lh);
    return _mm256_add_epi64(_mm256_add_epi64(hh, _mm256_srli_epi64(t, 32)),
                            _mm256_srli_epi64(w, 32));
}
P __m256i rtdiv__avx2_mullo_u64(__m256i a, __m256i b) {
    __m256i ll = _mm256_mul_epu32(a, b);
    __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b),
                                     _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
    return _mm256_add_epi64(ll, _mm256_slli_epi64(cross, 32));
}
P __m256i rtdiv__avx2_sign64(__m256i a) { return _mm256_cmpgt_epi64(_mm256_setzero_si256(), a); }

#define RTDIV__AVX2_64(S)                                                                \
    P v_##S v_##S##_set1(int64_t x) { return _mm256_set1_epi64x(x); }                   \
    P v_##S v_##S##_add(v_##S a, v_##S b) { return _mm256_add_epi64(a, b); }            \
    P v_##S v_##S##_sub(v_##S a, v_##S b) { return _mm256_sub_epi64(a, b); }            \
    P v_##S v_##S##_srl(v_##S a, __m128i c) { return _mm256_srl_epi64(a, c); }          \
    P v_##S v_##S##_sign(v_##S a) { return rtdiv__avx2_sign64(a); }                     \
    /* no vpsraq in AVX2: shift logically, then fill the vacated bits of negatives */    \
    P v_##S v_##S##_sra(v_##S a, __m128i c) {                                            \
        __m256i fill = _mm256_srl_epi64(_mm256_set1_epi64x(-1), c);                      \
        return _mm256_or_si256(_mm256_srl_epi64(a, c),                                   \
                               _mm256_andnot_si256(fill, rtdiv__avx2_sign64(a)));        \
    }                                                                                    \
    P v_##S v_##S##_mullo(v_##S a, v_##S b) { return rtdiv__avx2_mullo_u64(a, b); }
RTDIV__AVX2_64(u64)
RTDIV__AVX2_64(s64)

P v_u64 v_u64_mulhi(v_u64 a, v_u64 m) { return rtdiv__avx2_mulhi_u64(a, m); }
/* signed high half = unsigned high half - (a < 0 ? m : 0) - (m < 0 ? a : 0) */
P v_s64 v_s64_mulhi(v_s64 a, v_s64 m) {
    __m256i h = rtdiv__avx2_mulhi_u64(a, m);
    h = _mm256_sub_epi64(h, _mm256_and_si256(rtdiv__avx2_sign64(a), m));
    return _mm256_sub_epi64(h, _mm256_and_si256(rtdiv__avx2_sign64(m), a));
}

#include "internal/rtdiv_batch_body.h"

#endif /* __x86_64__ */
