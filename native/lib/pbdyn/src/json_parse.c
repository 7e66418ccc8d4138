/* The proto3 JSON mapping read into a message (pbdyn_json_decode), as
 * protobuf's JSON parsers read it (json_format.Parse, JsonStringToMessage):
 *
 *   {"name": value, ...}   members by JSON name or by proto field name, in
 *                          any order; a field given twice (by either name),
 *                          or two members of a oneof, is an error; null
 *                          leaves a field unset (but for Value and NullValue)
 *   [v, ...]               a repeated field
 *   {"key": v, ...}        a map: keys are strings, read as the key's type
 *
 * Values: integers as numbers or quoted numbers, integral and in range
 * ("1e3" and "1.0" are integers, "1.5" is not; no leading zeros or '+');
 * floats and doubles as numbers, quoted numbers, "NaN", "Infinity",
 * "-Infinity" (a finite number out of range is an error); bools as true
 * or false; strings; bytes as base64, standard or URL-safe, padded or not;
 * enums by name or by number (a closed enum's number must be defined).
 * Well-known types are json_parse_wkt.c's. Members that name no field are
 * PBDYN_ERR_NOT_FOUND, or skipped under PBDYN_PARSE_IGNORE_UNKNOWN.
 */
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/json_parse.h"
#include "internal/parse_error.h"

bool pbdyn__jparse_fail_at(pbdyn__jparser *J, pbdyn_status st, const char *at) {
  if (J->status == PBDYN_OK) {
    J->status = st;
    J->err_at = at;
  }
  return false;
}

bool pbdyn__jparse_fail(pbdyn__jparser *J, pbdyn_status st) {
  return pbdyn__jparse_fail_at(J, J->s.tok.kind == PBDYN_JTOK_BAD ? PBDYN_ERR_SYNTAX : st,
                               J->s.tok.p);
}

bool pbdyn__jparse_expect(pbdyn__jparser *J, char c) {
  return pbdyn__json_scan_take(&J->s, c) || pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
}

bool pbdyn__jparse_string(pbdyn__jparser *J) {
  if (J->s.tok.kind != PBDYN_JTOK_STRING) return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
  J->str.len = 0;
  pbdyn__strbuf_put(&J->str, "", 0); /* NUL-terminated even when empty */
  pbdyn__json_string_value(&J->s.tok, &J->str);
  if (J->str.oom) return pbdyn__jparse_fail(J, PBDYN_ERR_NOMEM);
  pbdyn__json_scan_next(&J->s);
  return true;
}

bool pbdyn__jparse_skip(pbdyn__jparser *J) {
  char close = pbdyn__json_scan_take(&J->s, '{')   ? '}'
               : pbdyn__json_scan_take(&J->s, '[') ? ']'
                                                   : 0;
  if (!close) {
    pbdyn__jtok_kind k = J->s.tok.kind;
    if (k != PBDYN_JTOK_STRING && k != PBDYN_JTOK_NUMBER && k != PBDYN_JTOK_TRUE &&
        k != PBDYN_JTOK_FALSE && k != PBDYN_JTOK_NULL)
      return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
    pbdyn__json_scan_next(&J->s);
    return true;
  }
  if (J->depth-- == 0) return pbdyn__jparse_fail(J, PBDYN_ERR_DEPTH);
  bool ok = true;
  if (!pbdyn__json_scan_at(&J->s, close)) {
    do {
      if (close == '}') ok = pbdyn__jparse_string(J) && pbdyn__jparse_expect(J, ':');
      ok = ok && pbdyn__jparse_skip(J);
    } while (ok && pbdyn__json_scan_take(&J->s, ','));
  }
  J->depth++;
  return ok && pbdyn__jparse_expect(J, close);
}

/* ---- scalars ---------------------------------------------------------------- */

/* The text of a number, or of a string that holds one, at the current token
 * (stepped over), NUL-terminated in J->str. */
static bool number_text(pbdyn__jparser *J) {
  const pbdyn__jtok *t = &J->s.tok;
  if (t->kind == PBDYN_JTOK_NUMBER) {
    J->str.len = 0;
    pbdyn__strbuf_put(&J->str, t->p, t->n);
    if (J->str.oom) return pbdyn__jparse_fail(J, PBDYN_ERR_NOMEM);
    pbdyn__json_scan_next(&J->s);
    return true;
  }
  const char *at = t->p;
  if (!pbdyn__jparse_string(J)) return false;
  return pbdyn__json_is_number(J->str.buf, J->str.len) ||
         pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
}

/* A double from a number's text ('.' the radix whatever the locale: the
 * text has no other, and strtod is told where it ends). */
static double number_value(const char *text) {
  char *stop;
  double d = strtod(text, &stop);
  if (*stop == '.') { /* a locale whose radix is not '.' */
    char buf[512], *dot;
    size_t n = strlen(text);
    if (n < sizeof buf && (dot = memcpy(buf, text, n + 1), strchr(buf, '.'))) {
      *dot = *localeconv()->decimal_point;
      d = strtod(buf, NULL);
    }
  }
  return d;
}

/* An integer in [lo, hi] (as signed when `is_signed`, else unsigned) into
 * *v: exact for integer text, through a double for a fraction or exponent. */
static bool parse_integer(pbdyn__jparser *J, bool is_signed, uint64_t hi, uint64_t *v) {
  const char *at = J->s.tok.p;
  if (!number_text(J)) return false;
  const char *p = J->str.buf;
  bool neg = *p == '-';
  if (!strpbrk(p, ".eE")) {
    uint64_t r = 0;
    for (p += neg; *p; p++) {
      unsigned d = (unsigned)(*p - '0');
      if (r > (UINT64_MAX - d) / 10) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
      r = r * 10 + d;
    }
    /* signed: at most hi, or hi + 1 when negative; unsigned: not negative */
    if (neg ? (!is_signed ? r != 0 : r > hi + 1) : r > hi)
      return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
    *v = neg ? 0 - r : r;
    return true;
  }
  double d = number_value(J->str.buf);
  double top = (double)hi + 1; /* 2^31, 2^32, 2^63, 2^64: exact doubles */
  double bottom = is_signed ? -top : 0;
  if (!(d >= bottom && d < top)) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  uint64_t magnitude = (uint64_t)(d < 0 ? -d : d); /* in range: the cast is defined */
  if ((double)magnitude != (d < 0 ? -d : d)) /* not integral */
    return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  *v = d < 0 ? 0 - magnitude : magnitude;
  return true;
}

static bool parse_double(pbdyn__jparser *J, bool single, double *v) {
  const pbdyn__jtok *t = &J->s.tok;
  const char *at = t->p;
  if (t->kind == PBDYN_JTOK_STRING) {
    static const char *const NAMED[] = {"\"NaN\"", "\"Infinity\"", "\"-Infinity\""};
    static const double VALUES[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
      if (t->n == strlen(NAMED[i]) && !memcmp(t->p, NAMED[i], t->n)) {
        *v = VALUES[i];
        pbdyn__json_scan_next(&J->s);
        return true;
      }
    }
  }
  if (!number_text(J)) return false;
  *v = number_value(J->str.buf);
  /* out of range: past the largest double, or what rounds to a float's infinity */
  double mag = *v < 0 ? -*v : *v;
  if (isinf(*v) || (single && mag >= 0x1.ffffffp127))
    return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  return true;
}

/* RFC 4648 base64, standard or URL-safe alphabet, '=' padding optional. */
static bool parse_bytes(pbdyn__jparser *J) {
  const char *at = J->s.tok.p;
  if (!pbdyn__jparse_string(J)) return false;
  size_t n = J->str.len, out = 0, k = 0;
  char *s = J->str.buf;
  while (n && s[n - 1] == '=' && k < 2) n--, k++;
  if (k && (n + k) % 4) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  uint32_t acc = 0;
  size_t bits = 0;
  for (size_t i = 0; i < n; i++) { /* decoded in place: the output never overtakes */
    char c = s[i];
    int d = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26
          : c >= '0' && c <= '9' ? c - '0' + 52 : c == '+' || c == '-' ? 62
          : c == '/' || c == '_' ? 63 : -1;
    if (d < 0) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
    acc = acc << 6 | (uint32_t)d;
    if ((bits += 6) >= 8) {
      bits -= 8;
      s[out++] = (char)(acc >> bits);
    }
  }
  if (n % 4 == 1) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  J->str.len = out;
  return true;
}

/* An enum by name or number; *skip when the name is unknown and ignored. */
static bool parse_enum(pbdyn__jparser *J, const pbdyn_enumdef *e, int32_t *v, bool *skip) {
  const char *at = J->s.tok.p;
  if (J->s.tok.kind == PBDYN_JTOK_NULL && e->null_value) {
    pbdyn__json_scan_next(&J->s);
    *v = 0;
    return true;
  }
  if (J->s.tok.kind == PBDYN_JTOK_STRING) {
    if (!pbdyn__jparse_string(J)) return false;
    if (pbdyn_enumdef_value_by_name(e, J->str.buf, v) == PBDYN_OK) return true;
    if (J->flags & PBDYN_PARSE_IGNORE_UNKNOWN) return *skip = true;
    return pbdyn__jparse_fail_at(J, PBDYN_ERR_NOT_FOUND, at);
  }
  uint64_t u;
  if (J->s.tok.kind != PBDYN_JTOK_NUMBER) return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
  if (!parse_integer(J, true, INT32_MAX, &u)) return false;
  *v = (int32_t)(uint32_t)u;
  return !e->closed || pbdyn__enum_contains(e, *v) ||
         pbdyn__jparse_fail_at(J, PBDYN_ERR_NOT_FOUND, at);
}

/* A scalar of f's type into *v (strings and bytes: into J->str). */
static bool parse_scalar(pbdyn__jparser *J, const pbdyn_fielddef *f, pbdyn_value *v,
                         bool *skip) {
  const pbdyn__jtok *t = &J->s.tok;
  uint64_t u;
  double d;
  switch (f->type) {
    case PBDYN_TYPE_BOOL:
      if (t->kind != PBDYN_JTOK_TRUE && t->kind != PBDYN_JTOK_FALSE)
        return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
      v->b = t->kind == PBDYN_JTOK_TRUE;
      pbdyn__json_scan_next(&J->s);
      return true;
    case PBDYN_TYPE_STRING: return pbdyn__jparse_string(J);
    case PBDYN_TYPE_BYTES: return parse_bytes(J);
    case PBDYN_TYPE_ENUM: return parse_enum(J, f->en, &v->i32, skip);
    case PBDYN_TYPE_DOUBLE: return parse_double(J, false, &v->d);
    case PBDYN_TYPE_FLOAT:
      if (!parse_double(J, true, &d)) return false;
      /* finite, below the rounding bound but past FLT_MAX: FLT_MAX (a cast out of
       * float's range is undefined) */
      v->f = d > FLT_MAX && isfinite(d) ? FLT_MAX : d < -FLT_MAX && isfinite(d) ? -FLT_MAX
                                                                               : (float)d;
      return true;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32:
      if (!parse_integer(J, true, INT32_MAX, &u)) return false;
      v->i32 = (int32_t)(uint32_t)u;
      return true;
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      if (!parse_integer(J, false, UINT32_MAX, &u)) return false;
      v->u32 = (uint32_t)u;
      return true;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      return parse_integer(J, true, INT64_MAX, &v->u64);
    default: /* UINT64, FIXED64 */
      return parse_integer(J, false, UINT64_MAX, &v->u64);
  }
}

/* ---- fields ----------------------------------------------------------------- */

bool pbdyn__jparse_value(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *f,
                         bool append) {
  const char *at = J->s.tok.p;
  if (f->rep == PBDYN_REP_MSG) {
    pbdyn_msg *sub = append ? pbdyn_msg_array_append_msg(msg, f, J->a)
                            : pbdyn_msg_mutable(msg, f, J->a);
    return sub ? pbdyn__jparse_message(J, sub, f->msg)
               : pbdyn__jparse_fail_at(J, PBDYN_ERR_NOMEM, at);
  }
  pbdyn_value v;
  bool skip = false;
  if (!parse_scalar(J, f, &v, &skip)) return false;
  if (skip) return true;
  pbdyn_status st;
  if (f->rep == PBDYN_REP_STR) {
    st = append ? pbdyn_msg_array_append_str_copy(msg, f, J->str.buf, J->str.len, J->a)
                : pbdyn_msg_set_str_copy(msg, f, J->str.buf, J->str.len, J->a);
  } else {
    st = append ? pbdyn_msg_array_append(msg, f, v, J->a) : pbdyn_msg_set(msg, f, v);
  }
  return st == PBDYN_OK || pbdyn__jparse_fail_at(J, st, at);
}

bool pbdyn__jparse_map(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *f) {
  const pbdyn_fielddef *kf = &f->msg->fields[0], *vf = &f->msg->fields[1];
  if (!pbdyn__jparse_expect(J, '{')) return false;
  if (pbdyn__json_scan_take(&J->s, '}')) return true;
  do {
    const char *at = J->s.tok.p;
    pbdyn_msg *entry = pbdyn_msg_array_append_msg(msg, f, J->a);
    if (!entry) return pbdyn__jparse_fail_at(J, PBDYN_ERR_NOMEM, at);
    if (kf->type == PBDYN_TYPE_STRING) {
      if (!pbdyn__jparse_value(J, entry, kf, false)) return false;
    } else if (kf->type == PBDYN_TYPE_BOOL) {
      if (!pbdyn__jparse_string(J)) return false;
      bool t = !strcmp(J->str.buf, "true");
      if (!t && strcmp(J->str.buf, "false")) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
      pbdyn_msg_set(entry, kf, (pbdyn_value){.b = t});
    } else { /* integers: the key is a quoted number */
      if (J->s.tok.kind != PBDYN_JTOK_STRING) return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
      if (!pbdyn__jparse_value(J, entry, kf, false)) return false;
    }
    if (!pbdyn__jparse_expect(J, ':') || !pbdyn__jparse_value(J, entry, vf, false)) return false;
  } while (pbdyn__json_scan_take(&J->s, ','));
  return pbdyn__jparse_expect(J, '}');
}

/* Whether a null for f sets something (Value, NullValue) rather than nothing. */
static bool null_is_value(const pbdyn_fielddef *f) {
  if (f->mode != PBDYN_MODE_SINGULAR) return false;
  if (f->type == PBDYN_TYPE_ENUM) return f->en->null_value;
  return f->msg && f->msg->wkt == PBDYN_WKT_VALUE;
}

/* The field a member's name names: its JSON name or its proto name. */
static const pbdyn_fielddef *field_named(const pbdyn_msgdef *m, const char *name) {
  for (uint32_t i = 0; i < m->field_count; i++)
    if (!strcmp(m->fields[i].json_name, name) || !strcmp(m->fields[i].name, name))
      return &m->fields[i];
  return NULL;
}

/* One member's value, after its ':'. */
static bool parse_member(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *f,
                         const char *name_at) {
  if (J->s.tok.kind == PBDYN_JTOK_NULL && !null_is_value(f)) {
    pbdyn__json_scan_next(&J->s);
    return true; /* the field stays unset */
  }
  uint32_t other = pbdyn_msg_oneof_case(msg, f);
  if (other && other != f->number) return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, name_at);
  if (f->mode == PBDYN_MODE_MAP) return pbdyn__jparse_map(J, msg, f);
  if (f->mode == PBDYN_MODE_SINGULAR) return pbdyn__jparse_value(J, msg, f, false);
  if (!pbdyn__jparse_expect(J, '[')) return false;
  if (pbdyn__json_scan_take(&J->s, ']')) return true;
  do {
    if (!pbdyn__jparse_value(J, msg, f, true)) return false;
  } while (pbdyn__json_scan_take(&J->s, ','));
  return pbdyn__jparse_expect(J, ']');
}

bool pbdyn__jparse_members(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m,
                           const char *skip) {
  if (pbdyn__json_scan_take(&J->s, '}')) return true;
  /* which fields were given, by either name */
  uint8_t *seen = calloc(m->field_count ? m->field_count : 1, 1);
  if (!seen) return pbdyn__jparse_fail(J, PBDYN_ERR_NOMEM);
  bool ok;
  do {
    const char *name_at = J->s.tok.p;
    if (!(ok = pbdyn__jparse_string(J) && pbdyn__jparse_expect(J, ':'))) break;
    const pbdyn_fielddef *f = field_named(m, J->str.buf);
    if (skip && !strcmp(J->str.buf, skip)) {
      ok = pbdyn__jparse_skip(J);
    } else if (!f) {
      ok = (J->flags & PBDYN_PARSE_IGNORE_UNKNOWN)
               ? pbdyn__jparse_skip(J)
               : pbdyn__jparse_fail_at(J, PBDYN_ERR_NOT_FOUND, name_at);
    } else if (seen[f - m->fields]++) {
      ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, name_at); /* given twice */
    } else {
      ok = parse_member(J, msg, f, name_at);
    }
  } while (ok && pbdyn__json_scan_take(&J->s, ','));
  free(seen);
  return ok && pbdyn__jparse_expect(J, '}');
}

bool pbdyn__jparse_message(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m) {
  if (J->depth-- == 0) return pbdyn__jparse_fail(J, PBDYN_ERR_DEPTH);
  bool done = false;
  bool ok = pbdyn__jparse_wkt(J, msg, m, &done);
  if (ok && !done) ok = pbdyn__jparse_expect(J, '{') && pbdyn__jparse_members(J, msg, m, NULL);
  J->depth++;
  return ok;
}

pbdyn_status pbdyn_json_decode(const char *json, size_t size, pbdyn_msg *msg,
                               const pbdyn_msgdef *m, pbdyn_arena *a,
                               const pbdyn_parse_opts *opts) {
  if ((!json && size) || !msg || !a || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  int max_depth = opts ? opts->max_depth : 0;
  if (max_depth < 0 || max_depth > PBDYN_MAX_DEPTH) return PBDYN_ERR_ARG;
  if (!json) json = "";
  /* the top level is not a nesting level: depth+1 levels, as the printer */
  pbdyn__jparser J = {.a = a, .flags = opts ? opts->flags : 0,
                      .depth = (max_depth ? max_depth : 100) + 1, .status = PBDYN_OK};
  pbdyn__json_scan_init(&J.s, json, size);
  if (pbdyn__jparse_message(&J, msg, m) && J.s.tok.kind != PBDYN_JTOK_END)
    pbdyn__jparse_fail(&J, PBDYN_ERR_SYNTAX); /* something after the value */
  free(J.str.buf);
  if (J.status != PBDYN_OK && opts && opts->error)
    pbdyn__parse_error_locate(json, J.err_at, opts->error);
  return J.status;
}
