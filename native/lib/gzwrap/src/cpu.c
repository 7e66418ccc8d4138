/* cpu.c — which SIMD paths this CPU runs, decided once by cpuid and xgetbv.
 *
 * A feature bit in cpuid is not enough: the OS must also save the wider registers on a
 * context switch, which XCR0 (read with xgetbv) reports: bits 1-2 (SSE, AVX state) for
 * AVX2, and bits 5-7 (opmask, upper halves of zmm0-15, zmm16-31) for AVX-512.
 */
#include <stdatomic.h>
#include <stdint.h>

#include "internal/cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t)hi << 32 | lo;
}

/* Bit f set: feature f. */
static unsigned detect(void) {
    unsigned a, b, c, d, has = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const unsigned pclmul = 1u << 1, osxsave = 1u << 27, avx = 1u << 28;
    int clmul = (c & pclmul) != 0;
    if ((c & (osxsave | avx)) != (osxsave | avx))
        return 0;
    uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    const unsigned avx2 = 1u << 5, avx512f = 1u << 16, avx512bw = 1u << 30,
                   avx512vl = 1u << 31;
    const unsigned vnni = 1u << 11, vpclmul = 1u << 10; /* ecx */
    if (b & avx2)
        has |= 1u << GZW_CPU_AVX2;
    if ((b & (avx512f | avx512bw)) == (avx512f | avx512bw) && (xcr0 & 0xE6) == 0xE6) {
        has |= 1u << GZW_CPU_AVX512BW;
        if (c & vnni)
            has |= 1u << GZW_CPU_AVX512VNNI;
        if ((b & avx512vl) && (c & vpclmul) && clmul)
            has |= 1u << GZW_CPU_VPCLMUL;
    }
    return has;
}
#else
static unsigned detect(void) { return 0; }
#endif

int gzw_cpu_has(gzw_cpu_feature f) {
    static _Atomic int known = -1; /* two threads may both detect: same answer, harmless */
    int v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v < 0) {
        v = (int)detect();
        atomic_store_explicit(&known, v, memory_order_relaxed);
    }
    return (unsigned)f < 31 && (v >> f & 1);
}
