/* A growable malloc'd string for the text writers (dump, text format):
 * appends never fail one by one; running out of memory is remembered and
 * reported once, when the result is copied into the arena. */
#ifndef PB_INTERNAL_STRBUF_H
#define PB_INTERNAL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "internal/port.h"
#include "pb.h"

typedef struct pb_strbuf {
  char *buf;
  size_t len, cap;
  bool oom;
} pb_strbuf;

/* Append n bytes (the buffer stays NUL-terminated). */
void pb_strbuf_put(pb_strbuf *o, const char *s, size_t n);

PB_INLINE void pb_strbuf_puts(pb_strbuf *o, const char *s) { pb_strbuf_put(o, s, strlen(s)); }

/* Two spaces per level. */
void pb_strbuf_indent(pb_strbuf *o, int depth);

/* Copy the text, NUL-terminated, into the arena and free the buffer. */
pb_status pb_strbuf_finish(pb_strbuf *o, pb_arena *a, char **out, size_t *size);

#endif /* PB_INTERNAL_STRBUF_H */
