/* rtdiv_cpu.c — which batch path this CPU can run, decided once by cpuid and xgetbv.
 *
 * A feature bit in cpuid is not enough: the OS must also save the wider registers on a
 * context switch, which XCR0 (read with xgetbv) reports: bits 1-2 (SSE, AVX state) for
 * AVX2, and bits 5-7 (opmask, upper halves of zmm0-15, zmm16-31) for AVX-512. The
 * result is cached in an atomic; a forced choice (rtdiv_isa_force) overrides it.
 */
#include <stdatomic.h>

#include "internal/rtdiv_batch.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t rtdiv__xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static rtdiv_isa rtdiv__detect(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return RTDIV_ISA_PORTABLE;
    const unsigned osxsave = 1u << 27, avx = 1u << 28;
    if ((c & (osxsave | avx)) != (osxsave | avx))
        return RTDIV_ISA_PORTABLE;
    uint64_t xcr0 = rtdiv__xgetbv0();
    if ((xcr0 & 0x6) != 0x6)
        return RTDIV_ISA_PORTABLE;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return RTDIV_ISA_PORTABLE;
    const unsigned avx2 = 1u << 5, avx512f = 1u << 16, avx512dq = 1u << 17;
    if ((b & (avx512f | avx512dq)) == (avx512f | avx512dq) && (xcr0 & 0xE6) == 0xE6)
        return RTDIV_ISA_AVX512;
    if (b & avx2)
        return RTDIV_ISA_AVX2;
    return RTDIV_ISA_PORTABLE;
}
#else
static rtdiv_isa rtdiv__detect(void) { return RTDIV_ISA_PORTABLE; }
#endif

static _Atomic int rtdiv__detected = -1; /* -1: not yet */
static _Atomic int rtdiv__forced = RTDIV_ISA_AUTO;

static rtdiv_isa rtdiv__best(void) {
    int isa = atomic_load_explicit(&rtdiv__detected, memory_order_relaxed);
    if (isa < 0) { /* two threads may both detect: same answer, harmless */
        isa = (int)rtdiv__detect();
        atomic_store_explicit(&rtdiv__detected, isa, memory_order_relaxed);
    }
    return (rtdiv_isa)isa;
}

int rtdiv_isa_supported(rtdiv_isa isa) {
    switch (isa) {
    case RTDIV_ISA_AUTO:
    case RTDIV_ISA_PORTABLE:
        return 1;
    case RTDIV_ISA_AVX2:
        return rtdiv__best() >= RTDIV_ISA_AVX2;
    case RTDIV_ISA_AVX512:
        return rtdiv__best() >= RTDIV_ISA_AVX512;
    }
    return 0;
}

rtdiv_status rtdiv_isa_force(rtdiv_isa isa) {
    if (!rtdiv_isa_supported(isa))
        return RTDIV_ERR_UNSUPPORTED;
    atomic_store_explicit(&rtdiv__forced, (int)isa, memory_order_relaxed);
    return RTDIV_OK;
}

rtdiv_isa rtdiv_isa_active(void) {
    int f = atomic_load_explicit(&rtdiv__forced, memory_order_relaxed);
    return f != RTDIV_ISA_AUTO ? (rtdiv_isa)f : rtdiv__best();
}

const char *rtdiv_isa_name(rtdiv_isa isa) {
    switch (isa) {
    case RTDIV_ISA_AUTO: return "auto";
    case RTDIV_ISA_PORTABLE: return "portable";
    case RTDIV_ISA_AVX2: return "avx2";
    case RTDIV_ISA_AVX512: return "avx512";
    }
    return "unknown";
}
