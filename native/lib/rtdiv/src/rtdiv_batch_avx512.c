/* rtdiv_batch_avx512.c — batch division with AVX-512 F + DQ (16 x 32-bit or 8 x 64-bit).
 *
 * Over AVX2 this brings twice the lanes, a native 64-bit arithmetic shift (vpsraq),
 * masked shifts (the 32-bit lanes' even and odd quotients merge with no blend) and
 * a 64-bit low multiply (vpmullq, DQ); the 64-bit high multiply is still built from
 * four 32 x 32 -> 64 products, as AVX-512 has none (IFMA's 52-bit products do not
 * cover 64-bit lanes). Zen 4 executes 512-bit operations as two 256-bit halves, so the
 * gain over AVX2 there comes from fewer instructions, not wider units.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/rtdiv_batch.h"

#define RTDIV__ISA avx512
#define RTDIV__TARGET __attribute__((target("avx512f,avx512dq")))
#define P RTDIV__TARGET static inline __attribute__((always_inline))

/* 32-bit lanes (rtdiv_batch_lanes32.h) */
typedef __m512i v32;
#define V32_LANES 16
P v32 v32_load(const void *p) { return _mm512_loadu_si512(p); }
P void v32_store(void *p, v32 x) { _mm512_storeu_si512(p, x); }
P v32 v32_set1(int32_t x) { return _mm512_set1_epi32(x); }
P v32 v32_set1w(int64_t x) { return _mm512_set1_epi64(x); }
P v32 v32_add(v32 a, v32 b) { return _mm512_add_epi32(a, b); }
P v32 v32_sub(v32 a, v32 b) { return _mm512_sub_epi32(a, b); }
P v32 v32_and(v32 a, v32 b) { return _mm512_and_si512(a, b); }
P v32 v32_xor(v32 a, v32 b) { return _mm512_xor_si512(a, b); }
P v32 v32_addw(v32 a, v32 b) { return _mm512_add_epi64(a, b); }
/* Shifts by a count known only at run time take the per-lane form (vpsrlvd, a count
 * broadcast once per call): the form with the count in an xmm register is two uops on
 * Intel's cores (one on p5), the per-lane one a single uop, as on Zen 4 and 5. */
P __m512i cnt32(__m128i c) { return _mm512_broadcastd_epi32(c); }
P __m512i cnt64(__m128i c) { return _mm512_broadcastq_epi64(c); }
P v32 v32_srl(v32 a, __m128i c) { return _mm512_srlv_epi32(a, cnt32(c)); }
P v32 v32_sra(v32 a, __m128i c) { return _mm512_srav_epi32(a, cnt32(c)); }
P v32 v32_sign(v32 a) { return _mm512_srai_epi32(a, 31); }
P v32 v32_mulu(v32 a, v32 m) { return _mm512_mul_epu32(a, m); }
P v32 v32_muls(v32 a, v32 m) { return _mm512_mul_epi32(a, m); }
/* a shuffle, not a shift: Intel's cores run 512-bit shifts on one port, which the
 * multiplies and the other shifts already crowd; a multiply reads only the even places */
P v32 v32_odd(v32 a) { return _mm512_shuffle_epi32(a, _MM_PERM_DDBB); }
P v32 v32_mullo(v32 a, v32 b) { return _mm512_mullo_epi32(a, b); }
P v32 v32_abs(v32 a) { return _mm512_abs_epi32(a); }
P v32 v32_negwhere(v32 q, v32 x) {
    return _mm512_mask_sub_epi32(q, _mm512_movepi32_mask(x), _mm512_setzero_si512(), q);
}
/* even lanes: the product shifted by 32 + s; odd lanes: the high half shifted by s, in
 * place, merged by the mask (no blend) */
P v32 v32_joinu(v32 e, v32 o, __m128i s, __m128i sw) {
    return _mm512_mask_srlv_epi32(_mm512_srlv_epi64(e, cnt64(sw)), 0xAAAA, o, cnt32(s));
}
P v32 v32_joins(v32 e, v32 o, __m128i s, __m128i sw) {
    return _mm512_mask_srav_epi32(_mm512_srav_epi64(e, cnt64(sw)), 0xAAAA, o, cnt32(s));
}
P v32 v32_trunc(v32 t) {
    return _mm512_mask_sub_epi32(t, _mm512_movepi32_mask(t), t, _mm512_set1_epi32(-1));
}

/* 64-bit lanes (rtdiv_batch_lanes64.h) */
typedef __m512i v_u64, v_s64;
#define V_u64_LANES 8
#define V_s64_LANES 8

#define RTDIV__AVX512_COMMON(S)                                                          \
    P v_##S v_##S##_load(const void *p) { return _mm512_loadu_si512(p); }               \
    P void v_##S##_store(void *p, v_##S x) { _mm512_storeu_si512(p, x); }                \
    P v_##S v_##S##_xor(v_##S a, v_##S b) { return _mm512_xor_si512(a, b); }            \
    P v_##S v_##S##_and(v_##S a, v_##S b) { return _mm512_and_si512(a, b); }
RTDIV__AVX512_COMMON(u64)
RTDIV__AVX512_COMMON(s64)

P __m512i rtdiv__avx512_mulhi_u64(__m512i a, __m512i b) {
    __m512i a_hi = _mm512_srli_epi64(a, 32), b_hi = _mm512_srli_epi64(b, 32);
    __m512i ll = _mm512_mul_epu32(a, b), lh = _mm512_mul_epu32(a, b_hi);
    __m512i hl = _mm512_mul_epu32(a_hi, b), hh = _mm512_mul_epu32(a_hi, b_hi);
    __m512i t = _mm512_add_epi64(hl, _mm512_srli_epi64(ll, 32));
    __m512i w = _mm512_add_epi64(_mm512_and_si512(t, _mm512_set1_epi64(0xFFFFFFFF)), lh);
    return _mm512_add_epi64(_mm512_add_epi64(hh, _mm512_srli_epi64(t, 32)),
                            _mm512_srli_epi64(w, 32));
}

#define RTDIV__AVX512_64(S)                                                              \
    P v_##S v_##S##_set1(int64_t x) { return _mm512_set1_epi64(x); }                     \
    P v_##S v_##S##_add(v_##S a, v_##S b) { return _mm512_add_epi64(a, b); }            \
    P v_##S v_##S##_sub(v_##S a, v_##S b) { return _mm512_sub_epi64(a, b); }            \
    P v_##S v_##S##_srl(v_##S a, __m128i c) { return _mm512_srlv_epi64(a, cnt64(c)); }  \
    P v_##S v_##S##_sra(v_##S a, __m128i c) { return _mm512_srav_epi64(a, cnt64(c)); }  \
    P v_##S v_##S##_sign(v_##S a) { return _mm512_srai_epi64(a, 63); }                  \
    P v_##S v_##S##_mullo(v_##S a, v_##S b) { return _mm512_mullo_epi64(a, b); }
RTDIV__AVX512_64(u64)
RTDIV__AVX512_64(s64)

P v_u64 v_u64_mulhi(v_u64 a, v_u64 m) { return rtdiv__avx512_mulhi_u64(a, m); }
P v_s64 v_s64_mulhi(v_s64 a, v_s64 m) {
    __m512i h = rtdiv__avx512_mulhi_u64(a, m);
    h = _mm512_sub_epi64(h, _mm512_and_si512(_mm512_srai_epi64(a, 63), m));
    return _mm512_sub_epi64(h, _mm512_and_si512(_mm512_srai_epi64(m, 63), a));
}

#include "internal/rtdiv_batch_body.h"

#endif /* __x86_64__ */
