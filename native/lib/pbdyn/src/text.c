/* The text format, byte for byte as protobuf C++ 3.21's TextFormat::Print
 * writes it (and so `protoc --decode`):
 *
 *   name: value               one line per present value, fields by number
 *   name {                    a message; a group is named by its type
 *     ...                     two more spaces per level
 *   }
 *   map_field {               one entry per key, sorted by key, the last
 *     key: ...                duplicate winning, key and value always shown
 *     value: ...
 *   }
 *   then the unknown fields   (text_unknown.c)
 *
 * Values: integers in decimal, true/false, enums by the name first declared
 * for the number (else the number), strings and bytes quoted and escaped
 * (CEscape: UTF-8 as octal), floats as SimpleFtoa and doubles as SimpleDtoa
 * write them: "%.6g" (doubles "%.15g") when that reads back as the same
 * value, else "%.9g" ("%.17g"); inf, -inf and nan (any sign) by name. That
 * is not the shortest round trip: 1/3 as a double is 0.33333333333333331.
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/encode.h"
#include "internal/print.h"
#include "internal/text.h"

void pbdyn__text_escape(pbdyn__strbuf *o, const char *p, size_t n) {
  char tmp[256];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t c = (uint8_t)p[i];
    const char *named = NULL;
    switch (c) {
      case '\n': named = "\\n"; break;
      case '\r': named = "\\r"; break;
      case '\t': named = "\\t"; break;
      case '"': named = "\\\""; break;
      case '\'': named = "\\'"; break;
      case '\\': named = "\\\\"; break;
    }
    if (named) {
      tmp[k++] = named[0];
      tmp[k++] = named[1];
    } else if (c < 0x20 || c > 0x7e) {
      tmp[k++] = '\\';
      tmp[k++] = (char)('0' + (c >> 6));
      tmp[k++] = (char)('0' + ((c >> 3) & 7));
      tmp[k++] = (char)('0' + (c & 7));
    } else {
      tmp[k++] = (char)c;
    }
    if (k > sizeof tmp - 4) {
      pbdyn__strbuf_put(o, tmp, k);
      k = 0;
    }
  }
  pbdyn__strbuf_put(o, tmp, k);
}

/* printf's decimal point is the locale's: make it '.' (DelocalizeRadix). */
static void delocalize(char *s) {
  for (; *s; s++)
    if (*s == ',') *s = '.';
}

static void put_double(pbdyn__strbuf *o, double v) {
  char buf[40];
  if (isnan(v) || isinf(v)) {
    pbdyn__strbuf_puts(o, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    return;
  }
  snprintf(buf, sizeof buf, "%.*g", DBL_DIG, v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.*g", DBL_DIG + 2, v);
  delocalize(buf);
  pbdyn__strbuf_puts(o, buf);
}

static void put_float(pbdyn__strbuf *o, float v) {
  char buf[40], *end;
  if (isnan(v) || isinf(v)) {
    pbdyn__strbuf_puts(o, isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    return;
  }
  snprintf(buf, sizeof buf, "%.*g", FLT_DIG, (double)v);
  /* safe_strtof also refuses a range error, which glibc reports for every
   * inexact subnormal: 1e-45f prints as 1.40129846e-45, not 1.4013e-45. */
  int saved = errno;
  errno = 0;
  float back = strtof(buf, &end);
  if (*end || errno || back != v) snprintf(buf, sizeof buf, "%.*g", FLT_DIG + 3, (double)v);
  errno = saved;
  delocalize(buf);
  pbdyn__strbuf_puts(o, buf);
}

static void put_enum(pbdyn__strbuf *o, const pbdyn_enumdef *e, int32_t v) {
  for (uint32_t i = 0; e && i < e->count; i++) {
    if (e->numbers[i] == v) {
      pbdyn__strbuf_puts(o, e->names[i]);
      return;
    }
  }
  char tmp[16];
  pbdyn__strbuf_put(o, tmp, pbdyn__dec_i64(tmp, v));
}

static void put_scalar(pbdyn__strbuf *o, const pbdyn_fielddef *f, const void *p) {
  char tmp[32];
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float fl;
  double db;
  switch (f->type) {
    case PBDYN_TYPE_BOOL: pbdyn__strbuf_puts(o, *(const bool *)p ? "true" : "false"); return;
    case PBDYN_TYPE_ENUM: memcpy(&i32, p, 4); put_enum(o, f->en, i32); return;
    case PBDYN_TYPE_FLOAT: memcpy(&fl, p, 4); put_float(o, fl); return;
    case PBDYN_TYPE_DOUBLE: memcpy(&db, p, 8); put_double(o, db); return;
    case PBDYN_TYPE_STRING:
    case PBDYN_TYPE_BYTES: {
      const pbdyn_str *s = p;
      pbdyn__strbuf_put(o, "\"", 1);
      pbdyn__text_escape(o, s->data, s->size);
      pbdyn__strbuf_put(o, "\"", 1);
      return;
    }
    /* integers without printf: ~200 instructions a number less (callgrind) */
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32:
      memcpy(&i32, p, 4);
      pbdyn__strbuf_put(o, tmp, pbdyn__dec_i64(tmp, i32));
      return;
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      memcpy(&u32, p, 4);
      pbdyn__strbuf_put(o, tmp, pbdyn__dec_u64(tmp, u32));
      return;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      memcpy(&i64, p, 8);
      pbdyn__strbuf_put(o, tmp, pbdyn__dec_i64(tmp, i64));
      return;
    default: /* UINT64, FIXED64 */
      memcpy(&u64, p, 8);
      pbdyn__strbuf_put(o, tmp, pbdyn__dec_u64(tmp, u64));
      return;
  }
}

static void print_msg(pbdyn__strbuf *o, const pbdyn_msg *msg, const pbdyn_msgdef *m, int depth);

/* One line (or block) for one value of f, stored at p. */
static void print_value(pbdyn__strbuf *o, const pbdyn_fielddef *f, const void *p, int depth) {
  pbdyn__strbuf_indent(o, depth);
  if (f->type == PBDYN_TYPE_GROUP) { /* named by its type's short name */
    const char *dot = strrchr(f->msg->full_name, '.');
    pbdyn__strbuf_puts(o, dot ? dot + 1 : f->msg->full_name);
  } else {
    pbdyn__strbuf_puts(o, f->name);
  }
  if (f->rep != PBDYN_REP_MSG) {
    pbdyn__strbuf_put(o, ": ", 2);
    put_scalar(o, f, p);
    pbdyn__strbuf_put(o, "\n", 1);
    return;
  }
  const pbdyn_msg *sub = *(pbdyn_msg *const *)p;
  pbdyn__strbuf_puts(o, " {\n");
  if (sub) print_msg(o, sub, f->msg, depth + 1);
  pbdyn__strbuf_indent(o, depth);
  pbdyn__strbuf_puts(o, "}\n");
}

static void name(pbdyn__strbuf *o, const pbdyn_fielddef *f) { pbdyn__strbuf_puts(o, f->name); }

static const pbdyn__printer TEXT = {print_value, name};

static void print_msg(pbdyn__strbuf *o, const pbdyn_msg *msg, const pbdyn_msgdef *m, int depth) {
  pbdyn__print_fields(o, &TEXT, msg, m, depth);
  const pbdyn__unknown *u = pbdyn__msg_unknown_ptr(msg);
  if (u && u->size) pbdyn__text_unknown(o, u->data, u->size, depth);
}

pbdyn_status pbdyn_text_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a,
                               char **out, size_t *size) {
  if (!msg || !a || !out || !size || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  pbdyn__strbuf o = {NULL, 0, 0, false};
  print_msg(&o, msg, m, 0);
  return pbdyn__strbuf_finish(&o, a, out, size);
}
