/* Packed varint runs with AVX-512 (F, BW, VBMI, VBMI2) and BMI2, 64 input
 * bytes per step (internal/packed_simd.h says what a kernel may leave).
 *
 * One step: the terminators (bytes < 0x80) of the block are a 64-bit mask;
 * pdep keeps its first 16 (32-bit kinds) or 8 (64-bit kinds), and vpcompressb
 * of 0..63 under that mask lists their positions e_j, whence each value's
 * start s_j = e_{j-1} + 1. Broadcasting s_j and e_j over lane j, vpermb
 * gathers bytes s_j.. of the block into the lane, zeroed past e_j; clearing
 * the high bits, vpmaddubsw (x 1, 128) and vpmaddwd (x 1, 16384) pack the
 * 7-bit groups into 28-bit halves, which one shift and one select join. A
 * 32-bit kind needs the value's first 5 bytes (bits 0..34; the rest of a
 * 10-byte negative int32 is sign extension), a 64-bit kind its first 10: a
 * second vpermb brings bytes 4, or 8 and 9. Lengths never branch; a value of
 * more than 10 bytes (its 11th byte would be dropped) ends the kernel before
 * it, for the portable loop to reject.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/fast_scalar.h"
#include "internal/packed_simd.h"

#define PBDYN_AVX512 \
  __attribute__((target("avx512f,avx512bw,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt")))
#define PBDYN_AVX512_INLINE PBDYN_AVX512 static inline __attribute__((always_inline))

#define PBDYN_BYTES64(f) \
  { f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7), f(8), f(9), f(10), f(11), f(12), f(13), \
    f(14), f(15), f(16), f(17), f(18), f(19), f(20), f(21), f(22), f(23), f(24), f(25),     \
    f(26), f(27), f(28), f(29), f(30), f(31), f(32), f(33), f(34), f(35), f(36), f(37),     \
    f(38), f(39), f(40), f(41), f(42), f(43), f(44), f(45), f(46), f(47), f(48), f(49),     \
    f(50), f(51), f(52), f(53), f(54), f(55), f(56), f(57), f(58), f(59), f(60), f(61),     \
    f(62), f(63) }
#define PBDYN_IOTA(i) (i)
#define PBDYN_PREV(i) (((i) - 1) & 63)
#define PBDYN_LANE4(i) ((i) / 4)
#define PBDYN_BYTE4(i) ((i) % 4)
#define PBDYN_LANE8(i) ((i) / 8)
#define PBDYN_BYTE8(i) ((i) % 8)
static const uint8_t pbdyn__iota[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_IOTA);
static const uint8_t pbdyn__prev[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_PREV);
static const uint8_t pbdyn__lane4[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_LANE4);
static const uint8_t pbdyn__byte4[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_BYTE4);
static const uint8_t pbdyn__lane8[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_LANE8);
static const uint8_t pbdyn__byte8[64] __attribute__((aligned(64))) = PBDYN_BYTES64(PBDYN_BYTE8);

PBDYN_AVX512_INLINE __m512i pbdyn__v(const uint8_t *table) { return _mm512_load_si512(table); }

/* Terminators in whole 64-byte blocks. */
PBDYN_AVX512 static uint32_t pbdyn__avx512_count(const char *p, const char *stop,
                                                 const char **end) {
  uint32_t n = 0;
  for (; stop - p >= 64; p += 64)
    n += (uint32_t)__builtin_popcountll(~_mm512_movepi8_mask(_mm512_loadu_si512(p)));
  *end = p;
  return n;
}

/* One step's values: the first `lanes` terminators of block x (mask t), their
 * positions e and starts s. Returns how many values the step takes (0: none,
 * the first is longer than 10 bytes or does not end in the block) and sets
 * *next to the byte after the last one's terminator. */
PBDYN_AVX512_INLINE unsigned pbdyn__avx512_split(uint64_t t, unsigned lanes, __m512i *e,
                                                 __m512i *s, unsigned *next) {
  uint64_t first = _pdep_u64((1ull << lanes) - 1, t);
  *e = _mm512_maskz_compress_epi8(first, pbdyn__v(pbdyn__iota));
  *s = _mm512_maskz_permutexvar_epi8(~1ull, pbdyn__v(pbdyn__prev),
                                     _mm512_add_epi8(*e, _mm512_set1_epi8(1)));
  unsigned n = (unsigned)__builtin_popcountll(first);
  /* e - s = length - 1: 10 or more is an 11th byte */
  uint64_t longer = _mm512_cmpgt_epu8_mask(_mm512_sub_epi8(*e, *s), _mm512_set1_epi8(9)) &
                    ((1ull << n) - 1);
  if (PBDYN_UNLIKELY(longer)) {
    n = (unsigned)__builtin_ctzll(longer);
    first = _pdep_u64((1ull << n) - 1, t);
  }
  *next = first ? 64 - (unsigned)__builtin_clzll(first) : 0;
  return n;
}

/* 16 values of a 32-bit kind per step, their first 5 bytes each. */
PBDYN_AVX512_INLINE const char *pbdyn__avx512_varints32(const char *p, const char *stop,
                                                        char **dst, bool zigzag) {
  char *out = *dst;
  const __m512i low7 = _mm512_set1_epi8(0x7f), pair = _mm512_set1_epi16(0x8001),
                quad = _mm512_set1_epi32(0x40000001), one = _mm512_set1_epi32(1);
  while (stop - p >= 64) {
    __m512i x = _mm512_loadu_si512(p), e, s;
    unsigned next, n = pbdyn__avx512_split(~_mm512_movepi8_mask(x), 16, &e, &s, &next);
    if (PBDYN_UNLIKELY(n == 0)) break;
    __m512i sb = _mm512_permutexvar_epi8(pbdyn__v(pbdyn__lane4), s);
    __m512i eb = _mm512_permutexvar_epi8(pbdyn__v(pbdyn__lane4), e);
    __m512i idx = _mm512_add_epi8(sb, pbdyn__v(pbdyn__byte4));
    __m512i g = _mm512_and_si512(
        _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx, eb), idx, x), low7);
    /* byte 4 into each lane's low byte: its bits 0..3 are the value's 28..31 */
    __m512i idx4 = _mm512_add_epi8(sb, _mm512_set1_epi8(4));
    __mmask64 in4 = _mm512_cmple_epu8_mask(idx4, eb) & 0x1111111111111111ull;
    __m512i g4 = _mm512_maskz_permutexvar_epi8(in4, idx4, x);
    __m512i v = _mm512_madd_epi16(_mm512_maddubs_epi16(pair, g), quad);
    v = _mm512_or_si512(v, _mm512_slli_epi32(g4, 28));
    if (zigzag)
      v = _mm512_xor_si512(_mm512_srli_epi32(v, 1),
                           _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_and_si512(v, one)));
    _mm512_mask_storeu_epi32(out, (__mmask16)((1u << n) - 1), v);
    out += 4 * n;
    p += next;
  }
  *dst = out;
  return p;
}

/* 8 values of a 64-bit kind per step, bytes 0..7 and 8..9 gathered apart. */
PBDYN_AVX512_INLINE const char *pbdyn__avx512_varints64(const char *p, const char *stop,
                                                        char **dst, bool zigzag) {
  char *out = *dst;
  const __m512i low7 = _mm512_set1_epi8(0x7f), pair = _mm512_set1_epi16(0x8001),
                quad = _mm512_set1_epi32(0x40000001), one = _mm512_set1_epi64(1),
                low28 = _mm512_set1_epi64(0x0fffffff);
  while (stop - p >= 64) {
    __m512i x = _mm512_loadu_si512(p), e, s;
    unsigned next, n = pbdyn__avx512_split(~_mm512_movepi8_mask(x), 8, &e, &s, &next);
    if (PBDYN_UNLIKELY(n == 0)) break;
    __m512i sb = _mm512_permutexvar_epi8(pbdyn__v(pbdyn__lane8), s);
    __m512i eb = _mm512_permutexvar_epi8(pbdyn__v(pbdyn__lane8), e);
    __m512i idx = _mm512_add_epi8(sb, pbdyn__v(pbdyn__byte8));
    __m512i g = _mm512_and_si512(
        _mm512_maskz_permutexvar_epi8(_mm512_cmple_epu8_mask(idx, eb), idx, x), low7);
    __m512i idx8 = _mm512_add_epi8(idx, _mm512_set1_epi8(8));
    __mmask64 in8 = _mm512_cmple_epu8_mask(idx8, eb) & 0x0303030303030303ull;
    __m512i g8 = _mm512_and_si512(_mm512_maskz_permutexvar_epi8(in8, idx8, x), low7);
    /* two 28-bit halves per lane, joined: the high one moves down 4 bits */
    __m512i d = _mm512_madd_epi16(_mm512_maddubs_epi16(pair, g), quad);
    __m512i v = _mm512_ternarylogic_epi64(d, _mm512_srli_epi64(d, 4), low28, 0xE4);
    /* bytes 8 and 9 are bits 56..62 and 63 (the 10th byte's other bits drop) */
    v = _mm512_or_si512(v, _mm512_slli_epi64(_mm512_maddubs_epi16(pair, g8), 56));
    if (zigzag)
      v = _mm512_xor_si512(_mm512_srli_epi64(v, 1),
                           _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_and_si512(v, one)));
    _mm512_mask_storeu_epi64(out, (__mmask8)((1u << n) - 1), v);
    out += 8 * n;
    p += next;
  }
  *dst = out;
  return p;
}

/* Bools: 64 one-byte values per step (min(b, 1)); in a block with a longer
 * value, the one-byte values before it, then that value alone. The store of
 * 64 bytes is inside the array, sized for one value per input byte. */
PBDYN_AVX512 static const char *pbdyn__avx512_boolean(const char *p, const char *stop,
                                                      char **dst) {
  char *out = *dst;
  const __m512i one = _mm512_set1_epi8(1);
  while (stop - p >= 64) {
    __m512i x = _mm512_loadu_si512(p);
    uint64_t cont = _mm512_movepi8_mask(x);
    _mm512_storeu_si512(out, _mm512_min_epu8(x, one));
    if (PBDYN_LIKELY(cont == 0)) {
      out += 64;
      p += 64;
      continue;
    }
    unsigned k = (unsigned)__builtin_ctzll(cont);
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

PBDYN_AVX512 static const char *pbdyn__avx512_varint32(const char *p, const char *stop, char **dst) {
  return pbdyn__avx512_varints32(p, stop, dst, false);
}
PBDYN_AVX512 static const char *pbdyn__avx512_zigzag32(const char *p, const char *stop, char **dst) {
  return pbdyn__avx512_varints32(p, stop, dst, true);
}
PBDYN_AVX512 static const char *pbdyn__avx512_varint64(const char *p, const char *stop, char **dst) {
  return pbdyn__avx512_varints64(p, stop, dst, false);
}
PBDYN_AVX512 static const char *pbdyn__avx512_zigzag64(const char *p, const char *stop, char **dst) {
  return pbdyn__avx512_varints64(p, stop, dst, true);
}

const pbdyn__packed_simd pbdyn__packed_avx512 = {
    PBDYN_ISA_AVX512,
    pbdyn__avx512_count,
    {pbdyn__avx512_boolean, pbdyn__avx512_varint32, pbdyn__avx512_varint64,
     pbdyn__avx512_zigzag32, pbdyn__avx512_zigzag64},
};
#endif /* __x86_64__ */
