/* The text format read back into a message (pbdyn_text_decode), by the
 * rules of protobuf C++ 3.21's TextFormat::Parser (what `protoc --encode`
 * reads), over the tokens of text_scan.c:
 *
 *   message  := field*
 *   field    := name ':' value          a scalar (the ':' is required)
 *             | name ':'? '{' message '}'   or '<' message '>'
 *             | name ':'? '[' (v (',' v)*)? ']'   repeated fields only
 *             then an optional ';' or ','
 *
 * A name is a field's name, a group's type name (as the printer writes it),
 * or a field number: a number no field has is an unknown field, written in
 * the forms text_unknown.c prints (below). In a google.protobuf.Any, the
 * expanded form "[type.googleapis.com/pkg.T] { fields }" packs a message
 * of a type of the same schema; any other "[...]" names an extension,
 * which are not read (PBDYN_ERR_NOT_FOUND).
 * Values: integers in decimal, hex or octal with an optional '-' (in range
 * of the field's type), floats and doubles as decimal integers or floats or
 * inf, infinity, nan in any case (a float goes through a double first, as
 * in protobuf), bools as true/True/t/false/False/f/0/1, enums by name or
 * number (a closed enum's number must be defined), strings and bytes as one
 * or more adjacent quoted strings. A singular field given twice, or two
 * members of a oneof, are errors, as in protoc.
 *
 * Unknown fields, as the printer writes them: "N: 150" a varint, "N:
 * 0x0000000a" (exactly 8 hex digits) a fixed32 and 16 digits a fixed64,
 * "N: "..."" length-delimited bytes, "N { ... }" length-delimited bytes
 * that hold the block's fields, or an empty group when the block is empty
 * (an empty length-delimited value prints as ""; the printer cannot tell a
 * group with fields from a message in bytes, and this reads it as the
 * latter).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/msg.h"
#include "internal/parse_error.h"
#include "internal/text_scan.h"

typedef struct parser {
  pbdyn__text_scan s;
  pbdyn_arena *a;
  int depth;          /* message levels left below the current one */
  pbdyn_status status;
  const char *err_at; /* where the first error is */
  pbdyn__strbuf str;  /* a string value, escapes resolved */
} parser;

static bool fail_at(parser *P, pbdyn_status st, const char *at) {
  if (P->status == PBDYN_OK) {
    P->status = st;
    P->err_at = at;
  }
  return false;
}

/* Fail at the current token: a malformed one is a syntax error whatever the
 * caller expected. */
static bool fail(parser *P, pbdyn_status st) {
  return fail_at(P, P->s.tok.kind == PBDYN_TOK_BAD ? PBDYN_ERR_SYNTAX : st, P->s.tok.p);
}

static bool expect(parser *P, char c) {
  return pbdyn__text_scan_take(&P->s, c) || fail(P, PBDYN_ERR_SYNTAX);
}

static bool tok_is(const pbdyn__tok *t, const char *word) {
  return t->kind == PBDYN_TOK_IDENT && strlen(word) == t->n && !memcmp(t->p, word, t->n);
}

/* An identifier equal to word in any case (inf, Infinity, NaN...). */
static bool tok_is_nocase(const pbdyn__tok *t, const char *word) {
  if (t->kind != PBDYN_TOK_IDENT || strlen(word) != t->n) return false;
  for (size_t i = 0; i < t->n; i++)
    if ((t->p[i] | 0x20) != word[i]) return false;
  return true;
}

static const char *short_name(const pbdyn_msgdef *m) {
  const char *dot = strrchr(m->full_name, '.');
  return dot ? dot + 1 : m->full_name;
}

/* The field an identifier names: by field name, but a group by its type's
 * name only (its field name is the type's in lower case: protobuf accepts
 * neither that nor any other spelling). */
static const pbdyn_fielddef *field_named(const pbdyn_msgdef *m, const pbdyn__tok *t) {
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pbdyn_fielddef *f = &m->fields[i];
    const char *name = f->type == PBDYN_TYPE_GROUP ? short_name(f->msg) : f->name;
    if (strlen(name) == t->n && !memcmp(name, t->p, t->n)) return f;
  }
  return NULL;
}

/* ---- scalars ---------------------------------------------------------------- */

/* An integer of at most `bits` bits, signed or not, into *v (two's complement
 * for a negative one). */
static bool parse_int(parser *P, int bits, bool is_signed, uint64_t *v) {
  bool neg = is_signed && pbdyn__text_scan_take(&P->s, '-');
  uint64_t max = is_signed ? ((uint64_t)1 << (bits - 1)) - !neg
                           : bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  if (P->s.tok.kind != PBDYN_TOK_INT || !pbdyn__text_int_value(&P->s.tok, max, v))
    return fail(P, PBDYN_ERR_SYNTAX);
  if (neg) *v = 0 - *v;
  pbdyn__text_scan_next(&P->s);
  return true;
}

static bool parse_double(parser *P, double *v) {
  bool neg = pbdyn__text_scan_take(&P->s, '-');
  const pbdyn__tok *t = &P->s.tok;
  if (t->kind == PBDYN_TOK_FLOAT || (t->kind == PBDYN_TOK_INT && !pbdyn__text_int_is_radix(t)))
    *v = pbdyn__text_float_value(t);
  else if (tok_is_nocase(t, "inf") || tok_is_nocase(t, "infinity"))
    *v = INFINITY;
  else if (tok_is_nocase(t, "nan"))
    *v = NAN;
  else
    return fail(P, PBDYN_ERR_SYNTAX);
  if (neg) *v = -*v;
  pbdyn__text_scan_next(&P->s);
  return true;
}

/* One or more adjacent string tokens, into P->str. */
static bool parse_string(parser *P) {
  if (P->s.tok.kind != PBDYN_TOK_STRING) return fail(P, PBDYN_ERR_SYNTAX);
  P->str.len = 0;
  for (; P->s.tok.kind == PBDYN_TOK_STRING; pbdyn__text_scan_next(&P->s))
    pbdyn__text_string_value(&P->s.tok, &P->str);
  return !P->str.oom || fail(P, PBDYN_ERR_NOMEM);
}

static bool parse_bool(parser *P, bool *v) {
  const pbdyn__tok *t = &P->s.tok;
  uint64_t u;
  if (t->kind == PBDYN_TOK_INT && pbdyn__text_int_value(t, 1, &u)) *v = u;
  else if (tok_is(t, "true") || tok_is(t, "True") || tok_is(t, "t")) *v = true;
  else if (tok_is(t, "false") || tok_is(t, "False") || tok_is(t, "f")) *v = false;
  else return fail(P, PBDYN_ERR_SYNTAX);
  pbdyn__text_scan_next(&P->s);
  return true;
}

static bool parse_enum(parser *P, const pbdyn_enumdef *e, int32_t *v) {
  const pbdyn__tok *t = &P->s.tok;
  const char *at = t->p;
  if (t->kind == PBDYN_TOK_IDENT) {
    for (uint32_t i = 0; i < e->count; i++) {
      if (strlen(e->names[i]) == t->n && !memcmp(e->names[i], t->p, t->n)) {
        *v = e->numbers[i];
        pbdyn__text_scan_next(&P->s);
        return true;
      }
    }
    return fail(P, PBDYN_ERR_NOT_FOUND);
  }
  uint64_t u;
  if (!parse_int(P, 32, true, &u)) return false;
  *v = (int32_t)(uint32_t)u;
  if (e->closed && !pbdyn__enum_contains(e, *v)) return fail_at(P, PBDYN_ERR_NOT_FOUND, at);
  return true;
}

/* d rounded to the nearest float, as protoc does, without converting a
 * double out of float's range (undefined in C): from halfway between
 * FLT_MAX and 2^128 up it is infinite (a tie rounds to 2^128, the even
 * one), below that FLT_MAX. */
static float double_to_float(double d) {
  double mag = d < 0 ? -d : d; /* no fabs: the library needs no libm */
  if (mag <= FLT_MAX || isnan(d)) return (float)d;
  float r = mag >= 0x1.ffffffp127 ? INFINITY : FLT_MAX;
  return d < 0 ? -r : r;
}

/* A scalar of f's type into *v (strings: into P->str). */
static bool parse_scalar(parser *P, const pbdyn_fielddef *f, pbdyn_value *v) {
  uint64_t u;
  double d;
  switch (f->type) {
    case PBDYN_TYPE_BOOL: return parse_bool(P, &v->b);
    case PBDYN_TYPE_ENUM: return parse_enum(P, f->en, &v->i32);
    case PBDYN_TYPE_STRING: case PBDYN_TYPE_BYTES: return parse_string(P);
    case PBDYN_TYPE_DOUBLE: return parse_double(P, &v->d);
    case PBDYN_TYPE_FLOAT:
      if (!parse_double(P, &d)) return false;
      v->f = double_to_float(d);
      return true;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32:
      if (!parse_int(P, 32, true, &u)) return false;
      v->i32 = (int32_t)(uint32_t)u;
      return true;
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      if (!parse_int(P, 32, false, &u)) return false;
      v->u32 = (uint32_t)u;
      return true;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      return parse_int(P, 64, true, &v->u64);
    default: /* UINT64, FIXED64 */
      return parse_int(P, 64, false, &v->u64);
  }
}

/* ---- unknown fields --------------------------------------------------------- */

static void put_varint(pbdyn__strbuf *o, uint64_t v) {
  char b[10];
  size_t n = 0;
  for (; v >= 0x80; v >>= 7) b[n++] = (char)(v | 0x80);
  b[n++] = (char)v;
  pbdyn__strbuf_put(o, b, n);
}

static void put_fixed(pbdyn__strbuf *o, uint64_t v, size_t bytes) {
  char b[8];
  for (size_t i = 0; i < bytes; i++) b[i] = (char)(v >> (8 * i));
  pbdyn__strbuf_put(o, b, bytes);
}

static bool parse_unknown_value(parser *P, uint32_t number, pbdyn__strbuf *o);

/* A field number as a name: 1..2^29-1. */
static bool parse_number_name(parser *P, uint32_t *number) {
  uint64_t n;
  if (P->s.tok.kind != PBDYN_TOK_INT) return fail(P, PBDYN_ERR_SYNTAX);
  if (!pbdyn__text_int_value(&P->s.tok, (1u << 29) - 1, &n) || n == 0)
    return fail(P, PBDYN_ERR_FIELD_NUMBER);
  *number = (uint32_t)n;
  pbdyn__text_scan_next(&P->s);
  return true;
}

/* The fields of an unknown "N { ... }" block, as wire bytes into o. */
static bool parse_unknown_block(parser *P, pbdyn__strbuf *o) {
  while (!pbdyn__text_scan_at(&P->s, '}')) {
    uint32_t number;
    if (!parse_number_name(P, &number) || !parse_unknown_value(P, number, o)) return false;
    if (!pbdyn__text_scan_take(&P->s, ';')) pbdyn__text_scan_take(&P->s, ',');
  }
  pbdyn__text_scan_next(&P->s);
  return true;
}

/* An unknown field's value after its number, as wire bytes (tag first) into o. */
static bool parse_unknown_value(parser *P, uint32_t number, pbdyn__strbuf *o) {
  const pbdyn__tok *t = &P->s.tok;
  if (pbdyn__text_scan_take(&P->s, '{')) {
    if (P->depth-- == 0) return fail(P, PBDYN_ERR_DEPTH);
    pbdyn__strbuf inner = {NULL, 0, 0, false};
    bool ok = parse_unknown_block(P, &inner);
    P->depth++;
    if (ok && inner.len == 0) {
      put_varint(o, (uint64_t)number << 3 | 3);
      put_varint(o, (uint64_t)number << 3 | 4);
    } else if (ok) {
      put_varint(o, (uint64_t)number << 3 | 2);
      put_varint(o, inner.len);
      pbdyn__strbuf_put(o, inner.buf, inner.len);
    }
    if (inner.oom) o->oom = true;
    free(inner.buf);
    return ok;
  }
  if (!expect(P, ':')) return false;
  if (t->kind == PBDYN_TOK_STRING) {
    if (!parse_string(P)) return false;
    put_varint(o, (uint64_t)number << 3 | 2);
    put_varint(o, P->str.len);
    pbdyn__strbuf_put(o, P->str.buf, P->str.len);
    return true;
  }
  uint64_t v;
  size_t hex = t->kind == PBDYN_TOK_INT && t->n > 2 && (t->p[1] | 0x20) == 'x' ? t->n - 2 : 0;
  if (!parse_int(P, 64, false, &v)) return false;
  if (hex == 8 || hex == 16) {
    put_varint(o, (uint64_t)number << 3 | (hex == 8 ? 5 : 1));
    put_fixed(o, v, hex / 2);
  } else {
    put_varint(o, (uint64_t)number << 3);
    put_varint(o, v);
  }
  return true;
}

static bool parse_fields(parser *P, pbdyn_msg *msg, const pbdyn_msgdef *m, char close);

/* ---- fields ----------------------------------------------------------------- */

/* One value of f: a scalar, or a message block. */
static bool parse_value(parser *P, pbdyn_msg *msg, const pbdyn_fielddef *f) {
  const char *at = P->s.tok.p;
  bool singular = f->mode == PBDYN_MODE_SINGULAR;
  if (f->rep == PBDYN_REP_MSG) {
    char close = pbdyn__text_scan_take(&P->s, '<') ? '>' : '}';
    if (close == '}' && !expect(P, '{')) return false;
    if (P->depth-- == 0) return fail_at(P, PBDYN_ERR_DEPTH, at);
    pbdyn_msg *sub = singular ? pbdyn_msg_mutable(msg, f, P->a)
                              : pbdyn_msg_array_append_msg(msg, f, P->a);
    bool ok = sub ? parse_fields(P, sub, f->msg, close) && expect(P, close)
                  : fail_at(P, PBDYN_ERR_NOMEM, at);
    P->depth++;
    return ok;
  }
  pbdyn_value v;
  if (!parse_scalar(P, f, &v)) return false;
  pbdyn_status st;
  if (f->rep == PBDYN_REP_STR) {
    const char *data = P->str.buf ? P->str.buf : "";
    st = singular ? pbdyn_msg_set_str_copy(msg, f, data, P->str.len, P->a)
                  : pbdyn_msg_array_append_str_copy(msg, f, data, P->str.len, P->a);
  } else {
    st = singular ? pbdyn_msg_set(msg, f, v) : pbdyn_msg_array_append(msg, f, v, P->a);
  }
  return st == PBDYN_OK || fail_at(P, st, at);
}

/* A known field after its name (at `name`). */
static bool parse_field(parser *P, pbdyn_msg *msg, const pbdyn_fielddef *f, const char *name) {
  bool colon = pbdyn__text_scan_take(&P->s, ':');
  if (!colon && f->rep != PBDYN_REP_MSG) return fail(P, PBDYN_ERR_SYNTAX);
  if (f->mode != PBDYN_MODE_SINGULAR) {
    if (!pbdyn__text_scan_take(&P->s, '[')) return parse_value(P, msg, f);
    if (pbdyn__text_scan_take(&P->s, ']')) return true;
    do {
      if (!parse_value(P, msg, f)) return false;
    } while (pbdyn__text_scan_take(&P->s, ','));
    return expect(P, ']');
  }
  uint32_t other = pbdyn_msg_oneof_case(msg, f);
  if (pbdyn_msg_has(msg, f) || (other && other != f->number))
    return fail_at(P, PBDYN_ERR_SYNTAX, name); /* given twice, or another of its oneof */
  return parse_value(P, msg, f);
}

/* ---- Any, expanded --------------------------------------------------------------- */

/* The type_url and value fields if m is google.protobuf.Any. */
static bool any_fields(const pbdyn_msgdef *m, const pbdyn_fielddef **url,
                       const pbdyn_fielddef **value) {
  if (m->wkt != PBDYN_WKT_ANY) return false;
  *url = pbdyn__msgdef_find(m, 1);
  *value = pbdyn__msgdef_find(m, 2);
  return *url && *value && (*url)->type == PBDYN_TYPE_STRING &&
         (*value)->type == PBDYN_TYPE_BYTES && (*url)->mode == PBDYN_MODE_SINGULAR &&
         (*value)->mode == PBDYN_MODE_SINGULAR;
}

/* "[prefix/pkg.Type] { fields }" in an Any: the packed message parsed as its
 * type (found in m's schema), encoded into value, the url into type_url.
 * The url is read as protobuf does: dotted names around one '/', the part
 * before it type.googleapis.com or type.googleprod.com. */
static bool parse_any_expanded(parser *P, pbdyn_msg *msg, const pbdyn_msgdef *m) {
  const pbdyn_fielddef *url_f, *value_f;
  const char *at = P->s.tok.p;
  any_fields(m, &url_f, &value_f);
  pbdyn__text_scan_next(&P->s); /* '[' */
  P->str.len = 0;
  size_t slash = 0;
  for (int part = 0; part < 2; part++) { /* the prefix, then the type's full name */
    do {
      if (P->s.tok.kind != PBDYN_TOK_IDENT) return fail(P, PBDYN_ERR_SYNTAX);
      if (P->str.len && P->str.buf[P->str.len - 1] != '/') pbdyn__strbuf_put(&P->str, ".", 1);
      pbdyn__strbuf_put(&P->str, P->s.tok.p, P->s.tok.n);
      pbdyn__text_scan_next(&P->s);
    } while (pbdyn__text_scan_take(&P->s, '.'));
    if (part == 0 && !expect(P, '/')) return false;
    if (part == 0) pbdyn__strbuf_put(&P->str, "/", 1), slash = P->str.len;
  }
  if (!expect(P, ']')) return false;
  if (P->str.oom) return fail_at(P, PBDYN_ERR_NOMEM, at);
  /* protobuf knows the types of these two prefixes only */
  bool known = (slash == 20 && !memcmp(P->str.buf, "type.googleapis.com/", 20)) ||
               (slash == 20 && !memcmp(P->str.buf, "type.googleprod.com/", 20));
  const pbdyn_msgdef *packed = known ? pbdyn_schema_find(m->schema, P->str.buf + slash) : NULL;
  if (!packed) return fail_at(P, PBDYN_ERR_NOT_FOUND, at);
  if (pbdyn_msg_has(msg, url_f) || pbdyn_msg_has(msg, value_f))
    return fail_at(P, PBDYN_ERR_SYNTAX, at); /* the Any is already set */
  pbdyn_status st = pbdyn_msg_set_str_copy(msg, url_f, P->str.buf, P->str.len, P->a);
  if (st != PBDYN_OK) return fail_at(P, st, at);
  pbdyn__text_scan_take(&P->s, ':');
  char close = pbdyn__text_scan_take(&P->s, '<') ? '>' : '}';
  if (close == '}' && !expect(P, '{')) return false;
  if (P->depth-- == 0) return fail_at(P, PBDYN_ERR_DEPTH, at);
  pbdyn_msg *inner = pbdyn_msg_new(packed, P->a);
  bool ok = inner ? parse_fields(P, inner, packed, close) && expect(P, close)
                  : fail_at(P, PBDYN_ERR_NOMEM, at);
  P->depth++;
  char *bytes;
  size_t n;
  if (ok && (st = pbdyn_encode(inner, packed, P->a, &bytes, &n)) == PBDYN_OK)
    st = pbdyn_msg_set_str(msg, value_f, (pbdyn_str){bytes, n});
  return ok && (st == PBDYN_OK || fail_at(P, st, at));
}

/* ---- messages ----------------------------------------------------------------- */

/* Fields up to the symbol close (0: the end of the input), which is left
 * for the caller. */
static bool parse_fields(parser *P, pbdyn_msg *msg, const pbdyn_msgdef *m, char close) {
  for (;;) {
    const pbdyn__tok *t = &P->s.tok;
    if (close ? pbdyn__text_scan_at(&P->s, close) : t->kind == PBDYN_TOK_END) return true;
    const char *name = t->p;
    const pbdyn_fielddef *f = NULL;
    uint32_t number = 0;
    if (t->kind == PBDYN_TOK_IDENT) {
      if (!(f = field_named(m, t))) return fail(P, PBDYN_ERR_NOT_FOUND);
      pbdyn__text_scan_next(&P->s);
    } else if (t->kind == PBDYN_TOK_INT) {
      if (!parse_number_name(P, &number)) return false;
      f = pbdyn__msgdef_find(m, number);
    } else if (pbdyn__text_scan_at(&P->s, '[')) {
      const pbdyn_fielddef *url, *value; /* an expanded Any, else an extension */
      if (!any_fields(m, &url, &value)) return fail(P, PBDYN_ERR_NOT_FOUND);
      if (!parse_any_expanded(P, msg, m)) return false;
      if (!pbdyn__text_scan_take(&P->s, ';')) pbdyn__text_scan_take(&P->s, ',');
      continue;
    } else {
      return fail(P, PBDYN_ERR_SYNTAX);
    }
    if (f) {
      if (!parse_field(P, msg, f, name)) return false;
    } else {
      pbdyn__strbuf wire = {NULL, 0, 0, false};
      bool ok = parse_unknown_value(P, number, &wire);
      pbdyn_status st = wire.oom ? PBDYN_ERR_NOMEM
                        : ok     ? pbdyn__unknown_append(msg, wire.buf, wire.len, P->a)
                                 : PBDYN_OK;
      free(wire.buf);
      if (!ok || st != PBDYN_OK) return ok ? fail_at(P, st, name) : false;
    }
    if (!pbdyn__text_scan_take(&P->s, ';')) pbdyn__text_scan_take(&P->s, ',');
  }
}

pbdyn_status pbdyn_text_decode(const char *text, size_t size, pbdyn_msg *msg,
                               const pbdyn_msgdef *m, pbdyn_arena *a,
                               const pbdyn_parse_opts *opts) {
  if ((!text && size) || !msg || !a || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  int max_depth = opts ? opts->max_depth : 0;
  if (max_depth < 0 || max_depth > PBDYN_MAX_DEPTH) return PBDYN_ERR_ARG;
  if (!text) text = "";
  parser P = {.a = a, .depth = max_depth ? max_depth : 100, .status = PBDYN_OK};
  pbdyn__text_scan_init(&P.s, text, size);
  if (parse_fields(&P, msg, m, 0) && P.status == PBDYN_OK && P.str.oom)
    fail_at(&P, PBDYN_ERR_NOMEM, text + size);
  free(P.str.buf);
  if (P.status != PBDYN_OK && opts && opts->error)
    pbdyn__parse_error_locate(text, P.err_at, opts->error);
  return P.status;
}
