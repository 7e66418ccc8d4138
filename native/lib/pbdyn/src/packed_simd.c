/* Which packed-run kernels this CPU runs, decided once by cpuid and xgetbv.
 *
 * A feature bit in cpuid is not enough: the OS must also save the wider
 * registers on a context switch, which XCR0 (read with xgetbv) reports: bits
 * 1-2 (SSE, AVX state) for AVX2, and bits 5-7 (opmask, upper halves of
 * zmm0-15, zmm16-31) for AVX-512. Until the first packed run the active set
 * is `detect`, whose entries make the choice, install it and forward to it:
 * the packed cores read one pointer and never test whether detection ran.
 * Two threads may both detect: same answer, harmless.
 */
#include "internal/packed_simd.h"

#if defined(__x86_64__)
#include <cpuid.h>

static uint64_t pbdyn__xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static pbdyn__isa pbdyn__isa_detect(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return PBDYN_ISA_PORTABLE;
  const unsigned popcnt = 1u << 23, osxsave = 1u << 27, avx = 1u << 28;
  if ((c & (popcnt | osxsave | avx)) != (popcnt | osxsave | avx)) return PBDYN_ISA_PORTABLE;
  uint64_t xcr0 = pbdyn__xgetbv0();
  if ((xcr0 & 0x6) != 0x6 || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return PBDYN_ISA_PORTABLE;
  const unsigned avx2 = 1u << 5, bmi2 = 1u << 8, avx512f = 1u << 16, avx512bw = 1u << 30; /* ebx */
  const unsigned vbmi = 1u << 1, vbmi2 = 1u << 6;                                        /* ecx */
  if ((b & (avx512f | avx512bw | bmi2)) == (avx512f | avx512bw | bmi2) &&
      (c & (vbmi | vbmi2)) == (vbmi | vbmi2) && (xcr0 & 0xE6) == 0xE6)
    return PBDYN_ISA_AVX512;
  return b & avx2 ? PBDYN_ISA_AVX2 : PBDYN_ISA_PORTABLE;
}
#else
static pbdyn__isa pbdyn__isa_detect(void) { return PBDYN_ISA_PORTABLE; }
#endif

static const pbdyn__packed_simd pbdyn__packed_portable = {PBDYN_ISA_PORTABLE, NULL, {NULL}};

static const pbdyn__packed_simd *pbdyn__packed_set(pbdyn__isa isa) {
#if defined(__x86_64__)
  if (isa == PBDYN_ISA_AVX512) return &pbdyn__packed_avx512;
  if (isa == PBDYN_ISA_AVX2) return &pbdyn__packed_avx2;
#endif
  (void)isa;
  return &pbdyn__packed_portable;
}

static _Atomic int pbdyn__isa_best = -2; /* -2: not yet detected */

static pbdyn__isa pbdyn__isa_best_get(void) {
  int isa = atomic_load_explicit(&pbdyn__isa_best, memory_order_relaxed);
  if (isa == -2) {
    isa = (int)pbdyn__isa_detect();
    atomic_store_explicit(&pbdyn__isa_best, isa, memory_order_relaxed);
  }
  return (pbdyn__isa)isa;
}

static const pbdyn__packed_simd *pbdyn__packed_install(void) {
  const pbdyn__packed_simd *s = pbdyn__packed_set(pbdyn__isa_best_get());
  atomic_store_explicit(&pbdyn__packed_active, s, memory_order_relaxed);
  return s;
}

/* ---- the `detect` set ---- */

static uint32_t pbdyn__detect_count(const char *p, const char *stop, const char **end) {
  const pbdyn__packed_simd *s = pbdyn__packed_install();
  if (!s->count) {
    *end = p;
    return 0;
  }
  return s->count(p, stop, end);
}

#define PBDYN_DETECT_VARINTS(k)                                                           \
  static const char *pbdyn__detect_##k(const char *p, const char *stop, char **dst) {     \
    const pbdyn__packed_simd *s = pbdyn__packed_install();                                 \
    return s->varints[PBDYN_FK_##k] ? s->varints[PBDYN_FK_##k](p, stop, dst) : p;           \
  }
PBDYN_DETECT_VARINTS(boolean)
PBDYN_DETECT_VARINTS(varint32)
PBDYN_DETECT_VARINTS(varint64)
PBDYN_DETECT_VARINTS(zigzag32)
PBDYN_DETECT_VARINTS(zigzag64)
#undef PBDYN_DETECT_VARINTS

static const pbdyn__packed_simd pbdyn__packed_detect = {
    PBDYN_ISA_AUTO,
    pbdyn__detect_count,
    {pbdyn__detect_boolean, pbdyn__detect_varint32, pbdyn__detect_varint64,
     pbdyn__detect_zigzag32, pbdyn__detect_zigzag64},
};

_Atomic(const pbdyn__packed_simd *) pbdyn__packed_active = &pbdyn__packed_detect;

bool pbdyn__packed_isa_supported(pbdyn__isa isa) {
  if (isa == PBDYN_ISA_AUTO || isa == PBDYN_ISA_PORTABLE) return true;
  if (isa != PBDYN_ISA_AVX2 && isa != PBDYN_ISA_AVX512) return false;
  return pbdyn__isa_best_get() >= isa;
}

bool pbdyn__packed_isa_force(pbdyn__isa isa) {
  if (!pbdyn__packed_isa_supported(isa)) return false;
  if (isa == PBDYN_ISA_AUTO) {
    pbdyn__packed_install();
    return true;
  }
  atomic_store_explicit(&pbdyn__packed_active, pbdyn__packed_set(isa), memory_order_relaxed);
  return true;
}

const char *pbdyn_decode_packed_kind(void) {
  const pbdyn__packed_simd *s = pbdyn__packed_simd_get();
  if (s->isa == PBDYN_ISA_AUTO) s = pbdyn__packed_install();
  switch (s->isa) {
    case PBDYN_ISA_AVX512: return "avx512";
    case PBDYN_ISA_AVX2: return "avx2";
    default: return "portable";
  }
}
