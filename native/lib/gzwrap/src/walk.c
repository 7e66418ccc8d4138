/* walk.c — following a gzip member's blocks as it streams, so that the output before the
 * block being walked is final (src/join.c says why the final block matters).
 *
 * The walk (src/scan.c) runs over the input window just before a refill moves it, block
 * by block; a block that the window holds only in part is walked again once more input
 * is in. The window keeps the bytes from the block being walked; a block longer than half
 * the window pauses the walk, and the join then reads the member back from the last block
 * boundary it reached.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/conv.h"
#include "internal/scan.h"

gzwrap_status gzw_scan_tables(gzw_conv *c, uint64_t input_offset) {
    if (!c->scan_tables)
        c->scan_tables = malloc(GZW_SCAN_TABLES * sizeof *c->scan_tables);
    return c->scan_tables ? GZWRAP_OK
                          : gzw_fail(c, GZWRAP_ERR_NOMEM, input_offset,
                                     "no memory for the block walk's tables");
}

gzwrap_status gzw_walk_start(gzw_conv *c, int on, const char *what) {
    gzw_walk *w = &c->walk;
    uint64_t in0 = gzw_in_offset(&c->in);
    *w = (gzw_walk){.on = on, .in0 = in0, .out0 = c->out.off, .at = in0 * 8};
    size_t n = strlen(what); /* not snprintf: this runs per member, the name is rarely used */
    memcpy(w->what, what, n < sizeof w->what ? n : sizeof w->what - 1);
    return on && !c->blocks_told ? gzw_scan_tables(c, in0) : GZWRAP_OK;
}

void gzw_walk_told(gzw_conv *c, uint64_t at, int final) {
    gzw_walk *w = &c->walk;
    w->at = at;
    if (final)
        w->done = 1, w->final = at;
}

gzwrap_status gzw_walk_advance(gzw_conv *c) {
    gzw_walk *w = &c->walk;
    gzw_in *in = &c->in;
    if (!w->on || w->paused)
        return GZWRAP_OK;
    while (!w->done && !c->blocks_told) {
        uint64_t base = in->base * 8;
        if (c->end_bit_known) { /* a final block need not be walked: its end will be told */
            int final = gzw_scan_bfinal(in->buf, in->len, w->at - base);
            if (final < 0)
                break;
            if (final) {
                w->done = 1, w->final = w->at;
                break;
            }
        }
        gzw_scan_block_result r;
        gzw_scan_status s = gzw_scan_block(in->buf, in->len, w->at - base, c->scan_tables, &r);
        if (s == GZW_SCAN_MORE)
            break;
        if (s == GZW_SCAN_BAD)
            return gzw_fail(c, GZWRAP_ERR_DATA, in->base + r.stopped_at,
                            "corrupt deflate data in %s (%s), which the fast inflater "
                            "accepted", w->what, r.why);
        c->rep->blocks_walked++;
        if (r.final)
            w->done = 1, w->final = w->at, w->ended = 1, w->end = base + r.next;
        w->at = base + r.next;
    }
    if (!gzw_out_streams(&c->opt)) /* COMPRESS(): its length comes first */
        return GZWRAP_OK;
    /* the bytes before the next block header (before the final one's, once walked) */
    uint64_t upto = w->out0 + (w->done ? w->final : w->at) / 8 - w->in0;
    return gzw_out_settle_to(c, upto < c->out.off ? upto : c->out.off);
}

size_t gzw_walk_keep(gzw_conv *c, size_t keep) {
    gzw_walk *w = &c->walk;
    gzw_in *in = &c->in;
    if (!w->on || w->paused || w->done || c->blocks_told)
        return keep;
    size_t from = (size_t)(w->at / 8 - in->base);
    if (from >= keep)
        return keep;
    if (in->len - from > GZW_IN_CAP / 2) { /* a long block: read back at the join */
        w->paused = 1;
        return keep;
    }
    return from;
}
