/* internal/crc32.h — gzwrap's own CRC-32 with VPCLMULQDQ, and the pass that computes the
 * CRC-32 and the Adler-32 of the same bytes together (src/crc32_avx512.c), where
 * gzw_cpu_has(GZW_CPU_VPCLMUL) (and GZW_CPU_AVX512VNNI for the VNNI pass). */
#ifndef GZWRAP_INTERNAL_CRC32_H
#define GZWRAP_INTERNAL_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t gzw_crc32_avx512(uint32_t crc, const uint8_t *p, size_t n);
/* *crc and *adler updated with p[0, n): the Adler-32 by AVX-512 BW or by VNNI; p[0, n)
 * copied to `copy` too unless it is NULL, by streaming stores or plain ones
 * (gzw_checksums_fn). */
void gzw_crc32_adler32_avx512(uint32_t *crc, uint32_t *adler, const uint8_t *p, size_t n,
                              uint8_t *copy, int stream);
void gzw_crc32_adler32_avx512_vnni(uint32_t *crc, uint32_t *adler, const uint8_t *p, size_t n,
                                   uint8_t *copy, int stream);

#endif
