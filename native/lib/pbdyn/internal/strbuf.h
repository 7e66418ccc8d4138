/* A growable malloc'd string for the text writers (dump, text format):
 * appends never fail one by one; running out of memory is remembered and
 * reported once, when the result is copied into the arena. */
#ifndef PBDYN_INTERNAL_STRBUF_H
#define PBDYN_INTERNAL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal/port.h"
#include "pbdyn.h"

typedef struct pbdyn__strbuf {
  char *buf;
  size_t len, cap;
  bool oom;
} pbdyn__strbuf;

/* Append n bytes when the buffer has no room (or ran out of memory). */
void pbdyn__strbuf_put_slow(pbdyn__strbuf *o, const char *s, size_t n);

/* Append n bytes (the buffer stays NUL-terminated). Inline: the writers
 * append a few bytes at a time, a call each cost JSON ~10 instructions per
 * output byte (callgrind). */
PBDYN_INLINE void pbdyn__strbuf_put(pbdyn__strbuf *o, const char *s, size_t n) {
  if (PBDYN_LIKELY(o->cap - o->len > n)) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = 0;
    return;
  }
  pbdyn__strbuf_put_slow(o, s, n);
}

/* Append code point cp (at most 0x10FFFF, no surrogate: the parsers check) in UTF-8. */
void pbdyn__strbuf_put_utf8(pbdyn__strbuf *o, uint32_t cp);

PBDYN_INLINE void pbdyn__strbuf_puts(pbdyn__strbuf *o, const char *s) {
  pbdyn__strbuf_put(o, s, strlen(s));
}

/* The decimal digits of v at out (20 bytes of room; 21 for a negative
 * int64), without printf, which costs ~200 instructions a number; returns
 * their count. */
PBDYN_INLINE size_t pbdyn__dec_u64(char *out, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[sizeof tmp - ++n] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  memcpy(out, tmp + sizeof tmp - n, n);
  return n;
}

PBDYN_INLINE size_t pbdyn__dec_i64(char *out, int64_t v) {
  if (v >= 0) return pbdyn__dec_u64(out, (uint64_t)v);
  out[0] = '-';
  return 1 + pbdyn__dec_u64(out + 1, -(uint64_t)v);
}

/* Two spaces per level. */
void pbdyn__strbuf_indent(pbdyn__strbuf *o, int depth);

/* Copy the text, NUL-terminated, into the arena and free the buffer. */
pbdyn_status pbdyn__strbuf_finish(pbdyn__strbuf *o, pbdyn_arena *a, char **out, size_t *size);

#endif /* PBDYN_INTERNAL_STRBUF_H */
