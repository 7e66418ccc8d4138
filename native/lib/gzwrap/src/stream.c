/* stream.c — the converter's input window, output, errors and notes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal/conv.h"

gzwrap_status gzw_in_fill(gzw_conv *c) {
    gzw_in *in = &c->in;
    size_t keep = in->pos < in->hold ? in->pos : in->hold;
    gzwrap_status st = gzw_walk_advance(c); /* before the window moves */
    if (st)
        return st;
    keep = gzw_walk_keep(c, keep);
    if (keep > 0 && c->hist)
        gzw_history_gather(c->hist, in->buf); /* its runs are window offsets */
    if (keep > 0) {
        memmove(in->buf, in->buf + keep, in->len - keep);
        in->len -= keep, in->pos -= keep, in->hold -= keep;
        in->base += keep;
    }
    while (!in->eof && in->len < GZW_IN_CAP) {
        long long n = in->rd->read(in->rd->ctx, in->buf + in->len, GZW_IN_CAP - in->len);
        if (n < 0)
            return gzw_fail(c, GZWRAP_ERR_READ, in->base + in->len, "the reader failed");
        if (n == 0)
            in->eof = 1;
        in->len += (size_t)n;
        if (n > 0)
            break; /* one read per fill: a pipe gives what it has */
    }
    return GZWRAP_OK;
}

gzwrap_status gzw_in_need(gzw_conv *c, size_t n) {
    while (gzw_in_avail(&c->in) < n) {
        if (c->in.eof)
            return GZWRAP_ERR_TRUNCATED;
        gzwrap_status st = gzw_in_fill(c);
        if (st)
            return st;
    }
    return GZWRAP_OK;
}

gzwrap_status gzw_out_write(gzw_conv *c, const void *buf, size_t len) {
    if (len == 0)
        return GZWRAP_OK;
    if (c->out.wr->write(c->out.wr->ctx, buf, len) != 0)
        return gzw_fail(c, GZWRAP_ERR_WRITE, gzw_in_offset(&c->in),
                        "writing %zu bytes at output offset %llu failed", len,
                        (unsigned long long)c->out.off);
    c->out.off += len;
    return c->out.settle_each ? gzw_out_settle(c) : GZWRAP_OK;
}

gzwrap_status gzw_out_settle(gzw_conv *c) { return gzw_out_settle_to(c, c->out.off); }

gzwrap_status gzw_out_settle_to(gzw_conv *c, uint64_t upto) {
    if (upto <= c->out.settled)
        return GZWRAP_OK;
    c->out.settled = upto;
    if (c->out.wr->settle && c->out.wr->settle(c->out.wr->ctx, upto) != 0)
        return gzw_fail(c, GZWRAP_ERR_WRITE, gzw_in_offset(&c->in),
                        "passing on output bytes before %llu failed", (unsigned long long)upto);
    return GZWRAP_OK;
}

gzwrap_status gzw_out_pread(gzw_conv *c, void *buf, size_t len, uint64_t offset) {
    if (!c->out.wr->pread || c->out.wr->pread(c->out.wr->ctx, buf, len, offset) != 0)
        return gzw_fail(c, GZWRAP_ERR_WRITE, gzw_in_offset(&c->in),
                        "reading back %zu output bytes at %llu failed", len,
                        (unsigned long long)offset);
    return GZWRAP_OK;
}

gzwrap_status gzw_out_pwrite(gzw_conv *c, const void *buf, size_t len, uint64_t offset) {
    if (!c->out.wr->pwrite || c->out.wr->pwrite(c->out.wr->ctx, buf, len, offset) != 0)
        return gzw_fail(c, GZWRAP_ERR_WRITE, gzw_in_offset(&c->in),
                        "rewriting %zu output bytes at %llu failed", len,
                        (unsigned long long)offset);
    return GZWRAP_OK;
}

gzwrap_status gzw_fail(gzw_conv *c, gzwrap_status st, uint64_t offset, const char *fmt, ...) {
    gzwrap_report *r = c->rep;
    if (r->status != GZWRAP_OK) /* the first error is the one to report */
        return r->status;
    r->status = st;
    r->error_offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    return st;
}

void gzw_note(gzw_conv *c, gzwrap_field field, uint64_t member, const char *fmt, ...) {
    gzwrap_report *r = c->rep;
    for (size_t i = 0; i < r->n_notes; i++)
        if (r->notes[i].field == field) {
            r->notes[i].members++;
            return;
        }
    if (r->n_notes == GZWRAP_NOTES_MAX)
        return;
    gzwrap_note *n = &r->notes[r->n_notes++];
    n->field = field;
    n->members = 1;
    n->first_member = member;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->text, sizeof n->text, fmt, ap);
    va_end(ap);
}
