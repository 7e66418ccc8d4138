/* io.c — readers and writers over file descriptors and memory, and the entry points that
 * use them. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal/conv.h"

/* ---- file descriptors ------------------------------------------------------------------ */

typedef struct fd_io {
    int fd;
    off_t base; /* the output's offset 0 in the file */
} fd_io;

static long long fd_read(void *ctx, void *buf, size_t cap) {
    for (;;) {
        ssize_t n = read(((fd_io *)ctx)->fd, buf, cap);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

static int fd_write(void *ctx, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(((fd_io *)ctx)->fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n;
    }
    return 0;
}

static int fd_pread(void *ctx, void *buf, size_t len, uint64_t off) {
    fd_io *io = ctx;
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(io->fd, p, len, io->base + (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n, off += (uint64_t)n;
    }
    return 0;
}

static int fd_pwrite(void *ctx, const void *buf, size_t len, uint64_t off) {
    fd_io *io = ctx;
    const char *p = buf;
    while (len > 0) {
        ssize_t n = pwrite(io->fd, p, len, io->base + (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, len -= (size_t)n, off += (uint64_t)n;
    }
    return 0;
}

static int fd_truncate(void *ctx, uint64_t size) {
    fd_io *io = ctx;
    off_t at = io->base + (off_t)size;
    return ftruncate(io->fd, at) == 0 && lseek(io->fd, at, SEEK_SET) == at ? 0 : -1;
}

gzwrap_status gzwrap_fd_convert(const gzwrap_options *opt, int in_fd, int out_fd,
                                gzwrap_report *report) {
    fd_io in = {in_fd, 0}, out = {out_fd, 0};
    gzwrap_reader rd = {&in, fd_read};
    gzwrap_writer wr = {&out, fd_write, NULL, NULL, NULL, NULL};
    struct stat sb;
    if (fstat(out_fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
        (out.base = lseek(out_fd, 0, SEEK_CUR)) >= 0) {
        wr.pread = fd_pread, wr.pwrite = fd_pwrite, wr.truncate = fd_truncate;
    }
    return gzwrap_stream_convert(opt, &rd, &wr, report);
}

/* ---- memory ------------------------------------------------------------------------------ */

typedef struct mem_in {
    const uint8_t *p;
    size_t len, pos;
} mem_in;

static long long mem_read(void *ctx, void *buf, size_t cap) {
    mem_in *m = ctx;
    size_t n = m->len - m->pos < cap ? m->len - m->pos : cap;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (long long)n;
}

static int mem_write(void *ctx, const void *buf, size_t len) {
    gzw_mem_out *m = ctx;
    if (len > m->cap - m->len)
        return m->full = 1, -1;
    memcpy(m->p + m->len, buf, len);
    m->len += len;
    return 0;
}

static int mem_pread(void *ctx, void *buf, size_t len, uint64_t off) {
    gzw_mem_out *m = ctx;
    if (off > m->len || len > m->len - off)
        return -1;
    memcpy(buf, m->p + off, len);
    return 0;
}

static int mem_pwrite(void *ctx, const void *buf, size_t len, uint64_t off) {
    gzw_mem_out *m = ctx;
    if (off > m->len || len > m->len - off)
        return -1;
    memcpy(m->p + off, buf, len);
    return 0;
}

static int mem_truncate(void *ctx, uint64_t size) {
    gzw_mem_out *m = ctx;
    if (size > m->len)
        return -1;
    m->len = (size_t)size;
    return 0;
}

size_t gzwrap_buffer_bound(size_t in_len) {
    /* Each gzip member (at least 20 bytes) adds at most 5 alignment bytes; a header grows
     * by at most 10 bytes (zlib -> gzip), a trailer by at most 5 (gzip from raw deflate
     * adds 8, a '.' after COMPRESS()); empty COMPRESS() data becomes at most 20 bytes. */
    return in_len + in_len / 4 + 64;
}

gzwrap_status gzwrap_buffer_convert(const gzwrap_options *opt, const void *in, size_t in_len,
                                    void *out, size_t out_cap, size_t *out_len,
                                    gzwrap_report *report) {
    gzwrap_report scratch;
    gzwrap_report *r = report ? report : &scratch;
    if ((!in && in_len) || (!out && out_cap) || !out_len) {
        memset(r, 0, sizeof *r);
        return r->status = GZWRAP_ERR_ARG;
    }
    gzw_mem_out mo = {out, out_cap, 0, 0};
    gzwrap_writer wr = {&mo, mem_write, mem_pread, mem_pwrite, mem_truncate, NULL};
    gzwrap_status st = gzw_convert(opt, NULL, in, in_len, &wr, &mo, r); /* read in place */
    *out_len = mo.len;
    if (st == GZWRAP_ERR_WRITE && mo.full) {
        r->status = st = GZWRAP_ERR_OUTPUT_FULL;
        strcpy(r->error, "the output buffer is too small (gzwrap_buffer_bound gives enough)");
    }
    return st;
}

gzwrap_status gzwrap_memory_convert(const gzwrap_options *opt, const void *in, size_t in_len,
                                    gzwrap_writer *out, gzwrap_report *report) {
    return gzw_convert(opt, NULL, in, in_len, out, NULL, report); /* read in place */
}

gzwrap_status gzwrap_buffer_check(gzwrap_format format, const void *in, size_t in_len,
                                  gzwrap_check *result, gzwrap_report *report) {
    if (!in && in_len) {
        if (report) {
            memset(report, 0, sizeof *report);
            report->status = GZWRAP_ERR_ARG;
        }
        return GZWRAP_ERR_ARG;
    }
    mem_in mi = {in, in_len, 0};
    gzwrap_reader rd = {&mi, mem_read};
    return gzwrap_stream_check(format, &rd, result, report);
}
