/* The hashes of the models, written out so that the Python transcription in
 * cpulab.model can repeat them bit for bit (all arithmetic mod 2^32). */
#ifndef BPMODEL_INTERNAL_HASH_H
#define BPMODEL_INTERNAL_HASH_H

#include <stdint.h>

/* "lowbias32" (Wellons): a cheap 32-bit mixer with good avalanche. */
static inline uint32_t bpmodel__mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Rotate left by r (0 <= r < w) inside a w-bit word. */
static inline uint32_t bpmodel__rotl(uint32_t x, uint32_t r, uint32_t w) {
  uint32_t mask = w >= 32 ? 0xffffffffu : (1u << w) - 1;
  if (r == 0) return x & mask;
  return ((x << r) | (x >> (w - r))) & mask;
}

#endif
