/* adler32.c — gzwrap's own Adler-32: the portable path, and which SIMD path this CPU runs.
 *
 * Adler-32 (RFC 1950 8.2) keeps s1 = 1 + the sum of the bytes and s2 = the sum of the
 * successive s1, both mod 65521. Over n bytes b[0..n), s2 grows by n * s1 + sum (n - i) *
 * b[i]: a byte sum and a weighted byte sum, which SIMD computes for 32 or 64 bytes per
 * instruction (src/adler32_avx2.c, src/adler32_avx512.c). The reductions mod 65521 wait
 * as long as 32-bit sums cannot overflow: NMAX bytes (zlib's bound, 5552) per reduction.
 *
 * The paths are implementations of the ADLER32 role like zlib's, ISA-L's and libdeflate's
 * (src/impl.c): which ones this CPU can run is decided here, once, by cpuid and xgetbv (a
 * feature bit is not enough: the OS must save the wide registers, which XCR0 reports).
 */
#include <stdatomic.h>

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

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Bit i set: the path of gzw_adler_isa i runs here. */
static unsigned detect(void) {
    unsigned a, b, c, d, can = 1u << GZW_ADLER_PORTABLE;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return can;
    const unsigned osxsave = 1u << 27, avx = 1u << 28;
    if ((c & (osxsave | avx)) != (osxsave | avx))
        return can;
    uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return can;
    const unsigned avx2 = 1u << 5, avx512f = 1u << 16, avx512bw = 1u << 30;
    const unsigned vnni = 1u << 11; /* ecx: AVX512_VNNI */
    if (b & avx2)
        can |= 1u << GZW_ADLER_AVX2;
    if ((b & (avx512f | avx512bw)) == (avx512f | avx512bw) && (xcr0 & 0xE6) == 0xE6) {
        can |= 1u << GZW_ADLER_AVX512;
        if (c & vnni)
            can |= 1u << GZW_ADLER_AVX512_VNNI;
    }
    return can;
}
#else
static unsigned detect(void) { return 1u << GZW_ADLER_PORTABLE; }
#endif

int gzw_adler32_runs(gzw_adler_isa isa) {
    static _Atomic int can = -1; /* two threads may both detect: same answer, harmless */
    int v = atomic_load_explicit(&can, memory_order_relaxed);
    if (v < 0) {
        v = (int)detect();
        atomic_store_explicit(&can, v, memory_order_relaxed);
    }
    return (unsigned)isa < 32 && (v >> isa & 1);
}
