/* Encoder: writes backwards, from the last byte to the first, so that a
 * sub-message's length is known when its prefix is written (one pass, no
 * size pre-computation). The output order is Google's: known fields by
 * increasing number, then unknown fields; repeated scalars packed where the
 * schema says so; proto3 implicit scalars only when not all-zero bits;
 * map entries with both key and value. A message decoded from canonical
 * input (as Google's encoders write it) therefore re-encodes to the same
 * bytes, maps aside (their order is unspecified). */
#include <stdlib.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/encode.h"

#define PBDYN_ENCODE_MAX_DEPTH 1000

typedef struct enc {
  char *buf, *ptr, *end; /* output is [ptr, end) */
  pbdyn_arena *a;
  pbdyn_status status;
  int depth;
} enc;

static bool grow(enc *e, size_t need) {
  size_t used = (size_t)(e->end - e->ptr);
  size_t cap = (size_t)(e->end - e->buf);
  size_t ncap = cap ? cap * 2 : 256;
  while (ncap - used < need) ncap *= 2;
  char *nb = pbdyn_arena_alloc(e->a, ncap);
  if (!nb) {
    e->status = PBDYN_ERR_NOMEM;
    return false;
  }
  if (used) memcpy(nb + ncap - used, e->ptr, used);
  e->buf = nb;
  e->end = nb + ncap;
  e->ptr = e->end - used;
  return true;
}

PBDYN_INLINE bool reserve(enc *e, size_t n) {
  return (size_t)(e->ptr - e->buf) >= n || grow(e, n);
}

static void put(enc *e, const void *p, size_t n) {
  if (!n || !reserve(e, n)) return;
  e->ptr -= n;
  memcpy(e->ptr, p, n);
}

static void put_varint(enc *e, uint64_t v) {
  char tmp[10];
  int n = 0;
  do {
    tmp[n++] = (char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v >>= 7;
  } while (v);
  put(e, tmp, (size_t)n);
}

static void put_tag(enc *e, uint32_t number, int wt) {
  put_varint(e, ((uint64_t)number << 3) | (uint32_t)wt);
}

static size_t len(const enc *e) { return (size_t)(e->end - e->ptr); }

static void encode_msg(enc *e, const pbdyn_msg *msg, const pbdyn_msgdef *m);

/* One value without its tag: scalars, strings, message bodies with their
 * length (groups are handled by the caller). p points at the stored value. */
static void put_value(enc *e, const pbdyn_fielddef *f, const void *p) {
  uint32_t u32;
  uint64_t u64;
  switch (f->type) {
    case PBDYN_TYPE_BOOL: put_varint(e, *(const bool *)p ? 1 : 0); break;
    case PBDYN_TYPE_INT32:
    case PBDYN_TYPE_ENUM:
      memcpy(&u32, p, 4);
      put_varint(e, (uint64_t)(int64_t)(int32_t)u32);
      break;
    case PBDYN_TYPE_UINT32: memcpy(&u32, p, 4), put_varint(e, u32); break;
    case PBDYN_TYPE_SINT32:
      memcpy(&u32, p, 4);
      put_varint(e, (u32 << 1) ^ (uint32_t)((int32_t)u32 >> 31));
      break;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_UINT64: memcpy(&u64, p, 8), put_varint(e, u64); break;
    case PBDYN_TYPE_SINT64:
      memcpy(&u64, p, 8);
      put_varint(e, (u64 << 1) ^ (uint64_t)((int64_t)u64 >> 63));
      break;
    case PBDYN_TYPE_FIXED32: case PBDYN_TYPE_SFIXED32: case PBDYN_TYPE_FLOAT: put(e, p, 4); break;
    case PBDYN_TYPE_FIXED64: case PBDYN_TYPE_SFIXED64: case PBDYN_TYPE_DOUBLE: put(e, p, 8); break;
    case PBDYN_TYPE_STRING:
    case PBDYN_TYPE_BYTES: {
      const pbdyn_str *s = p;
      put(e, s->data, s->size);
      put_varint(e, s->size);
      break;
    }
    case PBDYN_TYPE_MESSAGE: {
      const pbdyn_msg *sub = *(pbdyn_msg *const *)p;
      size_t before = len(e);
      if (sub) encode_msg(e, sub, f->msg);
      put_varint(e, len(e) - before);
      break;
    }
  }
}

/* One tagged value, groups included. */
static void put_field(enc *e, const pbdyn_fielddef *f, const void *p) {
  if (f->type == PBDYN_TYPE_GROUP) {
    put_tag(e, f->number, 4);
    const pbdyn_msg *sub = *(pbdyn_msg *const *)p;
    if (sub) encode_msg(e, sub, f->msg);
    put_tag(e, f->number, 3);
    return;
  }
  put_value(e, f, p);
  put_tag(e, f->number, pbdyn__type_wiretype(f->type));
}

static void encode_map(enc *e, const pbdyn_fielddef *f, const pbdyn__array *arr) {
  const pbdyn_msgdef *em = f->msg;
  uint32_t n;
  uint32_t *live = pbdyn__map_live_entries(arr, em, &n);
  if (!live && arr->size) {
    e->status = PBDYN_ERR_NOMEM;
    return;
  }
  pbdyn_msg *const *ents = arr->data;
  for (uint32_t i = n; i-- > 0;) {
    const pbdyn_msg *ent = ents[live[i]];
    size_t before = len(e);
    for (int k = 1; k >= 0; k--) {
      const pbdyn_fielddef *kv = &em->fields[k];
      put_field(e, kv, PBDYN_CPTR_AT(ent, kv->offset, char));
    }
    put_varint(e, len(e) - before);
    put_tag(e, f->number, 2);
  }
  free(live);
}

static void encode_field(enc *e, const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  const char *p = PBDYN_CPTR_AT(msg, f->offset, char);
  if (f->mode == PBDYN_MODE_SINGULAR) {
    if (pbdyn__field_present(msg, f)) put_field(e, f, p);
    return;
  }
  const pbdyn__array *arr = (const pbdyn__array *)p;
  if (!arr->size) return;
  if (f->mode == PBDYN_MODE_MAP) {
    encode_map(e, f, arr);
    return;
  }
  uint32_t elem = pbdyn__rep_size(f->rep);
  const char *data = arr->data;
  if (f->flags & PBDYN_F_PACKED) {
    size_t before = len(e);
    for (uint32_t i = arr->size; i-- > 0;) put_value(e, f, data + (size_t)i * elem);
    put_varint(e, len(e) - before);
    put_tag(e, f->number, 2);
    return;
  }
  for (uint32_t i = arr->size; i-- > 0;) put_field(e, f, data + (size_t)i * elem);
}

static void encode_msg(enc *e, const pbdyn_msg *msg, const pbdyn_msgdef *m) {
  if (++e->depth > PBDYN_ENCODE_MAX_DEPTH) {
    e->status = PBDYN_ERR_DEPTH;
    return;
  }
  const pbdyn__unknown *u = pbdyn__msg_unknown_ptr(msg);
  if (u) put(e, u->data, u->size);
  for (uint32_t i = m->field_count; i-- > 0 && e->status == PBDYN_OK;)
    encode_field(e, msg, &m->fields[i]);
  e->depth--;
}

pbdyn_status pbdyn_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a, char **out,
                          size_t *size) {
  if (!msg || !a || !out || !size || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  enc e = {NULL, NULL, NULL, a, PBDYN_OK, 0};
  encode_msg(&e, msg, m);
  if (e.status) return e.status;
  static char empty[1];
  *out = e.ptr ? e.ptr : empty;
  *size = len(&e);
  return PBDYN_OK;
}
