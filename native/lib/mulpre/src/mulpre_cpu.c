/* mulpre CPU features: cpuid once, and a mask that tests can narrow.
 *
 * BMI2 (mulx) and ADX (adcx/adox) are cpuid leaf 7, subleaf 0, EBX bits 8 and 19. They
 * are plain integer instructions: no OS support (XSAVE state) is needed, unlike AVX.
 * Both values are read and written with relaxed atomics: detection is idempotent, so two
 * threads racing on the first call store the same value.
 */
#include "internal/mulpre_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int mulpre_cpu_detected_ = -1; /* -1: not yet */
unsigned mulpre_cpu_limit_ = ~0u;

unsigned mulpre_cpu_detect(void) {
    int d = __atomic_load_n(&mulpre_cpu_detected_, __ATOMIC_RELAXED);
    if (d >= 0)
        return (unsigned)d;
    unsigned f = 0;
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        if (ebx & (1u << 8))
            f |= MULPRE_CPU_BMI2;
        if (ebx & (1u << 19))
            f |= MULPRE_CPU_ADX;
    }
#endif
    __atomic_store_n(&mulpre_cpu_detected_, (int)f, __ATOMIC_RELAXED);
    return f;
}

unsigned mulpre_cpu_features(void) {
    return mulpre_cpu_features_fast();
}

void mulpre_cpu_features_limit(unsigned mask) {
    __atomic_store_n(&mulpre_cpu_limit_, mask, __ATOMIC_RELAXED);
}
