/* inflate_isal.c — raw inflate with ISA-L's igzip (GZWRAP_HAVE_ISAL).
 *
 * igzip keeps up to 8 bytes of look-ahead in its 64-bit bit buffer. When the stream ends,
 * ISA-L 2.31 and later give those whole bytes back (`next_in -= read_in_length / 8`);
 * 2.30 (Debian 12) does so only in its gzip and zlib wrapper modes, not for raw deflate,
 * and leaves them counted in read_in_length. Either way, whole bytes still counted there
 * at the end are given back here, possibly from an earlier call's input: hence a negative
 * *consumed, which the converter allows for.
 *
 * What is left in read_in_length then is the stream's end to the bit: in 2.30's raw mode
 * the unused bits of its last byte; 2.31 and later clear the count. Which of the two the
 * library at hand does is seen once, by inflating a stream whose end is known (an empty
 * fixed block: 10 bits, so 6 unused), rather than read from a version number. igzip's
 * block states are internal and it never stops at a block boundary, so where the end is
 * not known the join walks the final block to find it (src/join.c).
 */
#ifdef GZWRAP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#include <stdlib.h>

#include "internal/impl.h"
#include "internal/isal_why.h"

struct gzw_inflater {
    struct inflate_state s;
    int end_bit_known;
};

/* 1 when this igzip leaves the unused bits of a raw stream's last byte in read_in_length. */
static int keeps_end_bits(struct inflate_state *s) {
    static const uint8_t empty_fixed[2] = {0x03, 0x00}; /* BFINAL 1, BTYPE 01, EOB; 6 unused */
    uint8_t out[1];
    isal_inflate_init(s);
    s->next_in = (uint8_t *)empty_fixed;
    s->avail_in = sizeof empty_fixed;
    s->next_out = out;
    s->avail_out = sizeof out;
    int ret = isal_inflate(s);
    return ret == ISAL_DECOMP_OK && s->block_state == ISAL_BLOCK_FINISH &&
           s->read_in_length % 8 == 6;
}

static gzw_inflater *is_create(void) {
    /* once per process: the probe costs microseconds, a conversion of 1 MiB tens of them */
    static int keeps = -1; /* -1: not probed yet; a race probes twice, to the same answer */
    gzw_inflater *inf = malloc(sizeof *inf);
    if (inf) {
        int k = __atomic_load_n(&keeps, __ATOMIC_RELAXED);
        if (k < 0)
            __atomic_store_n(&keeps, k = keeps_end_bits(&inf->s), __ATOMIC_RELAXED);
        inf->end_bit_known = k;
        isal_inflate_init(&inf->s);
    }
    return inf;
}

static void is_destroy(gzw_inflater *inf) { free(inf); }

static void is_reset(gzw_inflater *inf) { isal_inflate_reset(&inf->s); }

static int is_set_dict(gzw_inflater *inf, const uint8_t *dict, size_t len) {
    return isal_inflate_set_dict(&inf->s, (uint8_t *)dict, (uint32_t)len) == ISAL_DECOMP_OK ? 0 : -1;
}

static gzw_inflate_result is_run(gzw_inflater *inf, const uint8_t *in, size_t in_len,
                                 long *consumed, uint8_t *out, size_t out_cap,
                                 size_t *produced, int *pad, const char **why) {
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
        *pad = inf->end_bit_known ? (int)s->read_in_length : -1;
        return GZW_INFLATE_END;
    default:
        *why = gzw_isal_why(ret);
        return GZW_INFLATE_ERROR;
    }
}

static int is_end_bit_known(const gzw_inflater *inf) { return inf->end_bit_known; }

const gzw_inflater_ops gzw_inflater_isal = {
    GZWRAP_IMPL_ISAL, is_create, is_destroy, is_reset, is_set_dict, is_run, is_end_bit_known,
    NULL, /* blocks are not told: the join walks them */
};
#else
typedef int gzw_no_isal; /* ISO C wants something in every translation unit */
#endif
