/* settling_writer.h — the tests' growing memory writer (gzwrap_test.c, fuzz_convert.c): it
 * can read back, patch and cut what it holds, records what it was told is final, and
 * fails (counting a violation) any later read-back, patch or cut below that, or one past
 * what it holds. */
#ifndef GZWRAP_TESTS_SETTLING_WRITER_H
#define GZWRAP_TESTS_SETTLING_WRITER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gzwrap.h>

typedef struct settling {
    uint8_t *p;
    size_t len, cap;
    uint64_t settled;
    int settles, violations;
} settling;

static int st_write(void *ctx, const void *buf, size_t len) {
    settling *s = ctx;
    if (s->len + len > s->cap) {
        size_t cap = 2 * (s->len + len);
        uint8_t *p = realloc(s->p, cap);
        if (!p)
            return -1;
        s->p = p, s->cap = cap;
    }
    memcpy(s->p + s->len, buf, len);
    s->len += len;
    return 0;
}

/* Whether [off, off + len) may be read back or patched. */
static int st_reachable(settling *s, size_t len, uint64_t off) {
    if (off < s->settled || off > s->len || len > s->len - off)
        return s->violations++, 0;
    return 1;
}

static int st_pread(void *ctx, void *buf, size_t len, uint64_t off) {
    settling *s = ctx;
    if (!st_reachable(s, len, off))
        return -1;
    memcpy(buf, s->p + off, len);
    return 0;
}

static int st_pwrite(void *ctx, const void *buf, size_t len, uint64_t off) {
    settling *s = ctx;
    if (!st_reachable(s, len, off))
        return -1;
    memcpy(s->p + off, buf, len);
    return 0;
}

static int st_truncate(void *ctx, uint64_t size) {
    settling *s = ctx;
    if (size < s->settled || size > s->len)
        return s->violations++, -1;
    s->len = (size_t)size;
    return 0;
}

static int st_settle(void *ctx, uint64_t off) {
    settling *s = ctx;
    if (off < s->settled || off > s->len)
        s->violations++;
    s->settled = off;
    s->settles++;
    return 0;
}

/* The whole writer over s (which starts zeroed). */
static inline gzwrap_writer settling_writer(settling *s) {
    gzwrap_writer w = {s, st_write, st_pread, st_pwrite, st_truncate, st_settle};
    return w;
}

#endif /* GZWRAP_TESTS_SETTLING_WRITER_H */
