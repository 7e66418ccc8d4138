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

/* Room for n more bytes past the text and its NUL: where to write them,
 * NULL once memory ran out. pbdyn__strbuf_commit then counts those written,
 * so that a writer of many short values copies each once, in place. */
char *pbdyn__strbuf_reserve(pbdyn__strbuf *o, size_t n);

PBDYN_INLINE void pbdyn__strbuf_commit(pbdyn__strbuf *o, size_t n) {
  o->len += n;
  o->buf[o->len] = 0;
}

/* The number of decimal digits of v, 1 to 20: the bit length times
 * log10(2) (1233 / 4096) is the count or one more. */
PBDYN_INLINE size_t pbdyn__dec_len(uint64_t v) {
  static const uint64_t pow10[20] = {
      1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u,
      1000000000u, 10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
      100000000000000u, 1000000000000000u, 10000000000000000u, 100000000000000000u,
      1000000000000000000u, 10000000000000000000u};
  size_t t = (size_t)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;
  return t + 1 - ((v | 1) < pow10[t]);
}

/* The decimal digits of v at out (20 bytes of room; 21 for a negative
 * int64), without printf, which costs ~200 instructions a number, written
 * in place two at a time from the last; returns their count. */
PBDYN_INLINE size_t pbdyn__dec_u64(char *out, uint64_t v) {
  static const char pairs[201] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  size_t n = pbdyn__dec_len(v);
  char *p = out + n;
  while (v >= 100) {
    p -= 2;
    memcpy(p, pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) memcpy(p - 2, pairs + 2 * v, 2);
  else p[-1] = (char)('0' + v);
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
