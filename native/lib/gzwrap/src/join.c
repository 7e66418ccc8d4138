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
 * does not report (ISA-L never stops at a block boundary; see src/inflate_isal.c), so the
 * blocks are walked (src/scan.c: the codes are decoded, the data not produced). Members
 * after the first, and every member when the writer passes output on as it settles
 * (walk_blocks), are walked as they stream (src/convert.c). The first member of a file
 * is only known not to be the last when the next one appears: its bytes are read back
 * from the output then and walked, block by block, holding one block at a time. A
 * single-member input never pays for this.
 *
 * Where the inflater tells where the stream ended, to the bit (zlib, and ISA-L 2.30), the
 * walk stops at the header whose BFINAL is set: the final block itself is never walked.
 * A member of one block (most of bgzip's 64 KiB members) then costs one bit read back.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/conv.h"
#include "internal/scan.h"

#define READ_BACK (1u << 20) /* bytes read back at a time */

/* The member's final block header and its end, member-relative bits, by reading its
 * bytes back from bit `at` (a block boundary) and walking them block by block; with
 * `stop_at_final`, only to that header (*end is then left alone: the inflater told it). */
static gzwrap_status walk_back(gzw_conv *c, uint64_t member, uint64_t start, uint64_t len,
                               uint64_t input_offset, uint64_t at, int stop_at_final,
                               uint64_t *final_start, uint64_t *end) {
    gzwrap_status st = gzw_scan_tables(c, input_offset);
    uint64_t buf_at = at / 8; /* the member's byte at scan_buf[0] */
    size_t have = 0;
    while (!st) {
        gzw_scan_block_result r = {0};
        gzw_scan_status s = GZW_SCAN_MORE;
        int final = stop_at_final ? gzw_scan_bfinal(c->scan_buf, have, at - buf_at * 8) : 0;
        if (final > 0) {
            *final_start = at;
            return GZWRAP_OK;
        }
        if (final == 0)
            s = gzw_scan_block(c->scan_buf, have, at - buf_at * 8, c->scan_tables, &r);
        else /* the header's byte is not read back yet */
            r.stopped_at = have;
        if (s == GZW_SCAN_OK) {
            c->rep->blocks_walked++;
            if (r.final) {
                *final_start = at;
                *end = buf_at * 8 + r.next;
                return GZWRAP_OK;
            }
            at = buf_at * 8 + r.next;
            continue;
        }
        if (s == GZW_SCAN_BAD || buf_at + have == len)
            return gzw_fail(c, GZWRAP_ERR_DATA, input_offset + buf_at + r.stopped_at,
                            "corrupt deflate data in gzip member %llu (%s), which the fast "
                            "inflater accepted", (unsigned long long)member,
                            s == GZW_SCAN_BAD ? r.why : "the stream ends early");
        /* more of the member: drop what is before the block, read on, grow for a block
         * longer than the buffer */
        size_t drop = (size_t)(at / 8 - buf_at);
        if (drop)
            memmove(c->scan_buf, c->scan_buf + drop, have - drop);
        buf_at += drop, have -= drop;
        if (c->scan_cap - have < READ_BACK / 2) {
            size_t cap = c->scan_cap ? 2 * c->scan_cap : READ_BACK;
            uint8_t *grown = realloc(c->scan_buf, cap);
            if (!grown)
                return gzw_fail(c, GZWRAP_ERR_NOMEM, input_offset, "no memory to join members");
            c->scan_buf = grown, c->scan_cap = cap;
        }
        size_t n = c->scan_cap - have;
        if (n > len - (buf_at + have))
            n = (size_t)(len - (buf_at + have));
        st = gzw_out_pread(c, c->scan_buf + have, n, start + buf_at + have);
        have += n;
    }
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
    gzw_walk *w = &c->walk;
    gzwrap_status st = GZWRAP_OK;
    if ((w->on || c->blocks_told) && w->done) { /* walked as it streamed, or told */
        last_start = w->final - w->in0 * 8;
    } else if (c->blocks_told) {
        return gzw_fail(c, GZWRAP_ERR_DATA, input_offset,
                        "gzip member %llu: the inflater did not tell where its final block "
                        "starts", (unsigned long long)member);
    } else {
        st = walk_back(c, member, start, len, input_offset, w->on ? w->at - w->in0 * 8 : 0,
                       c->end_bit_known && w->ended, &last_start, &end_bit);
        if (st)
            return st;
    }
    if (w->ended)
        end_bit = w->end - w->in0 * 8;
    else if (w->on && w->done)
        return gzw_fail(c, GZWRAP_ERR_DATA, input_offset,
                        "gzip member %llu: its end is known neither to the walk nor to the "
                        "inflater", (unsigned long long)member);

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
