/* Vector kernels of packed varint runs, one set per instruction set, chosen at
 * run time (src/packed_simd.c: cpuid and xgetbv, once) and called by the
 * packed cores (fast_packed.h) on runs of 64 bytes or more; shorter runs, and
 * whatever a kernel leaves, go through the portable loops there.
 *
 * A kernel works on whole blocks below `stop` (64 bytes for AVX-512, 32 for
 * AVX2) and returns where it stopped: at a value it will not take (longer
 * than 10 bytes, or, for bools, one it has no vector step for), or at the
 * first value that does not end inside a whole block. It never fails: the
 * portable loop that goes on from there rejects what must be rejected, so
 * every path accepts and refuses exactly the same runs.
 *
 *   avx512  (F, BW, VBMI, VBMI2, BMI2, POPCNT) per 64-byte block: the first 16
 *           (32-bit kinds) or 8 (64-bit kinds) terminators' positions by one
 *           vpcompressb, each value's bytes gathered into its lane by vpermb,
 *           the 7-bit groups packed by vpmaddubsw and vpmaddwd; no branch on a
 *           value's length, 9- and 10-byte values included;
 *   avx2    (AVX2, POPCNT) four values per step: their starts by tzcnt from
 *           the terminator mask (AVX2 has no cross-lane byte gather), each
 *           loaded into a 64-bit lane, masked and packed there with the same
 *           multiply-adds, no branch on a length; the count and bools 32
 *           bytes per step;
 *   portable: no kernel.
 */
#ifndef PBDYN_INTERNAL_PACKED_SIMD_H
#define PBDYN_INTERNAL_PACKED_SIMD_H

#include <stdatomic.h>
#include <stdint.h>

#include "internal/fast.h"

typedef enum { PBDYN_ISA_AUTO = -1, PBDYN_ISA_PORTABLE, PBDYN_ISA_AVX2, PBDYN_ISA_AVX512 } pbdyn__isa;

/* Kinds with a vector decoder: every varint kind but closed enums, whose
 * values must be checked one by one. */
#define PBDYN_PACKED_SIMD_KINDS PBDYN_FK_enum_closed

typedef struct pbdyn__packed_simd {
  pbdyn__isa isa;
  /* Terminator bytes (< 0x80) in whole blocks from p up to stop; *end gets
   * where the blocks ended. NULL: no vector count. */
  uint32_t (*count)(const char *p, const char *stop, const char **end);
  /* Decode the varints of whole blocks from p up to stop into *dst (advanced),
   * converted for the kind; the pointer after the last value taken. A NULL
   * entry: that kind has no vector decoder in this set. */
  const char *(*varints[PBDYN_PACKED_SIMD_KINDS])(const char *p, const char *stop, char **dst);
} pbdyn__packed_simd;

extern const pbdyn__packed_simd pbdyn__packed_avx2, pbdyn__packed_avx512;

/* The set in use; until the first call, a set whose entries detect the CPU,
 * install the best set and forward to it. */
extern _Atomic(const pbdyn__packed_simd *) pbdyn__packed_active;

PBDYN_INLINE const pbdyn__packed_simd *pbdyn__packed_simd_get(void) {
  return atomic_load_explicit(&pbdyn__packed_active, memory_order_relaxed);
}

/* Whether this CPU and OS run the set (PBDYN_ISA_AUTO, PORTABLE: always). */
bool pbdyn__packed_isa_supported(pbdyn__isa isa);
/* Use that set from now on, for the tests of every path (AUTO: the best
 * one); false, changing nothing, if the CPU cannot run it. Not for use
 * while another thread decodes. */
bool pbdyn__packed_isa_force(pbdyn__isa isa);

#endif /* PBDYN_INTERNAL_PACKED_SIMD_H */
