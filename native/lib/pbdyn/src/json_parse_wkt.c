/* The well-known types read from their JSON forms (the printer's forms,
 * json_wkt.c, and what protobuf's parsers also accept):
 *
 *   Timestamp   "1972-01-01T10:00:20.021Z": RFC 3339, 'T' and 'Z' upper
 *               case, 0 to 9 fractional digits, "Z" or an offset "+01:00";
 *               0001-01-01 to 9999-12-31 in UTC
 *   Duration    "-3.100s": 0 to 9 fractional digits, at most 10,000 years
 *   FieldMask   "fooBar,baz.quxQuux": paths in lowerCamelCase ('_' refused),
 *               stored in snake_case; "" is no path, and "a," "a" and ""
 *   Struct      an object; Value any JSON value; ListValue an array
 *   wrappers    the bare value of their `value` field
 *   Any         {"@type": url, fields...} in any member order, the packed
 *               type found in the same schema by the url's last part;
 *               {"@type": url, "value": form} for a well-known packed type;
 *               {} for an empty Any
 *
 * A message of one of these names whose fields are not the expected ones
 * is read as an ordinary message, as the printer prints it.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/json.h"
#include "internal/json_parse.h"

/* Field `number` of m if it has the expected type and is singular (or
 * repeated, as asked), else NULL. */
static const pbdyn_fielddef *field(const pbdyn_msgdef *m, uint32_t number, pbdyn_type type,
                                   bool repeated) {
  const pbdyn_fielddef *f = pbdyn__msgdef_find(m, number);
  if (!f || f->type != type || (f->mode != PBDYN_MODE_SINGULAR) != repeated) return NULL;
  return f;
}

#define TIMESTAMP_MIN (-62135596800LL) /* 0001-01-01T00:00:00Z */
#define TIMESTAMP_MAX 253402300799LL   /* 9999-12-31T23:59:59Z */
#define DURATION_MAX 315576000000LL    /* 10,000 years of 365.25 days */

/* n decimal digits at *p (all present), advancing *p; -1 if one is not. */
static long digits(const char **p, const char *end, int n) {
  long v = 0;
  for (int i = 0; i < n; i++, (*p)++) {
    if (*p == end || **p < '0' || **p > '9') return -1;
    v = v * 10 + (**p - '0');
  }
  return v;
}

/* ".d{1,9}" at *p, if there, as nanoseconds; -1 if malformed. */
static long fraction(const char **p, const char *end) {
  if (*p == end || **p != '.') return 0;
  long nanos = 0;
  int n = 0;
  for ((*p)++; *p < end && **p >= '0' && **p <= '9' && n < 9; (*p)++, n++)
    nanos = nanos * 10 + (**p - '0');
  if (n == 0 || (*p < end && **p >= '0' && **p <= '9')) return -1;
  while (n++ < 9) nanos *= 10;
  return nanos;
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long long days_from_civil(long long y, long m, long d) {
  y -= m <= 2;
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static bool parse_timestamp(const char *s, size_t n, int64_t *secs, int32_t *nanos) {
  const char *p = s, *end = s + n;
  long y = digits(&p, end, 4);
  if (y < 1 || p == end || *p++ != '-') return false;
  long mo = digits(&p, end, 2);
  if (mo < 1 || mo > 12 || p == end || *p++ != '-') return false;
  long d = digits(&p, end, 2);
  static const int MDAYS[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (d < 1 || d > MDAYS[mo - 1] - (mo == 2 && !leap) || p == end || *p++ != 'T') return false;
  long h = digits(&p, end, 2);
  if (h < 0 || h > 23 || p == end || *p++ != ':') return false;
  long mi = digits(&p, end, 2);
  if (mi < 0 || mi > 59 || p == end || *p++ != ':') return false;
  long sec = digits(&p, end, 2);
  long ns = fraction(&p, end);
  if (sec < 0 || sec > 59 || ns < 0 || p == end) return false;
  long offset = 0;
  if (*p == 'Z') {
    p++;
  } else if (*p == '+' || *p == '-') {
    int sign = *p++ == '-' ? -1 : 1;
    long oh = digits(&p, end, 2);
    if (oh < 0 || oh > 23 || p == end || *p++ != ':') return false;
    long om = digits(&p, end, 2);
    if (om < 0 || om > 59) return false;
    offset = sign * (oh * 3600 + om * 60);
  } else {
    return false;
  }
  long long t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
  if (p != end || t < TIMESTAMP_MIN || t > TIMESTAMP_MAX) return false;
  *secs = t;
  *nanos = (int32_t)ns;
  return true;
}

static bool parse_duration(const char *s, size_t n, int64_t *secs, int32_t *nanos) {
  const char *p = s, *end = s + n;
  bool neg = p < end && *p == '-';
  p += neg;
  int64_t v = 0;
  const char *first = p;
  for (; p < end && *p >= '0' && *p <= '9'; p++) {
    if (v > DURATION_MAX) return false; /* and stop before it can overflow */
    v = v * 10 + (*p - '0');
  }
  long ns = fraction(&p, end);
  if (p == first || ns < 0 || end - p != 1 || *p != 's' || v > DURATION_MAX) return false;
  *secs = neg ? -v : v;
  *nanos = (int32_t)(neg ? -ns : ns);
  return true;
}

/* Seconds and nanos fields of a Timestamp or Duration, from its string. */
static bool parse_seconds_nanos(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *fs,
                                const pbdyn_fielddef *fn, bool timestamp) {
  const char *at = J->s.tok.p;
  int64_t secs;
  int32_t nanos;
  if (!pbdyn__jparse_string(J)) return false;
  if (!(timestamp ? parse_timestamp : parse_duration)(J->str.buf, J->str.len, &secs, &nanos))
    return pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
  pbdyn_msg_set(msg, fs, (pbdyn_value){.i64 = secs});
  pbdyn_msg_set(msg, fn, (pbdyn_value){.i32 = nanos});
  return true;
}

/* "fooBar,baz" -> paths "foo_bar", "baz". */
static bool parse_field_mask(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *paths) {
  const char *at = J->s.tok.p;
  if (!pbdyn__jparse_string(J)) return false;
  pbdyn__strbuf snake = {NULL, 0, 0, false};
  const char *p = J->str.buf, *end = p + J->str.len;
  bool ok = true;
  /* "" is no path; "a," is "a" and "": split as protobuf splits */
  for (bool more = p < end; ok && more;) {
    snake.len = 0;
    for (; p < end && *p != ','; p++) {
      char c = *p;
      if (c == '_') ok = false;
      if (c >= 'A' && c <= 'Z') {
        char lower[2] = {'_', (char)(c - 'A' + 'a')};
        pbdyn__strbuf_put(&snake, lower, 2);
      } else {
        pbdyn__strbuf_put(&snake, &c, 1);
      }
    }
    if ((more = p < end)) p++; /* the ',' */
    if (snake.oom) ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_NOMEM, at);
    else if (!ok) ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at);
    else if (pbdyn_msg_array_append_str_copy(msg, paths, snake.buf ? snake.buf : "", snake.len,
                                             J->a))
      ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_NOMEM, at);
  }
  free(snake.buf);
  return ok;
}

/* Value: the member of its kind oneof that the JSON value's kind says. */
static bool parse_value(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m) {
  static const struct { pbdyn__jtok_kind kind; uint32_t number; } KINDS[] = {
      {PBDYN_JTOK_NULL, 1}, {PBDYN_JTOK_NUMBER, 2}, {PBDYN_JTOK_STRING, 3},
      {PBDYN_JTOK_TRUE, 4}, {PBDYN_JTOK_FALSE, 4}};
  uint32_t number = pbdyn__json_scan_at(&J->s, '{') ? 5 : pbdyn__json_scan_at(&J->s, '[') ? 6 : 0;
  for (size_t i = 0; i < sizeof KINDS / sizeof *KINDS && !number; i++)
    if (J->s.tok.kind == KINDS[i].kind) number = KINDS[i].number;
  const pbdyn_fielddef *f = number ? pbdyn__msgdef_find(m, number) : NULL;
  if (!f) return pbdyn__jparse_fail(J, PBDYN_ERR_SYNTAX);
  return pbdyn__jparse_value(J, msg, f, false);
}

static bool parse_list_value(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *values) {
  if (!pbdyn__jparse_expect(J, '[')) return false;
  if (pbdyn__json_scan_take(&J->s, ']')) return true;
  do {
    if (!pbdyn__jparse_value(J, msg, values, true)) return false;
  } while (pbdyn__json_scan_take(&J->s, ','));
  return pbdyn__jparse_expect(J, ']');
}

/* The "@type" of the Any object whose members start at the current token,
 * copied into *url (malloc'd); the scanner is left where it was. */
static bool find_type_url(pbdyn__jparser *J, char **url, size_t *n) {
  pbdyn__json_scan start = J->s;
  bool ok = true;
  *url = NULL;
  do {
    if (!(ok = pbdyn__jparse_string(J) && pbdyn__jparse_expect(J, ':'))) break;
    const char *at = J->s.tok.p;
    if (strcmp(J->str.buf, "@type")) {
      ok = pbdyn__jparse_skip(J);
    } else if (*url) {
      ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, at); /* "@type" twice */
    } else if ((ok = pbdyn__jparse_string(J))) {
      *n = J->str.len;
      if (!(*url = malloc(*n + 1))) ok = pbdyn__jparse_fail(J, PBDYN_ERR_NOMEM);
      else memcpy(*url, J->str.buf, *n + 1);
    }
  } while (ok && pbdyn__json_scan_take(&J->s, ','));
  ok = ok && pbdyn__jparse_expect(J, '}');
  if (ok && !*url) ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_SYNTAX, start.tok.p);
  if (!ok) free(*url);
  J->s = start;
  return ok;
}

/* The members of an Any holding a well-known type: "@type" and "value". */
static bool parse_any_wkt_members(pbdyn__jparser *J, pbdyn_msg *inner,
                                  const pbdyn_msgdef *packed) {
  bool ok = true;
  do {
    const char *name_at = J->s.tok.p;
    if (!(ok = pbdyn__jparse_string(J) && pbdyn__jparse_expect(J, ':'))) break;
    if (!strcmp(J->str.buf, "@type")) ok = pbdyn__jparse_skip(J);
    else if (!strcmp(J->str.buf, "value")) ok = pbdyn__jparse_message(J, inner, packed);
    else ok = pbdyn__jparse_fail_at(J, PBDYN_ERR_NOT_FOUND, name_at);
  } while (ok && pbdyn__json_scan_take(&J->s, ','));
  return ok && pbdyn__jparse_expect(J, '}');
}

static bool parse_any(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m,
                      const pbdyn_fielddef *url_f, const pbdyn_fielddef *value_f) {
  const char *at = J->s.tok.p;
  if (!pbdyn__jparse_expect(J, '{')) return false;
  if (pbdyn__json_scan_take(&J->s, '}')) return true; /* an empty Any */
  char *url;
  size_t n;
  if (!find_type_url(J, &url, &n)) return false;
  const char *name = strrchr(url, '/');
  const pbdyn_msgdef *packed = pbdyn_schema_find(m->schema, name ? name + 1 : url);
  pbdyn_msg *inner = packed ? pbdyn_msg_new(packed, J->a) : NULL;
  pbdyn_status st = !packed ? PBDYN_ERR_NOT_FOUND : !inner ? PBDYN_ERR_NOMEM : PBDYN_OK;
  if (st == PBDYN_OK) st = pbdyn_msg_set_str_copy(msg, url_f, url, n, J->a);
  free(url);
  if (st != PBDYN_OK) return pbdyn__jparse_fail_at(J, st, at);
  bool ok;
  if (pbdyn__json_is_wkt(packed)) {
    ok = parse_any_wkt_members(J, inner, packed);
  } else {
    /* the packed message's fields are one level below the Any */
    ok = J->depth-- == 0 ? pbdyn__jparse_fail_at(J, PBDYN_ERR_DEPTH, at)
                         : pbdyn__jparse_members(J, inner, packed, "@type");
    J->depth++;
  }
  char *bytes;
  if (ok && (st = pbdyn_encode(inner, packed, J->a, &bytes, &n)) == PBDYN_OK)
    st = pbdyn_msg_set_str(msg, value_f, (pbdyn_str){bytes, n});
  return ok && (st == PBDYN_OK || pbdyn__jparse_fail_at(J, st, at));
}

bool pbdyn__jparse_wkt(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m, bool *done) {
  const pbdyn_fielddef *f, *g;
  *done = true;
  switch ((pbdyn__wkt)m->wkt) {
    case PBDYN_WKT_TIMESTAMP:
    case PBDYN_WKT_DURATION:
      f = field(m, 1, PBDYN_TYPE_INT64, false);
      g = field(m, 2, PBDYN_TYPE_INT32, false);
      if (!f || !g) break;
      return parse_seconds_nanos(J, msg, f, g, m->wkt == PBDYN_WKT_TIMESTAMP);
    case PBDYN_WKT_FIELDMASK:
      if (!(f = field(m, 1, PBDYN_TYPE_STRING, true))) break;
      return parse_field_mask(J, msg, f);
    case PBDYN_WKT_STRUCT:
      if (!(f = pbdyn__msgdef_find(m, 1)) || f->mode != PBDYN_MODE_MAP) break;
      return pbdyn__jparse_map(J, msg, f);
    case PBDYN_WKT_VALUE:
      if (!(f = field(m, 2, PBDYN_TYPE_DOUBLE, false)) || !f->oneof_case) break;
      return parse_value(J, msg, m);
    case PBDYN_WKT_LISTVALUE:
      if (!(f = field(m, 1, PBDYN_TYPE_MESSAGE, true))) break;
      return parse_list_value(J, msg, f);
    case PBDYN_WKT_WRAPPER:
      if (!(f = pbdyn__msgdef_find(m, 1)) || f->mode != PBDYN_MODE_SINGULAR ||
          f->rep == PBDYN_REP_MSG)
        break;
      return pbdyn__jparse_value(J, msg, f, false);
    case PBDYN_WKT_ANY:
      if (!(f = field(m, 1, PBDYN_TYPE_STRING, false)) ||
          !(g = field(m, 2, PBDYN_TYPE_BYTES, false)))
        break;
      return parse_any(J, msg, m, f, g);
    case PBDYN_WKT_NONE: break;
  }
  *done = false;
  return true;
}
