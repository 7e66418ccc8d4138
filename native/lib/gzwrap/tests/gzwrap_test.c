/* gzwrap_test.c — the library against zlib, in C (run by ctest).
 *
 *   gzwrap_test roundtrip   every source x target x inflater on text, random and empty
 *                           data; the output must decode (zlib's own wrappers) to the data
 *                           and carry the source's deflate bytes unchanged
 *   gzwrap_test damage      every truncation and every single-bit flip of a gzip file
 *                           with all header fields, and of a zlib and a COMPRESS() value:
 *                           the result is an error, or output that decodes to the data
 *   gzwrap_test errors      each error names its status and offset
 *   gzwrap_test join        multi-member inputs (empty members, members of one block and of
 *                           many, every end-bit alignment), each inflater, whole and
 *                           through odd reads: the blocks walked are all but the members'
 *                           final ones where the inflater tells a stream's end
 *   gzwrap_test settle      what the writer is told is final is never read back or patched
 *                           afterwards; COMPRESS() settles nothing
 *   gzwrap_test stored      streams that start with stored blocks (the converter's own
 *                           path: 1 to 300,000 bytes, blocks of 7 bytes to 64 KiB) and go
 *                           on with compressed blocks whose matches reach back into them,
 *                           each inflater, in memory and through reads of odd sizes
 *   gzwrap_test scan        the block walk that joins members (src/scan.c) against zlib's
 *                           inflate(Z_BLOCK) on streams of every level and strategy with
 *                           flushes between blocks: the same final block and end, to the
 *                           bit; every truncation refused; each inflater that says it
 *                           tells a stream's end to the bit tells that end
 *   gzwrap_test direct      stored blocks into an output buffer, which takes them in the
 *                           pass that checksums them (streaming stores into a large one):
 *                           the same output as zlib's checksums give, at every alignment
 *                           and length, small buffers and large
 *   gzwrap_test whole       small streams in memory whose data's size is known (gzip,
 *                           COMPRESS()), which libdeflate inflates at once where built in:
 *                           the same output and report as the streaming path, and that
 *                           path (its errors too) wherever the whole one must not serve;
 *                           threads converting at once
 *   gzwrap_test checksums   every CRC-32 and Adler-32 implementation this CPU runs against
 *                           zlib's: every length to 1 KiB at every alignment, random
 *                           lengths to 1 MiB, all-0xFF runs past the reduction bound, and
 *                           running values carried across calls
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gzwrap.h>

#include "internal/conv.h"
#include "internal/impl.h"
#include "internal/scan.h"
#include "settling_writer.h"

static int failures;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            fprintf(stderr, "%s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

/* Text-like data (words from a small vocabulary) or random bytes. */
static uint8_t *make_data(size_t n, int random) {
    static const char *words[] = {"deflate ", "stream ", "the ", "block ", "of ", "zlib\n",
                                  "gzip ", "member ", "CRC ", "Adler "};
    uint8_t *d = malloc(n + 1);
    for (size_t i = 0; i < n;) {
        if (random) {
            d[i++] = (uint8_t)next();
            continue;
        }
        const char *w = words[next() % 10];
        for (; *w && i < n; w++)
            d[i++] = (uint8_t)*w;
    }
    return d;
}

/* Compress with zlib: wbits 31 gzip, 15 zlib, -15 raw; `hdr` adds gzip header fields. */
static uint8_t *compress_as(const uint8_t *d, size_t n, int wbits, int level, size_t *out_n,
                            gz_header *hdr) {
    z_stream z = {0};
    deflateInit2(&z, level, Z_DEFLATED, wbits, 8, Z_DEFAULT_STRATEGY);
    if (hdr)
        deflateSetHeader(&z, hdr);
    size_t cap = deflateBound(&z, n) + 256;
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)d, z.avail_in = (uInt)n;
    z.next_out = out, z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static uint8_t *as_mysql(const uint8_t *d, size_t n, size_t *out_n) {
    if (n == 0)
        return *out_n = 0, malloc(1);
    size_t zn;
    uint8_t *z = compress_as(d, n, 15, 6, &zn, NULL);
    uint8_t *m = malloc(zn + 5);
    for (int i = 0; i < 4; i++)
        m[i] = (uint8_t)(n >> (8 * i));
    memcpy(m + 4, z, zn);
    *out_n = zn + 4;
    if (m[*out_n - 1] == ' ')
        m[(*out_n)++] = '.';
    free(z);
    return m;
}

/* A reader over memory, for the stream API's own tests (the rest use the buffer API). */
typedef struct mem {
    const uint8_t *p;
    size_t n, pos;
} mem;
static long long mem_read(void *ctx, void *buf, size_t cap) {
    mem *m = ctx;
    size_t k = m->n - m->pos < cap ? m->n - m->pos : cap;
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (long long)k;
}

typedef struct odd_reader {
    mem m;
    size_t step;
} odd_reader;
static long long odd_read(void *ctx, void *buf, size_t cap) {
    odd_reader *r = ctx;
    return mem_read(&r->m, buf, cap < r->step ? cap : r->step);
}

/* Check `out` (format `f`) with zlib: it must hold exactly d[0..n). */
static int decodes_to(gzwrap_format f, const uint8_t *out, size_t out_n, const uint8_t *d,
                      size_t n) {
    gzwrap_check chk;
    gzwrap_report rep;
    if (gzwrap_buffer_check(f, out, out_n, &chk, &rep) != GZWRAP_OK) {
        fprintf(stderr, "  check(%s): byte %llu: %s\n", gzwrap_format_name(f),
                (unsigned long long)rep.error_offset, rep.error);
        return 0;
    }
    uint32_t crc = (uint32_t)crc32(0, d, (uInt)n), ad = (uint32_t)adler32(1, d, (uInt)n);
    return chk.data_bytes == n && chk.crc32 == crc && chk.adler32 == ad;
}

/* Where the deflate bytes sit inside a single-stream value of format f. */
static void payload_span(gzwrap_format f, const uint8_t *b, size_t n, size_t *at, size_t *len) {
    size_t head = 0, tail = 0;
    switch (f) {
    case GZWRAP_FORMAT_GZIP: {
        head = 10;
        if (b[3] & 4)
            head += 2 + (b[head] | (size_t)b[head + 1] << 8);
        if (b[3] & 8)
            head += strlen((const char *)b + head) + 1;
        if (b[3] & 16)
            head += strlen((const char *)b + head) + 1;
        if (b[3] & 2)
            head += 2;
        tail = 8;
        break;
    }
    case GZWRAP_FORMAT_ZLIB: head = 2, tail = 4; break;
    case GZWRAP_FORMAT_MYSQL: head = 6, tail = 4 + (b[n - 1] == '.' && b[n - 2] == ' '); break;
    default: break;
    }
    *at = head, *len = n - head - tail;
}

static const gzwrap_format FORMATS[] = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB,
                                        GZWRAP_FORMAT_DEFLATE, GZWRAP_FORMAT_MYSQL};

static uint8_t *encode(gzwrap_format f, const uint8_t *d, size_t n, size_t *out_n) {
    switch (f) {
    case GZWRAP_FORMAT_GZIP: return compress_as(d, n, 31, 6, out_n, NULL);
    case GZWRAP_FORMAT_ZLIB: return compress_as(d, n, 15, 9, out_n, NULL);
    case GZWRAP_FORMAT_DEFLATE: return compress_as(d, n, -15, 1, out_n, NULL);
    default: return as_mysql(d, n, out_n);
    }
}

static gzwrap_status convert(gzwrap_format from, gzwrap_format to, gzwrap_impl inf,
                             const uint8_t *in, size_t n, uint8_t **out, size_t *out_n,
                             gzwrap_report *rep) {
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.from = from, o.to = to, o.inflater = inf;
    size_t cap = gzwrap_buffer_bound(n);
    *out = malloc(cap);
    return gzwrap_buffer_convert(&o, in, n, *out, cap, out_n, rep);
}

static void roundtrip(void) {
    static const size_t sizes[] = {0, 1, 100, 70000, 1000003};
    gzwrap_impl impls[2] = {GZWRAP_IMPL_ZLIB, GZWRAP_IMPL_ISAL};
    int n_impls = gzwrap_impl_available(GZWRAP_IMPL_ISAL, GZWRAP_ROLE_INFLATE) ? 2 : 1;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int random = 0; random < 2; random++) {
            size_t n = sizes[si];
            uint8_t *d = make_data(n, random);
            for (int fi = 0; fi < 4; fi++) {
                size_t in_n;
                uint8_t *in = encode(FORMATS[fi], d, n, &in_n);
                for (int ti = 0; ti < 4; ti++)
                    for (int ii = 0; ii < n_impls; ii++) {
                        for (int detect = 0; detect < 2; detect++) {
                            gzwrap_format from = detect && FORMATS[fi] != GZWRAP_FORMAT_DEFLATE
                                                     ? GZWRAP_FORMAT_AUTO : FORMATS[fi];
                            uint8_t *out;
                            size_t out_n;
                            gzwrap_report rep;
                            gzwrap_status st = convert(from, FORMATS[ti], impls[ii], in, in_n,
                                                       &out, &out_n, &rep);
                            const char *what = detect ? "auto" : "given";
                            if (st == GZWRAP_ERR_AMBIGUOUS || (st == GZWRAP_ERR_FORMAT && n == 0))
                                st = GZWRAP_OK, out_n = 0; /* detection may decline */
                            else {
                                CHECK(st == GZWRAP_OK, "%s(%s) -> %s, %zu bytes (%s): %s",
                                      gzwrap_format_name(FORMATS[fi]), what,
                                      gzwrap_format_name(FORMATS[ti]), n,
                                      gzwrap_impl_name(impls[ii]), rep.error);
                                if (st == GZWRAP_OK) {
                                    CHECK(rep.data_bytes == n && rep.from == FORMATS[fi],
                                          "report: %llu bytes", (unsigned long long)rep.data_bytes);
                                    CHECK(decodes_to(FORMATS[ti], out, out_n, d, n),
                                          "%s -> %s, %zu bytes: output does not decode to the data",
                                          gzwrap_format_name(FORMATS[fi]),
                                          gzwrap_format_name(FORMATS[ti]), n);
                                    /* the deflate bytes, unchanged */
                                    if (n > 0) {
                                        size_t a, al, b, bl;
                                        payload_span(FORMATS[fi], in, in_n, &a, &al);
                                        payload_span(FORMATS[ti], out, out_n, &b, &bl);
                                        CHECK(al == bl && memcmp(in + a, out + b, al) == 0,
                                              "%s -> %s: payload differs (%zu vs %zu bytes)",
                                              gzwrap_format_name(FORMATS[fi]),
                                              gzwrap_format_name(FORMATS[ti]), al, bl);
                                    }
                                    if (FORMATS[fi] == FORMATS[ti] && FORMATS[fi] != GZWRAP_FORMAT_GZIP)
                                        CHECK(out_n == in_n && memcmp(in, out, in_n) == 0,
                                              "%s -> itself is not the identity",
                                              gzwrap_format_name(FORMATS[fi]));
                                }
                            }
                            free(out);
                        }
                    }
                free(in);
            }
            free(d);
        }
}

/* Every truncation and every bit flip: an error, or output holding the data. */
static void damage_one(gzwrap_format f, const uint8_t *in, size_t n, const uint8_t *d,
                       size_t dn, const char *what) {
    uint8_t *buf = malloc(n);
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *out;
        size_t out_n;
        gzwrap_report rep;
        gzwrap_status st = convert(f, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO, in, cut, &out, &out_n,
                                   &rep);
        int ok_empty = f == GZWRAP_FORMAT_MYSQL && cut == 0; /* '' is COMPRESS('') */
        CHECK(st != GZWRAP_OK || ok_empty, "%s cut at %zu: accepted", what, cut);
        CHECK(st == GZWRAP_OK || rep.error_offset <= cut, "%s cut at %zu: offset %llu", what,
              cut, (unsigned long long)rep.error_offset);
        free(out);
    }
    for (size_t bit = 0; bit < n * 8; bit++) {
        memcpy(buf, in, n);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        for (int to = 0; to < 4; to++) {
            uint8_t *out;
            size_t out_n;
            gzwrap_report rep;
            gzwrap_status st = convert(f, FORMATS[to], GZWRAP_IMPL_AUTO, buf, n, &out, &out_n,
                                       &rep);
            if (st == GZWRAP_OK)
                CHECK(decodes_to(FORMATS[to], out, out_n, d, dn),
                      "%s bit %zu flipped -> %s: accepted, but the output does not hold the data",
                      what, bit, gzwrap_format_name(FORMATS[to]));
            else
                CHECK(rep.error[0] && rep.error_offset <= n, "%s bit %zu: bad error report", what,
                      bit);
            free(out);
        }
    }
    free(buf);
}

static void damage(void) {
    size_t dn = 3000;
    uint8_t *d = make_data(dn, 0);
    gz_header h = {0};
    h.text = 1, h.time = 1700000000, h.os = 3, h.hcrc = 1;
    h.extra = (Bytef *)"AB\x02\x00xyCD\x00\x00", h.extra_len = 10;
    h.name = (Bytef *)"data.txt", h.comment = (Bytef *)"a comment";
    size_t n;
    uint8_t *g = compress_as(d, dn, 31, 6, &n, &h);
    damage_one(GZWRAP_FORMAT_GZIP, g, n, d, dn, "gzip");
    free(g);
    uint8_t *m = as_mysql(d, dn, &n);
    damage_one(GZWRAP_FORMAT_MYSQL, m, n, d, dn, "mysql");
    free(m);
    free(d);
}

/* `offset` exact, or with `offset_max` above it a range (an inflater reads ahead before
 * it notices corrupt data). */
static void expect_error_in(const char *what, gzwrap_format from, const uint8_t *in, size_t n,
                            gzwrap_status want, uint64_t offset, uint64_t offset_max,
                            const char *text) {
    uint8_t *out;
    size_t out_n;
    gzwrap_report rep;
    gzwrap_status st = convert(from, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO, in, n, &out, &out_n, &rep);
    CHECK(st == want, "%s: status %s, expected %s (%s)", what, gzwrap_status_str(st),
          gzwrap_status_str(want), rep.error);
    CHECK(rep.error_offset >= offset && rep.error_offset <= offset_max,
          "%s: offset %llu, expected %llu..%llu", what, (unsigned long long)rep.error_offset,
          (unsigned long long)offset, (unsigned long long)offset_max);
    CHECK(strstr(rep.error, text) != NULL, "%s: message \"%s\" lacks \"%s\"", what, rep.error, text);
    free(out);
}

static void expect_error(const char *what, gzwrap_format from, const uint8_t *in, size_t n,
                         gzwrap_status want, uint64_t offset, const char *text) {
    expect_error_in(what, from, in, n, want, offset, offset, text);
}

static void errors(void) {
    size_t dn = 5000, n;
    uint8_t *d = make_data(dn, 0);
    uint8_t *g = compress_as(d, dn, 31, 6, &n, NULL);
    uint8_t *b = malloc(n + 8);
    memcpy(b, g, n), b[0] = 0x1e;
    expect_error("magic", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_FORMAT, 0, "1F 8B");
    memcpy(b, g, n), b[3] |= 0x40;
    expect_error("reserved", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_HEADER, 3, "reserved");
    memcpy(b, g, n), b[n - 8] ^= 1;
    expect_error("crc", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_CHECKSUM, n - 8, "CRC-32");
    memcpy(b, g, n), b[n - 4] ^= 1;
    expect_error("isize", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_LENGTH, n - 4, "ISIZE");
    memcpy(b, g, n), b[n] = 'x';
    expect_error("trailing", GZWRAP_FORMAT_GZIP, b, n + 1, GZWRAP_ERR_TRAILING, n, "trailing");
    expect_error("truncated", GZWRAP_FORMAT_GZIP, g, n - 3, GZWRAP_ERR_TRUNCATED, n - 3,
                 "gzip trailer");
    expect_error("empty auto", GZWRAP_FORMAT_AUTO, g, 0, GZWRAP_ERR_FORMAT, 0, "empty input");
    memcpy(b, g, n), b[10] = 0xff; /* BTYPE 11 */
    expect_error_in("bad block", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_DATA, 10, n, "corrupt deflate");
    /* a header CRC that is wrong */
    gz_header h = {0};
    h.hcrc = 1;
    free(g);
    g = compress_as(d, dn, 31, 6, &n, &h);
    memcpy(b, g, n), b[10] ^= 0xff;
    expect_error("hcrc", GZWRAP_FORMAT_GZIP, b, n, GZWRAP_ERR_HEADER, 10, "header CRC");
    free(g);
    /* zlib: a wrong Adler-32, a preset dictionary, a bad FCHECK */
    g = compress_as(d, dn, 15, 6, &n, NULL);
    memcpy(b, g, n), b[n - 1] ^= 1;
    expect_error("adler", GZWRAP_FORMAT_ZLIB, b, n, GZWRAP_ERR_CHECKSUM, n - 4, "Adler-32");
    memcpy(b, g, n), b[1] ^= 1;
    expect_error("fcheck", GZWRAP_FORMAT_ZLIB, b, n, GZWRAP_ERR_HEADER, 1, "multiple of 31");
    uint8_t dict[2] = {0x78, 0xbb}; /* FDICT set, FCHECK valid */
    expect_error("fdict", GZWRAP_FORMAT_ZLIB, dict, 2, GZWRAP_ERR_UNSUPPORTED, 1, "dictionary");
    free(g);
    /* COMPRESS(): a length that differs */
    g = as_mysql(d, dn, &n);
    memcpy(b, g, n), b[0] ^= 1;
    expect_error("mysql length", GZWRAP_FORMAT_MYSQL, b, n, GZWRAP_ERR_LENGTH, 0, "length field");
    free(g), free(b), free(d);

    /* ambiguous detection: 40056 = 0x9C78 as a COMPRESS() length reads 78 9C 00 00 78 9C */
    uint8_t amb[8] = {0x78, 0x9c, 0x00, 0x00, 0x78, 0x9c, 0x01, 0x02};
    gzwrap_format f;
    CHECK(gzwrap_format_detect(amb, 8, 0, &f) == GZWRAP_OK && f == GZWRAP_FORMAT_MYSQL,
          "a stored block with LEN != ~NLEN rules the zlib reading out");
    uint8_t amb2[8] = {0x78, 0x9c, 0x04, 0x00, 0x78, 0x9c, 0x01, 0x02}; /* fixed codes: both */
    CHECK(gzwrap_format_detect(amb2, 8, 0, &f) == GZWRAP_ERR_AMBIGUOUS, "ambiguous");
    CHECK(gzwrap_format_detect("", 0, 1, &f) == GZWRAP_ERR_FORMAT, "empty");
    CHECK(gzwrap_format_detect("\x1f\x8b", 2, 0, &f) == GZWRAP_ERR_TRUNCATED, "more bytes");

    /* a writer that cannot patch: COMPRESS() refuses at once, nothing written */
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.to = GZWRAP_FORMAT_MYSQL;
    mem m = {(const uint8_t *)"x", 1, 0};
    gzwrap_reader rd = {&m, mem_read};
    gzwrap_writer wr = {NULL, (int (*)(void *, const void *, size_t))1, NULL, NULL, NULL, NULL};
    gzwrap_report rep;
    CHECK(gzwrap_stream_convert(&o, &rd, &wr, &rep) == GZWRAP_ERR_NEEDS_SEEK, "needs seek");
    gzwrap_check chk;
    CHECK(gzwrap_buffer_check(GZWRAP_FORMAT_GZIP, NULL, 1, &chk, &rep) == GZWRAP_ERR_ARG &&
          rep.status == GZWRAP_ERR_ARG, "buffer check without a buffer");
    o.inflater = GZWRAP_IMPL_LIBDEFLATE;
    o.to = GZWRAP_FORMAT_ZLIB;
    CHECK(gzwrap_stream_convert(&o, &rd, &wr, &rep) == GZWRAP_ERR_UNAVAILABLE &&
              strstr(rep.error, "streaming"), "libdeflate inflate: %s", rep.error);
    CHECK(strcmp(gzwrap_status_str(GZWRAP_ERR_TRUNCATED), "truncated input") == 0, "str");
}

/* A gzip member of d[0, n) made of several blocks where `blocks` asks for them: the data
 * in pieces, each ended by a flush that ends a block. */
static uint8_t *gzip_member(const uint8_t *d, size_t n, int level, int blocks, size_t *out_n) {
    if (!blocks)
        return compress_as(d, n, 31, level, out_n, NULL);
    z_stream z = {0};
    deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    size_t cap = deflateBound(&z, n) * 2 + 4096, at = 0;
    uint8_t *out = malloc(cap);
    z.next_out = out, z.avail_out = (uInt)cap;
    while (at < n) {
        size_t k = 1 + next() % 30000;
        k = k < n - at ? k : n - at;
        z.next_in = (Bytef *)d + at, z.avail_in = (uInt)k;
        deflate(&z, next() % 2 ? Z_BLOCK : Z_FULL_FLUSH);
        at += k;
    }
    deflate(&z, Z_FINISH);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* The blocks of raw deflate p[0, n) by zlib's inflate(Z_BLOCK), which returns at the end of
 * each (data_type 128); *used_bits: those of the stream's last byte. */
static int zlib_block_count(const uint8_t *p, size_t n, int *used_bits) {
    z_stream z = {0};
    uint8_t sink[1 << 15];
    inflateInit2(&z, -15);
    z.next_in = (Bytef *)p, z.avail_in = (uInt)n;
    int blocks = 0;
    for (;;) {
        z.next_out = sink, z.avail_out = sizeof sink;
        int r = inflate(&z, Z_BLOCK);
        if (r != Z_OK)
            break;
        if (z.data_type & 128)
            blocks++;
        if ((z.data_type & 192) == 192) {
            *used_bits = (8 - (z.data_type & 7)) % 8;
            break;
        }
    }
    inflateEnd(&z);
    return blocks;
}

/* Members of every end alignment: random sizes and levels make streams end at all 8 bit
 * positions; empty members too. */
static void join(void) {
    int seen[8] = {0};
    gzwrap_impl impls[2] = {GZWRAP_IMPL_ZLIB, GZWRAP_IMPL_ISAL};
    int n_impls = gzwrap_impl_available(GZWRAP_IMPL_ISAL, GZWRAP_ROLE_INFLATE) ? 2 : 1;
    for (int round = 0; round < 60; round++) {
        int members = 2 + (int)(next() % 5);
        size_t cap = 1 << 20, n = 0, dn = 0;
        uint8_t *in = malloc(cap * 8), *all = malloc(cap * 8);
        uint64_t blocks = 0; /* of all members */
        for (int k = 0; k < members; k++) {
            size_t sz = next() % 3 == 0 ? 0 : next() % (round % 3 ? 20000 : 150000);
            uint8_t *d = make_data(sz, (int)(next() % 2));
            size_t gn;
            uint8_t *g = gzip_member(d, sz, (int)(next() % 10), round % 2, &gn);
            int used = 0;
            blocks += (uint64_t)zlib_block_count(g + 10, gn - 18, &used);
            seen[used]++;
            memcpy(in + n, g, gn), n += gn;
            memcpy(all + dn, d, sz), dn += sz;
            free(g), free(d);
        }
        for (int to = 0; to < 4; to++)
            for (int ii = 0; ii < n_impls; ii++)
                for (int mode = 0; mode < 3; mode++) { /* buffer, streamed, memory */
                    int streamed = mode == 1;
                    const char *inf = gzwrap_impl_name(impls[ii]);
                    gzwrap_options o;
                    gzwrap_options_init(&o);
                    o.to = FORMATS[to], o.inflater = impls[ii];
                    size_t out_cap = gzwrap_buffer_bound(n), out_n = 0;
                    uint8_t *out = malloc(out_cap);
                    gzwrap_report rep;
                    gzwrap_status st;
                    if (streamed) { /* through odd-sized reads: the walk meets partial blocks,
                                     * and walks the first member too where walk_blocks says */
                        odd_reader r = {{in, n, 0}, 4099 + next() % 60000};
                        settling sw = {0};
                        gzwrap_reader rd = {&r, odd_read};
                        gzwrap_writer wr = settling_writer(&sw);
                        o.walk_blocks = (int)(next() % 2);
                        st = gzwrap_stream_convert(&o, &rd, &wr, &rep);
                        if (sw.len <= out_cap)
                            memcpy(out, sw.p, out_n = sw.len);
                        free(sw.p);
                    } else if (mode == 2) { /* read in place, written through a writer */
                        settling sw = {0};
                        gzwrap_writer wr = settling_writer(&sw);
                        o.walk_blocks = (int)(next() % 2);
                        st = gzwrap_memory_convert(&o, in, n, &wr, &rep);
                        CHECK(sw.violations == 0, "join round %d, memory: %d settle violations",
                              round, sw.violations);
                        if (sw.len <= out_cap)
                            memcpy(out, sw.p, out_n = sw.len);
                        free(sw.p);
                    } else {
                        st = gzwrap_buffer_convert(&o, in, n, out, out_cap, &out_n, &rep);
                    }
                    CHECK(st == GZWRAP_OK, "join round %d -> %s, %s%s: %s", round,
                          gzwrap_format_name(FORMATS[to]), inf,
                          mode == 1 ? ", streamed" : mode == 2 ? ", memory" : "", rep.error);
                    CHECK(rep.members == (uint64_t)members, "members %llu",
                          (unsigned long long)rep.members);
                    if (st == GZWRAP_OK)
                        CHECK(decodes_to(FORMATS[to], out, out_n, all, dn),
                              "join round %d -> %s, %s: data", round,
                              gzwrap_format_name(FORMATS[to]), inf);
                    /* the walk stops at each final block's header where the inflater tells
                     * the stream's end: it walks every block but the members' last ones;
                     * none where the inflater tells where blocks start */
                    const gzw_inflater_ops *ops = gzw_inflater_ops_of(impls[ii]);
                    gzw_inflater *probe = ops->create();
                    uint64_t want = ops->block                ? 0
                                    : ops->end_bit_known(probe) ? blocks - (uint64_t)members
                                                                : blocks;
                    ops->destroy(probe);
                    CHECK(rep.blocks_walked == want,
                          "join round %d, %s: %llu blocks walked, expected %llu of %llu", round,
                          inf, (unsigned long long)rep.blocks_walked, (unsigned long long)want,
                          (unsigned long long)blocks);
                    /* one stream: zlib's gzip decoder sees one member */
                    if (st == GZWRAP_OK && FORMATS[to] == GZWRAP_FORMAT_GZIP) {
                        gzwrap_check chk;
                        gzwrap_buffer_check(GZWRAP_FORMAT_GZIP, out, out_n, &chk, NULL);
                        CHECK(chk.members == 1, "joined gzip has %llu members",
                              (unsigned long long)chk.members);
                    }
                    free(out);
                }
        free(in), free(all);
    }
    for (int b = 0; b < 8; b++)
        CHECK(seen[b] > 0, "no member ended with %d bits used in its last byte", b);
}

/* COMPRESS() of zlib stream z (data of n bytes) with its length given: the same bytes as
 * with the length patched in, through a writer that can neither patch nor cut; a wrong
 * length fails at the end, one COMPRESS() cannot hold before anything is written. */
static void given_length(const uint8_t *z, size_t zn, size_t n) {
    struct {
        uint64_t given;
        gzwrap_status want;
    } cases[] = {{0, GZWRAP_ERR_NEEDS_SEEK}, {n, GZWRAP_OK}, {n - 1, GZWRAP_ERR_LENGTH},
                 {n + 1, GZWRAP_ERR_LENGTH}, {1u << 30, GZWRAP_ERR_TOO_LARGE}};
    size_t want_n;
    uint8_t *want = malloc(zn + 64);
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.to = GZWRAP_FORMAT_MYSQL;
    gzwrap_report rep;
    CHECK(gzwrap_buffer_convert(&o, z, zn, want, zn + 64, &want_n, &rep) == GZWRAP_OK, "%s",
          rep.error);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        o.data_length = cases[i].given;
        mem r = {z, zn, 0};
        settling s = {0};
        gzwrap_reader rd = {&r, mem_read};
        gzwrap_writer wr = {&s, st_write, st_pread, NULL, NULL, st_settle};
        gzwrap_status st = gzwrap_stream_convert(&o, &rd, &wr, &rep);
        CHECK(st == cases[i].want, "length %llu given: %s (%s)",
              (unsigned long long)cases[i].given, gzwrap_status_str(st), rep.error);
        if (st == GZWRAP_OK)
            CHECK(s.len == want_n && memcmp(s.p, want, want_n) == 0,
                  "length given: %zu bytes, not the %zu of a patched COMPRESS()", s.len, want_n);
        if (cases[i].want == GZWRAP_ERR_TOO_LARGE || cases[i].want == GZWRAP_ERR_NEEDS_SEEK)
            CHECK(s.len == 0, "length %llu given: %zu bytes written before failing",
                  (unsigned long long)cases[i].given, s.len);
        free(s.p);
    }
    free(want);
}

static void settle(void) {
    size_t n = 3 << 20, in_n = 0, zn;
    uint8_t *d = make_data(n, 0), *in = malloc(2 * n);
    for (int k = 0; k < 3; k++) { /* three gzip members of a third each */
        size_t gn;
        uint8_t *g = compress_as(d + k * (n / 3), n / 3, 31, 6, &gn, NULL);
        memcpy(in + in_n, g, gn), in_n += gn;
        free(g);
    }
    uint8_t *z = compress_as(d, n, 15, 6, &zn, NULL);
    size_t gn;
    uint8_t *g = compress_as(d, n, 31, 6, &gn, NULL); /* one member */
    struct {
        const uint8_t *in;
        size_t in_n;
        gzwrap_format to;
        int walk, min_settles;
        size_t held; /* with walk: at most this much output unsettled before the end */
        int given;   /* data_length given: COMPRESS()'s length is written first */
    } cases[] = {
        {z, zn, GZWRAP_FORMAT_GZIP, 0, 3, 0, 0},     /* every write: ~1 MiB in 256 KiB steps */
        {in, in_n, GZWRAP_FORMAT_ZLIB, 0, 2, 0, 0},  /* after joining members 1 and 2 */
        {in, in_n, GZWRAP_FORMAT_MYSQL, 0, 0, 0, 0}, /* its length comes first: never */
        {z, zn, GZWRAP_FORMAT_MYSQL, 0, 0, 0, 0},
        {g, gn, GZWRAP_FORMAT_ZLIB, 1, 3, 256 << 10, 0}, /* walked: all but the last block */
        {g, gn, GZWRAP_FORMAT_GZIP, 1, 3, 256 << 10, 0},
        {in, in_n, GZWRAP_FORMAT_ZLIB, 1, 3, 256 << 10, 0},
        {in, in_n, GZWRAP_FORMAT_MYSQL, 1, 0, 0, 0},
        {in, in_n, GZWRAP_FORMAT_MYSQL, 0, 2, 0, 1}, /* the length given: as zlib */
        {z, zn, GZWRAP_FORMAT_MYSQL, 0, 3, 0, 1},
        {in, in_n, GZWRAP_FORMAT_MYSQL, 1, 3, 256 << 10, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (size_t step = 4099; step <= (1u << 20); step *= 256) { /* odd reads, then big */
            gzwrap_options o;
            gzwrap_options_init(&o);
            o.to = cases[i].to;
            o.walk_blocks = cases[i].walk;
            o.data_length = cases[i].given ? n : 0;
            odd_reader r = {{cases[i].in, cases[i].in_n, 0}, step};
            settling s = {0};
            gzwrap_reader rd = {&r, odd_read};
            gzwrap_writer wr = settling_writer(&s);
            gzwrap_report rep;
            CHECK(gzwrap_stream_convert(&o, &rd, &wr, &rep) == GZWRAP_OK, "case %zu: %s", i,
                  rep.error);
            CHECK(s.violations == 0, "case %zu: %d touches below the settled offset", i,
                  s.violations);
            CHECK(cases[i].min_settles ? s.settles >= cases[i].min_settles : s.settles == 0,
                  "case %zu, reads of %zu: %d settles", i, step, s.settles);
            CHECK(!cases[i].held || s.len - s.settled <= cases[i].held,
                  "case %zu, reads of %zu: %zu of %zu bytes held to the end", i, step,
                  s.len - (size_t)s.settled, s.len);
            CHECK(decodes_to(o.to, s.p, s.len, d, n), "case %zu: the data", i);
            free(s.p);
        }
    given_length(z, zn, n);
    free(g);
    free(d), free(in), free(z);
}

/* ---- stored blocks, then compressed ones ----------------------------------------------- */

/* A raw deflate stream: d[0..n) in stored blocks of `piece` bytes (level 0, a sync flush
 * after each piece), then, when `then_compressed`, d[0..n) again at level 6, whose
 * matches point back into the stored data; finished by a final block. */
static uint8_t *stored_then(const uint8_t *d, size_t n, size_t piece, int then_compressed,
                            size_t *out_n) {
    z_stream z = {0};
    deflateInit2(&z, 0, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    /* each piece: a stored block and the flush's empty one, 5 bytes of header each */
    size_t cap = 2 * deflateBound(&z, n) + 10 * (n / piece + 2) + 1024;
    uint8_t *out = malloc(cap);
    z.next_out = out, z.avail_out = (uInt)cap;
    for (size_t at = 0; at < n; at += piece) {
        z.next_in = (Bytef *)d + at, z.avail_in = (uInt)(n - at < piece ? n - at : piece);
        deflate(&z, Z_SYNC_FLUSH);
    }
    if (then_compressed) {
        deflateParams(&z, 6, Z_DEFAULT_STRATEGY);
        z.next_in = (Bytef *)d, z.avail_in = (uInt)n;
        deflate(&z, Z_NO_FLUSH);
    }
    deflate(&z, Z_FINISH);
    *out_n = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* A writer into memory that cannot seek (as a pipe). */
typedef struct mem_out_t {
    uint8_t *p;
    size_t cap, len;
} mem_out_t;
static int mo_write(void *ctx, const void *buf, size_t len) {
    mem_out_t *m = ctx;
    if (len > m->cap - m->len)
        return -1;
    memcpy(m->p + m->len, buf, len);
    m->len += len;
    return 0;
}

static void stored(void) {
    static const size_t sizes[] = {1, 4000, 20000, 40000, 300000};
    static const size_t pieces[] = {7, 1000, 65535};
    gzwrap_impl impls[2] = {GZWRAP_IMPL_ZLIB, GZWRAP_IMPL_ISAL};
    int n_impls = gzwrap_impl_available(GZWRAP_IMPL_ISAL, GZWRAP_ROLE_INFLATE) ? 2 : 1;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t pi = 0; pi < sizeof pieces / sizeof *pieces; pi++)
            for (int then = 0; then < 2; then++) {
                size_t n = sizes[si], raw_n;
                if (pieces[pi] == 7 && n > 40000)
                    continue; /* 40,000 bytes in 7-byte blocks already fill many windows */
                uint8_t *d = make_data(n, 1);
                uint8_t *raw = stored_then(d, n, pieces[pi], then, &raw_n);
                size_t total = then ? 2 * n : n;
                uint8_t *dd = malloc(total);
                memcpy(dd, d, n);
                if (then)
                    memcpy(dd + n, d, n);
                for (int ii = 0; ii < n_impls; ii++)
                    for (int way = 0; way < 2; way++) { /* the buffer API; reads of 4099 */
                        gzwrap_options o;
                        gzwrap_options_init(&o);
                        o.from = GZWRAP_FORMAT_DEFLATE, o.to = GZWRAP_FORMAT_ZLIB;
                        o.inflater = impls[ii];
                        size_t cap = gzwrap_buffer_bound(raw_n), out_n = 0;
                        uint8_t *out = malloc(cap);
                        gzwrap_report rep;
                        gzwrap_status st;
                        if (way == 0) {
                            st = gzwrap_buffer_convert(&o, raw, raw_n, out, cap, &out_n, &rep);
                        } else {
                            odd_reader r = {{raw, raw_n, 0}, 4099};
                            gzwrap_reader rd = {&r, odd_read};
                            mem_out_t mo = {out, cap, 0};
                            gzwrap_writer wr = {&mo, mo_write, NULL, NULL, NULL, NULL};
                            st = gzwrap_stream_convert(&o, &rd, &wr, &rep);
                            out_n = mo.len;
                        }
                        CHECK(st == GZWRAP_OK && rep.data_bytes == total &&
                                  decodes_to(GZWRAP_FORMAT_ZLIB, out, out_n, dd, total),
                              "%zu bytes in stored blocks of %zu%s (%s, %s): %s", n, pieces[pi],
                              then ? ", then compressed" : "", gzwrap_impl_name(impls[ii]),
                              way ? "reads" : "buffer", st ? rep.error : "wrong output");
                        free(out);
                    }
                free(raw), free(d), free(dd);
            }
}

/* Stored blocks into an output buffer, which takes them in the pass that checksums them
 * (plain stores; streaming ones from GZW_STREAM_OUT): the output is byte for byte the one
 * zlib's checksums give (no one-pass kernel, so the bytes are copied on their own), at
 * every alignment of the buffer and length of the data. */
static void direct(void) {
    static const size_t sizes[] = {1, 63, 255, 256, 257, 4097, 70000, 300001};
    static const gzwrap_format from[] = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB,
                                         GZWRAP_FORMAT_MYSQL};
    size_t big_cap = GZW_STREAM_OUT + 128;
    uint8_t *big = malloc(big_cap);
    int direct_runs = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        uint8_t *d = make_data(n, 1); /* random: zlib keeps it in stored blocks */
        for (int fi = 0; fi < 3; fi++) {
            size_t in_n;
            uint8_t *in = encode(from[fi], d, n, &in_n);
            for (int ti = 0; ti < 3; ti++) {
                if (from[ti] == from[fi])
                    continue;
                gzwrap_options o;
                gzwrap_options_init(&o);
                o.from = from[fi], o.to = from[ti];
                size_t cap = gzwrap_buffer_bound(in_n) + 64, want_n, got_n;
                uint8_t *want = malloc(cap), *small = malloc(cap);
                gzwrap_report rep;
                gzwrap_options by_zlib = o;
                by_zlib.crc32 = by_zlib.adler32 = GZWRAP_IMPL_ZLIB;
                CHECK(gzwrap_buffer_convert(&by_zlib, in, in_n, want, cap, &want_n, &rep) ==
                          GZWRAP_OK,
                      "%zu bytes %s -> %s: %s", n, gzwrap_format_name(o.from),
                      gzwrap_format_name(o.to), rep.error);
                for (size_t at = 0; at < 64; at += 1 + next() % 13)
                    for (int large = 0; large < 2; large++) {
                        uint8_t *to = (large ? big : small) + at;
                        CHECK(gzwrap_buffer_convert(&o, in, in_n, to,
                                                    (large ? big_cap : cap) - at, &got_n,
                                                    &rep) == GZWRAP_OK &&
                                  got_n == want_n && !memcmp(to, want, want_n),
                              "%zu bytes %s -> %s into a %s buffer at +%zu: %s", n,
                              gzwrap_format_name(o.from), gzwrap_format_name(o.to),
                              large ? "large" : "small", at,
                              rep.status ? rep.error : "a different output");
                        direct_runs++;
                    }
                free(want), free(small);
            }
            free(in);
        }
        free(d);
    }
    CHECK(direct_runs > 200, "%d conversions", direct_runs);
    free(big);
}

/* ---- the block walk ------------------------------------------------------------------- */

/* zlib's answer: the final block's header bit and the stream's end bit; 0, or -1 when
 * zlib refuses the stream or it ends early. */
static int zlib_blocks(const uint8_t *p, size_t n, uint64_t *final_start, uint64_t *end) {
    z_stream z = {0};
    uint8_t sink[65536];
    inflateInit2(&z, -15);
    z.next_in = (Bytef *)p, z.avail_in = (uInt)n;
    uint64_t last = 0;
    int r = -1;
    for (;;) {
        z.next_out = sink, z.avail_out = sizeof sink;
        int ret = inflate(&z, Z_BLOCK);
        uint64_t bit = (n - z.avail_in) * 8 - (unsigned)(z.data_type & 7);
        if ((ret == Z_OK || ret == Z_STREAM_END) && (z.data_type & 192) == 192) {
            *final_start = last, *end = bit, r = 0;
            break;
        }
        if (ret != Z_OK)
            break;
        if ((z.data_type & 128) && !(z.data_type & 64))
            last = bit;
        if (z.avail_in == 0 && z.avail_out != 0 && !(z.data_type & 128))
            break; /* no progress: the input ended inside a block */
    }
    inflateEnd(&z);
    return r;
}

/* Every block from bit 0 to the final one, by src/scan.c's one-block walk: the final
 * block's header bit and the end; 0, or -1 with *why when invalid or cut short. */
typedef struct walked {
    uint64_t final_start, end;
} walked;

static int walk_blocks(const uint8_t *p, size_t n, uint32_t *tables, walked *res,
                       const char **why) {
    for (uint64_t at = 0;;) {
        gzw_scan_block_result b;
        if (gzw_scan_block(p, n, at, tables, &b) != GZW_SCAN_OK)
            return *why = b.why, -1;
        if (b.final)
            return res->final_start = at, res->end = b.next, 0;
        at = b.next;
    }
}

/* Each inflater that says it knows a stream's end to the bit (end_bit_known) ends p[0, n)
 * at bit `end`, fed in pieces of random sizes. */
static void inflater_ends(const uint8_t *p, size_t n, uint64_t end) {
    static uint8_t sink[1 << 16];
    gzwrap_impl impls[2] = {GZWRAP_IMPL_ZLIB, GZWRAP_IMPL_ISAL};
    for (int ii = 0; ii < 2; ii++) {
        const gzw_inflater_ops *ops = gzw_inflater_ops_of(impls[ii]);
        gzw_inflater *inf = ops ? ops->create() : NULL;
        if (!inf || !ops->end_bit_known(inf)) {
            if (inf)
                ops->destroy(inf);
            continue;
        }
        size_t at = 0;
        int pad = -1;
        gzw_inflate_result r = GZW_INFLATE_MORE;
        while (r == GZW_INFLATE_MORE) {
            size_t k = 1 + next() % 5000;
            k = k < n - at ? k : n - at;
            long used;
            size_t made;
            const char *why = "";
            r = ops->run(inf, p + at, k, &used, sink, sizeof sink, &made, &pad, &why);
            at = (size_t)((long)at + used);
            if (r == GZW_INFLATE_MORE && used == 0 && made == 0 && at == n)
                break;
        }
        CHECK(r == GZW_INFLATE_END && at * 8 - (uint64_t)pad == end,
              "%s: the stream of %zu bytes ends at bit %llu, the inflater says %llu (%d)",
              gzwrap_impl_name(impls[ii]), n, (unsigned long long)end,
              (unsigned long long)(at * 8 - (uint64_t)pad), (int)r);
        ops->destroy(inf);
    }
}

static void scan(void) {
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE,
                                     Z_FIXED};
    static const size_t sizes[] = {0, 1, 300, 70000, 400000};
    uint32_t *tables = malloc(GZW_SCAN_TABLES * sizeof *tables);
    int streams = 0;
    for (int level = 0; level <= 9; level++)
        for (int si = 0; si < 5; si++)
            for (size_t zi = 0; zi < sizeof sizes / sizeof *sizes; zi++)
                for (int random = 0; random < 2; random++) {
                    size_t n = sizes[zi];
                    uint8_t *d = make_data(n, random);
                    z_stream z = {0};
                    deflateInit2(&z, level, Z_DEFLATED, -15, 8, strategies[si]);
                    size_t cap = deflateBound(&z, n) * 2 + 4096, at = 0;
                    uint8_t *out = malloc(cap);
                    z.next_out = out, z.avail_out = (uInt)cap;
                    while (at < n) { /* pieces, each ended by a flush of some kind */
                        size_t k = 1 + next() % 50000;
                        k = k < n - at ? k : n - at;
                        z.next_in = d + at, z.avail_in = (uInt)k;
                        static const int flushes[] = {Z_NO_FLUSH, Z_SYNC_FLUSH, Z_FULL_FLUSH,
                                                      Z_BLOCK, Z_PARTIAL_FLUSH};
                        deflate(&z, flushes[next() % 5]);
                        at += k;
                    }
                    deflate(&z, Z_FINISH);
                    size_t len = cap - z.avail_out;
                    deflateEnd(&z);
                    uint64_t fs = 0, end = 0;
                    int zr = zlib_blocks(out, len, &fs, &end);
                    walked res = {0, 0};
                    const char *why = "";
                    int sr = walk_blocks(out, len, tables, &res, &why);
                    CHECK(zr == 0 && sr == 0 && res.final_start == fs && res.end == end,
                          "level %d, strategy %d, %zu %s bytes: zlib %d (%llu, %llu), walk %d "
                          "(%llu, %llu) %s", level, strategies[si], n, random ? "random" : "text",
                          zr, (unsigned long long)fs, (unsigned long long)end, sr,
                          (unsigned long long)res.final_start, (unsigned long long)res.end, why);
                    inflater_ends(out, len, end);
                    /* cut anywhere before its last byte: refused, never read past the end */
                    for (int t = 0; t < 8 && len > 1; t++) {
                        size_t cut = next() % (len - 1);
                        if (t == 0)
                            cut = len - 1;
                        uint8_t *copy = malloc(cut + 1); /* exact size: ASan sees overreads */
                        memcpy(copy, out, cut);
                        int cr = walk_blocks(copy, cut, tables, &res, &why);
                        uint64_t fs2, end2;
                        int zr2 = zlib_blocks(copy, cut, &fs2, &end2);
                        CHECK(cr == zr2 && (cr != 0 || res.end == end2),
                              "cut at %zu of %zu: walk %d, zlib %d", cut, len, cr, zr2);
                        free(copy);
                    }
                    streams++;
                    free(out), free(d);
                }
    CHECK(streams == 10 * 5 * 5 * 2, "%d streams", streams);
    free(tables);
}

/* ---- whole streams ------------------------------------------------------------------- */

/* `in` converted by gzwrap's own choice and by zlib's streaming inflate: the same status,
 * output, sums and error; the inflater its own choice used. */
static gzwrap_impl same_as_streaming(const char *what, gzwrap_format from, gzwrap_format to,
                                     const uint8_t *in, size_t n) {
    uint8_t *got, *want;
    size_t got_n = 0, want_n = 0;
    gzwrap_report g, w;
    gzwrap_status gs = convert(from, to, GZWRAP_IMPL_AUTO, in, n, &got, &got_n, &g);
    gzwrap_status ws = convert(from, to, GZWRAP_IMPL_ZLIB, in, n, &want, &want_n, &w);
    CHECK(gs == ws && (gs || (got_n == want_n && !memcmp(got, want, got_n))) &&
              g.data_bytes == w.data_bytes && g.payload_bytes == w.payload_bytes &&
              g.crc32 == w.crc32 && g.adler32 == w.adler32 && g.in_bytes == w.in_bytes,
          "%s, %s -> %s: %s (%s) against zlib's %s (%s)", what, gzwrap_format_name(from),
          gzwrap_format_name(to), gzwrap_status_str(gs), g.error, gzwrap_status_str(ws),
          w.error);
    free(got), free(want);
    return g.inflater_impl;
}

/* Threads converting small gzip values at once, each its own data: the decompressor
 * kept between whole-stream conversions passes from thread to thread. */
typedef struct whole_job {
    uint8_t *in, *d;
    size_t in_n, n;
    int bad;
} whole_job;

static void *whole_worker(void *arg) {
    whole_job *j = arg;
    size_t cap = gzwrap_buffer_bound(j->in_n), out_n;
    uint8_t *out = malloc(cap);
    uint32_t adler = (uint32_t)adler32(1, j->d, (uInt)j->n);
    for (int i = 0; i < 2000; i++) {
        gzwrap_report rep;
        if (gzwrap_buffer_convert(NULL, j->in, j->in_n, out, cap, &out_n, &rep) != GZWRAP_OK ||
            rep.adler32 != adler || rep.data_bytes != j->n)
            j->bad++;
    }
    free(out);
    return NULL;
}

static void whole_threads(void) {
    enum { THREADS = 4 };
    pthread_t t[THREADS];
    whole_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].n = 100 + 700 * (size_t)i;
        jobs[i].d = make_data(jobs[i].n, 0);
        jobs[i].in = encode(GZWRAP_FORMAT_GZIP, jobs[i].d, jobs[i].n, &jobs[i].in_n);
        jobs[i].bad = 0;
        CHECK(pthread_create(&t[i], NULL, whole_worker, &jobs[i]) == 0, "thread %d", i);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].bad == 0, "thread %d: %d wrong conversions of %zu bytes", i, jobs[i].bad,
              jobs[i].n);
        free(jobs[i].in), free(jobs[i].d);
    }
}

static void whole(void) {
    int have = gzwrap_impl_available(GZWRAP_IMPL_LIBDEFLATE, GZWRAP_ROLE_CRC32);
    static const size_t sizes[] = {1, 100, 70000, 1u << 20, GZW_WHOLE_MAX, GZW_WHOLE_MAX + 1};
    static const gzwrap_format from[] = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_MYSQL,
                                         GZWRAP_FORMAT_ZLIB};
    int whole_runs = 0, expected = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int random = 0; random < 2; random++) {
            size_t n = sizes[si], in_n;
            uint8_t *d = make_data(n, random);
            for (int fi = 0; fi < 3; fi++) {
                uint8_t *in = encode(from[fi], d, n, &in_n);
                /* a stored first block (random data) is checksummed in place instead */
                size_t deflate_at = from[fi] == GZWRAP_FORMAT_GZIP ? 10
                                    : from[fi] == GZWRAP_FORMAT_MYSQL ? 6 : 2;
                int stored_first = !(in[deflate_at] >> 1 & 3);
                for (int ti = 0; ti < 4; ti++) {
                    char what[64];
                    snprintf(what, sizeof what, "%zu %s bytes", n, random ? "random" : "text");
                    gzwrap_impl used = same_as_streaming(what, from[fi], FORMATS[ti], in, in_n);
                    int expect = have && !stored_first && n <= GZW_WHOLE_MAX &&
                                 from[fi] != GZWRAP_FORMAT_ZLIB;
                    CHECK((used == GZWRAP_IMPL_LIBDEFLATE) == expect, "%s from %s: inflater %s",
                          what, gzwrap_format_name(from[fi]), gzwrap_impl_name(used));
                    whole_runs += used == GZWRAP_IMPL_LIBDEFLATE;
                    expected += expect;
                }
                free(in);
            }
            free(d);
        }
    CHECK(!have || (whole_runs == expected && expected >= 4 * 5 * 2), "%d whole conversions",
          whole_runs);

    /* two members, the first smaller than the last's ISIZE: the streaming path joins them */
    size_t a_n, b_n;
    uint8_t *da = make_data(1000, 0), *db = make_data(50000, 0);
    uint8_t *a = encode(GZWRAP_FORMAT_GZIP, da, 1000, &a_n);
    uint8_t *b = encode(GZWRAP_FORMAT_GZIP, db, 50000, &b_n);
    uint8_t *ab = malloc(a_n + b_n);
    memcpy(ab, a, a_n), memcpy(ab + a_n, b, b_n);
    CHECK(same_as_streaming("two members", GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, ab,
                            a_n + b_n) != GZWRAP_IMPL_LIBDEFLATE,
          "two members went the whole way");

    /* damaged streams: the streaming path's error, offset and all */
    size_t at = a_n / 2;
    ab[at] ^= 0x10;
    gzwrap_impl inf = gzwrap_impl_resolve(GZWRAP_IMPL_AUTO, GZWRAP_ROLE_INFLATE);
    uint8_t *out, *ref;
    size_t out_n, ref_n;
    gzwrap_report g, w;
    gzwrap_status gs = convert(GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO, ab, a_n,
                               &out, &out_n, &g);
    gzwrap_status ws = convert(GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, inf, ab, a_n, &ref,
                               &ref_n, &w);
    CHECK(gs != GZWRAP_OK && gs == ws && !strcmp(g.error, w.error),
          "a bit flipped at %zu: %s against %s's %s", at, g.error, gzwrap_impl_name(inf),
          w.error);
    free(out), free(ref);
    /* a COMPRESS() length below the data's: the streaming path says so */
    size_t m_n;
    uint8_t *m = encode(GZWRAP_FORMAT_MYSQL, db, 50000, &m_n);
    m[0] ^= 1, m[1] ^= 0x40; /* 50000 -> 33617 */
    CHECK(same_as_streaming("a short COMPRESS() length", GZWRAP_FORMAT_MYSQL, GZWRAP_FORMAT_GZIP,
                            m, m_n) != GZWRAP_IMPL_LIBDEFLATE,
          "a short length went the whole way");
    free(m), free(a), free(b), free(ab), free(da), free(db);
    whole_threads();
}

/* ---- checksums ----------------------------------------------------------------------- */

static void checksum_case(gzwrap_impl impl, gzwrap_role role, uint32_t start, const uint8_t *p,
                          size_t n) {
    uint32_t want = role == GZWRAP_ROLE_CRC32 ? (uint32_t)crc32(start, p, (uInt)n)
                                              : (uint32_t)adler32(start, p, (uInt)n);
    uint32_t got = start;
    gzwrap_status st = gzwrap_checksum_update(impl, role, &got, p, n);
    CHECK(st == GZWRAP_OK && got == want, "%s %s: start %08X, %zu bytes at +%zu: %08X, zlib %08X",
          gzwrap_impl_name(impl), role == GZWRAP_ROLE_CRC32 ? "CRC-32" : "Adler-32", start, n,
          (size_t)((uintptr_t)p % 64), got, want);
}

static void checksums(void) {
    const size_t max = 1u << 20;
    uint8_t *rnd = make_data(max + 64, 1), *ff = malloc(max + 64);
    memset(ff, 0xff, max + 64);
    int tried = 0;
    for (int i = GZWRAP_IMPL_ZLIB; i <= GZWRAP_IMPL_LAST; i++) {
        for (gzwrap_role role = GZWRAP_ROLE_CRC32; role <= GZWRAP_ROLE_ADLER32; role++) {
            gzwrap_impl impl = (gzwrap_impl)i;
            if (!gzwrap_impl_available(impl, role))
                continue;
            tried++;
            uint32_t one = role == GZWRAP_ROLE_CRC32 ? 0 : 1;
            for (size_t n = 0; n <= 1024; n++)
                checksum_case(impl, role, one, rnd + n % 64, n);
            for (int k = 0; k < 200; k++) {
                size_t n = next() % max, off = next() % 64;
                uint32_t start = k % 2 ? one : next(); /* a running value, as across calls */
                if (role == GZWRAP_ROLE_ADLER32) /* s1 and s2 below 65521 */
                    start = (start >> 16) % 65521 << 16 | (start & 0xffff) % 65521;
                checksum_case(impl, role, start, (k % 3 ? rnd : ff) + off, n);
            }
            /* sums at their largest: 0xFF bytes and s1, s2 = 65520 from the start */
            checksum_case(impl, role, role == GZWRAP_ROLE_CRC32 ? 0xffffffffu : 0xfff0fff0u,
                          ff, max);
            checksum_case(impl, role, one, ff + 1, 5552 * 3 + 17);
        }
    }
    /* every implementation this CPU runs: zlib, plus the portable Adler-32 at least */
    CHECK(tried >= 3, "only %d checksum implementations tried", tried);
    free(rnd), free(ff);

    /* every pair in a conversion that needs both sums (gzip -> zlib), which runs the pairs
     * that have one pass for both that way: inflated text and stored random data */
    static const size_t sizes[] = {0, 1, 255, 256, 257, 5552, 70000, 1000003};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int random = 0; random < 2; random++) {
            size_t n = sizes[si], in_n;
            uint8_t *d = make_data(n, random);
            uint8_t *in = compress_as(d, n, 31, 6, &in_n, NULL);
            uint32_t crc = (uint32_t)crc32(0, d, (uInt)n), ad = (uint32_t)adler32(1, d, (uInt)n);
            for (int ci = GZWRAP_IMPL_ZLIB; ci <= GZWRAP_IMPL_LAST; ci++)
                for (int ai = GZWRAP_IMPL_ZLIB; ai <= GZWRAP_IMPL_LAST; ai++) {
                    if (!gzwrap_impl_available((gzwrap_impl)ci, GZWRAP_ROLE_CRC32) ||
                        !gzwrap_impl_available((gzwrap_impl)ai, GZWRAP_ROLE_ADLER32))
                        continue;
                    gzwrap_options o;
                    gzwrap_options_init(&o);
                    o.from = GZWRAP_FORMAT_GZIP, o.to = GZWRAP_FORMAT_ZLIB;
                    o.crc32 = (gzwrap_impl)ci, o.adler32 = (gzwrap_impl)ai;
                    size_t cap = gzwrap_buffer_bound(in_n), out_n;
                    uint8_t *out = malloc(cap);
                    gzwrap_report rep;
                    gzwrap_status st = gzwrap_buffer_convert(&o, in, in_n, out, cap, &out_n, &rep);
                    CHECK(st == GZWRAP_OK && rep.crc32 == crc && rep.adler32 == ad,
                          "CRC-32 %s with Adler-32 %s, %zu %s bytes: %s %08X %08X, zlib %08X %08X",
                          gzwrap_impl_name((gzwrap_impl)ci), gzwrap_impl_name((gzwrap_impl)ai), n,
                          random ? "random" : "text", st ? rep.error : "", rep.crc32,
                          rep.adler32, crc, ad);
                    /* the same pair through gzwrap_checksums_update, from running values */
                    uint32_t c0 = next(), a0 = (next() % 65521) << 16 | next() % 65521;
                    uint32_t c1 = c0, a1 = a0;
                    st = gzwrap_checksums_update((gzwrap_impl)ci, (gzwrap_impl)ai, &c1, &a1, d, n);
                    CHECK(st == GZWRAP_OK && c1 == (uint32_t)crc32(c0, d, (uInt)n) &&
                              a1 == (uint32_t)adler32(a0, d, (uInt)n),
                          "gzwrap_checksums_update(%s, %s), %zu bytes",
                          gzwrap_impl_name((gzwrap_impl)ci), gzwrap_impl_name((gzwrap_impl)ai), n);
                    free(out);
                }
            free(in), free(d);
        }
}

/* ---- from memory to a writer ------------------------------------------------------------- */

static int discard_write(void *ctx, const void *buf, size_t len) {
    (void)buf;
    *(size_t *)ctx += len;
    return 0;
}

/* gzwrap_memory_convert against gzwrap_buffer_convert: every format pair, sizes around the
 * whole-stream limit, text and random data, every inflater: the same status, output and
 * report; the input untouched; a second gzip member through a writer that cannot patch is
 * GZWRAP_ERR_NEEDS_SEEK; bad arguments are GZWRAP_ERR_ARG. */
static void memory(void) {
    static const size_t sizes[] = {0, 1, 100, 70000, 1000003, GZW_WHOLE_MAX + 1};
    gzwrap_impl impls[2] = {GZWRAP_IMPL_AUTO, GZWRAP_IMPL_ZLIB};
    int cases = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int random = 0; random < 2; random++) {
            size_t n = sizes[si];
            uint8_t *d = make_data(n, random);
            for (int fi = 0; fi < 4; fi++) {
                size_t in_n;
                uint8_t *in = encode(FORMATS[fi], d, n, &in_n);
                uint8_t *copy = malloc(in_n + 1);
                memcpy(copy, in, in_n);
                for (int ti = 0; ti < 4; ti++)
                    for (int ii = 0; ii < 2; ii++) {
                        gzwrap_options o;
                        gzwrap_options_init(&o);
                        o.from = FORMATS[fi], o.to = FORMATS[ti], o.inflater = impls[ii];
                        size_t cap = gzwrap_buffer_bound(in_n), want_n = 0;
                        uint8_t *want = malloc(cap);
                        gzwrap_report wr_rep, got_rep;
                        gzwrap_status ws = gzwrap_buffer_convert(&o, in, in_n, want, cap, &want_n,
                                                                 &wr_rep);
                        settling sw = {0};
                        gzwrap_writer wr = settling_writer(&sw);
                        gzwrap_status gs = gzwrap_memory_convert(&o, in, in_n, &wr, &got_rep);
                        CHECK(gs == ws && (gs || (sw.len == want_n && (!want_n || !memcmp(sw.p, want, want_n)))) &&
                                  got_rep.data_bytes == wr_rep.data_bytes &&
                                  got_rep.payload_bytes == wr_rep.payload_bytes &&
                                  got_rep.crc32 == wr_rep.crc32 &&
                                  got_rep.adler32 == wr_rep.adler32 &&
                                  got_rep.inflater_impl == wr_rep.inflater_impl &&
                                  sw.violations == 0,
                              "memory %s -> %s, %zu bytes, %s: %s (%s) against the buffer's %s",
                              gzwrap_format_name(FORMATS[fi]), gzwrap_format_name(FORMATS[ti]),
                              n, gzwrap_impl_name(impls[ii]), gzwrap_status_str(gs),
                              got_rep.error, gzwrap_status_str(ws));
                        cases++;
                        free(sw.p), free(want);
                    }
                CHECK(memcmp(copy, in, in_n) == 0, "memory: the input was changed");
                free(copy), free(in);
            }
            free(d);
        }
    CHECK(cases == 6 * 2 * 4 * 4 * 2, "%d cases", cases);

    /* two members: the join patches the first, which a plain writer cannot */
    size_t an, bn, discarded = 0;
    uint8_t *d = make_data(5000, 0);
    uint8_t *a = encode(GZWRAP_FORMAT_GZIP, d, 5000, &an), *b = encode(GZWRAP_FORMAT_GZIP, d, 5000, &bn);
    uint8_t *two = malloc(an + bn);
    memcpy(two, a, an), memcpy(two + an, b, bn);
    gzwrap_writer plain = {&discarded, discard_write, NULL, NULL, NULL, NULL};
    gzwrap_report rep;
    CHECK(gzwrap_memory_convert(NULL, two, an + bn, &plain, &rep) == GZWRAP_ERR_NEEDS_SEEK,
          "two members through a plain writer: %s", rep.error);
    CHECK(gzwrap_memory_convert(NULL, a, an, &plain, &rep) == GZWRAP_OK && rep.data_bytes == 5000,
          "one member through a plain writer: %s", rep.error);
    CHECK(gzwrap_memory_convert(NULL, NULL, 1, &plain, &rep) == GZWRAP_ERR_ARG, "NULL input");
    CHECK(gzwrap_memory_convert(NULL, a, an, NULL, &rep) == GZWRAP_ERR_ARG, "NULL writer");
    free(two), free(a), free(b), free(d);
}

int main(int argc, char **argv) {
    static const struct {
        const char *name;
        void (*run)(void);
    } parts[] = {{"roundtrip", roundtrip}, {"damage", damage},       {"errors", errors},
                 {"join", join},           {"settle", settle},       {"stored", stored},
                 {"scan", scan},           {"checksums", checksums}, {"direct", direct},
                 {"whole", whole},         {"memory", memory}};
    const char *what = argc > 1 ? argv[1] : "all";
    int ran = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (!strcmp(what, "all") || !strcmp(what, parts[i].name))
            parts[i].run(), ran++;
    CHECK(ran > 0, "no part named %s", what);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf("gzwrap_test %s: ok\n", what);
    return failures != 0;
}
