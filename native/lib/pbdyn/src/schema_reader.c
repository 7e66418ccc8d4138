/* Bootstrap reader of descriptor.proto messages.
 *
 * Loading a schema means parsing a FileDescriptorSet, itself a protobuf
 * message; the library's own decoder needs a compiled schema first, so this
 * file is a small hand-written protobuf reader for the few descriptor fields
 * that shape decoding (names, numbers, labels, types, oneofs, map entries,
 * packed options, defaults, syntax). Every other field is skipped. Any
 * malformation is PBDYN_ERR_SCHEMA; reads are bounds-checked byte by byte (the
 * input is small and read once, so speed does not matter here).
 */
#include <string.h>

#include "internal/arena.h"
#include "internal/schema_raw.h"

typedef struct rd {
  const char *p, *end;
  bool bad; /* set by rd_next on a malformed tag */
} rd;

#define RD_MAX_DEPTH 64
#define E PBDYN_ERR_SCHEMA

static bool rd_varint(rd *r, uint64_t *v) {
  uint64_t x = 0;
  for (int i = 0; i < 10; i++) {
    if (r->p >= r->end) return false;
    uint8_t b = (uint8_t)*r->p++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* A length-delimited value of wire type wt as a sub-reader. */
static pbdyn_status rd_sub(rd *r, int wt, rd *sub) {
  uint64_t n;
  if (wt != 2 || !rd_varint(r, &n) || n > (uint64_t)(r->end - r->p)) return E;
  sub->p = r->p;
  sub->end = r->p + n;
  sub->bad = false;
  r->p += n;
  return PBDYN_OK;
}

static pbdyn_status rd_skip_depth(rd *r, int wt, uint32_t fnum, int depth) {
  uint64_t v;
  rd sub;
  switch (wt) {
    case 0: return rd_varint(r, &v) ? PBDYN_OK : E;
    case 1:
    case 5: {
      int n = wt == 1 ? 8 : 4;
      if (r->end - r->p < n) return E;
      r->p += n;
      return PBDYN_OK;
    }
    case 2: return rd_sub(r, wt, &sub);
    case 3:
      if (depth > RD_MAX_DEPTH) return E;
      for (;;) {
        uint64_t tag;
        if (!rd_varint(r, &tag) || tag > UINT32_MAX) return E;
        if ((tag & 7) == 4) return (tag >> 3) == fnum ? PBDYN_OK : E;
        pbdyn_status st = rd_skip_depth(r, (int)(tag & 7), (uint32_t)(tag >> 3), depth + 1);
        if (st) return st;
      }
    default: return E;
  }
}

static pbdyn_status rd_skip(rd *r, int wt, uint32_t fnum) {
  return rd_skip_depth(r, wt, fnum, 0);
}

/* The next field's number and wire type; false at the end of r or on a
 * malformed tag (then r->bad). */
static bool rd_next(rd *r, uint32_t *fnum, int *wt) {
  if (r->p >= r->end) return false;
  uint64_t tag;
  if (!rd_varint(r, &tag) || tag > UINT32_MAX || (tag >> 3) == 0) {
    r->bad = true;
    return false;
  }
  *fnum = (uint32_t)(tag >> 3);
  *wt = (int)(tag & 7);
  return true;
}

/* A string field, copied NUL-terminated into the arena. */
static pbdyn_status rd_string(rd *r, int wt, pbdyn_arena *a, const char **out, size_t *len) {
  rd s;
  if (rd_sub(r, wt, &s)) return E;
  size_t n = (size_t)(s.end - s.p);
  char *c = pbdyn_arena_alloc(a, n + 1);
  if (!c) return PBDYN_ERR_NOMEM;
  memcpy(c, s.p, n);
  c[n] = 0;
  *out = c;
  if (len) *len = n;
  return PBDYN_OK;
}

static pbdyn_status rd_int(rd *r, int wt, int64_t *out) {
  uint64_t v;
  if (wt != 0 || !rd_varint(r, &v)) return E;
  *out = (int64_t)v;
  return PBDYN_OK;
}

/* Append one zeroed element to an arena vector, doubling its capacity. */
static void *vec_push(pbdyn_arena *a, void **data, size_t *n, size_t *cap, size_t elem) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 4;
    void *nd = pbdyn_arena_alloc(a, nc * elem);
    if (!nd) return NULL;
    if (*n) memcpy(nd, *data, *n * elem);
    *data = nd;
    *cap = nc;
  }
  void *e = (char *)*data + (*n)++ * elem;
  memset(e, 0, elem);
  return e;
}

#define VEC_PUSH(a, arr, n, cap) vec_push(a, (void **)&(arr), &(n), &(cap), sizeof *(arr))

/* The end of a field loop: PBDYN_OK if r was read to its end. */
static pbdyn_status rd_end(const rd *r, pbdyn_status st) {
  if (st) return st;
  return r->bad ? E : PBDYN_OK;
}

/* FieldOptions: packed (2). */
static pbdyn_status read_field_options(rd *r, pbdyn__raw_field *f) {
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    int64_t v = 0;
    if (fnum == 2 && !(st = rd_int(r, wt, &v))) f->packed = (int8_t)(v != 0);
    else if (fnum != 2) st = rd_skip(r, wt, fnum);
  }
  return rd_end(r, st);
}

/* FieldDescriptorProto. */
static pbdyn_status read_field(rd *r, pbdyn__raw_field *f, pbdyn_arena *a) {
  f->oneof_index = -1;
  f->packed = -1;
  f->label = 1;
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    int64_t v = 0;
    rd sub;
    switch (fnum) {
      case 1: st = rd_string(r, wt, a, &f->name, NULL); break;
      case 3: st = rd_int(r, wt, &f->number); break;
      case 4: st = rd_int(r, wt, &v), f->label = (int32_t)v; break;
      case 5: st = rd_int(r, wt, &v), f->type = (int32_t)v; break;
      case 6: st = rd_string(r, wt, a, &f->type_name, NULL); break;
      case 7: st = rd_string(r, wt, a, &f->default_value, &f->default_len); break;
      case 8: st = rd_sub(r, wt, &sub); if (!st) st = read_field_options(&sub, f); break;
      case 9: st = rd_int(r, wt, &v), f->oneof_index = (int32_t)v; break;
      case 10: st = rd_string(r, wt, a, &f->json_name, NULL); break;
      case 17: st = rd_int(r, wt, &v), f->proto3_optional = v != 0; break;
      default: st = rd_skip(r, wt, fnum);
    }
  }
  st = rd_end(r, st);
  return st ? st : f->name ? PBDYN_OK : E;
}

/* EnumValueDescriptorProto. */
static pbdyn_status read_enum_value(rd *r, pbdyn__raw_enumval *ev, pbdyn_arena *a) {
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    int64_t v = 0;
    if (fnum == 1) st = rd_string(r, wt, a, &ev->name, NULL);
    else if (fnum == 2) st = rd_int(r, wt, &v), ev->number = (int32_t)v;
    else st = rd_skip(r, wt, fnum);
  }
  st = rd_end(r, st);
  return st ? st : ev->name ? PBDYN_OK : E;
}

/* EnumDescriptorProto. */
static pbdyn_status read_enum(rd *r, pbdyn__raw_enum *e, pbdyn_arena *a) {
  size_t cap = 0;
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    rd sub;
    if (fnum == 1) {
      st = rd_string(r, wt, a, &e->name, NULL);
    } else if (fnum == 2) {
      pbdyn__raw_enumval *ev = VEC_PUSH(a, e->values, e->value_count, cap);
      if (!ev) return PBDYN_ERR_NOMEM;
      if (!(st = rd_sub(r, wt, &sub))) st = read_enum_value(&sub, ev, a);
    } else {
      st = rd_skip(r, wt, fnum);
    }
  }
  st = rd_end(r, st);
  return st ? st : e->name ? PBDYN_OK : E;
}

/* MessageOptions: map_entry (7). */
static pbdyn_status read_msg_options(rd *r, pbdyn__raw_msg *m) {
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    int64_t v = 0;
    if (fnum == 7 && !(st = rd_int(r, wt, &v))) m->map_entry = v != 0;
    else if (fnum != 7) st = rd_skip(r, wt, fnum);
  }
  return rd_end(r, st);
}

/* OneofDescriptorProto: name (1). */
static pbdyn_status read_oneof(rd *r, const char **name, pbdyn_arena *a) {
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt))
    st = fnum == 1 ? rd_string(r, wt, a, name, NULL) : rd_skip(r, wt, fnum);
  st = rd_end(r, st);
  return st ? st : *name ? PBDYN_OK : E;
}

/* DescriptorProto. */
static pbdyn_status read_msg(rd *r, pbdyn__raw_msg *m, pbdyn_arena *a, int depth) {
  if (depth > RD_MAX_DEPTH) return E;
  size_t fcap = 0, ncap = 0, ecap = 0, ocap = 0;
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    rd sub;
    void *e = NULL;
    switch (fnum) {
      case 1: st = rd_string(r, wt, a, &m->name, NULL); continue;
      case 2: e = VEC_PUSH(a, m->fields, m->field_count, fcap); break;
      case 3: e = VEC_PUSH(a, m->nested, m->nested_count, ncap); break;
      case 4: e = VEC_PUSH(a, m->enums, m->enum_count, ecap); break;
      case 8: e = VEC_PUSH(a, m->oneofs, m->oneof_count, ocap); break;
      case 7: e = m; break;
      default: st = rd_skip(r, wt, fnum); continue;
    }
    if (!e) return PBDYN_ERR_NOMEM;
    if ((st = rd_sub(r, wt, &sub))) break;
    switch (fnum) {
      case 2: st = read_field(&sub, e, a); break;
      case 3: st = read_msg(&sub, e, a, depth + 1); break;
      case 4: st = read_enum(&sub, e, a); break;
      case 7: st = read_msg_options(&sub, m); break;
      case 8: st = read_oneof(&sub, e, a); break;
    }
  }
  st = rd_end(r, st);
  return st ? st : m->name ? PBDYN_OK : E;
}

/* FileDescriptorProto. */
static pbdyn_status read_file(rd *r, pbdyn__raw_file *f, pbdyn_arena *a) {
  size_t mcap = 0, ecap = 0;
  f->package = "";
  f->syntax = "";
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(r, &fnum, &wt)) {
    rd sub;
    switch (fnum) {
      case 2: st = rd_string(r, wt, a, &f->package, NULL); break;
      case 12: st = rd_string(r, wt, a, &f->syntax, NULL); break;
      case 4: {
        pbdyn__raw_msg *m = VEC_PUSH(a, f->msgs, f->msg_count, mcap);
        if (!m) return PBDYN_ERR_NOMEM;
        if (!(st = rd_sub(r, wt, &sub))) st = read_msg(&sub, m, a, 0);
        break;
      }
      case 5: {
        pbdyn__raw_enum *e = VEC_PUSH(a, f->enums, f->enum_count, ecap);
        if (!e) return PBDYN_ERR_NOMEM;
        if (!(st = rd_sub(r, wt, &sub))) st = read_enum(&sub, e, a);
        break;
      }
      default: st = rd_skip(r, wt, fnum);
    }
  }
  return rd_end(r, st);
}

pbdyn_status pbdyn__raw_read(const char *buf, size_t size, pbdyn__raw_set *out, pbdyn_arena *a) {
  rd r = {buf, buf + size, false};
  size_t cap = 0;
  memset(out, 0, sizeof *out);
  uint32_t fnum;
  int wt;
  pbdyn_status st = PBDYN_OK;
  while (!st && rd_next(&r, &fnum, &wt)) {
    rd sub;
    if (fnum != 1) {
      st = rd_skip(&r, wt, fnum);
      continue;
    }
    pbdyn__raw_file *f = VEC_PUSH(a, out->files, out->file_count, cap);
    if (!f) return PBDYN_ERR_NOMEM;
    if (!(st = rd_sub(&r, wt, &sub))) st = read_file(&sub, f, a);
  }
  return rd_end(&r, st);
}
