/* internal/scan.h — where a raw deflate stream's blocks start, without inflating it
 * (src/scan.c). */
#ifndef GZWRAP_INTERNAL_SCAN_H
#define GZWRAP_INTERNAL_SCAN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gzw_scan_result {
    uint64_t final_start; /* bit offset of the final block's header (its BFINAL bit) */
    uint64_t end;         /* bit offset just past the final block's end-of-block code */
    uint64_t blocks;      /* how many blocks */
    uint64_t error_at;    /* on failure: the byte where the stream stopped making sense */
} gzw_scan_result;

/* Room for the tables gzw_scan_blocks builds (primary tables and subtables, at most
 * 2^15 entries for each code). */
#define GZW_SCAN_TABLES (2u * (2048u + 32768u))

/* Walk the deflate stream in p[0, n) block by block, decoding each Huffman block's codes
 * (literals, lengths and distances, with their extra bits) without producing data. The
 * code sets are checked as zlib checks them (no over-subscribed or incomplete code but
 * one code of one bit), so what it accepts zlib accepts. `tables`: GZW_SCAN_TABLES
 * entries of the caller's. Returns 0, or -1 with *why
 * and res->error_at when the stream is invalid or ends before its final block does. */
int gzw_scan_blocks(const uint8_t *p, size_t n, uint32_t *tables, gzw_scan_result *res,
                    const char **why);

#endif
