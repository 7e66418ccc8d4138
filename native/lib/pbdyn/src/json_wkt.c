/* The well-known types of google/protobuf/ in their JSON forms, recognised
 * by full name where the loaded schema holds them:
 *
 *   Timestamp   "1972-01-01T10:00:20.021Z": RFC 3339 in UTC, 0, 3, 6 or 9
 *               fractional digits; years 0001..9999 only (PBDYN_ERR_JSON)
 *   Duration    "-3.100s": 0, 3, 6 or 9 fractional digits; at most 10,000
 *               years, nanos of the seconds' sign (else PBDYN_ERR_JSON)
 *   FieldMask   "fooBar,baz.quxQuux": paths in lowerCamelCase, joined
 *   Struct      an object; Value the JSON value of its kind (null when
 *               unset; a NaN or infinite number is PBDYN_ERR_JSON, as it
 *               would read back as a string); ListValue an array
 *   wrappers    the bare value of their `value` field
 *   Any         {"@type": url, fields...} with the packed message decoded
 *               as the type named after the url's last '/', found in the
 *               same schema; {"@type": url, "value": form} when that is a
 *               well-known type itself; {} when the Any is empty
 *
 * A message of one of these names whose fields are not the expected ones
 * prints as an ordinary message.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/json.h"

bool pbdyn__json_is_wkt(const pbdyn_msgdef *m) {
  return m->wkt != PBDYN_WKT_NONE;
}

/* Field `number` of m if it has the expected type and is singular (or
 * repeated, as asked), else NULL. */
static const pbdyn_fielddef *field(const pbdyn_msgdef *m, uint32_t number, pbdyn_type type,
                                   bool repeated) {
  const pbdyn_fielddef *f = pbdyn__msgdef_find(m, number);
  if (!f || f->type != type || (f->mode != PBDYN_MODE_SINGULAR) != repeated) return NULL;
  return f;
}

static void put(pbdyn__json *j, const char *s) { pbdyn__strbuf_puts(&j->o, s); }

/* ".021", ".000021", ".000000021" or nothing: the fewest groups of three. */
static void put_nanos(pbdyn__json *j, int32_t nanos) {
  char tmp[16];
  if (nanos == 0) return;
  if (nanos % 1000000 == 0) snprintf(tmp, sizeof tmp, ".%03" PRId32, nanos / 1000000);
  else if (nanos % 1000 == 0) snprintf(tmp, sizeof tmp, ".%06" PRId32, nanos / 1000);
  else snprintf(tmp, sizeof tmp, ".%09" PRId32, nanos);
  put(j, tmp);
}

/* Seconds and nanos of a Timestamp or Duration; false if m lacks them. */
static bool seconds_nanos(const pbdyn_msg *msg, const pbdyn_msgdef *m, int64_t *s, int32_t *n) {
  const pbdyn_fielddef *fs = field(m, 1, PBDYN_TYPE_INT64, false);
  const pbdyn_fielddef *fn = field(m, 2, PBDYN_TYPE_INT32, false);
  if (!fs || !fn) return false;
  *s = pbdyn_msg_get(msg, fs).i64;
  *n = pbdyn_msg_get(msg, fn).i32;
  return true;
}

/* 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, as protobuf checks. */
#define TIMESTAMP_MIN (-62135596800LL)
#define TIMESTAMP_MAX 253402300799LL
#define DURATION_MAX 315576000000LL /* 10,000 years of 365.25 days */

static void put_timestamp(pbdyn__json *j, int64_t secs, int32_t nanos) {
  if (secs < TIMESTAMP_MIN || secs > TIMESTAMP_MAX || nanos < 0 || nanos > 999999999) {
    pbdyn__json_fail(j, PBDYN_ERR_JSON);
    return;
  }
  int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) rem += 86400, days--;
  /* civil date from days since 1970-01-01 (Howard Hinnant's algorithm) */
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int day = (int)(doy - (153 * mp + 2) / 5 + 1);
  int month = (int)(mp < 10 ? mp + 3 : mp - 9);
  int64_t year = yoe + era * 400 + (month <= 2);
  char tmp[48];
  snprintf(tmp, sizeof tmp, "\"%04d-%02d-%02dT%02d:%02d:%02d", (int)year, month, day,
           (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60));
  put(j, tmp);
  put_nanos(j, nanos);
  put(j, "Z\"");
}

static void put_duration(pbdyn__json *j, int64_t secs, int32_t nanos) {
  if (secs < -DURATION_MAX || secs > DURATION_MAX || nanos < -999999999 ||
      nanos > 999999999 || (secs > 0 && nanos < 0) || (secs < 0 && nanos > 0)) {
    pbdyn__json_fail(j, PBDYN_ERR_JSON);
    return;
  }
  char tmp[32];
  bool neg = secs < 0 || nanos < 0;
  snprintf(tmp, sizeof tmp, "\"%s%" PRId64, neg ? "-" : "", neg ? -secs : secs);
  put(j, tmp);
  put_nanos(j, neg ? -nanos : nanos);
  put(j, "s\"");
}

/* "foo_bar.baz" -> "fooBar.baz"; a path that would not read back the same
 * (an upper-case letter, '_' not before a lower-case one) has no JSON form. */
static void put_field_mask(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_fielddef *paths) {
  pbdyn__strbuf camel = {NULL, 0, 0, false};
  size_t n = pbdyn_msg_array_size(msg, paths);
  for (size_t i = 0; i < n && j->status == PBDYN_OK; i++) {
    pbdyn_str p = pbdyn_msg_array_get(msg, paths, i).str;
    bool upper = false, ok = true;
    if (i) pbdyn__strbuf_put(&camel, ",", 1);
    for (size_t c = 0; c < p.size && ok; c++) {
      char ch = p.data[c];
      bool lower = ch >= 'a' && ch <= 'z';
      ok = !(ch >= 'A' && ch <= 'Z') && (!upper || lower);
      if (!ok) break;
      if (ch == '_') {
        upper = true;
        continue;
      }
      ch = upper ? (char)(ch - 'a' + 'A') : ch;
      pbdyn__strbuf_put(&camel, &ch, 1);
      upper = false;
    }
    if (!ok || upper) pbdyn__json_fail(j, PBDYN_ERR_JSON);
  }
  if (camel.oom) pbdyn__json_fail(j, PBDYN_ERR_NOMEM);
  pbdyn__json_string(j, camel.buf ? camel.buf : "", camel.len);
  free(camel.buf);
}

static void put_list_value(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_fielddef *values) {
  pbdyn__strbuf_put(&j->o, "[", 1);
  size_t n = pbdyn_msg_array_size(msg, values);
  for (size_t i = 0; i < n; i++) {
    if (i) pbdyn__strbuf_put(&j->o, ",", 1);
    pbdyn__json_msg(j, pbdyn_msg_array_get(msg, values, i).msg, values->msg);
  }
  pbdyn__strbuf_put(&j->o, "]", 1);
}

/* Value: the member of its `kind` oneof that is set (null_value 1,
 * number_value 2, string_value 3, bool_value 4, struct_value 5,
 * list_value 6); false if m is not shaped so. */
static bool put_value(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m) {
  const pbdyn_fielddef *number = field(m, 2, PBDYN_TYPE_DOUBLE, false);
  if (!number || !number->oneof_case) return false;
  uint32_t which = pbdyn_msg_oneof_case(msg, number);
  const pbdyn_fielddef *f = which ? pbdyn__msgdef_find(m, which) : NULL;
  if (!f || which == 1) {
    put(j, "null");
  } else if (which == 2) {
    double d = pbdyn_msg_get(msg, f).d;
    if (!isfinite(d)) pbdyn__json_fail(j, PBDYN_ERR_JSON);
    else pbdyn__json_double(j, d);
  } else {
    pbdyn_value v = pbdyn_msg_get(msg, f);
    pbdyn__json_value(j, f, &v);
  }
  return true;
}

static void put_any(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m,
                    const pbdyn_fielddef *url_f, const pbdyn_fielddef *value_f) {
  if (!pbdyn_msg_has(msg, url_f) && !pbdyn_msg_has(msg, value_f)) {
    put(j, "{}");
    return;
  }
  pbdyn_str url = pbdyn_msg_get(msg, url_f).str, value = pbdyn_msg_get(msg, value_f).str;
  size_t start = url.size;
  while (start > 0 && url.data[start - 1] != '/') start--;
  char name[512];
  const pbdyn_msgdef *packed = NULL;
  if (url.size && url.size - start < sizeof name) { /* url.data is NULL when empty */
    memcpy(name, url.data + start, url.size - start);
    name[url.size - start] = 0;
    packed = pbdyn_schema_find(m->schema, name);
  }
  pbdyn_msg *inner = packed ? pbdyn_msg_new(packed, j->a) : NULL;
  if (!packed || !inner) {
    pbdyn__json_fail(j, packed ? PBDYN_ERR_NOMEM : PBDYN_ERR_NOT_FOUND);
    return;
  }
  /* the packed message is one level below the Any: its own nesting gets
   * the levels that are left (at least one, so that 0 is not "default") */
  pbdyn_decode_opts opts = {0, PBDYN_DECODER_FAST, j->depth > 0 ? j->depth : 1};
  pbdyn_status st = pbdyn_decode(value.data, value.size, inner, packed, j->a, &opts);
  if (st != PBDYN_OK) {
    pbdyn__json_fail(j, st);
    return;
  }
  put(j, "{\"@type\":");
  pbdyn__json_string(j, url.data, url.size);
  if (pbdyn__json_is_wkt(packed)) {
    put(j, ",\"value\":");
    pbdyn__json_msg(j, inner, packed);
    put(j, "}");
    return;
  }
  if (j->depth-- == 0) pbdyn__json_fail(j, PBDYN_ERR_DEPTH);
  pbdyn__json_fields(j, inner, packed, false);
  j->depth++;
  put(j, "}");
}

bool pbdyn__json_wkt(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m) {
  int64_t secs;
  int32_t nanos;
  const pbdyn_fielddef *f, *g;
  switch ((pbdyn__wkt)m->wkt) {
    case PBDYN_WKT_NONE: return false;
    case PBDYN_WKT_TIMESTAMP:
      if (!seconds_nanos(msg, m, &secs, &nanos)) return false;
      put_timestamp(j, secs, nanos);
      return true;
    case PBDYN_WKT_DURATION:
      if (!seconds_nanos(msg, m, &secs, &nanos)) return false;
      put_duration(j, secs, nanos);
      return true;
    case PBDYN_WKT_FIELDMASK:
      if (!(f = field(m, 1, PBDYN_TYPE_STRING, true))) return false;
      put_field_mask(j, msg, f);
      return true;
    case PBDYN_WKT_STRUCT:
      if (!(f = pbdyn__msgdef_find(m, 1)) || f->mode != PBDYN_MODE_MAP) return false;
      pbdyn__json_map(j, f, PBDYN_CPTR_AT(msg, f->offset, pbdyn__array));
      return true;
    case PBDYN_WKT_VALUE: return put_value(j, msg, m);
    case PBDYN_WKT_LISTVALUE:
      if (!(f = field(m, 1, PBDYN_TYPE_MESSAGE, true))) return false;
      put_list_value(j, msg, f);
      return true;
    case PBDYN_WKT_WRAPPER: {
      if (!(f = pbdyn__msgdef_find(m, 1)) || f->mode != PBDYN_MODE_SINGULAR ||
          f->rep == PBDYN_REP_MSG)
        return false;
      pbdyn_value v = pbdyn_msg_get(msg, f);
      pbdyn__json_value(j, f, &v);
      return true;
    }
    case PBDYN_WKT_ANY:
      if (!(f = field(m, 1, PBDYN_TYPE_STRING, false)) ||
          !(g = field(m, 2, PBDYN_TYPE_BYTES, false)))
        return false;
      put_any(j, msg, m, f, g);
      return true;
  }
  return false;
}
