/* Packed varint runs with AVX2, four values or 32 bools per step
 * (internal/packed_simd.h says what a kernel may leave).
 *
 * AVX2 has no byte gather across its two 128-bit lanes (no vpermb, no
 * vpcompressb), so the four values' starts come from the block's terminator
 * mask by tzcnt and blsr, and each value is loaded into a 64-bit lane of its
 * own; from there it is vector code with no branch on a length: the first
 * terminator's mask (e ^ (e - 1) of the inverted high bits), the 7-bit groups
 * packed by vpmaddubsw and vpmaddwd into 28-bit halves, joined by one shift
 * and a select; bytes 8 and 9 from a second load, kept only in lanes with no
 * terminator among the first 8 bytes. A value longer than 10 bytes (ten
 * continuation bytes in a row, found with four shift-and-ands of the mask)
 * ends the kernel before its step. The count takes one vpmovmskb and one
 * popcnt per 32 bytes (the portable count: four words and four multiplies);
 * bools, vpminub with 1.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/fast_scalar.h"
#include "internal/packed_simd.h"

#define PBDYN_AVX2 __attribute__((target("avx2,bmi,popcnt")))
#define PBDYN_AVX2_INLINE PBDYN_AVX2 static inline __attribute__((always_inline))

/* Terminators in whole 32-byte blocks. */
PBDYN_AVX2 static uint32_t pbdyn__avx2_count(const char *p, const char *stop, const char **end) {
  uint32_t n = 0;
  for (; stop - p >= 32; p += 32) {
    uint32_t cont = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)p));
    n += (uint32_t)__builtin_popcount(~cont);
  }
  *end = p;
  return n;
}

/* Four values per step, from a 64-byte window (four values of up to 10 bytes
 * end in it); 32-bit kinds store their low halves. */
PBDYN_AVX2_INLINE const char *pbdyn__avx2_varints(const char *p, const char *stop, char **dst,
                                                  bool wide, bool zigzag) {
  char *out = *dst;
  const __m256i high = _mm256_set1_epi8((char)0x80), low7 = _mm256_set1_epi8(0x7f),
                pair = _mm256_set1_epi16((short)0x8001), quad = _mm256_set1_epi32(0x40000001),
                low28 = _mm256_set1_epi64x(0x0fffffff), one = _mm256_set1_epi64x(1),
                halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
  while (stop - p >= 64) {
    uint64_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)p));
    uint64_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(p + 32)));
    uint64_t cont = lo | hi << 32, t = ~cont;
    if (PBDYN_UNLIKELY(__builtin_popcountll(t) < 4)) break; /* four values must end here */
    unsigned e0 = (unsigned)__builtin_ctzll(t);
    t &= t - 1;
    unsigned e1 = (unsigned)__builtin_ctzll(t);
    t &= t - 1;
    unsigned e2 = (unsigned)__builtin_ctzll(t);
    t &= t - 1;
    unsigned e3 = (unsigned)__builtin_ctzll(t);
    /* bit i: bytes i..i+9 are all continuation bytes, an 11th byte follows */
    uint64_t run = cont & cont >> 1, run10 = run & run >> 2;
    run10 &= run10 >> 4;
    run10 &= run >> 8;
    if (PBDYN_UNLIKELY(run10 & ((2ull << e3) - 1))) break;
    __m256i q = _mm256_set_epi64x((long long)pbdyn__load64(p + e2 + 1),
                                  (long long)pbdyn__load64(p + e1 + 1),
                                  (long long)pbdyn__load64(p + e0 + 1), (long long)pbdyn__load64(p));
    __m256i ends = _mm256_andnot_si256(q, high);
    __m256i mine = _mm256_xor_si256(ends, _mm256_sub_epi64(ends, one)); /* up to the terminator */
    __m256i g = _mm256_and_si256(_mm256_and_si256(q, mine), low7);
    __m256i d = _mm256_madd_epi16(_mm256_maddubs_epi16(pair, g), quad);
    __m256i v = _mm256_or_si256(_mm256_and_si256(d, low28),
                                _mm256_andnot_si256(low28, _mm256_srli_epi64(d, 4)));
    if (wide) {
      /* bytes 8 and 9 (bits 56..62 and 63) of lanes with no terminator in 0..7 */
      __m256i w = _mm256_set_epi64x((long long)pbdyn__load16(p + e2 + 9),
                                    (long long)pbdyn__load16(p + e1 + 9),
                                    (long long)pbdyn__load16(p + e0 + 9),
                                    (long long)pbdyn__load16(p + 8));
      __m256i ends2 = _mm256_andnot_si256(w, high);
      __m256i mine2 = _mm256_and_si256(_mm256_xor_si256(ends2, _mm256_sub_epi64(ends2, one)),
                                       _mm256_cmpeq_epi64(ends, _mm256_setzero_si256()));
      __m256i g2 = _mm256_and_si256(_mm256_and_si256(w, mine2), low7);
      v = _mm256_or_si256(v, _mm256_slli_epi64(_mm256_maddubs_epi16(pair, g2), 56));
      if (zigzag)
        v = _mm256_xor_si256(_mm256_srli_epi64(v, 1),
                             _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(v, one)));
      _mm256_storeu_si256((__m256i *)out, v);
      out += 32;
    } else {
      __m128i v32 = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, halves));
      if (zigzag)
        v32 = _mm_xor_si128(_mm_srli_epi32(v32, 1),
                            _mm_sub_epi32(_mm_setzero_si128(), _mm_and_si128(v32, _mm_set1_epi32(1))));
      _mm_storeu_si128((__m128i *)out, v32);
      out += 16;
    }
    p += e3 + 1;
  }
  *dst = out;
  return p;
}

/* Bools: 32 one-byte values per step (min(b, 1)); in a block with a longer
 * value, the one-byte values before it, then that value alone. The store of
 * 32 bytes is inside the array, sized for one value per input byte. */
PBDYN_AVX2 static const char *pbdyn__avx2_boolean(const char *p, const char *stop, char **dst) {
  char *out = *dst;
  const __m256i one = _mm256_set1_epi8(1);
  while (stop - p >= 32) {
    __m256i x = _mm256_loadu_si256((const __m256i *)p);
    uint32_t cont = (uint32_t)_mm256_movemask_epi8(x);
    _mm256_storeu_si256((__m256i *)out, _mm256_min_epu8(x, one));
    if (PBDYN_LIKELY(cont == 0)) {
      out += 32;
      p += 32;
      continue;
    }
    unsigned k = (unsigned)__builtin_ctz(cont);
    uint64_t v;
    const char *q = pbdyn__fast_varint(p + k, &v);
    if (!q) {
      p += k; /* more than 10 bytes: the portable loop rejects it */
      out += k;
      break;
    }
    out[k] = v != 0;
    out += k + 1;
    p = q;
  }
  *dst = out;
  return p;
}

PBDYN_AVX2 static const char *pbdyn__avx2_varint32(const char *p, const char *stop, char **dst) {
  return pbdyn__avx2_varints(p, stop, dst, false, false);
}
PBDYN_AVX2 static const char *pbdyn__avx2_zigzag32(const char *p, const char *stop, char **dst) {
  return pbdyn__avx2_varints(p, stop, dst, false, true);
}
PBDYN_AVX2 static const char *pbdyn__avx2_varint64(const char *p, const char *stop, char **dst) {
  return pbdyn__avx2_varints(p, stop, dst, true, false);
}
PBDYN_AVX2 static const char *pbdyn__avx2_zigzag64(const char *p, const char *stop, char **dst) {
  return pbdyn__avx2_varints(p, stop, dst, true, true);
}

const pbdyn__packed_simd pbdyn__packed_avx2 = {
    PBDYN_ISA_AVX2,
    pbdyn__avx2_count,
    {pbdyn__avx2_boolean, pbdyn__avx2_varint32, pbdyn__avx2_varint64, pbdyn__avx2_zigzag32,
     pbdyn__avx2_zigzag64},
};
#endif /* __x86_64__ */
