/* adler32.c — gzwrap's own Adler-32: the portable path, and which SIMD path this CPU runs.
 *
 * Adler-32 (RFC 1950 8.2) keeps s1 = 1 + the sum of the bytes and s2 = the sum of the
 * successive s1, both mod 65521. Over n bytes b[0..n), s2 grows by n * s1 + sum (n - i) *
 * b[i]: a byte sum and a weighted byte sum, which SIMD computes for 32 or 64 bytes per
 * instruction (src/adler32_avx2.c, src/adler32_avx512.c). The reductions mod 65521 wait
 * as long as 32-bit sums cannot overflow: NMAX bytes (zlib's bound, 5552) per reduction.
 *
 * The paths are implementations of the ADLER32 role like zlib's, ISA-L's and libdeflate's
 * (src/impl.c), offered where src/cpu.c finds that this CPU runs them.
 */
#include "internal/adler32.h"

uint32_t gzw_adler32_scalar(uint32_t adler, const uint8_t *p, size_t n) {
    uint32_t s1 = adler & 0xffff, s2 = adler >> 16;
    while (n > 0) {
        size_t k = n < GZW_ADLER_NMAX ? n : GZW_ADLER_NMAX;
        n -= k;
        for (; k >= 8; k -= 8, p += 8) {
            s1 += p[0], s2 += s1, s1 += p[1], s2 += s1, s1 += p[2], s2 += s1;
            s1 += p[3], s2 += s1, s1 += p[4], s2 += s1, s1 += p[5], s2 += s1;
            s1 += p[6], s2 += s1, s1 += p[7], s2 += s1;
        }
        for (; k > 0; k--)
            s1 += *p++, s2 += s1;
        s1 %= GZW_ADLER_BASE, s2 %= GZW_ADLER_BASE;
    }
    return s2 << 16 | s1;
}

uint32_t gzw_adler32_portable(uint32_t v, const uint8_t *b, size_t n) {
    return gzw_adler32_scalar(v, b, n);
}
