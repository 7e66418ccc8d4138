/* A growable malloc'd string for the text writers (dump, text format):
 * appends never fail one by one; running out of memory is remembered and
 * reported once, when the result is copied into the arena. */
#ifndef PBDYN_INTERNAL_STRBUF_H
#define PBDYN_INTERNAL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "internal/port.h"
#include "pbdyn.h"

typedef struct pbdyn__strbuf {
  char *buf;
  size_t len, cap;
  bool oom;
} pbdyn__strbuf;

/* Append n bytes (the buffer stays NUL-terminated). */
void pbdyn__strbuf_put(pbdyn__strbuf *o, const char *s, size_t n);

PBDYN_INLINE void pbdyn__strbuf_puts(pbdyn__strbuf *o, const char *s) {
  pbdyn__strbuf_put(o, s, strlen(s));
}

/* Two spaces per level. */
void pbdyn__strbuf_indent(pbdyn__strbuf *o, int depth);

/* Copy the text, NUL-terminated, into the arena and free the buffer. */
pbdyn_status pbdyn__strbuf_finish(pbdyn__strbuf *o, pbdyn_arena *a, char **out, size_t *size);

#endif /* PBDYN_INTERNAL_STRBUF_H */
