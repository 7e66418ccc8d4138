/* machine_probe: what only native code can read about this CPU, as one JSON object.
 *
 * The TSC frequency is measured against CLOCK_MONOTONIC over ~200 ms (three rounds, the
 * median kept) rather than trusted from cpuid, because hypervisors often leave leaf 0x15
 * empty; cpuid's own claims are printed beside it. Invariance is cpuid 0x80000007 EDX[8].
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double measure_tsc_hz(void) {
    double r[3];
    for (int i = 0; i < 3; i++) {
        double t0 = now_ns();
        uint64_t c0 = __rdtsc();
        double t1;
        do t1 = now_ns(); while (t1 - t0 < 70e6);
        uint64_t c1 = __rdtsc();
        r[i] = (double)(c1 - c0) * 1e9 / (t1 - t0);
    }
    /* median of three */
    double a = r[0], b = r[1], c = r[2];
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

int main(void) {
    unsigned a, b, c, d, max_ext = 0;
    char hv[13] = "";
    int invariant = 0;
    unsigned long long l15_hz = 0, l16_base_mhz = 0;

    __cpuid(0x80000000, max_ext, b, c, d);
    if (max_ext >= 0x80000007) {
        __cpuid(0x80000007, a, b, c, d);
        invariant = (d >> 8) & 1;
    }
    unsigned max_basic;
    __cpuid(0, max_basic, b, c, d);
    if (max_basic >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        if (a && b && c) l15_hz = (unsigned long long)c * b / a;
    }
    if (max_basic >= 0x16) {
        __cpuid_count(0x16, 0, a, b, c, d);
        l16_base_mhz = a & 0xffff;
    }
    __cpuid(1, a, b, c, d);
    if (c & (1u << 31)) { /* hypervisor present: leaf 0x40000000 names it */
        __cpuid(0x40000000, a, b, c, d);
        memcpy(hv, &b, 4); memcpy(hv + 4, &c, 4); memcpy(hv + 8, &d, 4);
        for (int i = 0; i < 12; i++) if ((unsigned char)hv[i] < 32 || hv[i] == '"' || hv[i] == '\\') hv[i] = ' ';
    }
    printf("{\"tsc\":true,\"tsc_hz_measured\":%.0f,\"tsc_invariant\":%s,"
           "\"cpuid_15_tsc_hz\":%llu,\"cpuid_16_base_mhz\":%llu,\"hypervisor_vendor\":\"%s\"}\n",
           measure_tsc_hz(), invariant ? "true" : "false", l15_hz, l16_base_mhz, hv);
    return 0;
}
#else
int main(void) {
    printf("{\"tsc\":false,\"reason\":\"no time-stamp counter on this architecture\"}\n");
    return 0;
}
#endif
