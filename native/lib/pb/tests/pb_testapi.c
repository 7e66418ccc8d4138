/* A few whole-operation entry points for the Python tests (ctypes): each
 * creates its arena, runs one operation and returns malloc'd bytes, so that
 * the tests never handle arena or message pointers. */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static int copy_out(const char *p, size_t n, char **out, size_t *outlen) {
  *out = malloc(n + 1);
  if (!*out) return PB_ERR_NOMEM;
  memcpy(*out, p, n);
  (*out)[n] = 0;
  *outlen = n;
  return PB_OK;
}

static int decode(const pb_schema *s, const char *type, const char *buf, size_t len,
                  int decoder, unsigned flags, pb_arena **a, pb_msg **msg,
                  const pb_msgdef **m) {
  *m = pb_schema_find(s, type);
  if (!*m) return PB_ERR_NOT_FOUND;
  *a = pb_arena_new(0);
  if (!*a) return PB_ERR_NOMEM;
  *msg = pb_msg_new(*m, *a);
  if (!*msg) return PB_ERR_NOMEM;
  pb_decode_opts o = {flags, (pb_decoder)decoder, 0};
  return pb_decode(buf, len, *msg, *m, *a, &o);
}

/* Decode buf as `type` and dump it (the dump only on success). */
int pbt_decode_dump(const pb_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, char **out, size_t *outlen) {
  pb_arena *a = NULL;
  pb_msg *msg;
  const pb_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, flags, &a, &msg, &m);
  if (st == PB_OK) {
    char *d;
    size_t n;
    st = pb_dump(msg, m, a, &d, &n);
    if (st == PB_OK) st = copy_out(d, n, out, outlen);
  }
  pb_arena_free(a);
  return st;
}

/* Decode buf as `type` and print it in the text format. */
int pbt_decode_text(const pb_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, char **out, size_t *outlen) {
  pb_arena *a = NULL;
  pb_msg *msg;
  const pb_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, flags, &a, &msg, &m);
  if (st == PB_OK) {
    char *t;
    size_t n;
    st = pb_text_encode(msg, m, a, &t, &n);
    if (st == PB_OK) st = copy_out(t, n, out, outlen);
  }
  pb_arena_free(a);
  return st;
}

/* Decode buf as `type` and print it as JSON (pb_json_encode with json_flags);
 * the decode status, else the printer's. */
int pbt_decode_json(const pb_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, unsigned json_flags, char **out,
                    size_t *outlen) {
  pb_arena *a = NULL;
  pb_msg *msg;
  const pb_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, flags, &a, &msg, &m);
  if (st == PB_OK) {
    char *t;
    size_t n;
    pb_json_opts o = {json_flags, 0};
    st = pb_json_encode(msg, m, a, &t, &n, &o);
    if (st == PB_OK) st = copy_out(t, n, out, outlen);
  }
  pb_arena_free(a);
  return st;
}

/* Decode buf as `type` and encode the result. */
int pbt_roundtrip(const pb_schema *s, const char *type, const char *buf, size_t len,
                  int decoder, unsigned flags, char **out, size_t *outlen) {
  pb_arena *a = NULL;
  pb_msg *msg;
  const pb_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, flags, &a, &msg, &m);
  if (st == PB_OK) {
    char *e;
    size_t n;
    st = pb_encode(msg, m, a, &e, &n);
    if (st == PB_OK) st = copy_out(e, n, out, outlen);
  }
  pb_arena_free(a);
  return st;
}

void pbt_free(void *p) { free(p); }
