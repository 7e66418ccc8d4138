/* A few whole-operation entry points for the Python tests (ctypes): each
 * creates its arena, runs one operation and returns malloc'd bytes, so that
 * the tests never handle arena or message pointers. And one internal switch:
 * which vector kernels decode packed runs, so that every path is tested. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"

/* internal/packed_simd.h's switch, declared here: that header makes what
 * follows it hidden, and these entry points must stay visible to ctypes. */
bool pbdyn__packed_isa_force(int isa);

static int copy_out(const char *p, size_t n, char **out, size_t *outlen) {
  *out = malloc(n + 1);
  if (!*out) return PBDYN_ERR_NOMEM;
  memcpy(*out, p, n);
  (*out)[n] = 0;
  *outlen = n;
  return PBDYN_OK;
}

static int decode(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                  int decoder, unsigned flags, pbdyn_arena **a, pbdyn_msg **msg,
                  const pbdyn_msgdef **m) {
  *m = pbdyn_schema_find(s, type);
  if (!*m) return PBDYN_ERR_NOT_FOUND;
  *a = pbdyn_arena_new(0);
  if (!*a) return PBDYN_ERR_NOMEM;
  *msg = pbdyn_msg_new(*m, *a);
  if (!*msg) return PBDYN_ERR_NOMEM;
  pbdyn_decode_opts o = {flags, (pbdyn_decoder)decoder, 0};
  return pbdyn_decode(buf, len, *msg, *m, *a, &o);
}

/* What a decoded message is turned into. */
typedef enum { DUMP, TEXT, JSON, ENCODE } output;

/* Decode buf as `type` and, on success, turn it into `what` (JSON with json_flags),
 * copied into *out; the decode status, else the printer's. */
static int decode_then(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                       int decoder, unsigned flags, output what, unsigned json_flags,
                       char **out, size_t *outlen) {
  pbdyn_arena *a = NULL;
  pbdyn_msg *msg;
  const pbdyn_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, flags, &a, &msg, &m);
  if (st == PBDYN_OK) {
    char *r;
    size_t n;
    pbdyn_json_opts o = {json_flags, 0};
    switch (what) {
      case DUMP: st = pbdyn_dump(msg, m, a, &r, &n); break;
      case TEXT: st = pbdyn_text_encode(msg, m, a, &r, &n); break;
      case JSON: st = pbdyn_json_encode(msg, m, a, &r, &n, &o); break;
      case ENCODE: st = pbdyn_encode(msg, m, a, &r, &n); break;
    }
    if (st == PBDYN_OK) st = copy_out(r, n, out, outlen);
  }
  pbdyn_arena_free(a);
  return st;
}

int pbt_decode_dump(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, char **out, size_t *outlen) {
  return decode_then(s, type, buf, len, decoder, flags, DUMP, 0, out, outlen);
}

int pbt_decode_text(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, char **out, size_t *outlen) {
  return decode_then(s, type, buf, len, decoder, flags, TEXT, 0, out, outlen);
}

int pbt_decode_json(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, unsigned flags, unsigned json_flags, char **out,
                    size_t *outlen) {
  return decode_then(s, type, buf, len, decoder, flags, JSON, json_flags, out, outlen);
}

/* Decode buf as `type`; on failure *offset gets the error offset. */
int pbt_decode_offset(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                      int decoder, unsigned flags, size_t *offset) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, type);
  if (!m) return PBDYN_ERR_NOT_FOUND;
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = a ? pbdyn_msg_new(m, a) : NULL;
  pbdyn_decode_opts o = {flags, (pbdyn_decoder)decoder, 0, offset};
  int st = msg ? pbdyn_decode(buf, len, msg, m, a, &o) : PBDYN_ERR_NOMEM;
  pbdyn_arena_free(a);
  return st;
}

/* Decode buf as `type`, then rebuild its map field `field` in a new message
 * from the map API alone (iteration, then pbdyn_msg_map_set) and dump that:
 * "size N iterated M\n" and the dump. */
int pbt_map_rebuild(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                    int decoder, const char *field, char **out, size_t *outlen) {
  pbdyn_arena *a = NULL;
  pbdyn_msg *msg;
  const pbdyn_msgdef *m;
  *out = NULL;
  *outlen = 0;
  int st = decode(s, type, buf, len, decoder, 0, &a, &msg, &m);
  const pbdyn_fielddef *f = m ? pbdyn_msgdef_field_by_name(m, field) : NULL;
  if (st == PBDYN_OK && !f) st = PBDYN_ERR_NOT_FOUND;
  size_t n = 0, iterated = 0;
  pbdyn_map_iter it;
  pbdyn_msg *copy = NULL;
  if (st == PBDYN_OK) st = pbdyn_msg_map_size(msg, f, &n);
  if (st == PBDYN_OK) st = pbdyn_msg_map_iter_init(msg, f, a, &it);
  if (st == PBDYN_OK && !(copy = pbdyn_msg_new(m, a))) st = PBDYN_ERR_NOMEM;
  pbdyn_value k, v;
  while (st == PBDYN_OK && pbdyn_map_iter_next(&it, &k, &v)) {
    st = pbdyn_msg_map_set(copy, f, k, v, a);
    iterated++;
  }
  char *dump;
  size_t dump_len;
  if (st == PBDYN_OK) st = pbdyn_dump(copy, NULL, a, &dump, &dump_len);
  if (st == PBDYN_OK) {
    char head[64];
    int h = snprintf(head, sizeof head, "size %zu iterated %zu\n", n, iterated);
    char *joined = pbdyn_arena_alloc(a, (size_t)h + dump_len);
    if (!joined) st = PBDYN_ERR_NOMEM;
    else {
      memcpy(joined, head, (size_t)h);
      memcpy(joined + h, dump, dump_len);
      st = copy_out(joined, (size_t)h + dump_len, out, outlen);
    }
  }
  pbdyn_arena_free(a);
  return st;
}

/* Decode buf as `type`, then delete from its map field `field` each key
 * that field has in `keys` (a message of the same type) and encode the
 * result; counts[] gets the keys deleted, the keys absent, then the map's
 * size and the number of keys its iteration yields after the deletes. */
int pbt_map_delete(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                   int decoder, const char *field, const char *keys, size_t keys_len,
                   char **out, size_t *outlen, size_t counts[4]) {
  pbdyn_arena *a = NULL;
  pbdyn_msg *msg, *key_msg = NULL;
  const pbdyn_msgdef *m;
  *out = NULL;
  *outlen = 0;
  memset(counts, 0, 4 * sizeof *counts);
  int st = decode(s, type, buf, len, decoder, 0, &a, &msg, &m);
  const pbdyn_fielddef *f = m ? pbdyn_msgdef_field_by_name(m, field) : NULL;
  if (st == PBDYN_OK && !f) st = PBDYN_ERR_NOT_FOUND;
  if (st == PBDYN_OK && !(key_msg = pbdyn_msg_new(m, a))) st = PBDYN_ERR_NOMEM;
  if (st == PBDYN_OK) st = pbdyn_decode(keys, keys_len, key_msg, m, a, NULL);
  pbdyn_map_iter it;
  pbdyn_value k, v;
  if (st == PBDYN_OK) st = pbdyn_msg_map_iter_init(key_msg, f, a, &it);
  while (st == PBDYN_OK && pbdyn_map_iter_next(&it, &k, &v)) {
    bool deleted = false;
    st = pbdyn_msg_map_delete(msg, f, k, &deleted);
    counts[deleted ? 0 : 1]++;
  }
  if (st == PBDYN_OK) st = pbdyn_msg_map_size(msg, f, &counts[2]);
  if (st == PBDYN_OK) st = pbdyn_msg_map_iter_init(msg, f, a, &it);
  while (st == PBDYN_OK && pbdyn_map_iter_next(&it, &k, &v)) counts[3]++;
  char *r;
  size_t n;
  if (st == PBDYN_OK) st = pbdyn_encode(msg, m, a, &r, &n);
  if (st == PBDYN_OK) st = copy_out(r, n, out, outlen);
  pbdyn_arena_free(a);
  return st;
}

/* Each value of enum `name`: "NAME=NUMBER by_name=N by_number=FIRST_NAME\n". */
int pbt_enum_listing(const pbdyn_schema *s, const char *name, char **out, size_t *outlen) {
  const pbdyn_enumdef *e = pbdyn_schema_find_enum(s, name);
  *out = NULL;
  *outlen = 0;
  if (!e) return PBDYN_ERR_NOT_FOUND;
  size_t cap = 256, used = 0;
  char *text = malloc(cap);
  for (size_t i = 0; text && i < pbdyn_enumdef_value_count(e); i++) {
    const char *vname;
    int32_t v, by_name = 0;
    if (pbdyn_enumdef_value(e, i, &vname, &v) != PBDYN_OK ||
        pbdyn_enumdef_value_by_name(e, vname, &by_name) != PBDYN_OK) {
      free(text);
      return PBDYN_ERR_ARG;
    }
    const char *first = pbdyn_enumdef_value_name(e, v);
    size_t need = strlen(vname) + strlen(first) + 64;
    if (cap - used < need) {
      char *grown = realloc(text, cap = 2 * cap + need);
      if (!grown) free(text);
      text = grown;
      if (!text) break;
    }
    used += (size_t)sprintf(text + used, "%s=%d by_name=%d by_number=%s\n", vname, (int)v,
                            (int)by_name, first);
  }
  if (!text) return PBDYN_ERR_NOMEM;
  int st = copy_out(text, used, out, outlen);
  free(text);
  return st;
}

/* Decode buf as `type` and encode the result. */
int pbt_roundtrip(const pbdyn_schema *s, const char *type, const char *buf, size_t len,
                  int decoder, unsigned flags, char **out, size_t *outlen) {
  return decode_then(s, type, buf, len, decoder, flags, ENCODE, 0, out, outlen);
}

void pbt_free(void *p) { free(p); }

/* Parse text as `type` (pbdyn_text_decode, or pbdyn_json_decode with
 * PBDYN_PARSE_* flags) and encode the result; on failure err[0..3) gets the
 * error's offset, line and column. */
static int parse_to_binary(const pbdyn_schema *s, const char *type, const char *text,
                           size_t len, bool json, unsigned flags, char **out, size_t *outlen,
                           size_t err[3]) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, type);
  *out = NULL;
  *outlen = 0;
  if (!m) return PBDYN_ERR_NOT_FOUND;
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = a ? pbdyn_msg_new(m, a) : NULL;
  pbdyn_parse_error e = {PBDYN_NO_OFFSET, 0, 0};
  pbdyn_parse_opts o = {flags, 0, &e};
  int st = !msg ? PBDYN_ERR_NOMEM
           : json ? pbdyn_json_decode(text, len, msg, m, a, &o)
                  : pbdyn_text_decode(text, len, msg, m, a, &o);
  char *r;
  size_t n;
  if (st == PBDYN_OK) st = pbdyn_encode(msg, m, a, &r, &n);
  if (st == PBDYN_OK) st = copy_out(r, n, out, outlen);
  err[0] = e.offset;
  err[1] = e.line;
  err[2] = e.column;
  pbdyn_arena_free(a);
  return st;
}

int pbt_text_to_binary(const pbdyn_schema *s, const char *type, const char *text, size_t len,
                       char **out, size_t *outlen, size_t err[3]) {
  return parse_to_binary(s, type, text, len, false, 0, out, outlen, err);
}

int pbt_json_to_binary(const pbdyn_schema *s, const char *type, const char *json, size_t len,
                       unsigned flags, char **out, size_t *outlen, size_t err[3]) {
  return parse_to_binary(s, type, json, len, true, flags, out, outlen, err);
}

/* Decode packed runs with the kernels of `isa` (-1 auto, 0 portable, 1 AVX2,
 * 2 AVX-512) from now on: 1, or 0 if this CPU cannot run them. */
int pbt_packed_isa_force(int isa) { return pbdyn__packed_isa_force(isa); }
