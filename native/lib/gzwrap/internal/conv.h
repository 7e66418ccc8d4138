/* internal/conv.h — the converter's shared state: the input window, the output, errors.
 *
 * Input is read through a window of GZW_IN_CAP bytes. Deflate payload bytes are copied to
 * the output from that window once the inflater has passed them, GZW_KEEP bytes behind
 * it, because ISA-L may give back up to 8 look-ahead bytes when the stream ends. Output
 * offsets count from the first byte this conversion wrote.
 */
#ifndef GZWRAP_INTERNAL_CONV_H
#define GZWRAP_INTERNAL_CONV_H

#include <gzwrap.h>
#include <stdint.h>

#include "internal/history.h"
#include "internal/impl.h"

#define GZW_IN_CAP (256u * 1024u)  /* input window */
#define GZW_OUT_CAP (256u * 1024u) /* inflated data per step: stays in L2 for the checksums */
#define GZW_KEEP 16u               /* payload bytes held behind the inflater */

typedef struct gzw_in {
    gzwrap_reader *rd;
    uint8_t *buf; /* the window; or the caller's whole input, never written (eof from the
                   * start, so no refill moves it) */
    size_t len, pos; /* buf[0..len) valid; pos: next byte to parse */
    size_t hold;     /* buf[hold..) must survive a refill (payload not yet copied out) */
    uint64_t base;   /* input offset of buf[0] */
    int eof;
} gzw_in;

/* The output buffer of gzwrap_buffer_convert (src/io.c): what the writer writes into, and
 * where stored blocks may be copied directly (src/convert.c). */
typedef struct gzw_mem_out {
    uint8_t *p;
    size_t cap, len;
    int full; /* a write did not fit */
} gzw_mem_out;

/* Output at least this large (the buffer's capacity) takes stored blocks by streaming
 * stores, in the pass that checksums them: it cannot stay in the caches anyway, and
 * writing it through them would push out the input. A smaller buffer takes them by plain
 * stores in that pass. */
#define GZW_STREAM_OUT (8u << 20)

typedef struct gzw_out {
    gzwrap_writer *wr;
    gzw_mem_out *mem; /* wr's buffer when the output is memory, else NULL */
    uint64_t off;    /* bytes written */
    uint64_t settled; /* the writer was told the bytes before this are final */
    int settle_each; /* nothing written will be patched: settle after every write */
} gzw_out;

/* The walk of a gzip member's blocks while it streams (src/scan.c): `at` is the input bit
 * where the block being walked starts, so that all before it is final. Where the inflater
 * tells the stream's end to the bit (end_bit_known), the walk stops at the final block's
 * header and `end` comes from the inflater. Where it tells where blocks start
 * (blocks_told), nothing is walked: `at`, `done` and `final` follow what it says. */
typedef struct gzw_walk {
    int on;              /* walking this member */
    uint64_t in0, out0;  /* where its deflate stream starts in the input and the output */
    uint64_t at;         /* input bit of the next block header to walk */
    int paused;          /* stopped at `at`: a block longer than half the window */
    int done;            /* its final block's header was reached: */
    uint64_t final;      /* input bit of that header */
    int ended;           /* the stream's end is known (by the walk or the inflater): */
    uint64_t end;        /* input bit just past its end-of-block code */
    uint64_t told0;      /* blocks_told: the input bit where the inflater took over */
    char what[48];       /* the stream, for messages */
} gzw_walk;

typedef struct gzw_conv {
    gzwrap_options opt;
    gzwrap_report *rep;
    gzw_in in;
    gzw_out out;
    const gzw_inflater_ops *ops;
    gzw_inflater *inf;
    int end_bit_known; /* the inflater's END gives the stream's end to the bit */
    int blocks_told;   /* the inflater tells where blocks start (ops->block): no walk */
    gzw_checksum_fn crc, adler;
    gzw_checksums_fn both; /* crc and adler in one pass, where that pair has one */
    uint8_t *data; /* GZW_OUT_CAP bytes of inflated data, checksummed and dropped */
    gzw_history *hist; /* data of stored blocks, for an inflater that takes over after them */
    gzw_walk walk;
    uint8_t *scan_buf; /* a member's blocks read back to be joined (src/join.c) */
    size_t scan_cap;
    uint32_t *scan_tables; /* the walk's code tables (GZW_SCAN_TABLES) */
} gzw_conv;

static inline uint64_t gzw_in_offset(const gzw_in *in) { return in->base + in->pos; }

/* The output may be settled as it is made: every target but COMPRESS() of unknown length,
 * whose length is patched in at the end. */
static inline int gzw_out_streams(const gzwrap_options *o) {
    return o->to != GZWRAP_FORMAT_MYSQL || o->data_length > 0;
}
static inline size_t gzw_in_avail(const gzw_in *in) { return in->len - in->pos; }

/* gzwrap_stream_convert, reading from `whole` (whole_len bytes, the entire input) in place
 * when it is not NULL, else through `rd`; `mem`: wr's buffer where wr writes to memory
 * (src/io.c), else NULL. */
gzwrap_status gzw_convert(const gzwrap_options *opt, gzwrap_reader *rd, const uint8_t *whole,
                          size_t whole_len, gzwrap_writer *wr, gzw_mem_out *mem,
                          gzwrap_report *report);

/* Read more input, keeping buf[min(pos, hold)..). GZWRAP_OK (in->eof set at the end of
 * input) or GZWRAP_ERR_READ. */
gzwrap_status gzw_in_fill(gzw_conv *c);
/* Make n <= GZW_IN_CAP / 2 bytes available at pos: GZWRAP_OK, or GZWRAP_ERR_TRUNCATED when
 * the input ends first (the error is not recorded: the caller says what was expected). */
gzwrap_status gzw_in_need(gzw_conv *c, size_t n);

gzwrap_status gzw_out_write(gzw_conv *c, const void *buf, size_t len);
gzwrap_status gzw_out_pread(gzw_conv *c, void *buf, size_t len, uint64_t offset);
gzwrap_status gzw_out_pwrite(gzw_conv *c, const void *buf, size_t len, uint64_t offset);
/* Tell the writer that the output written so far (or before `upto`) is final
 * (gzwrap_writer.settle), once per new offset. */
gzwrap_status gzw_out_settle(gzw_conv *c);
gzwrap_status gzw_out_settle_to(gzw_conv *c, uint64_t upto);

/* Record an error in the report (status, input offset, message) and return the status. */
gzwrap_status gzw_fail(gzw_conv *c, gzwrap_status st, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Note that a gzip header field of member `member` (1-based) was dropped. */
void gzw_note(gzw_conv *c, gzwrap_field field, uint64_t member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The first member's gzip header, as far as the target needs it. */
typedef struct gzw_gzip_header {
    unsigned flg, xfl, os;
    uint32_t mtime;
} gzw_gzip_header;

/* Parse the gzip member header at the input position (member: 1-based), checking the
 * magic, method, reserved bits and the header CRC. With `copy`, its bytes are written to
 * the output unchanged. Fields the output will not carry become notes. */
gzwrap_status gzw_gzip_header_read(gzw_conv *c, uint64_t member, int copy,
                                   gzw_gzip_header *h);

/* Member `member`'s deflate stream occupies output bytes [start, start + len): clear its
 * final-block bit and, where it ends inside a byte, append an empty stored block so that
 * the next member's stream starts on a byte boundary. `input_offset`: where the member's
 * stream started in the input, for messages. Where c->walk followed the member as it
 * streamed, its result is used (or its last block boundary, to walk on from). */
gzwrap_status gzw_join_member(gzw_conv *c, uint64_t member, uint64_t start, uint64_t len,
                              uint64_t input_offset);

/* Start following the deflate stream at the input position (src/walk.c), when `on`;
 * `what` names it in messages. */
gzwrap_status gzw_walk_start(gzw_conv *c, int on, const char *what);
/* blocks_told: the block at input bit `at` is the one being decoded (or next); `final`,
 * its header says it is the last. */
void gzw_walk_told(gzw_conv *c, uint64_t at, int final);
/* Walk the blocks the window holds in full and settle the output before the next one. */
gzwrap_status gzw_walk_advance(gzw_conv *c);
/* Where a refill may drop the window's bytes up to, given `keep`: before the block being
 * walked (or pause the walk when that block is longer than half the window). */
size_t gzw_walk_keep(gzw_conv *c, size_t keep);

/* Room for the walk's tables (c->scan_tables): GZWRAP_OK or GZWRAP_ERR_NOMEM. */
gzwrap_status gzw_scan_tables(gzw_conv *c, uint64_t input_offset);

/* 1 if CMF, FLG form a valid zlib header (method 8, window <= 32K, FCHECK). */
int gzw_zlib_header_valid(unsigned cmf, unsigned flg);

#endif
