/* inflate_zlib.c — raw inflate with zlib: the portable inflater, always built.
 *
 * It runs with Z_BLOCK, which returns at each block boundary (once per block, a few
 * kilobytes of output or more) with the unused bits of the last byte taken in data_type:
 * right after the final block's end-of-block code that is the stream's end to the bit,
 * which Z_NO_FLUSH loses (zlib drops the padding before it reports the end).
 */
#include <stdlib.h>
#include <zlib.h>

#include "internal/impl.h"

struct gzw_inflater {
    z_stream z;
};

static gzw_inflater *zl_create(void) {
    gzw_inflater *inf = calloc(1, sizeof *inf);
    if (inf && inflateInit2(&inf->z, -15) != Z_OK) {
        free(inf);
        return NULL;
    }
    return inf;
}

static void zl_destroy(gzw_inflater *inf) {
    if (inf) {
        inflateEnd(&inf->z);
        free(inf);
    }
}

static void zl_reset(gzw_inflater *inf) { inflateReset(&inf->z); }

static int zl_set_dict(gzw_inflater *inf, const uint8_t *dict, size_t len) {
    return inflateSetDictionary(&inf->z, dict, (uInt)len) == Z_OK ? 0 : -1;
}

static gzw_inflate_result zl_run(gzw_inflater *inf, const uint8_t *in, size_t in_len,
                                 long *consumed, uint8_t *out, size_t out_cap,
                                 size_t *produced, int *pad, const char **why) {
    z_stream *z = &inf->z;
    z->next_in = (Bytef *)in;
    z->avail_in = (uInt)in_len;
    z->next_out = out;
    z->avail_out = (uInt)out_cap;
    int ret;
    /* data_type: 128 = stopped at a block boundary, 64 = the final block, 0-7 unused bits */
    while ((ret = inflate(z, Z_BLOCK)) == Z_OK && (z->data_type & 128) &&
           !(z->data_type & 64) && z->avail_in > 0 && z->avail_out > 0)
        ;
    *consumed = (long)(in_len - z->avail_in);
    *produced = out_cap - z->avail_out;
    if (ret == Z_OK && (z->data_type & 192) == 192) {
        *pad = z->data_type & 7; /* just past the final block's end-of-block code */
        return GZW_INFLATE_END;
    }
    switch (ret) {
    case Z_STREAM_END: *pad = -1; return GZW_INFLATE_END; /* not reached with Z_BLOCK */
    case Z_OK:
    case Z_BUF_ERROR: return GZW_INFLATE_MORE; /* no progress possible: more input */
    case Z_MEM_ERROR: *why = "out of memory"; return GZW_INFLATE_ERROR;
    default: *why = z->msg ? z->msg : "invalid deflate data"; return GZW_INFLATE_ERROR;
    }
}

static int zl_end_bit_known(const gzw_inflater *inf) { return (void)inf, 1; }

const gzw_inflater_ops gzw_inflater_zlib = {
    GZWRAP_IMPL_ZLIB, zl_create, zl_destroy, zl_reset, zl_set_dict, zl_run, zl_end_bit_known,
    NULL, /* blocks are not told: the join walks them */
};
