/* convert.c — the conversion: read the source wrapper, stream the deflate payload through
 * the inflater while copying it, check the source's trailer, write the target's.
 *
 * Per step the inflater fills a 256 KiB buffer that the checksums then read while it is
 * in cache: the CRC-32 when the source or target is gzip, the Adler-32 when either is
 * zlib or COMPRESS(), both with all_checksums. A gzip member's CRC-32 starts afresh per
 * member and the whole data's is combined from them (zlib's crc32_combine), so joining
 * members costs no second pass; the Adler-32 runs over all data.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/conv.h"

#define MYSQL_LENGTH_LIMIT (1ull << 30) /* MariaDB/MySQL read `len & 0x3FFFFFFF` */

typedef struct sums {
    int want_crc, want_adler;
    uint32_t crc_member, crc_all, adler_all;
    uint64_t member_bytes;
} sums;

/* ---- target ---------------------------------------------------------------------------- */

/* zlib header for the target: the source's own when it had one, else from gzip XFL
 * (2 = slowest/best -> FLEVEL 3, 4 = fastest -> FLEVEL 0), else the default level 2. */
static void zlib_header(uint8_t out[2], const uint8_t *src_hdr, int have_xfl, unsigned xfl) {
    if (src_hdr) {
        out[0] = src_hdr[0], out[1] = src_hdr[1];
        return;
    }
    unsigned level = !have_xfl ? 2 : xfl == 2 ? 3 : xfl == 4 ? 0 : 2;
    unsigned cmf = 0x78, flg = level << 6;
    flg += 31 - (cmf * 256 + flg) % 31;
    out[0] = (uint8_t)cmf, out[1] = (uint8_t)flg;
}

/* Everything the target puts before the payload, when the source is not gzip-to-gzip. */
static gzwrap_status target_header(gzw_conv *c, const uint8_t *src_zlib_hdr, int have_xfl,
                                   unsigned xfl) {
    uint8_t h[10];
    switch (c->opt.to) {
    case GZWRAP_FORMAT_GZIP: {
        /* FLG 0, MTIME 0 (unknown), XFL from the zlib level, OS 255 (unknown) */
        unsigned level = src_zlib_hdr ? src_zlib_hdr[1] >> 6 : 2;
        uint8_t g[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0,
                         (uint8_t)(level == 3 ? 2 : level == 0 ? 4 : 0), 255};
        return gzw_out_write(c, g, 10);
    }
    case GZWRAP_FORMAT_MYSQL: /* the length: given, or patched in at the end */
        for (int i = 0; i < 4; i++)
            h[i] = (uint8_t)(c->opt.data_length >> (8 * i));
        zlib_header(h + 4, src_zlib_hdr, have_xfl, xfl);
        return gzw_out_write(c, h, 6);
    case GZWRAP_FORMAT_ZLIB:
        zlib_header(h, src_zlib_hdr, have_xfl, xfl);
        return gzw_out_write(c, h, 2);
    default:
        return GZWRAP_OK;
    }
}

static gzwrap_status too_large(gzw_conv *c, uint64_t data_bytes) {
    return gzw_fail(c, GZWRAP_ERR_TOO_LARGE, 0,
                    "the data is %llu bytes: COMPRESS() holds at most 1073741823 "
                    "(MariaDB and MySQL read 30 bits of its 4-byte length)",
                    (unsigned long long)data_bytes);
}

static gzwrap_status target_trailer(gzw_conv *c, const sums *s, uint64_t data_bytes) {
    uint8_t t[8];
    gzwrap_status st;
    switch (c->opt.to) {
    case GZWRAP_FORMAT_GZIP:
        for (int i = 0; i < 4; i++) {
            t[i] = (uint8_t)(s->crc_all >> (8 * i));
            t[4 + i] = (uint8_t)(data_bytes >> (8 * i)); /* ISIZE: modulo 2^32 */
        }
        return gzw_out_write(c, t, 8);
    case GZWRAP_FORMAT_ZLIB:
    case GZWRAP_FORMAT_MYSQL:
        for (int i = 0; i < 4; i++)
            t[i] = (uint8_t)(s->adler_all >> (24 - 8 * i));
        if ((st = gzw_out_write(c, t, 4)))
            return st;
        if (c->opt.to == GZWRAP_FORMAT_ZLIB)
            return GZWRAP_OK;
        if (c->opt.data_length && data_bytes != c->opt.data_length)
            return gzw_fail(c, GZWRAP_ERR_LENGTH, gzw_in_offset(&c->in),
                            "the data is %llu bytes, not the %llu given as its length (the "
                            "COMPRESS() length already written)",
                            (unsigned long long)data_bytes,
                            (unsigned long long)c->opt.data_length);
        if (data_bytes == 0) /* COMPRESS('') is '' */
            return c->out.wr->truncate(c->out.wr->ctx, 0) == 0
                       ? (c->out.off = 0, GZWRAP_OK)
                       : gzw_fail(c, GZWRAP_ERR_WRITE, gzw_in_offset(&c->in),
                                  "truncating the output failed");
        if (data_bytes >= MYSQL_LENGTH_LIMIT)
            return too_large(c, data_bytes);
        /* COMPRESS() adds "." after a final space, which CHAR columns would strip */
        if (t[3] == ' ' && (st = gzw_out_write(c, ".", 1)))
            return st;
        if (c->opt.data_length) /* written first */
            return GZWRAP_OK;
        for (int i = 0; i < 4; i++)
            t[i] = (uint8_t)(data_bytes >> (8 * i));
        return gzw_out_pwrite(c, t, 4, 0);
    default:
        return GZWRAP_OK;
    }
}

/* ---- the payload ------------------------------------------------------------------------- */

static gzwrap_status copy_payload(gzw_conv *c, size_t upto) {
    gzw_in *in = &c->in;
    if (upto <= in->hold)
        return GZWRAP_OK;
    gzwrap_status st = gzw_out_write(c, in->buf + in->hold, upto - in->hold);
    c->rep->payload_bytes += upto - in->hold;
    in->hold = upto;
    return st;
}

static void checksum(gzw_conv *c, sums *s, const uint8_t *p, size_t n) {
    s->member_bytes += n;
    if (s->want_crc && s->want_adler && c->both)
        return c->both(&s->crc_member, &s->adler_all, p, n, NULL, 0);
    if (s->want_crc)
        s->crc_member = c->crc(s->crc_member, p, n);
    if (s->want_adler)
        s->adler_all = c->adler(s->adler_all, p, n);
}

static gzwrap_status unfinished(gzw_conv *c, const char *what) {
    return gzw_fail(c, GZWRAP_ERR_TRUNCATED, c->in.base + c->in.len,
                    "unexpected end of input in %s: expected more deflate data", what);
}

/* The n data bytes of a stored block at the input position, checksummed and, where the
 * output is a buffer and the pair of sums has a one-pass kernel, copied to it in the same
 * pass (the payload before them is written first; streaming stores into a large buffer);
 * else only checksummed, and copy_payload writes them later. */
static gzwrap_status stored_data(gzw_conv *c, sums *s, size_t n) {
    gzw_in *in = &c->in;
    gzw_mem_out *m = c->out.mem;
    gzwrap_status st;
    uint8_t *to = NULL; /* where the data goes in this pass */
    if (m && c->both && s->want_crc && s->want_adler) {
        if ((st = copy_payload(c, in->pos)))
            return st;
        if (n <= m->cap - m->len) /* else copy_payload's write says the buffer is full */
            to = m->p + m->len;
    }
    if (!to) {
        checksum(c, s, in->buf + in->pos, n);
        return GZWRAP_OK;
    }
    s->member_bytes += n;
    c->both(&s->crc_member, &s->adler_all, in->buf + in->pos, n, to, m->cap >= GZW_STREAM_OUT);
    m->len += n;
    c->out.off += n;
    c->rep->payload_bytes += n;
    in->hold = in->pos + n;
    return c->out.settle_each ? gzw_out_settle(c) : GZWRAP_OK;
}

/* The stored blocks at the start of the stream (all of an incompressible one): their data
 * is checksummed where it lies in the input, never copied (copy_payload writes those
 * bytes out as payload anyway). The first compressed block, always on a byte boundary
 * after a stored one, is left to the inflater, which starts there with the data so far as
 * its history. *ended: the final block was stored and the stream is over. */
static gzwrap_status stored_blocks(gzw_conv *c, sums *s, const char *what, int *ended) {
    gzw_in *in = &c->in;
    gzwrap_status st;
    gzw_history_reset(c->hist);
    *ended = 0;
    for (;;) {
        /* the payload so far goes out before a refill, which may drop what is behind, and
         * every GZW_IN_CAP bytes; a write per stored block (zlib makes them of 16 KiB) was
         * a system call each for a file or pipe: 1,090 for 16 MiB of random data */
        if ((gzw_in_avail(in) < 5 || in->pos - in->hold >= GZW_IN_CAP) &&
            (st = copy_payload(c, in->pos)))
            return st;
        st = gzw_in_need(c, 5); /* BFINAL and BTYPE, then LEN and NLEN when stored */
        if (st == GZWRAP_ERR_TRUNCATED && gzw_in_avail(in) > 0 && (in->buf[in->pos] >> 1 & 3))
            break; /* a compressed block can be shorter: the inflater's */
        if (st == GZWRAP_ERR_TRUNCATED)
            return unfinished(c, what);
        if (st)
            return st;
        const uint8_t *b = in->buf + in->pos;
        if (c->blocks_told) /* the block at hand starts here, stored or not */
            gzw_walk_told(c, gzw_in_offset(in) * 8, 0);
        if (b[0] >> 1 & 3)
            break;
        unsigned len = b[1] | (unsigned)b[2] << 8, nlen = b[3] | (unsigned)b[4] << 8;
        if ((len ^ nlen) != 0xffff)
            return gzw_fail(c, GZWRAP_ERR_DATA, gzw_in_offset(in) + 1,
                            "corrupt deflate data in %s (a stored block's length %04X and its "
                            "complement %04X do not match)", what, len, nlen);
        int final = b[0] & 1;
        in->pos += 5;
        while (len > 0) {
            if (gzw_in_avail(in) == 0) {
                if ((st = copy_payload(c, in->pos)))
                    return st;
                if ((st = gzw_in_need(c, 1)))
                    return st == GZWRAP_ERR_TRUNCATED ? unfinished(c, what) : st;
            }
            size_t n = gzw_in_avail(in) < len ? gzw_in_avail(in) : len;
            if ((st = stored_data(c, s, n)))
                return st;
            gzw_history_add(c->hist, in->buf, in->pos, n);
            in->pos += n, len -= (unsigned)n;
        }
        if (final) {
            if (c->blocks_told)
                gzw_walk_told(c, c->walk.at, 1);
            return *ended = 1, GZWRAP_OK;
        }
    }
    gzw_history_gather(c->hist, in->buf);
    if (c->hist->len &&
        c->ops->set_dict(c->inf, gzw_history_bytes(c->hist), c->hist->len) != 0)
        return gzw_fail(c, GZWRAP_ERR_NOMEM, gzw_in_offset(in),
                        "%s: the inflater refused the history of the stored blocks before %s",
                        gzwrap_impl_name(c->ops->impl), what);
    return GZWRAP_OK;
}

/* The stream at the input position, where the input lies whole in memory, the data's size
 * is known beforehand (`size`, 0 if not) and at most GZW_WHOLE_MAX, the first block is
 * compressed (stored ones are checksummed in place, faster) and gzwrap picks the inflater:
 * inflated at once (src/inflate_whole.c) and checksummed. `last`: the input must end that
 * many bytes after the stream (a gzip member's trailer: a member that another one joins
 * needs its blocks told), or 0. 1: done, the position past the stream; 0: the streaming
 * path takes the stream. */
static int whole_stream(gzw_conv *c, sums *s, size_t size, size_t last) {
    gzw_in *in = &c->in;
    if (in->rd || c->opt.inflater != GZWRAP_IMPL_AUTO || size == 0 || size > GZW_WHOLE_MAX ||
        gzw_in_avail(in) == 0 || !(in->buf[in->pos] >> 1 & 3))
        return 0;
    uint8_t *data;
    size_t used, made;
    if (!gzw_inflate_whole(in->buf + in->pos, gzw_in_avail(in), size, &data, &used, &made))
        return 0;
    int done = !last || gzw_in_avail(in) - used == last;
    if (done) {
        checksum(c, s, data, made);
        in->pos += used;
        c->rep->inflater_impl = GZWRAP_IMPL_LIBDEFLATE;
    }
    free(data);
    return done;
}

/* What the streaming path needs, made at the first stream that takes it (a conversion of
 * a small value inflated at once never does: these cost more than its inflate): the
 * inflater, its output buffer and the stored blocks' history. */
static gzwrap_status streaming_ready(gzw_conv *c) {
    if (c->inf)
        return GZWRAP_OK;
    if (!c->data)
        c->data = aligned_alloc(64, GZW_OUT_CAP); /* the checksums load whole cache lines */
    if (!c->hist)
        c->hist = malloc(sizeof *c->hist);
    if (!c->data || !c->hist || !(c->inf = c->ops->create()))
        return gzw_fail(c, GZWRAP_ERR_NOMEM, gzw_in_offset(&c->in),
                        "no memory for the conversion's buffers");
    c->end_bit_known = c->ops->end_bit_known(c->inf);
    return GZWRAP_OK;
}

/* Inflate the deflate stream at the input position to its end, copying its bytes to the
 * output and checksumming the data; with `walk`, following its blocks too (src/walk.c).
 * `what` names the stream in messages; `size` and `last` as whole_stream takes them. */
static gzwrap_status payload(gzw_conv *c, sums *s, const char *what, int walk, size_t size,
                             size_t last) {
    gzw_in *in = &c->in;
    gzwrap_status st;
    in->hold = in->pos;
    if ((st = gzw_walk_start(c, walk, what)))
        return st;
    s->member_bytes = 0;
    s->crc_member = 0;
    int ended = 0, pad = 0; /* a final stored block ends on a byte boundary */
    if (!walk && whole_stream(c, s, size, last)) {
        ended = 1, pad = -1; /* nothing joins it: its end to the bit is not needed */
    } else {
        if ((st = streaming_ready(c)))
            return st;
        c->ops->reset(c->inf);
        if ((st = stored_blocks(c, s, what, &ended)))
            return st;
    }
    c->walk.told0 = gzw_in_offset(in) * 8;
    int starved = 0; /* the inflater made no progress with what it had */
    while (!ended) {
        if ((gzw_in_avail(in) == 0 || starved) && !in->eof) {
            /* copy what the inflater has passed, GZW_KEEP behind it, then read more */
            if (in->pos > in->hold + GZW_KEEP && (st = copy_payload(c, in->pos - GZW_KEEP)))
                return st;
            if ((st = gzw_in_fill(c)))
                return st;
            starved = 0;
            continue;
        }
        long used;
        size_t made = 0;
        const char *why = "";
        gzw_inflate_result r = c->ops->run(c->inf, in->buf + in->pos, gzw_in_avail(in), &used,
                                           c->data, GZW_OUT_CAP, &made, &pad, &why);
        if (r == GZW_INFLATE_ERROR)
            return gzw_fail(c, GZWRAP_ERR_DATA, gzw_in_offset(in) + (used > 0 ? used : 0),
                            "corrupt deflate data in %s (%s: %s)", what,
                            gzwrap_impl_name(c->ops->impl), why);
        in->pos = (size_t)((long)in->pos + used);
        if (c->blocks_told) {
            uint64_t header;
            int final;
            c->ops->block(c->inf, &header, &final);
            gzw_walk_told(c, c->walk.told0 + header, final);
        }
        if (made)
            checksum(c, s, c->data, made);
        ended = r == GZW_INFLATE_END;
        if (!ended && used == 0 && made == 0) {
            if (in->eof)
                return gzw_fail(c, GZWRAP_ERR_TRUNCATED, gzw_in_offset(in),
                                "unexpected end of input in %s: expected more deflate data",
                                what);
            starved = 1;
        }
    }
    if (pad >= 0 && !c->walk.ended) /* the end to the bit, for a join */
        c->walk.ended = 1, c->walk.end = gzw_in_offset(in) * 8 - (uint64_t)pad;
    if ((st = copy_payload(c, in->pos)) || (st = gzw_walk_advance(c)))
        return st;
    c->rep->data_bytes += s->member_bytes;
    if (s->want_crc)
        s->crc_all = c->rep->members > 1
                         ? gzw_crc32_combine(s->crc_all, s->crc_member, s->member_bytes)
                         : s->crc_member;
    return GZWRAP_OK;
}

static uint32_t le32(const uint8_t *b) {
    return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint32_t be32(const uint8_t *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static gzwrap_status need_trailer(gzw_conv *c, size_t n, const char *what) {
    gzwrap_status st = gzw_in_need(c, n);
    if (st == GZWRAP_ERR_TRUNCATED)
        return gzw_fail(c, st, c->in.base + c->in.len, "unexpected end of input: expected %s",
                        what);
    return st;
}

static gzwrap_status expect_end(gzw_conv *c, const char *after) {
    gzwrap_status st = gzw_in_need(c, 1);
    if (st == GZWRAP_ERR_TRUNCATED)
        return GZWRAP_OK;
    if (st)
        return st;
    return gzw_fail(c, GZWRAP_ERR_TRAILING, gzw_in_offset(&c->in),
                    "trailing data after %s: expected the end of input, found byte %02X", after,
                    c->in.buf[c->in.pos]);
}

/* ---- sources ------------------------------------------------------------------------------ */

/* "gzip member M", without printf: a conversion of a 1 KB value spent a fifth of its time
 * formatting these names, which only an error prints. */
static void member_name(char out[48], uint64_t m) {
    char digits[20];
    int k = 0;
    do
        digits[k++] = (char)('0' + m % 10);
    while (m /= 10);
    memcpy(out, "gzip member ", 12);
    for (int i = 0; i < k; i++)
        out[12 + i] = digits[k - 1 - i];
    out[12 + k] = 0;
}

static gzwrap_status from_gzip(gzw_conv *c, sums *s) {
    gzw_in *in = &c->in;
    gzwrap_report *r = c->rep;
    int keep_header = c->opt.to == GZWRAP_FORMAT_GZIP;
    uint64_t payload_start = 0, payload_in = 0;
    gzwrap_status st;
    for (uint64_t m = 1;; m++) {
        gzw_gzip_header h;
        r->members = m;
        if ((st = gzw_gzip_header_read(c, m, keep_header && m == 1, &h)))
            return st;
        if (m == 1) {
            if (!keep_header && (st = target_header(c, NULL, 1, h.xfl)))
                return st;
        } else if ((st = gzw_join_member(c, m - 1, payload_start, c->out.off - payload_start,
                                         payload_in))) {
            return st;
        } else if (gzw_out_streams(&c->opt) && (st = gzw_out_settle(c))) {
            return st; /* members before this one are joined: nothing there changes again */
        }
        payload_start = c->out.off;
        payload_in = gzw_in_offset(in);
        char what[48];
        member_name(what, m);
        /* the last member's ISIZE: the first one's size when it is the only one */
        size_t size = m == 1 && !in->rd && in->len >= 4 ? le32(in->buf + in->len - 4) : 0;
        if ((st = payload(c, s, what, c->opt.walk_blocks || m > 1, size, 8)))
            return st;
        uint64_t at = gzw_in_offset(in);
        if ((st = need_trailer(c, 8, "the gzip trailer (CRC-32 and ISIZE, 8 bytes)")))
            return st;
        uint32_t crc = le32(in->buf + in->pos), isize = le32(in->buf + in->pos + 4);
        if (crc != s->crc_member)
            return gzw_fail(c, GZWRAP_ERR_CHECKSUM, at,
                            "gzip member %llu: CRC-32 of the data is %08X, the trailer says "
                            "%08X", (unsigned long long)m, s->crc_member, crc);
        if (isize != (uint32_t)s->member_bytes)
            return gzw_fail(c, GZWRAP_ERR_LENGTH, at + 4,
                            "gzip member %llu: ISIZE is %lu, expected %lu (the data's %llu "
                            "bytes modulo 2^32)", (unsigned long long)m, (unsigned long)isize,
                            (unsigned long)(uint32_t)s->member_bytes,
                            (unsigned long long)s->member_bytes);
        in->pos += 8;
        st = gzw_in_need(c, 2);
        if (st == GZWRAP_ERR_TRUNCATED && gzw_in_avail(in) == 0)
            break;
        if (st && st != GZWRAP_ERR_TRUNCATED)
            return st;
        const uint8_t *b = in->buf + in->pos;
        if (b[0] != 0x1f || (gzw_in_avail(in) > 1 && b[1] != 0x8b))
            return gzw_fail(c, GZWRAP_ERR_TRAILING, gzw_in_offset(in),
                            "trailing data after gzip member %llu: expected the end of input "
                            "or another member (1F 8B), found %02X%s",
                            (unsigned long long)m, b[0], gzw_in_avail(in) > 1 ? " ..." : "");
        /* else the next member: its header parse reports a truncation */
    }
    return target_trailer(c, s, r->data_bytes);
}

/* zlib, also inside COMPRESS(). `mysql_length`: the declared length, or -1. */
static gzwrap_status from_zlib(gzw_conv *c, sums *s, long long mysql_length) {
    gzw_in *in = &c->in;
    const char *what = mysql_length >= 0 ? "the COMPRESS() value's zlib stream" : "the zlib stream";
    uint64_t at = gzw_in_offset(in);
    gzwrap_status st = need_trailer(c, 2, "a zlib header (2 bytes)");
    if (st)
        return st;
    uint8_t hdr[2] = {in->buf[in->pos], in->buf[in->pos + 1]};
    if ((hdr[0] & 0x0f) != 8)
        return gzw_fail(c, GZWRAP_ERR_FORMAT, at,
                        "expected zlib compression method 8 (deflate) in CMF, found %02X "
                        "(method %u)", hdr[0], hdr[0] & 0x0f);
    if ((hdr[0] >> 4) > 7)
        return gzw_fail(c, GZWRAP_ERR_HEADER, at,
                        "zlib window size CINFO %u is above 7 (32 KiB)", hdr[0] >> 4);
    if ((hdr[0] * 256u + hdr[1]) % 31)
        return gzw_fail(c, GZWRAP_ERR_HEADER, at + 1,
                        "bad zlib header check: CMF*256+FLG = %02X%02X is not a multiple of 31",
                        hdr[0], hdr[1]);
    if (hdr[1] & 0x20)
        return gzw_fail(c, GZWRAP_ERR_UNSUPPORTED, at + 1,
                        "the zlib stream needs a preset dictionary (FDICT): its data cannot be "
                        "checked, and gzip and COMPRESS() cannot carry one");
    in->pos += 2;
    if ((st = target_header(c, hdr, 0, 0)))
        return st;
    if ((st = payload(c, s, what, 0, mysql_length > 0 ? (size_t)mysql_length : 0, 0)))
        return st;
    at = gzw_in_offset(in);
    if ((st = need_trailer(c, 4, "the zlib trailer (Adler-32, 4 bytes)")))
        return st;
    uint32_t adler = be32(in->buf + in->pos);
    if (adler != s->adler_all)
        return gzw_fail(c, GZWRAP_ERR_CHECKSUM, at,
                        "Adler-32 of the data is %08X, the zlib trailer says %08X",
                        s->adler_all, adler);
    int space = in->buf[in->pos + 3] == ' ';
    in->pos += 4;
    if (mysql_length >= 0) {
        if ((uint64_t)mysql_length != (c->rep->data_bytes & (MYSQL_LENGTH_LIMIT - 1)))
            return gzw_fail(c, GZWRAP_ERR_LENGTH, 0,
                            "the COMPRESS() length field says %lld bytes, the data is %llu",
                            mysql_length, (unsigned long long)c->rep->data_bytes);
        /* COMPRESS() appends "." when the stream ends in a space */
        if (space && gzw_in_need(c, 1) == GZWRAP_OK && in->buf[in->pos] == '.')
            in->pos++;
    }
    if ((st = expect_end(c, what)))
        return st;
    return target_trailer(c, s, c->rep->data_bytes);
}

static gzwrap_status from_mysql(gzw_conv *c, sums *s) {
    gzw_in *in = &c->in;
    gzwrap_status st = gzw_in_need(c, 1);
    if (st == GZWRAP_ERR_TRUNCATED) { /* '' is COMPRESS('') */
        if (c->opt.to == GZWRAP_FORMAT_MYSQL)
            return GZWRAP_OK;
        /* the empty data as the target: an empty final block (fixed codes, end-of-block) */
        static const uint8_t empty[2] = {0x03, 0x00};
        if ((st = target_header(c, NULL, 0, 0)) || (st = gzw_out_write(c, empty, 2)))
            return st;
        c->rep->payload_bytes = 0;
        return target_trailer(c, s, 0);
    }
    if (st)
        return st;
    if ((st = need_trailer(c, 4, "the COMPRESS() length (4 bytes)")))
        return st;
    long long length = le32(in->buf + in->pos);
    if (length & ~(long long)(MYSQL_LENGTH_LIMIT - 1))
        return gzw_fail(c, GZWRAP_ERR_HEADER, 0,
                        "the COMPRESS() length field %08llX has its top two bits set "
                        "(COMPRESS() writes 30 bits)", length);
    in->pos += 4;
    return from_zlib(c, s, length);
}

static gzwrap_status from_deflate(gzw_conv *c, sums *s) {
    gzwrap_status st = target_header(c, NULL, 0, 0);
    if (st || (st = payload(c, s, "the deflate stream", 0, 0, 0)))
        return st;
    if ((st = expect_end(c, "the deflate stream")))
        return st;
    return target_trailer(c, s, c->rep->data_bytes);
}

/* ---- entry points --------------------------------------------------------------------------- */

void gzwrap_options_init(gzwrap_options *opt) {
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->from = GZWRAP_FORMAT_AUTO;
    opt->to = GZWRAP_FORMAT_ZLIB;
}

static int format_ok(gzwrap_format f, int allow_auto) {
    return (f == GZWRAP_FORMAT_AUTO && allow_auto) ||
           (f >= GZWRAP_FORMAT_GZIP && f <= GZWRAP_FORMAT_MYSQL);
}

gzwrap_status gzwrap_stream_convert(const gzwrap_options *opt, gzwrap_reader *rd,
                                    gzwrap_writer *wr, gzwrap_report *report) {
    static gzwrap_reader none; /* read() NULL: refused below */
    return gzw_convert(opt, rd ? rd : &none, NULL, 0, wr, NULL, report);
}

gzwrap_status gzw_convert(const gzwrap_options *opt, gzwrap_reader *rd, const uint8_t *whole,
                          size_t whole_len, gzwrap_writer *wr, gzw_mem_out *mem,
                          gzwrap_report *report) {
    gzwrap_report scratch;
    gzwrap_report *r = report ? report : &scratch;
    /* all but the notes, 4.6 KiB that only a note writes (notes[0 .. n_notes-1] are read):
     * clearing them took a tenth of a conversion of a 100-byte value */
    memset(r, 0, offsetof(gzwrap_report, notes));
    r->status = GZWRAP_OK, r->error_offset = 0, r->error[0] = 0;
    gzwrap_options o;
    gzwrap_options_init(&o);
    if (opt)
        o = *opt;
    r->from = o.from, r->to = o.to;
    if ((rd && !rd->read) || (!rd && !whole && whole_len) || !wr || !wr->write ||
        !format_ok(o.from, 1) || !format_ok(o.to, 0) ||
        (unsigned)o.inflater > GZWRAP_IMPL_LAST ||
        (unsigned)o.crc32 > GZWRAP_IMPL_LAST ||
        (unsigned)o.adler32 > GZWRAP_IMPL_LAST) {
        snprintf(r->error, sizeof r->error, "invalid argument");
        return r->status = GZWRAP_ERR_ARG;
    }
    gzw_conv c = {.opt = o, .rep = r};
    c.in.rd = rd;
    c.out.wr = wr;
    c.out.mem = mem;
    r->inflater_impl = gzwrap_impl_resolve(o.inflater, GZWRAP_ROLE_INFLATE);
    r->crc32_impl = gzwrap_impl_resolve(o.crc32, GZWRAP_ROLE_CRC32);
    r->adler32_impl = gzwrap_impl_resolve(o.adler32, GZWRAP_ROLE_ADLER32);
    if (!r->inflater_impl || !r->crc32_impl || !r->adler32_impl)
        return gzw_fail(&c, GZWRAP_ERR_UNAVAILABLE, 0,
                        "implementation not in this build: inflate %s, CRC-32 %s, Adler-32 %s%s",
                        gzwrap_impl_name(o.inflater), gzwrap_impl_name(o.crc32),
                        gzwrap_impl_name(o.adler32),
                        o.inflater == GZWRAP_IMPL_LIBDEFLATE
                            ? " (libdeflate has no streaming inflate)" : "");
    if (!gzw_out_streams(&o) && (!wr->pwrite || !wr->truncate))
        return gzw_fail(&c, GZWRAP_ERR_NEEDS_SEEK, 0,
                        "the COMPRESS() target writes its length first, known only at the "
                        "end: it needs an output that can be patched (a file, not a pipe), "
                        "or the length given beforehand (`data_length`)");
    if (o.to == GZWRAP_FORMAT_MYSQL && o.data_length >= MYSQL_LENGTH_LIMIT)
        return too_large(&c, o.data_length);
    c.crc = gzw_checksum_of(r->crc32_impl, GZWRAP_ROLE_CRC32);
    c.adler = gzw_checksum_of(r->adler32_impl, GZWRAP_ROLE_ADLER32);
    c.both = gzw_checksums_of(r->crc32_impl, r->adler32_impl);
    if (rd) {
        c.in.buf = malloc(GZW_IN_CAP);
    } else { /* the whole input, in place */
        c.in.buf = (uint8_t *)whole;
        c.in.len = whole_len;
        c.in.eof = 1;
    }
    gzwrap_status st = GZWRAP_OK;
    if (rd && !c.in.buf) {
        st = gzw_fail(&c, GZWRAP_ERR_NOMEM, 0, "no memory for the conversion's buffers");
        goto done;
    }

    if (o.from == GZWRAP_FORMAT_AUTO) {
        st = gzw_in_need(&c, 7);
        if (st && st != GZWRAP_ERR_TRUNCATED)
            goto done;
        st = gzwrap_format_detect(c.in.buf, c.in.len, c.in.eof, &o.from);
        if (st == GZWRAP_ERR_AMBIGUOUS) {
            gzw_fail(&c, st, 0, "the first bytes read both as a zlib header and as a COMPRESS() "
                                "length and zlib header: say which with `from`");
            goto done;
        }
        if (st) {
            gzw_fail(&c, GZWRAP_ERR_FORMAT, 0,
                     c.in.len == 0 ? "empty input: not gzip, zlib or deflate (an empty "
                                     "COMPRESS() value needs `from` mysql)"
                                   : "unknown format: expected gzip (1F 8B), a zlib header "
                                     "(such as 78 9C) or a COMPRESS() length and zlib header; "
                                     "raw deflate has no magic and needs `from` deflate");
            st = GZWRAP_ERR_FORMAT;
            goto done;
        }
        c.opt.from = o.from;
    }
    r->from = o.from;
    c.ops = gzw_inflater_ops_for(r->inflater_impl, o.from);
    c.blocks_told = c.ops->block != NULL;
    if (o.from != GZWRAP_FORMAT_GZIP)
        r->members = 1;
    c.out.settle_each = o.from != GZWRAP_FORMAT_GZIP && gzw_out_streams(&o);
    sums s = {0};
    s.adler_all = 1;
    s.want_crc = o.all_checksums || o.from == GZWRAP_FORMAT_GZIP || o.to == GZWRAP_FORMAT_GZIP;
    s.want_adler = o.all_checksums || (o.from != GZWRAP_FORMAT_GZIP && o.from != GZWRAP_FORMAT_DEFLATE) ||
                   o.to == GZWRAP_FORMAT_ZLIB || o.to == GZWRAP_FORMAT_MYSQL;
    switch (o.from) {
    case GZWRAP_FORMAT_GZIP: st = from_gzip(&c, &s); break;
    case GZWRAP_FORMAT_ZLIB: st = from_zlib(&c, &s, -1); break;
    case GZWRAP_FORMAT_MYSQL: st = from_mysql(&c, &s); break;
    default: st = from_deflate(&c, &s); break;
    }
    r->has_crc32 = s.want_crc, r->crc32 = s.crc_all;
    r->has_adler32 = s.want_adler, r->adler32 = s.adler_all;
done:
    if (c.inf)
        c.ops->destroy(c.inf);
    if (rd)
        free(c.in.buf);
    free(c.data);
    free(c.hist);
    free(c.scan_buf);
    free(c.scan_tables);
    r->in_bytes = gzw_in_offset(&c.in);
    r->out_bytes = c.out.off;
    if (st && !r->status)
        r->status = st;
    return r->status;
}
