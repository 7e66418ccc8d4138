/* internal/impl.h — the inflaters and checksums behind one interface.
 *
 * An inflater decodes a raw deflate stream (no wrapper) in steps, into a caller's buffer,
 * and says where the stream ended to the bit: the converter copies the compressed bytes
 * itself, so it must know exactly which input byte holds the last bit and how many of its
 * bits are padding. zlib (always) and ISA-L (GZWRAP_HAVE_ISAL, or GZWRAP_HAVE_ISAL_STOPS: the
 * igzip that stops at block boundaries) implement it; which one a conversion uses is
 * decided in src/impl.c and nowhere else.
 */
#ifndef GZWRAP_INTERNAL_IMPL_H
#define GZWRAP_INTERNAL_IMPL_H

#include <gzwrap.h>
#include <stddef.h>
#include <stdint.h>

typedef enum gzw_inflate_result {
    GZW_INFLATE_MORE = 0, /* needs more input or more output room */
    GZW_INFLATE_END,      /* the final block ended */
    GZW_INFLATE_ERROR,    /* corrupt stream: *why says what */
} gzw_inflate_result;

typedef struct gzw_inflater gzw_inflater;

typedef struct gzw_inflater_ops {
    gzwrap_impl impl;
    gzw_inflater *(*create)(void);
    void (*destroy)(gzw_inflater *inf);
    void (*reset)(gzw_inflater *inf);
    /* After reset, before the first run: the stream starts after `len` <= 32 KiB bytes of
     * data that its matches may refer to (a stream that began with stored blocks, which
     * the converter checksummed where they lay). 0 on success. */
    int (*set_dict)(gzw_inflater *inf, const uint8_t *dict, size_t len);
    /* Decode from in[0..in_len) into out[0..out_cap). *consumed: input bytes used, which
     * the inflater never asks for again. At END the stream's last byte is
     * in[*consumed - 1]; an inflater that had read ahead gives those bytes back then, so
     * *consumed is relative to `in` and may be negative (ISA-L: down to -8, bytes of an
     * earlier call that the caller must still hold). *pad, at END: the unused bits of that
     * last byte (0-7) where end_bit_known says the inflater can tell, else -1. */
    gzw_inflate_result (*run)(gzw_inflater *inf, const uint8_t *in, size_t in_len,
                              long *consumed, uint8_t *out, size_t out_cap, size_t *produced,
                              int *pad, const char **why);
    /* 1 when END gives *pad, the stream's end to the bit: joining gzip members then needs
     * only the final block's header, not a walk through that block to its end
     * (src/join.c). */
    int (*end_bit_known)(const gzw_inflater *inf);
    /* Where blocks start, where the inflater tells it (NULL where not: then the join walks
     * the blocks, src/join.c): *header, the stream bit (from the first byte after reset) of
     * the block being decoded or, between blocks, of the next; *final, 1 once that block's
     * header was read and says it is the last. */
    int (*block)(const gzw_inflater *inf, uint64_t *header, int *final);
} gzw_inflater_ops;

typedef uint32_t (*gzw_checksum_fn)(uint32_t value, const uint8_t *buf, size_t len);

/* CRC-32 and Adler-32 of the same bytes in one pass; with `copy` (else NULL), the bytes
 * copied there in that pass: with `stream`, by streaming stores that bypass the caches
 * (for output too large to stay in them), else by plain stores (output that stays, where
 * a second pass to copy would read the input again). */
typedef void (*gzw_checksums_fn)(uint32_t *crc, uint32_t *adler, const uint8_t *buf, size_t len,
                                 uint8_t *copy, int stream);

/* The one-pass function for that pair of implementations (resolved, not AUTO), or NULL
 * where the pair has none (then each runs on its own). */
gzw_checksums_fn gzw_checksums_of(gzwrap_impl crc32, gzwrap_impl adler32);

/* Data of at most this many bytes, in a stream that lies whole in memory, is inflated at
 * once where libdeflate is built in (src/inflate_whole.c). */
#define GZW_WHOLE_MAX (4u << 20)

/* Inflate the raw deflate stream at in[0, n) at once into a new buffer of `size` bytes (the
 * data's size, known beforehand, above 0): 1 with *data (the caller frees it), *used (the stream's
 * bytes) and *made (its data's) set; 0 where libdeflate is not built in, refuses the
 * stream, or needs more room (the streaming inflaters then take the stream, and say why
 * where it is bad). */
int gzw_inflate_whole(const uint8_t *in, size_t n, size_t size, uint8_t **data, size_t *used,
                      size_t *made);

/* The ops of `impl` (resolved, not AUTO) for inflating; NULL when not in this build. */
const gzw_inflater_ops *gzw_inflater_ops_of(gzwrap_impl impl);
/* The ops for a source of format `from` (detected, not AUTO): the same, but where both
 * ISA-L inflaters are built, a source other than gzip takes the system's. */
const gzw_inflater_ops *gzw_inflater_ops_for(gzwrap_impl impl, gzwrap_format from);
/* The checksum function of `impl` for `role` (CRC32 or ADLER32); NULL when absent. */
gzw_checksum_fn gzw_checksum_of(gzwrap_impl impl, gzwrap_role role);

extern const gzw_inflater_ops gzw_inflater_zlib;
#ifdef GZWRAP_HAVE_ISAL_STOPS
extern const gzw_inflater_ops gzw_inflater_isal_stops;
#endif
#ifdef GZWRAP_HAVE_ISAL
extern const gzw_inflater_ops gzw_inflater_isal;
uint32_t gzw_crc32_isal(uint32_t v, const uint8_t *b, size_t n);
uint32_t gzw_adler32_isal(uint32_t v, const uint8_t *b, size_t n);
#endif
#ifdef GZWRAP_HAVE_LIBDEFLATE
uint32_t gzw_crc32_libdeflate(uint32_t v, const uint8_t *b, size_t n);
uint32_t gzw_adler32_libdeflate(uint32_t v, const uint8_t *b, size_t n);
#endif
uint32_t gzw_crc32_zlib(uint32_t v, const uint8_t *b, size_t n);
uint32_t gzw_adler32_zlib(uint32_t v, const uint8_t *b, size_t n);
/* CRC-32 and Adler-32 of A followed by B, from those of A and B and B's length (zlib). */
uint32_t gzw_crc32_combine(uint32_t a, uint32_t b, uint64_t len_b);
uint32_t gzw_adler32_combine(uint32_t a, uint32_t b, uint64_t len_b);

#endif
