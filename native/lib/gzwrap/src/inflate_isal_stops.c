/* inflate_isal_stops.c — raw inflate with the ISA-L that stops at block boundaries
 * (GZWRAP_HAVE_ISAL_STOPS: tools/build_isal_stops.sh builds it, its symbols renamed).
 *
 * Joining gzip members needs the bit where each member's final block starts (src/join.c).
 * Stock igzip never says where a block starts, so the join walks the blocks a second time
 * (src/scan.c), which costs about as much as inflating them. This igzip returns at every
 * block's end (ISAL_STOPPING_POINT_END_OF_BLOCK) with its input state restored: the bits
 * loaded so far less those still in its bit buffer are where the next block's header
 * starts. One return per block, a few hundred per MiB of text: the walk is gone.
 *
 * The same stops give the stream's end to the bit (the final block's end), so the end
 * does not depend on how much look-ahead this igzip gives back when the stream ends.
 */
#ifdef GZWRAP_HAVE_ISAL_STOPS
#include <isal-stops/renamed.h>
#include <isal-stops/igzip_lib.h>
#include <stdlib.h>

#include "internal/impl.h"
#include "internal/isal_why.h"

struct gzw_inflater {
    struct inflate_state s;
    uint64_t fed;    /* stream bytes before this call's in[0] */
    uint64_t header; /* stream bit where the block being decoded (or next) starts */
    int ended;       /* the final block's end was seen: */
    uint64_t end;    /* the bit just past its end-of-block code */
};

static void st_reset(gzw_inflater *inf) {
    isal_inflate_reset(&inf->s);
    inf->s.points_to_stop_at = ISAL_STOPPING_POINT_END_OF_BLOCK;
    inf->fed = inf->header = inf->end = 0;
    inf->ended = 0;
}

static gzw_inflater *st_create(void) {
    gzw_inflater *inf = malloc(sizeof *inf);
    if (inf) {
        isal_inflate_init(&inf->s);
        st_reset(inf);
    }
    return inf;
}

static void st_destroy(gzw_inflater *inf) { free(inf); }

static int st_set_dict(gzw_inflater *inf, const uint8_t *dict, size_t len) {
    return isal_inflate_set_dict(&inf->s, (uint8_t *)dict, (uint32_t)len) == ISAL_DECOMP_OK ? 0 : -1;
}

static gzw_inflate_result st_run(gzw_inflater *inf, const uint8_t *in, size_t in_len,
                                 long *consumed, uint8_t *out, size_t out_cap,
                                 size_t *produced, int *pad, const char **why) {
    struct inflate_state *s = &inf->s;
    s->next_in = (uint8_t *)in;
    s->avail_in = (uint32_t)in_len;
    s->next_out = out;
    s->avail_out = (uint32_t)out_cap;
    int ret;
    for (;;) {
        ret = isal_inflate(s);
        if (ret != ISAL_DECOMP_OK || s->stopped_at != ISAL_STOPPING_POINT_END_OF_BLOCK)
            break;
        uint64_t at = (inf->fed + (uint64_t)(s->next_in - in)) * 8 - (uint64_t)s->read_in_length;
        if (s->bfinal)
            inf->ended = 1, inf->end = at;
        else
            inf->header = at;
    }
    *consumed = (long)(s->next_in - in);
    *produced = out_cap - s->avail_out;
    switch (ret) {
    case ISAL_DECOMP_OK:
    case ISAL_END_INPUT:
    case ISAL_OUT_OVERFLOW:
        if (s->block_state != ISAL_BLOCK_FINISH) {
            inf->fed += (uint64_t)*consumed;
            return GZW_INFLATE_MORE;
        }
        if (!inf->ended) { /* cannot happen: every block, the last too, stops at its end */
            *why = "the stream ended without a stop at its final block's end";
            return GZW_INFLATE_ERROR;
        }
        /* the stream's last byte, and the look-ahead after it given back */
        *consumed = (long)((inf->end + 7) / 8) - (long)inf->fed;
        *pad = (int)((8 - inf->end % 8) % 8);
        return GZW_INFLATE_END;
    default:
        *why = gzw_isal_why(ret);
        return GZW_INFLATE_ERROR;
    }
}

static int st_end_bit_known(const gzw_inflater *inf) {
    (void)inf;
    return 1;
}

static int st_block(const gzw_inflater *inf, uint64_t *header, int *final) {
    *header = inf->header;
    /* bfinal is the header's at `header` once read, and 0 (the block before's) until then */
    *final = inf->s.bfinal != 0;
    return 1;
}

const gzw_inflater_ops gzw_inflater_isal_stops = {
    GZWRAP_IMPL_ISAL, st_create, st_destroy, st_reset, st_set_dict, st_run, st_end_bit_known,
    st_block,
};
#else
typedef int gzw_no_isal_stops; /* ISO C wants something in every translation unit */
#endif
