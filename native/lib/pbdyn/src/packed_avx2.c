/* Packed varint runs with AVX2, 32 input bytes per step
 * (internal/packed_simd.h says what a kernel may leave).
 *
 * The count (one vpmovmskb and one popcnt per 32 bytes, where the portable
 * count takes four 8-byte words and four multiplies) and bool runs of one-byte
 * values (vpminub with 1: 32 values per step) are vector code here. The other
 * kinds' values are left to the portable loop: AVX2 has no byte gather across
 * its two 128-bit lanes (no vpermb, no vpcompressb), so putting each value of
 * up to 10 bytes into a lane of its own needs its start as a scalar first, the
 * very work (tzcnt per value) the portable loop already does.
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "internal/fast_scalar.h"
#include "internal/packed_simd.h"

#define PBDYN_AVX2 __attribute__((target("avx2,bmi,popcnt")))

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

const pbdyn__packed_simd pbdyn__packed_avx2 = {
    PBDYN_ISA_AVX2,
    pbdyn__avx2_count,
    {pbdyn__avx2_boolean, NULL, NULL, NULL, NULL},
};
#endif /* __x86_64__ */
