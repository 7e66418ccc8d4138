/* inflate_isal.c — raw inflate with ISA-L's igzip (GZWRAP_HAVE_ISAL).
 *
 * igzip keeps up to 8 bytes of look-ahead in its 64-bit bit buffer. When the stream ends,
 * ISA-L 2.31 and later give those whole bytes back (`next_in -= read_in_length / 8`);
 * 2.30 (Debian 12) does so only in its gzip and zlib wrapper modes, not for raw deflate,
 * and leaves them counted in read_in_length. Either way, whole bytes still counted there
 * at the end are given back here, possibly from an earlier call's input: hence a negative
 * *consumed, which the converter allows for. Its block states are
 * internal: it never stops at a block boundary, which is why joining gzip members finds
 * the final blocks with zlib (src/join.c).
 */
#ifdef GZWRAP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#include <stdlib.h>

#include "internal/impl.h"

struct gzw_inflater {
    struct inflate_state s;
};

static gzw_inflater *is_create(void) {
    gzw_inflater *inf = malloc(sizeof *inf);
    if (inf)
        isal_inflate_init(&inf->s);
    return inf;
}

static void is_destroy(gzw_inflater *inf) { free(inf); }

static void is_reset(gzw_inflater *inf) { isal_inflate_reset(&inf->s); }

static int is_set_dict(gzw_inflater *inf, const uint8_t *dict, size_t len) {
    return isal_inflate_set_dict(&inf->s, (uint8_t *)dict, (uint32_t)len) == ISAL_DECOMP_OK ? 0 : -1;
}

static gzw_inflate_result is_run(gzw_inflater *inf, const uint8_t *in, size_t in_len,
                                 long *consumed, uint8_t *out, size_t out_cap,
                                 size_t *produced, const char **why) {
    struct inflate_state *s = &inf->s;
    s->next_in = (uint8_t *)in;
    s->avail_in = (uint32_t)in_len;
    s->next_out = out;
    s->avail_out = (uint32_t)out_cap;
    int ret = isal_inflate(s);
    *consumed = (long)(s->next_in - in);
    *produced = out_cap - s->avail_out;
    switch (ret) {
    case ISAL_DECOMP_OK:
    case ISAL_END_INPUT:
    case ISAL_OUT_OVERFLOW:
        if (s->block_state != ISAL_BLOCK_FINISH)
            return GZW_INFLATE_MORE;
        *consumed -= s->read_in_length / 8;
        s->read_in_length %= 8;
        return GZW_INFLATE_END;
    case ISAL_INVALID_BLOCK: *why = "invalid block"; break;
    case ISAL_INVALID_SYMBOL: *why = "invalid code"; break;
    case ISAL_INVALID_LOOKBACK: *why = "invalid distance too far back"; break;
    default: *why = "invalid deflate data"; break;
    }
    return GZW_INFLATE_ERROR;
}

const gzw_inflater_ops gzw_inflater_isal = {
    GZWRAP_IMPL_ISAL, is_create, is_destroy, is_reset, is_set_dict, is_run,
};
#else
typedef int gzw_no_isal; /* ISO C wants something in every translation unit */
#endif
