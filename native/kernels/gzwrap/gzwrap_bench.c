/* gzwrap_bench.c — re-wrapping a gzip or zlib stream (native/lib/gzwrap) against the work
 * it cannot avoid (one inflate with a checksum) and against decompressing and
 * recompressing, all on the same stream in memory.
 *
 *   gzwrap_bench --param gz=FILE.gz [--param recompress=1] [harness flags]
 *
 * FILE.gz is one gzip member (gzip -6 of the data). Setup, untimed: read it, inflate it
 * once (the data, for the recompressors and for checking), and make the zlib stream of the
 * same deflate bytes. Every case turns its whole input into its output once per iteration;
 * the unit is one byte of uncompressed data, so `time` is ns per byte and 1/time GB/s.
 *
 *   rewrap-gzip-zlib        gzwrap_buffer_convert gzip -> zlib, the library's own choice
 *                           (ISA-L inflate where present, the fastest checksums)
 *   rewrap-zlib-gzip        the same, zlib -> gzip
 *   rewrap-gzip-zlib-zlib   gzip -> zlib on zlib alone (the portable path)
 *   rewrap-gzip-zlib-stream, rewrap-zlib-gzip-stream   the same two streamed:
 *                           gzwrap_memory_convert reads the input in place and hands its
 *                           output in pieces to a writer that keeps nothing, as the
 *                           streaming inflates below write into one 256 KiB buffer (the
 *                           buffer form writes all of it to memory, which at 16 MiB and up
 *                           costs random data a third of its speed)
 *   inflate-isal            ISA-L streaming inflate into 256 KiB, + its CRC-32: the floor
 *   inflate-isal-stops      the same with the ISA-L gzwrap bundles (the igzip that stops at
 *                           block boundaries; isal_stops_inflate.c), where it is built in
 *   inflate-zlib            zlib streaming inflate into 256 KiB, + zlib's CRC-32
 *   inflate-libdeflate      libdeflate whole-buffer inflate (the whole output in memory,
 *                           which a constant-memory tool cannot do), + its CRC-32
 *   recompress-zlib6        ISA-L inflate, then zlib deflate level 6 (gzip wrapper)
 *   recompress-libdeflate6  libdeflate inflate, then libdeflate gzip level 6 (whole buffer)
 *   recompress-igzip        ISA-L inflate, then ISA-L deflate level 2 (igzip's default)
 *
 *   rewrap-bgzip-zlib       with --param bgz=FILE (bgzip's many members of the same data):
 *                           gzip -> zlib of that file, joining its members
 *   inflate-bgzip-isal      that file inflated member by member as igzip -d does (ISA-L's
 *                           gzip mode, which checks each member's CRC-32 as it inflates),
 *                           into 256 KiB: the floor for the same bytes
 *   inflate-bgzip-isal-stops   the same with the bundled ISA-L, where it is built in
 *   inflate-bgzip-libdeflate   the same with libdeflate's whole-buffer gzip inflate, each
 *                           member into the output buffer, + its CRC-32 check
 *   adler32-gzwrap, crc32-gzwrap   the library's automatic choice of each checksum over the
 *                           data, in the 256 KiB pieces a conversion checksums
 *   adler32-zlib, -libdeflate, -isal, crc32-zlib, -libdeflate, -isal   each peer the same way
 *   sums-gzwrap             both sums of each piece as a conversion between gzip and zlib
 *                           needs them (one pass where the CPU allows)
 *   sums-peers              the same from the fastest peers here, one after the other
 *                           (ISA-L's CRC-32, libdeflate's Adler-32)
 *
 * The recompressors run only with recompress=1 (they take ~1000x longer per byte on text
 * than the rest, so the experiment keeps them to the smaller sizes).
 *
 * Before timing, one untimed pass per re-wrap case checks its output: it must decode with
 * zlib (gzwrap_buffer_check) to the data's length and CRC-32, and its deflate bytes must be
 * the input's, byte for byte. Printed as
 *   {"type":"payload","case":"rewrap-gzip-zlib","in":N,"out":M,"identical":true,
 *    "decodes":true,"out_bytes":K}
 * and every recompressor's output is checked to decode too ({"type":"recompressed",...}).
 */
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cpulab_harness.h"
#include "gzwrap.h"
#include "isal_stops_inflate.h"

#define CHUNK (256u * 1024u)

static uint8_t *gz, *zl, *bgz, *data, *out, *chunk;
static size_t gz_n, zl_n, bgz_n, data_n, out_cap;
static const uint8_t *payload;
static size_t payload_n;

/* ---- plain inflates (the floor) ----------------------------------------------------- */

static uint32_t inflate_isal(const uint8_t *p, size_t n, uint64_t *made) {
    struct inflate_state s;
    isal_inflate_init(&s);
    s.next_in = (uint8_t *)p;
    s.avail_in = (uint32_t)n;
    uint32_t crc = 0;
    *made = 0;
    do {
        s.next_out = chunk;
        s.avail_out = CHUNK;
        if (isal_inflate(&s) < 0)
            clh_fail("isal_inflate failed");
        size_t got = CHUNK - s.avail_out;
        crc = crc32_gzip_refl(crc, chunk, got);
        *made += got;
    } while (s.block_state != ISAL_BLOCK_FINISH);
    return crc;
}

static uint64_t c_inflate_isal(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0, made;
    for (uint64_t i = 0; i < iters; i++)
        acc += inflate_isal(payload, payload_n, &made) + made;
    return acc;
}

static void crc_sink(void *arg, const uint8_t *p, size_t n) {
    uint32_t *crc = arg;
    *crc = crc32_gzip_refl(*crc, p, n);
}

static uint64_t c_inflate_isal_stops(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        uint32_t crc = 0;
        uint64_t made = isal_stops_inflate(payload, payload_n, 0, chunk, CHUNK, crc_sink, &crc);
        if (made != data_n)
            clh_fail("the bundled ISA-L inflated %llu bytes, not %zu", (unsigned long long)made,
                     data_n);
        acc += made + crc;
    }
    return acc;
}

/* The bgzip file, member by member, with the bundled ISA-L in its gzip mode. */
static uint64_t c_inflate_bgzip_isal_stops(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        uint64_t made = isal_stops_inflate(bgz, bgz_n, 1, chunk, CHUNK, NULL, NULL);
        if (made != data_n)
            clh_fail("the bundled ISA-L inflated the bgzip file to %llu bytes, not %zu",
                     (unsigned long long)made, data_n);
        acc += made;
    }
    return acc;
}

static uint64_t c_inflate_zlib(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        z_stream z = {0};
        inflateInit2(&z, -15);
        z.next_in = (Bytef *)payload;
        z.avail_in = (uInt)payload_n;
        uLong crc = 0;
        int ret;
        do {
            z.next_out = chunk;
            z.avail_out = CHUNK;
            ret = inflate(&z, Z_NO_FLUSH);
            if (ret != Z_OK && ret != Z_STREAM_END)
                clh_fail("zlib inflate: %d", ret);
            crc = crc32(crc, chunk, CHUNK - z.avail_out);
        } while (ret != Z_STREAM_END);
        acc += crc + z.total_out;
        inflateEnd(&z);
    }
    return acc;
}

/* The bgzip file, member by member, in ISA-L's gzip mode (header, CRC-32 and ISIZE its own);
 * the bytes it made. */
static uint64_t c_inflate_bgzip_isal(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    struct inflate_state s;
    isal_inflate_init(&s); /* reset leaves crc_flag and hist_bits, which only init sets */
    s.crc_flag = ISAL_GZIP;
    for (uint64_t i = 0; i < iters; i++) {
        uint64_t made = 0;
        s.next_in = bgz;
        s.avail_in = (uint32_t)bgz_n;
        while (s.avail_in > 0) {
            isal_inflate_reset(&s); /* the next member, from where the last one ended */
            do {
                s.next_out = chunk;
                s.avail_out = CHUNK;
                if (isal_inflate(&s) != ISAL_DECOMP_OK)
                    clh_fail("isal_inflate failed on the bgzip file");
                made += CHUNK - s.avail_out;
            } while (s.block_state != ISAL_BLOCK_FINISH);
        }
        if (made != data_n)
            clh_fail("the bgzip file inflated to %llu bytes, not %zu", (unsigned long long)made,
                     data_n);
        acc += made + s.crc;
    }
    return acc;
}

static struct libdeflate_decompressor *ld_dec;

/* The bgzip file, member by member, with libdeflate's gzip inflate (it checks each CRC-32). */
static uint64_t c_inflate_bgzip_libdeflate(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        size_t at = 0, made = 0;
        while (at < bgz_n) {
            size_t used, got;
            if (libdeflate_gzip_decompress_ex(ld_dec, bgz + at, bgz_n - at, out + made,
                                              out_cap - made, &used, &got) !=
                LIBDEFLATE_SUCCESS)
                clh_fail("libdeflate_gzip_decompress_ex failed on the bgzip file");
            at += used, made += got;
        }
        if (made != data_n)
            clh_fail("the bgzip file inflated to %zu bytes, not %zu", made, data_n);
        acc += made;
    }
    return acc;
}

static uint64_t c_inflate_libdeflate(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        if (libdeflate_deflate_decompress(ld_dec, payload, payload_n, out, data_n, &got) !=
                LIBDEFLATE_SUCCESS || got != data_n)
            clh_fail("libdeflate_deflate_decompress failed");
        acc += libdeflate_crc32(0, out, got);
    }
    return acc;
}

/* ---- re-wrapping ---------------------------------------------------------------------- */

typedef struct rewrap {
    gzwrap_format from, to;
    gzwrap_impl impl;
    int members; /* 1: the bgzip file */
    int stream;  /* 1: gzwrap_memory_convert into a writer that keeps nothing */
} rewrap;

/* The streamed form's writer: it keeps none of the output (as `igzip -dc > /dev/null`
 * keeps none of its own: the streaming inflates write into one 256 KiB buffer), but for
 * the untimed check, which gathers it into `out`. */
typedef struct mem_io {
    uint8_t *keep; /* NULL: keep nothing */
    size_t written;
} mem_io;

static int mem_write(void *ctx, const void *buf, size_t len) {
    mem_io *m = ctx;
    if (m->keep) {
        if (m->written + len > out_cap)
            return -1;
        memcpy(m->keep + m->written, buf, len);
    }
    m->written += len;
    return 0;
}

static int keep_output; /* the check pass: the streamed form gathers its output */

static size_t rewrap_once(const rewrap *r) {
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.from = r->from, o.to = r->to;
    o.inflater = o.crc32 = o.adler32 = r->impl;
    size_t n;
    gzwrap_report rep;
    const uint8_t *in = r->members ? bgz : r->from == GZWRAP_FORMAT_GZIP ? gz : zl;
    size_t in_n = r->members ? bgz_n : r->from == GZWRAP_FORMAT_GZIP ? gz_n : zl_n;
    if (r->stream) {
        mem_io m = {keep_output ? out : NULL, 0};
        gzwrap_writer wr = {&m, mem_write, NULL, NULL, NULL, NULL};
        if (gzwrap_memory_convert(&o, in, in_n, &wr, &rep) != GZWRAP_OK)
            clh_fail("gzwrap: %s", rep.error);
        return m.written;
    }
    if (gzwrap_buffer_convert(&o, in, in_n, out, out_cap, &n, &rep) != GZWRAP_OK)
        clh_fail("gzwrap: %s", rep.error);
    return n;
}

static uint64_t c_rewrap(uint64_t iters, void *arg) {
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++)
        acc += rewrap_once(arg);
    return acc;
}

/* ---- checksums ------------------------------------------------------------------------- */

typedef struct sum {
    gzwrap_impl impl;
    gzwrap_role role; /* CRC32 or ADLER32; INFLATE here means both at once */
    int peers;        /* both at once from the fastest peers: ISA-L's CRC, libdeflate's Adler */
} sum;

static void sum_piece(const sum *s, uint32_t *crc, uint32_t *adler, const uint8_t *p, size_t n) {
    if (s->peers) {
        *crc = crc32_gzip_refl(*crc, p, n);
        *adler = libdeflate_adler32(*adler, p, n);
    } else if (s->role == GZWRAP_ROLE_CRC32) {
        gzwrap_checksum_update(s->impl, s->role, crc, p, n);
    } else if (s->role == GZWRAP_ROLE_ADLER32) {
        gzwrap_checksum_update(s->impl, s->role, adler, p, n);
    } else {
        gzwrap_checksums_update(s->impl, s->impl, crc, adler, p, n);
    }
}

static uint64_t c_sum(uint64_t iters, void *arg) {
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        uint32_t crc = 0, adler = 1;
        for (size_t at = 0; at < data_n; at += CHUNK)
            sum_piece(arg, &crc, &adler, data + at, data_n - at < CHUNK ? data_n - at : CHUNK);
        acc += crc + adler;
    }
    return acc;
}

/* ---- recompression -------------------------------------------------------------------- */

static uint64_t c_recompress_zlib6(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        struct inflate_state s;
        isal_inflate_init(&s);
        s.next_in = (uint8_t *)payload;
        s.avail_in = (uint32_t)payload_n;
        z_stream z = {0};
        deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
        z.next_out = out;
        z.avail_out = (uInt)out_cap;
        do {
            s.next_out = chunk;
            s.avail_out = CHUNK;
            if (isal_inflate(&s) < 0)
                clh_fail("isal_inflate failed");
            z.next_in = chunk;
            z.avail_in = CHUNK - s.avail_out;
            deflate(&z, Z_NO_FLUSH);
        } while (s.block_state != ISAL_BLOCK_FINISH);
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
            clh_fail("zlib deflate did not finish");
        acc += z.total_out;
        deflateEnd(&z);
    }
    return acc;
}

static struct libdeflate_compressor *ld_comp;

static uint64_t c_recompress_libdeflate6(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++) {
        size_t got;
        if (libdeflate_deflate_decompress(ld_dec, payload, payload_n, data, data_n, &got) !=
            LIBDEFLATE_SUCCESS)
            clh_fail("libdeflate_deflate_decompress failed");
        size_t n = libdeflate_gzip_compress(ld_comp, data, got, out, out_cap);
        if (n == 0)
            clh_fail("libdeflate_gzip_compress: no room");
        acc += n;
    }
    return acc;
}

static uint8_t *igzip_level_buf;

static size_t igzip_once(void) {
    struct inflate_state s;
    isal_inflate_init(&s);
    s.next_in = (uint8_t *)payload;
    s.avail_in = (uint32_t)payload_n;
    struct isal_zstream z;
    isal_deflate_init(&z);
    z.level = 2;
    z.level_buf = igzip_level_buf;
    z.level_buf_size = ISAL_DEF_LVL2_DEFAULT;
    z.gzip_flag = IGZIP_GZIP;
    z.next_out = out;
    z.avail_out = (uint32_t)out_cap;
    do {
        s.next_out = chunk;
        s.avail_out = CHUNK;
        if (isal_inflate(&s) < 0)
            clh_fail("isal_inflate failed");
        z.next_in = chunk;
        z.avail_in = CHUNK - s.avail_out;
        z.end_of_stream = s.block_state == ISAL_BLOCK_FINISH;
        z.flush = NO_FLUSH;
        do {
            if (isal_deflate(&z) != COMP_OK)
                clh_fail("isal_deflate failed");
        } while (z.avail_in > 0);
    } while (s.block_state != ISAL_BLOCK_FINISH);
    while (z.internal_state.state != ZSTATE_END)
        if (isal_deflate(&z) != COMP_OK)
            clh_fail("isal_deflate failed to finish");
    return z.total_out;
}

static uint64_t c_recompress_igzip(uint64_t iters, void *arg) {
    (void)arg;
    uint64_t acc = 0;
    for (uint64_t i = 0; i < iters; i++)
        acc += igzip_once();
    return acc;
}

/* ---- checks ------------------------------------------------------------------------------ */

static int decodes(gzwrap_format f, const uint8_t *p, size_t n) {
    gzwrap_check chk;
    return gzwrap_buffer_check(f, p, n, &chk, NULL) == GZWRAP_OK && chk.data_bytes == data_n &&
           chk.crc32 == (uint32_t)crc32(0, data, (uInt)data_n);
}

static void check_rewrap(const char *name, const rewrap *r) {
    keep_output = 1;
    size_t n = rewrap_once(r);
    keep_output = 0;
    size_t head = r->to == GZWRAP_FORMAT_GZIP ? 10 : 2, tail = r->to == GZWRAP_FORMAT_GZIP ? 8 : 4;
    size_t got = n - head - tail;
    int same = got == payload_n && memcmp(out + head, payload, payload_n) == 0;
    printf("{\"type\":\"payload\",\"case\":\"%s\",\"in\":%zu,\"out\":%zu,\"identical\":%s,"
           "\"decodes\":%s,\"out_bytes\":%zu}\n",
           name, payload_n, got, same ? "true" : "false",
           decodes(r->to, out, n) ? "true" : "false", n);
}

static void check_joined(const char *name, const rewrap *r) {
    gzwrap_report rep;
    gzwrap_options o;
    gzwrap_options_init(&o);
    o.from = r->from, o.to = r->to;
    size_t n;
    int ok = gzwrap_buffer_convert(&o, bgz, bgz_n, out, out_cap, &n, &rep) == GZWRAP_OK;
    printf("{\"type\":\"joined\",\"case\":\"%s\",\"members\":%llu,\"decodes\":%s,"
           "\"out_bytes\":%zu}\n", name, (unsigned long long)rep.members,
           ok && decodes(r->to, out, n) ? "true" : "false", ok ? n : 0);
}

static void check_recompressed(const char *name, size_t n) {
    printf("{\"type\":\"recompressed\",\"case\":\"%s\",\"out_bytes\":%zu,\"decodes\":%s}\n",
           name, n, decodes(GZWRAP_FORMAT_GZIP, out, n) ? "true" : "false");
}

static uint8_t *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f)
        clh_usage_error("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 1);
    if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
        clh_fail("cannot read %s", path);
    fclose(f);
    *n = (size_t)len;
    return p;
}

int main(int argc, char **argv) {
    clh_init(argc, argv);
    const char *path = clh_param_str("gz", NULL), *bgz_path = clh_param_str("bgz", NULL);
    int recompress = (int)clh_param_u64("recompress", 0);
    if (!path)
        clh_usage_error("--param gz=FILE.gz is required");
    gz = read_file(path, &gz_n);
    if (gz_n < 18 || gz[0] != 0x1f || gz[1] != 0x8b || gz[3] != 0)
        clh_usage_error("%s: expected a gzip member with no optional header fields", path);
    payload = gz + 10;
    payload_n = gz_n - 18;
    data_n = gz[gz_n - 4] | (size_t)gz[gz_n - 3] << 8 | (size_t)gz[gz_n - 2] << 16 |
             (size_t)gz[gz_n - 1] << 24; /* the data are below 4 GiB here */
    chunk = malloc(CHUNK);
    data = malloc(data_n + 1);
    out_cap = data_n + data_n / 2 + gz_n + (1 << 20);
    out = malloc(out_cap);
    ld_dec = libdeflate_alloc_decompressor();
    ld_comp = libdeflate_alloc_compressor(6);
    igzip_level_buf = malloc(ISAL_DEF_LVL2_DEFAULT);
    if (!chunk || !data || !out || !ld_dec || !ld_comp || !igzip_level_buf)
        clh_fail("out of memory");
    size_t got;
    if (libdeflate_deflate_decompress(ld_dec, payload, payload_n, data, data_n, &got) !=
            LIBDEFLATE_SUCCESS || got != data_n)
        clh_fail("%s does not inflate to its ISIZE", path);
    zl = malloc(gzwrap_buffer_bound(gz_n));
    gzwrap_options o;
    gzwrap_options_init(&o);
    if (gzwrap_buffer_convert(&o, gz, gz_n, zl, gzwrap_buffer_bound(gz_n), &zl_n, NULL))
        clh_fail("cannot make the zlib stream");
    /* every case touches its output buffers once before timing (the harness's warm-up
     * call does too): page faults are not part of any figure */
    memset(out, 0, out_cap);

    static const rewrap gz2z = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO};
    static const rewrap z2gz = {GZWRAP_FORMAT_ZLIB, GZWRAP_FORMAT_GZIP, GZWRAP_IMPL_AUTO};
    static const rewrap gz2z_zlib = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_ZLIB};
    check_rewrap("rewrap-gzip-zlib", &gz2z);
    check_rewrap("rewrap-zlib-gzip", &z2gz);
    check_rewrap("rewrap-gzip-zlib-zlib", &gz2z_zlib);
    static const rewrap gz2z_stream = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO,
                                       0, 1};
    static const rewrap z2gz_stream = {GZWRAP_FORMAT_ZLIB, GZWRAP_FORMAT_GZIP, GZWRAP_IMPL_AUTO,
                                       0, 1};
    check_rewrap("rewrap-gzip-zlib-stream", &gz2z_stream);
    check_rewrap("rewrap-zlib-gzip-stream", &z2gz_stream);
    static const rewrap bgz2z = {GZWRAP_FORMAT_GZIP, GZWRAP_FORMAT_ZLIB, GZWRAP_IMPL_AUTO, 1};
    if (bgz_path) {
        bgz = read_file(bgz_path, &bgz_n);
        check_joined("rewrap-bgzip-zlib", &bgz2z);
    }
    if (recompress) {
        check_recompressed("recompress-zlib6", (size_t)c_recompress_zlib6(1, NULL));
        check_recompressed("recompress-libdeflate6", (size_t)c_recompress_libdeflate6(1, NULL));
        check_recompressed("recompress-igzip", igzip_once());
    }
    fflush(stdout);

    static const sum sums[] = {
        {GZWRAP_IMPL_AUTO, GZWRAP_ROLE_ADLER32},       {GZWRAP_IMPL_ZLIB, GZWRAP_ROLE_ADLER32},
        {GZWRAP_IMPL_LIBDEFLATE, GZWRAP_ROLE_ADLER32}, {GZWRAP_IMPL_ISAL, GZWRAP_ROLE_ADLER32},
        {GZWRAP_IMPL_AUTO, GZWRAP_ROLE_CRC32},         {GZWRAP_IMPL_ZLIB, GZWRAP_ROLE_CRC32},
        {GZWRAP_IMPL_LIBDEFLATE, GZWRAP_ROLE_CRC32},   {GZWRAP_IMPL_ISAL, GZWRAP_ROLE_CRC32},
        {GZWRAP_IMPL_AUTO, GZWRAP_ROLE_INFLATE},       {GZWRAP_IMPL_AUTO, GZWRAP_ROLE_INFLATE, 1},
    };
    clh_case cases[32] = {
        {.name = "rewrap-gzip-zlib", .fn = c_rewrap, .arg = (void *)&gz2z},
        {.name = "rewrap-zlib-gzip", .fn = c_rewrap, .arg = (void *)&z2gz},
        {.name = "rewrap-gzip-zlib-zlib", .fn = c_rewrap, .arg = (void *)&gz2z_zlib},
        {.name = "rewrap-gzip-zlib-stream", .fn = c_rewrap, .arg = (void *)&gz2z_stream},
        {.name = "rewrap-zlib-gzip-stream", .fn = c_rewrap, .arg = (void *)&z2gz_stream},
        {.name = "inflate-isal", .fn = c_inflate_isal},
        {.name = "inflate-zlib", .fn = c_inflate_zlib},
        {.name = "inflate-libdeflate", .fn = c_inflate_libdeflate},
        {.name = "adler32-gzwrap", .fn = c_sum, .arg = (void *)&sums[0]},
        {.name = "adler32-zlib", .fn = c_sum, .arg = (void *)&sums[1]},
        {.name = "adler32-libdeflate", .fn = c_sum, .arg = (void *)&sums[2]},
        {.name = "adler32-isal", .fn = c_sum, .arg = (void *)&sums[3]},
        {.name = "crc32-gzwrap", .fn = c_sum, .arg = (void *)&sums[4]},
        {.name = "crc32-zlib", .fn = c_sum, .arg = (void *)&sums[5]},
        {.name = "crc32-libdeflate", .fn = c_sum, .arg = (void *)&sums[6]},
        {.name = "crc32-isal", .fn = c_sum, .arg = (void *)&sums[7]},
        {.name = "sums-gzwrap", .fn = c_sum, .arg = (void *)&sums[8]},
        {.name = "sums-peers", .fn = c_sum, .arg = (void *)&sums[9]},
    };
    size_t n_cases = 18;
    if (isal_stops_present())
        cases[n_cases++] = (clh_case){.name = "inflate-isal-stops", .fn = c_inflate_isal_stops};
    if (bgz_path) {
        cases[n_cases++] = (clh_case){.name = "rewrap-bgzip-zlib", .fn = c_rewrap,
                                      .arg = (void *)&bgz2z};
        cases[n_cases++] = (clh_case){.name = "inflate-bgzip-isal", .fn = c_inflate_bgzip_isal};
        cases[n_cases++] = (clh_case){.name = "inflate-bgzip-libdeflate",
                                      .fn = c_inflate_bgzip_libdeflate};
        if (isal_stops_present())
            cases[n_cases++] = (clh_case){.name = "inflate-bgzip-isal-stops",
                                          .fn = c_inflate_bgzip_isal_stops};
    }
    if (recompress) {
        cases[n_cases++] = (clh_case){.name = "recompress-zlib6", .fn = c_recompress_zlib6};
        cases[n_cases++] = (clh_case){.name = "recompress-libdeflate6",
                                      .fn = c_recompress_libdeflate6};
        cases[n_cases++] = (clh_case){.name = "recompress-igzip", .fn = c_recompress_igzip};
    }
    for (size_t i = 0; i < n_cases; i++)
        cases[i].units_per_iter = data_n, cases[i].unit = "byte";
    return clh_run(cases, n_cases);
}
