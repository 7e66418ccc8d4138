/* check.c — decode a whole stream with zlib's own wrappers, independently of the
 * conversion's code: inflate() with its gzip (windowBits 31) or zlib (15) wrapper checks
 * the header, the CRC-32 or Adler-32 and ISIZE itself. Used by `gzwrap --verify` and the
 * tests to confirm that an output decodes to the data the input held.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "internal/conv.h"

#define IN_CHUNK (64u * 1024u)
#define OUT_CHUNK (256u * 1024u)

typedef struct chk {
    gzwrap_reader *rd;
    gzwrap_report *rep;
    uint8_t *in, *out;
    size_t len, pos;
    uint64_t base; /* input offset of in[0] */
    int eof;
} chk;

static gzwrap_status fail(chk *k, gzwrap_status st, uint64_t at, const char *fmt, const char *a) {
    if (k->rep && !k->rep->status) {
        k->rep->status = st;
        k->rep->error_offset = at;
        snprintf(k->rep->error, sizeof k->rep->error, fmt, a);
    }
    return st;
}

static gzwrap_status refill(chk *k) {
    if (k->pos < k->len || k->eof)
        return GZWRAP_OK;
    k->base += k->len;
    k->len = k->pos = 0;
    long long n = k->rd->read(k->rd->ctx, k->in, IN_CHUNK);
    if (n < 0)
        return fail(k, GZWRAP_ERR_READ, k->base, "%s", "the reader failed");
    k->len = (size_t)n;
    k->eof = n == 0;
    return GZWRAP_OK;
}

/* Take n bytes (n <= 8) into b; GZWRAP_ERR_TRUNCATED if the input ends first. */
static gzwrap_status take(chk *k, uint8_t *b, size_t n, size_t *got) {
    for (*got = 0; *got < n;) {
        gzwrap_status st = refill(k);
        if (st)
            return st;
        if (k->pos == k->len)
            return GZWRAP_ERR_TRUNCATED;
        b[(*got)++] = k->in[k->pos++];
    }
    return GZWRAP_OK;
}

static gzwrap_status at_end(chk *k, const char *after) {
    gzwrap_status st = refill(k);
    if (st)
        return st;
    if (k->pos < k->len)
        return fail(k, GZWRAP_ERR_TRAILING, k->base + k->pos,
                    "trailing data after %s", after);
    return GZWRAP_OK;
}

/* One stream with windowBits `wbits` from the current position to its end. */
static gzwrap_status inflate_one(chk *k, z_stream *z, gzwrap_check *res, uint8_t *last) {
    for (;;) {
        gzwrap_status st = refill(k);
        if (st)
            return st;
        z->next_in = k->in + k->pos;
        z->avail_in = (uInt)(k->len - k->pos);
        z->next_out = k->out;
        z->avail_out = OUT_CHUNK;
        int ret = inflate(z, Z_NO_FLUSH);
        size_t used = (k->len - k->pos) - z->avail_in;
        if (used)
            *last = k->in[k->pos + used - 1];
        k->pos += used;
        size_t made = OUT_CHUNK - z->avail_out;
        res->data_bytes += made;
        res->crc32 = gzw_crc32_zlib(res->crc32, k->out, made);
        res->adler32 = gzw_adler32_zlib(res->adler32, k->out, made);
        if (ret == Z_STREAM_END)
            return GZWRAP_OK;
        if (ret == Z_BUF_ERROR && k->eof && k->pos == k->len)
            return fail(k, GZWRAP_ERR_TRUNCATED, k->base + k->pos, "%s",
                        "unexpected end of input: the stream is unfinished");
        if (ret != Z_OK && ret != Z_BUF_ERROR)
            return fail(k, ret == Z_NEED_DICT ? GZWRAP_ERR_UNSUPPORTED : GZWRAP_ERR_DATA,
                        k->base + k->pos, "zlib: %s", z->msg ? z->msg : "invalid stream");
    }
}

gzwrap_status gzwrap_stream_check(gzwrap_format format, gzwrap_reader *rd,
                                  gzwrap_check *result, gzwrap_report *report) {
    if (report)
        memset(report, 0, sizeof *report);
    if (!rd || !rd->read || !result || format < GZWRAP_FORMAT_GZIP || format > GZWRAP_FORMAT_MYSQL)
        return report ? (report->status = GZWRAP_ERR_ARG) : GZWRAP_ERR_ARG;
    memset(result, 0, sizeof *result);
    result->adler32 = 1;
    chk k = {rd, report, malloc(IN_CHUNK), malloc(OUT_CHUNK), 0, 0, 0, 0};
    z_stream z = {0};
    gzwrap_status st = GZWRAP_OK;
    int wbits = format == GZWRAP_FORMAT_GZIP ? 31 : format == GZWRAP_FORMAT_DEFLATE ? -15 : 15;
    if (!k.in || !k.out || inflateInit2(&z, wbits) != Z_OK) {
        st = fail(&k, GZWRAP_ERR_NOMEM, 0, "%s", "no memory");
        goto done;
    }
    uint8_t b[4], last = 0;
    size_t got;
    uint64_t declared = 0;
    if (format == GZWRAP_FORMAT_MYSQL) {
        st = take(&k, b, 4, &got);
        if (st == GZWRAP_ERR_TRUNCATED && got == 0) { /* COMPRESS('') */
            st = GZWRAP_OK;
            goto done;
        }
        if (st) {
            if (st == GZWRAP_ERR_TRUNCATED)
                fail(&k, st, got, "%s", "unexpected end of input in the COMPRESS() length");
            goto done;
        }
        declared = (b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24) &
                   0x3fffffff;
    }
    for (;;) {
        if ((st = inflate_one(&k, &z, result, &last)))
            goto done;
        result->members++;
        if (format != GZWRAP_FORMAT_GZIP)
            break;
        /* another gzip member, or the end */
        if ((st = refill(&k)))
            goto done;
        if (k.pos == k.len)
            break;
        if (k.in[k.pos] != 0x1f) {
            st = fail(&k, GZWRAP_ERR_TRAILING, k.base + k.pos, "%s",
                      "trailing data after a gzip member");
            goto done;
        }
        inflateReset(&z);
    }
    if (format == GZWRAP_FORMAT_MYSQL) {
        if (declared != (result->data_bytes & 0x3fffffff)) {
            st = fail(&k, GZWRAP_ERR_LENGTH, 0, "%s",
                      "the COMPRESS() length differs from the data's");
            goto done;
        }
        if (last == ' ') {
            if ((st = refill(&k)))
                goto done;
            if (k.pos < k.len && k.in[k.pos] == '.')
                k.pos++;
        }
    }
    st = at_end(&k, gzwrap_format_name(format));
done:
    inflateEnd(&z);
    free(k.in);
    free(k.out);
    return st;
}
