/* isal_stops_inflate.h — the bundled ISA-L's plain inflates (isal_stops_inflate.c). */
#ifndef GZWRAP_BENCH_ISAL_STOPS_INFLATE_H
#define GZWRAP_BENCH_ISAL_STOPS_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when the library was built with the ISA-L that stops at block boundaries. */
int isal_stops_present(void);

/* Called with each piece of inflated data. */
typedef void (*isal_stops_sink)(void *arg, const uint8_t *p, size_t n);

/* Inflate p[0, n): a raw deflate stream, or with `gzip_members` every gzip member of it in
 * igzip's gzip mode (each member's CRC-32 and ISIZE checked by igzip), through chunk; the
 * bytes made, or UINT64_MAX on an error or where the library has no such ISA-L. */
uint64_t isal_stops_inflate(const uint8_t *p, size_t n, int gzip_members, uint8_t *chunk,
                            size_t chunk_cap, isal_stops_sink sink, void *sink_arg);

#endif
