/* internal/scan.h — where a raw deflate stream's blocks start, without inflating it
 * (src/scan.c). */
#ifndef GZWRAP_INTERNAL_SCAN_H
#define GZWRAP_INTERNAL_SCAN_H

#include <stddef.h>
#include <stdint.h>

typedef enum gzw_scan_status {
    GZW_SCAN_OK = 0,
    GZW_SCAN_MORE, /* the input ends inside the block: walk it again with more */
    GZW_SCAN_BAD,  /* the block is invalid */
} gzw_scan_status;

typedef struct gzw_scan_block_result {
    int final;           /* OK: the block's BFINAL */
    uint64_t next;       /* OK: bit offset just past its end-of-block code */
    uint64_t stopped_at; /* otherwise: the byte where the walk stopped */
    const char *why;     /* otherwise: what was wrong or missing */
} gzw_scan_block_result;

/* Room for the tables the walk builds (primary tables and subtables, at most 2^15 entries
 * for each code). */
#define GZW_SCAN_TABLES (2u * (2048u + 32768u))

/* BFINAL of the block header at bit `at` of p[0, n): 1 or 0, or -1 when p ends first. */
static inline int gzw_scan_bfinal(const uint8_t *p, size_t n, uint64_t at) {
    return at / 8 < n ? p[at / 8] >> (at % 8) & 1 : -1;
}

/* Walk the block whose header starts at bit `at` of p[0, n), decoding its codes
 * (literals, lengths and distances, with their extra bits) without producing data. The
 * code sets are checked as zlib checks them (no over-subscribed or incomplete code but
 * one code of one bit), so what it accepts zlib accepts. `tables`: GZW_SCAN_TABLES
 * entries of the caller's. */
gzw_scan_status gzw_scan_block(const uint8_t *p, size_t n, uint64_t at, uint32_t *tables,
                               gzw_scan_block_result *res);

#endif
