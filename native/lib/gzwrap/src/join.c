/* join.c — one deflate stream from many gzip members, without recompressing.
 *
 * A deflate stream is a sequence of blocks; each block header starts with BFINAL, the bit
 * that says "last block" (RFC 1951 3.2.3). Member k's stream, followed by member k+1's,
 * decodes as one stream once (1) the BFINAL bit of k's last block is cleared and (2) k+1
 * starts where a block header may start. Members are byte-aligned in the file but a
 * stream may end anywhere inside its last byte, so (2) needs an empty stored block
 * (BFINAL 0, BTYPE 00, then padding to the byte boundary, LEN 0000, NLEN FFFF: 3.2.4)
 * written in the free bits after k's end; its padding brings the stream to the boundary
 * where k+1's bytes already are. When k ends exactly on a boundary nothing is added.
 *
 * Finding k's last block means knowing where each block starts, which the fast inflater
 * does not report (ISA-L never stops at a block boundary; see src/inflate_isal.c). The
 * member was already inflated and verified as it streamed through, and its bytes already
 * written (a member is only known not to be the last when the next one appears), so the
 * join reads them back from the output and walks their blocks once more: by decoding
 * only the codes (src/scan.c) where the member fits GZW_SCAN_MAX, else, in constant
 * memory, with zlib's inflate(Z_BLOCK), which stops after each block, discarding the
 * data. A single-member input never pays for this.
 */
#include <stdlib.h>
#include <zlib.h>

#include "internal/conv.h"
#include "internal/scan.h"

#define CHUNK (64u * 1024u)
#define GZW_SCAN_MAX (16u * 1024u * 1024u) /* members read back whole up to this size */

/* The member's final block header and its end, to the bit, by walking its codes. */
static gzwrap_status final_block_scan(gzw_conv *c, uint64_t member, uint64_t start,
                                      uint64_t len, uint64_t input_offset,
                                      uint64_t *last_start, uint64_t *end_bit) {
    if (len > c->scan_cap) {
        free(c->scan_buf);
        c->scan_cap = len > 1024 * 1024 ? len : 1024 * 1024;
        c->scan_buf = malloc(c->scan_cap);
    }
    if (!c->scan_tables)
        c->scan_tables = malloc(GZW_SCAN_TABLES * sizeof *c->scan_tables);
    if (!c->scan_buf || !c->scan_tables) {
        c->scan_cap = 0;
        return gzw_fail(c, GZWRAP_ERR_NOMEM, input_offset, "no memory to join members");
    }
    gzwrap_status st = gzw_out_pread(c, c->scan_buf, (size_t)len, start);
    if (st)
        return st;
    gzw_scan_result res;
    const char *why = "";
    if (gzw_scan_blocks(c->scan_buf, (size_t)len, c->scan_tables, &res, &why) != 0)
        return gzw_fail(c, GZWRAP_ERR_DATA, input_offset + res.error_at,
                        "corrupt deflate data in gzip member %llu (%s), which the fast "
                        "inflater accepted", (unsigned long long)member, why);
    *last_start = res.final_start;
    *end_bit = res.end;
    return GZWRAP_OK;
}

/* The same with zlib, reading the member back in pieces. */
static gzwrap_status final_block_zlib(gzw_conv *c, uint64_t member, uint64_t start,
                                      uint64_t len, uint64_t input_offset,
                                      uint64_t *last_start_out, uint64_t *end_bit_out) {
    uint8_t *in = malloc(CHUNK), *sink = malloc(CHUNK);
    z_stream z = {0};
    gzwrap_status st = GZWRAP_OK;
    if (!in || !sink || inflateInit2(&z, -15) != Z_OK) {
        free(in), free(sink);
        return gzw_fail(c, GZWRAP_ERR_NOMEM, input_offset, "no memory to join members");
    }
    uint64_t last_start = 0; /* bit offset of the latest block header seen */
    uint64_t end_bit = 0, fed = 0;
    int done = 0;
    while (!done) {
        size_t n = len - fed < CHUNK ? (size_t)(len - fed) : CHUNK;
        if (n == 0) {
            st = gzw_fail(c, GZWRAP_ERR_DATA, input_offset + fed,
                          "gzip member %llu: zlib finds the deflate stream unfinished where "
                          "the fast inflater ended it", (unsigned long long)member);
            break;
        }
        if ((st = gzw_out_pread(c, in, n, start + fed)))
            break;
        z.next_in = in;
        z.avail_in = (uInt)n;
        /* until zlib can do nothing more with this chunk (Z_BUF_ERROR): a Z_BLOCK stop or
         * a full sink can leave bits and pending output with no input left */
        while (!done) {
            z.next_out = sink;
            z.avail_out = CHUNK;
            int ret = inflate(&z, Z_BLOCK);
            uint64_t used = fed + (n - z.avail_in);
            uint64_t bit = used * 8 - (unsigned)(z.data_type & 7);
            if ((ret == Z_OK || ret == Z_STREAM_END) && (z.data_type & 192) == 192) {
                /* the final block's end-of-block code: the stream's exact last bit (once
                 * zlib reaches Z_STREAM_END it has dropped the padding bits) */
                end_bit = bit;
                done = 1;
            } else if (ret == Z_STREAM_END) {
                st = gzw_fail(c, GZWRAP_ERR_DATA, input_offset + used,
                              "gzip member %llu: zlib ended the stream without stopping after "
                              "its final block", (unsigned long long)member);
                done = 2;
            } else if (ret == Z_BUF_ERROR) {
                break;
            } else if (ret != Z_OK) {
                st = gzw_fail(c, GZWRAP_ERR_DATA, input_offset + used,
                              "corrupt deflate data in gzip member %llu (zlib: %s), which the "
                              "fast inflater accepted", (unsigned long long)member,
                              z.msg ? z.msg : "error");
                done = 2;
            } else if ((z.data_type & 128) && !(z.data_type & 64)) {
                /* a block that was not the last ended: the next header starts here (bit
                 * 64 would say that the block that ended was the final one) */
                last_start = bit;
            }
        }
        fed += n;
    }
    inflateEnd(&z);
    free(in), free(sink);
    *last_start_out = last_start;
    *end_bit_out = end_bit;
    return st;
}

gzwrap_status gzw_join_member(gzw_conv *c, uint64_t member, uint64_t start, uint64_t len,
                              uint64_t input_offset) {
    if (!c->out.wr->pread || !c->out.wr->pwrite)
        return gzw_fail(c, GZWRAP_ERR_NEEDS_SEEK, input_offset,
                        "gzip member %llu is followed by another: joining them needs an output "
                        "that can be read back and patched (a file, not a pipe)",
                        (unsigned long long)member + 1);
    uint64_t last_start = 0, end_bit = 0;
    gzwrap_status st =
        len <= GZW_SCAN_MAX
            ? final_block_scan(c, member, start, len, input_offset, &last_start, &end_bit)
            : final_block_zlib(c, member, start, len, input_offset, &last_start, &end_bit);
    if (st)
        return st;

    uint64_t end_byte = (end_bit + 7) / 8;
    if (end_byte != len)
        return gzw_fail(c, GZWRAP_ERR_DATA, input_offset + end_byte,
                        "gzip member %llu: the block walk ends the deflate stream at byte %llu, "
                        "the fast inflater at %llu", (unsigned long long)member,
                        (unsigned long long)end_byte, (unsigned long long)len);
    /* (1) clear BFINAL of the last block */
    uint8_t b;
    uint64_t at = start + last_start / 8;
    if ((st = gzw_out_pread(c, &b, 1, at)))
        return st;
    if (!(b >> (last_start % 8) & 1))
        return gzw_fail(c, GZWRAP_ERR_DATA, input_offset + last_start / 8,
                        "gzip member %llu: the last block's BFINAL bit is not set",
                        (unsigned long long)member);
    b &= (uint8_t)~(1u << (last_start % 8));
    if ((st = gzw_out_pwrite(c, &b, 1, at)))
        return st;
    /* (2) align: an empty stored block in the free bits of the last byte (and one more
     * byte when fewer than 3 are free), then LEN = 0, NLEN = FFFF */
    unsigned used_bits = (unsigned)(end_bit % 8);
    if (used_bits == 0)
        return GZWRAP_OK;
    at = start + len - 1;
    if ((st = gzw_out_pread(c, &b, 1, at)))
        return st;
    b &= (uint8_t)((1u << used_bits) - 1); /* BFINAL 0, BTYPE 00, zero padding */
    if ((st = gzw_out_pwrite(c, &b, 1, at)))
        return st;
    static const uint8_t stored[5] = {0x00, 0x00, 0x00, 0xff, 0xff};
    int spill = used_bits > 5; /* the 3 header bits do not fit in the 8 - used_bits free */
    c->rep->aligned++;
    return gzw_out_write(c, stored + !spill, 4 + (size_t)spill);
}
