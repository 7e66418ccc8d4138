/* The proto3 JSON mapping (pbdyn_json_encode), on one line with no spaces as
 * protobuf's MessageToJsonString writes it:
 *
 *   {"jsonName":value,...}     present fields by number (all fields without
 *                              presence too, under PBDYN_JSON_EMIT_DEFAULTS)
 *   [v,...]                    a repeated field
 *   {"key":v,...}              a map: keys as strings, sorted by key, the
 *                              last duplicate winning
 *
 * Values: 32-bit integers as numbers, 64-bit ones as quoted decimals, bools,
 * enums by the name first declared for the number (an undefined number as a
 * number; google.protobuf.NullValue as null), strings escaped (only '"',
 * '\\' and control characters: UTF-8 passes through), bytes as base64 with
 * padding, floats and doubles as the shortest decimal that reads back as the
 * same float or double ("%.*g" with the fewest digits, as Python's repr), or
 * "NaN", "Infinity", "-Infinity". Unknown fields are left out. Well-known
 * types are json_wkt.c's.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/double_text.h"
#include "internal/encode.h"
#include "internal/json.h"

static void put(pbdyn__json *j, const char *s) { pbdyn__strbuf_puts(&j->o, s); }

/* printf's decimal point is the locale's: make it '.'. */
static void put_number(pbdyn__json *j, char *buf) {
  for (char *s = buf; *s; s++)
    if (*s == ',') *s = '.';
  put(j, buf);
}

static bool put_nonfinite(pbdyn__json *j, double v) {
  if (isnan(v)) put(j, "\"NaN\"");
  else if (isinf(v)) put(j, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else return false;
  return true;
}

void pbdyn__json_double(pbdyn__json *j, double v) {
  if (put_nonfinite(j, v)) return;
  char g[PBDYN_DOUBLE_TEXT];
  pbdyn__strbuf_put(&j->o, g, pbdyn__double_shortest(v, g));
}

/* A float with the fewest digits from 6 up (9 always read back) that read
 * back as the same float, as protobuf's Python printer does: the shortest
 * but for subnormals (1e-45f prints as 1.4013e-45). */
static void put_float(pbdyn__json *j, float v) {
  if (put_nonfinite(j, v)) return;
  char buf[40];
  for (int digits = 6; digits <= 9; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
    if (strtof(buf, NULL) == v) break;
  }
  put_number(j, buf);
}

void pbdyn__json_string(pbdyn__json *j, const char *p, size_t n) {
  if (n && !pbdyn_utf8_valid(p, n))
    pbdyn__json_fail(j, PBDYN_ERR_UTF8); /* p may be NULL if empty */
  static const char hex[] = "0123456789abcdef";
  char tmp[256];
  size_t k = 0;
  tmp[k++] = '"';
  for (size_t i = 0; i < n; i++) {
    uint8_t c = (uint8_t)p[i];
    char named = 0;
    switch (c) {
      case '"': named = '"'; break;
      case '\\': named = '\\'; break;
      case '\b': named = 'b'; break;
      case '\f': named = 'f'; break;
      case '\n': named = 'n'; break;
      case '\r': named = 'r'; break;
      case '\t': named = 't'; break;
    }
    if (named) {
      tmp[k++] = '\\';
      tmp[k++] = named;
    } else if (c < 0x20) {
      memcpy(tmp + k, "\\u00", 4);
      tmp[k + 4] = hex[c >> 4];
      tmp[k + 5] = hex[c & 15];
      k += 6;
    } else {
      tmp[k++] = (char)c;
    }
    if (k > sizeof tmp - 8) {
      pbdyn__strbuf_put(&j->o, tmp, k);
      k = 0;
    }
  }
  tmp[k++] = '"';
  pbdyn__strbuf_put(&j->o, tmp, k);
}

/* RFC 4648 base64 with '=' padding, as the mapping asks for bytes. */
static void put_base64(pbdyn__json *j, const char *p, size_t n) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char tmp[256];
  size_t k = 0;
  tmp[k++] = '"';
  for (size_t i = 0; i < n; i += 3) {
    uint32_t w = (uint32_t)(uint8_t)p[i] << 16;
    if (i + 1 < n) w |= (uint32_t)(uint8_t)p[i + 1] << 8;
    if (i + 2 < n) w |= (uint8_t)p[i + 2];
    tmp[k++] = alphabet[w >> 18];
    tmp[k++] = alphabet[(w >> 12) & 63];
    tmp[k++] = i + 1 < n ? alphabet[(w >> 6) & 63] : '=';
    tmp[k++] = i + 2 < n ? alphabet[w & 63] : '=';
    if (k > sizeof tmp - 8) {
      pbdyn__strbuf_put(&j->o, tmp, k);
      k = 0;
    }
  }
  tmp[k++] = '"';
  pbdyn__strbuf_put(&j->o, tmp, k);
}

static void put_enum(pbdyn__json *j, const pbdyn_enumdef *e, int32_t v) {
  if (e->null_value) {
    put(j, "null");
    return;
  }
  for (uint32_t i = 0; i < e->count; i++) {
    if (e->numbers[i] == v) {
      pbdyn__strbuf_put(&j->o, "\"", 1);
      put(j, e->names[i]);
      pbdyn__strbuf_put(&j->o, "\"", 1);
      return;
    }
  }
  char tmp[16];
  pbdyn__strbuf_put(&j->o, tmp, pbdyn__dec_i64(tmp, v));
}

/* An integer or bool field's value as text in tmp (21 bytes of room): its
 * length, 0 for other types. */
static size_t integer_text(const pbdyn_fielddef *f, const void *p, char *tmp) {
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  switch (f->type) {
    case PBDYN_TYPE_BOOL:
      if (*(const bool *)p) return memcpy(tmp, "true", 4), 4;
      return memcpy(tmp, "false", 5), 5;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32:
      memcpy(&i32, p, 4);
      return pbdyn__dec_i64(tmp, i32);
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      memcpy(&u32, p, 4);
      return pbdyn__dec_u64(tmp, u32);
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      memcpy(&i64, p, 8);
      return pbdyn__dec_i64(tmp, i64);
    case PBDYN_TYPE_UINT64: case PBDYN_TYPE_FIXED64:
      memcpy(&u64, p, 8);
      return pbdyn__dec_u64(tmp, u64);
  }
  return 0;
}

static bool is_64bit(int type) {
  return type == PBDYN_TYPE_INT64 || type == PBDYN_TYPE_SINT64 || type == PBDYN_TYPE_SFIXED64 ||
         type == PBDYN_TYPE_UINT64 || type == PBDYN_TYPE_FIXED64;
}

void pbdyn__json_value(pbdyn__json *j, const pbdyn_fielddef *f, const void *p) {
  char tmp[24];
  float fl;
  double db;
  int32_t i32;
  size_t n;
  if ((n = integer_text(f, p, tmp + 1))) {
    if (!is_64bit(f->type)) {
      pbdyn__strbuf_put(&j->o, tmp + 1, n);
      return;
    }
    tmp[0] = tmp[n + 1] = '"';
    pbdyn__strbuf_put(&j->o, tmp, n + 2);
    return;
  }
  switch (f->type) {
    case PBDYN_TYPE_ENUM: memcpy(&i32, p, 4); put_enum(j, f->en, i32); return;
    case PBDYN_TYPE_FLOAT: memcpy(&fl, p, 4); put_float(j, fl); return;
    case PBDYN_TYPE_DOUBLE: memcpy(&db, p, 8); pbdyn__json_double(j, db); return;
    case PBDYN_TYPE_STRING: {
      const pbdyn_str *s = p;
      pbdyn__json_string(j, s->data, s->size);
      return;
    }
    case PBDYN_TYPE_BYTES: {
      const pbdyn_str *s = p;
      put_base64(j, s->data, s->size);
      return;
    }
    default: /* MESSAGE, GROUP */
      pbdyn__json_msg(j, *(pbdyn_msg *const *)p, f->msg);
  }
}

void pbdyn__json_map(pbdyn__json *j, const pbdyn_fielddef *f, const pbdyn__array *arr) {
  uint32_t n;
  const pbdyn_msg **ents = pbdyn__map_sorted_entries(arr, f->msg, &n);
  if (!ents) {
    pbdyn__json_fail(j, PBDYN_ERR_NOMEM);
    return;
  }
  const pbdyn_fielddef *kf = &f->msg->fields[0], *vf = &f->msg->fields[1];
  pbdyn__strbuf_put(&j->o, "{", 1);
  for (uint32_t i = 0; i < n && j->status == PBDYN_OK; i++) {
    if (i) pbdyn__strbuf_put(&j->o, ",", 1);
    const void *key = PBDYN_CPTR_AT(ents[i], kf->offset, char);
    char tmp[24];
    size_t n;
    if ((n = integer_text(kf, key, tmp + 1))) {
      tmp[0] = tmp[n + 1] = '"';
      pbdyn__strbuf_put(&j->o, tmp, n + 2);
    } else { /* STRING: the only other key type */
      const pbdyn_str *s = key;
      pbdyn__json_string(j, s->data, s->size);
    }
    pbdyn__strbuf_put(&j->o, ":", 1);
    pbdyn__json_value(j, vf, PBDYN_CPTR_AT(ents[i], vf->offset, char));
  }
  pbdyn__strbuf_put(&j->o, "}", 1);
  free(ents);
}

/* The types integer_text prints. */
static bool is_integer(int type) {
  switch (type) {
    case PBDYN_TYPE_BOOL: case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32:
    case PBDYN_TYPE_SFIXED32: case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
    case PBDYN_TYPE_UINT64: case PBDYN_TYPE_FIXED64:
      return true;
  }
  return false;
}

/* A repeated integer or bool field, written in place a chunk of elements at
 * a time with no call and no status check (its values cannot fail): the
 * packed payloads' long runs. Each element takes at most JSON_INT_WIDTH
 * bytes: a comma, two quotes and 21 characters; 8 for a bool, which is
 * copied as 8 bytes and kept as 5 or 6. */
enum { JSON_INT_WIDTH = 24, JSON_INT_CHUNK = 1024 };

static char *json_bools(char *w, const bool *b, uint32_t k, uint32_t end) {
  static const char words[2][8] = {"false", "true"};
  for (; k < end; k++) {
    *w = ',';
    w += k != 0;
    size_t t = b[k] ? 1 : 0;
    memcpy(w, words[t], 8);
    w += 5 - t;
  }
  return w;
}

static void json_integers(pbdyn__json *j, const pbdyn_fielddef *f, const pbdyn__array *arr) {
  uint32_t elem = pbdyn__rep_size(f->rep);
  bool quote = is_64bit(f->type);
  pbdyn__strbuf_put(&j->o, "[", 1);
  for (uint32_t k = 0; k < arr->size;) {
    uint32_t end = arr->size - k > JSON_INT_CHUNK ? k + JSON_INT_CHUNK : arr->size;
    char *w = pbdyn__strbuf_reserve(&j->o, (size_t)(end - k) * JSON_INT_WIDTH);
    if (!w) return; /* out of memory: the buffer remembers it */
    char *start = w;
    if (f->type == PBDYN_TYPE_BOOL) {
      w = json_bools(w, arr->data, k, end);
      k = end;
    }
    for (; k < end; k++) {
      if (k) *w++ = ',';
      if (quote) *w++ = '"';
      w += integer_text(f, (const char *)arr->data + (size_t)k * elem, w);
      if (quote) *w++ = '"';
    }
    pbdyn__strbuf_commit(&j->o, (size_t)(w - start));
  }
  pbdyn__strbuf_put(&j->o, "]", 1);
}

void pbdyn__json_fields(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m, bool first) {
  bool defaults = j->flags & PBDYN_JSON_EMIT_DEFAULTS;
  for (uint32_t i = 0; i < m->field_count && j->status == PBDYN_OK; i++) {
    const pbdyn_fielddef *f = &m->fields[i];
    const char *p = PBDYN_CPTR_AT(msg, f->offset, char);
    const pbdyn__array *arr = (const pbdyn__array *)p;
    if (f->mode == PBDYN_MODE_SINGULAR) {
      /* an absent implicit field's storage holds its zero */
      if (!pbdyn__field_present(msg, f) && !(defaults && (f->flags & PBDYN_F_IMPLICIT))) continue;
    } else if (arr->size == 0 && !defaults) {
      continue;
    }
    if (!first) pbdyn__strbuf_put(&j->o, ",", 1);
    first = false;
    const char *key = (j->flags & PBDYN_JSON_PROTO_NAMES) ? f->name : f->json_name;
    pbdyn__json_string(j, key, strlen(key));
    pbdyn__strbuf_put(&j->o, ":", 1);
    if (f->mode == PBDYN_MODE_SINGULAR) {
      pbdyn__json_value(j, f, p);
    } else if (f->mode == PBDYN_MODE_MAP) {
      pbdyn__json_map(j, f, arr);
    } else if (is_integer(f->type)) {
      json_integers(j, f, arr);
    } else {
      uint32_t elem = pbdyn__rep_size(f->rep);
      pbdyn__strbuf_put(&j->o, "[", 1);
      for (uint32_t k = 0; k < arr->size && j->status == PBDYN_OK; k++) {
        if (k) pbdyn__strbuf_put(&j->o, ",", 1);
        pbdyn__json_value(j, f, (const char *)arr->data + (size_t)k * elem);
      }
      pbdyn__strbuf_put(&j->o, "]", 1);
    }
  }
}

void pbdyn__json_msg(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m) {
  if (j->status != PBDYN_OK) return;
  if (!msg && !(msg = pbdyn_msg_new(m, j->a))) {
    pbdyn__json_fail(j, PBDYN_ERR_NOMEM);
    return;
  }
  if (j->depth-- == 0) {
    pbdyn__json_fail(j, PBDYN_ERR_DEPTH);
  } else if (!pbdyn__json_wkt(j, msg, m)) {
    pbdyn__strbuf_put(&j->o, "{", 1);
    pbdyn__json_fields(j, msg, m, true);
    pbdyn__strbuf_put(&j->o, "}", 1);
  }
  j->depth++;
}

pbdyn_status pbdyn_json_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a,
                               char **out, size_t *size, const pbdyn_json_opts *opts) {
  if (!msg || !a || !out || !size || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  int max_depth = opts ? opts->max_depth : 0;
  if (max_depth < 0 || max_depth > PBDYN_MAX_DEPTH) return PBDYN_ERR_ARG;
  /* the top level is not a nesting level: depth+1 levels as the decoder */
  pbdyn__json j = {{NULL, 0, 0, false}, a, opts ? opts->flags : 0,
               (max_depth ? max_depth : 100) + 1, PBDYN_OK};
  pbdyn__json_msg(&j, msg, m);
  if (j.status != PBDYN_OK) {
    free(j.o.buf);
    return j.status;
  }
  return pbdyn__strbuf_finish(&j.o, a, out, size);
}
