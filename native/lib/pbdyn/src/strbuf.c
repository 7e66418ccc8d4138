/* The text writers' growable string (internal/strbuf.h): doubled on demand
 * with realloc, copied once into the arena at the end, so that a long text
 * leaves no trail of abandoned copies in the arena. */
#include <stdlib.h>

#include "internal/strbuf.h"

/* Room for n bytes and a NUL past the text, doubling the buffer. */
static bool grow(pbdyn__strbuf *o, size_t n) {
  if (o->oom) return false;
  if (o->cap - o->len < n + 1) {
    size_t nc = o->cap ? o->cap * 2 : 1024;
    while (nc - o->len < n + 1) nc *= 2;
    char *nb = realloc(o->buf, nc);
    if (!nb) {
      o->oom = true;
      return false;
    }
    o->buf = nb;
    o->cap = nc;
  }
  return true;
}

void pbdyn__strbuf_put_slow(pbdyn__strbuf *o, const char *s, size_t n) {
  if (!grow(o, n)) return;
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->buf[o->len] = 0;
}

char *pbdyn__strbuf_reserve(pbdyn__strbuf *o, size_t n) {
  return grow(o, n) ? o->buf + o->len : NULL;
}

void pbdyn__strbuf_put_utf8(pbdyn__strbuf *o, uint32_t cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp, n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 63)), n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 63));
    u[2] = (char)(0x80 | (cp & 63)), n = 3;
  } else {
    u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 63));
    u[2] = (char)(0x80 | (cp >> 6 & 63)), u[3] = (char)(0x80 | (cp & 63)), n = 4;
  }
  pbdyn__strbuf_put(o, u, n);
}

void pbdyn__strbuf_indent(pbdyn__strbuf *o, int depth) {
  for (int i = 0; i < depth; i++) pbdyn__strbuf_put(o, "  ", 2);
}

pbdyn_status pbdyn__strbuf_finish(pbdyn__strbuf *o, pbdyn_arena *a, char **out, size_t *size) {
  char *r = o->oom ? NULL : pbdyn_arena_alloc(a, o->len + 1);
  if (r) {
    if (o->len) memcpy(r, o->buf, o->len);
    r[o->len] = 0;
    *out = r;
    *size = o->len;
  }
  free(o->buf);
  *o = (pbdyn__strbuf){NULL, 0, 0, false};
  return r ? PBDYN_OK : PBDYN_ERR_NOMEM;
}
