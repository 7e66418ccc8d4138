/* internal/adler32.h — gzwrap's own Adler-32 paths (src/adler32*.c). */
#ifndef GZWRAP_INTERNAL_ADLER32_H
#define GZWRAP_INTERNAL_ADLER32_H

#include <stddef.h>
#include <stdint.h>

#define GZW_ADLER_BASE 65521u
/* The most bytes whose sums fit 32 bits before a reduction mod BASE (zlib's NMAX). */
#define GZW_ADLER_NMAX 5552u

/* How far ahead the SIMD paths prefetch: with the hardware's prefetch alone a sum that
 * streams from memory fell short of its bandwidth (src/adler32_avx512.c). */
#define GZW_PREFETCH_AHEAD 2048

/* Each SIMD path runs where src/cpu.c finds its feature: AVX2; AVX-512 BW (vpsadbw and
 * vpmaddubsw on 64 bytes); and VNNI (the weighted sum in one vpdpbusd). */
uint32_t gzw_adler32_portable(uint32_t adler, const uint8_t *p, size_t n);
uint32_t gzw_adler32_avx2(uint32_t adler, const uint8_t *p, size_t n);
uint32_t gzw_adler32_avx512(uint32_t adler, const uint8_t *p, size_t n);
uint32_t gzw_adler32_avx512_vnni(uint32_t adler, const uint8_t *p, size_t n);

/* The scalar loop, for the portable path and the SIMD paths' last bytes (fewer than a vector). */
uint32_t gzw_adler32_scalar(uint32_t adler, const uint8_t *p, size_t n);

#endif
