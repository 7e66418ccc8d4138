/* inflate_zlib.c — raw inflate with zlib: the portable inflater, always built. */
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
                                 size_t *produced, const char **why) {
    z_stream *z = &inf->z;
    z->next_in = (Bytef *)in;
    z->avail_in = (uInt)in_len;
    z->next_out = out;
    z->avail_out = (uInt)out_cap;
    int ret = inflate(z, Z_NO_FLUSH);
    *consumed = (long)(in_len - z->avail_in);
    *produced = out_cap - z->avail_out;
    switch (ret) {
    case Z_STREAM_END: return GZW_INFLATE_END;
    case Z_OK:
    case Z_BUF_ERROR: return GZW_INFLATE_MORE; /* no progress possible: more input */
    case Z_MEM_ERROR: *why = "out of memory"; return GZW_INFLATE_ERROR;
    default: *why = z->msg ? z->msg : "invalid deflate data"; return GZW_INFLATE_ERROR;
    }
}

const gzw_inflater_ops gzw_inflater_zlib = {
    GZWRAP_IMPL_ZLIB, zl_create, zl_destroy, zl_reset, zl_set_dict, zl_run,
};
