/* Message accessors: presence, get/set by field definition, repeated fields,
 * maps and unknown fields. Field definitions are found by number or name
 * through def.c; these functions take the definition so that a caller
 * resolves names once, outside its loops. */
#include <string.h>

#include "internal/arena.h"
#include "internal/msg.h"

pb_msg *pb_msg_new(const pb_msgdef *m, pb_arena *a) {
  pb_msg *msg = pb_arena_alloc(a, m->size);
  if (msg) memset(msg, 0, m->size);
  return msg;
}

static pb_value read_rep(const void *p, int rep) {
  pb_value v;
  memset(&v, 0, sizeof v);
  switch (rep) {
    case PB_REP_1: v.b = *(const bool *)p; break;
    case PB_REP_4: memcpy(&v.u32, p, 4); break;
    case PB_REP_8: memcpy(&v.u64, p, 8); break;
    case PB_REP_STR: memcpy(&v.str, p, sizeof v.str); break;
    case PB_REP_MSG: memcpy(&v.msg, p, sizeof v.msg); break;
  }
  return v;
}

static void write_rep(void *p, int rep, pb_value v) {
  switch (rep) {
    case PB_REP_1: *(bool *)p = v.b; break;
    case PB_REP_4: memcpy(p, &v.u32, 4); break;
    case PB_REP_8: memcpy(p, &v.u64, 8); break;
    case PB_REP_STR: memcpy(p, &v.str, sizeof v.str); break;
    case PB_REP_MSG: memcpy(p, &v.msg, sizeof v.msg); break;
  }
}

static bool nonzero(const char *p, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (p[i]) return true;
  return false;
}

bool pb_field_present(const pb_msg *msg, const pb_fielddef *f) {
  if (f->oneof_case) return *PB_CPTR_AT(msg, f->oneof_case, uint32_t) == f->number;
  if (f->hasbit != PB_NO_HASBIT) return pb_hasbit_get(msg, f->hasbit);
  const char *p = PB_CPTR_AT(msg, f->offset, char);
  if (f->rep == PB_REP_MSG) return *(pb_msg *const *)p != NULL;
  if (f->rep == PB_REP_STR) return ((const pb_str *)p)->size != 0;
  /* implicit presence: set when not all zero bits (-0.0 counts as set) */
  return nonzero(p, pb_rep_size(f->rep));
}

bool pb_msg_has(const pb_msg *msg, const pb_fielddef *f) {
  if (f->mode != PB_MODE_SINGULAR) return PB_CPTR_AT(msg, f->offset, pb_array)->size != 0;
  return pb_field_present(msg, f);
}

pb_value pb_msg_get(const pb_msg *msg, const pb_fielddef *f) {
  pb_value v;
  memset(&v, 0, sizeof v);
  if (f->mode != PB_MODE_SINGULAR) return v;
  if (!pb_field_present(msg, f)) return f->rep == PB_REP_MSG ? v : f->defval;
  return read_rep(PB_CPTR_AT(msg, f->offset, char), f->rep);
}

pb_status pb_msg_set(pb_msg *msg, const pb_fielddef *f, pb_value v) {
  if (f->mode != PB_MODE_SINGULAR) return PB_ERR_ARG;
  if (f->oneof_case) *PB_PTR_AT(msg, f->oneof_case, uint32_t) = f->number;
  if (f->hasbit != PB_NO_HASBIT) pb_hasbit_set(msg, f->hasbit);
  if (f->type == PB_TYPE_BOOL) v.b = v.b != 0;
  write_rep(PB_PTR_AT(msg, f->offset, char), f->rep, v);
  return PB_OK;
}

pb_msg *pb_msg_mutable(pb_msg *msg, const pb_fielddef *f, pb_arena *a) {
  if (f->mode != PB_MODE_SINGULAR || f->rep != PB_REP_MSG) return NULL;
  pb_msg **slot = PB_PTR_AT(msg, f->offset, pb_msg *);
  if (pb_field_present(msg, f)) return *slot;
  pb_msg *sub = pb_msg_new(f->msg, a);
  if (!sub) return NULL;
  if (f->oneof_case) *PB_PTR_AT(msg, f->oneof_case, uint32_t) = f->number;
  *slot = sub;
  return sub;
}

void pb_msg_clear(pb_msg *msg, const pb_fielddef *f) {
  if (f->mode != PB_MODE_SINGULAR) {
    PB_PTR_AT(msg, f->offset, pb_array)->size = 0;
    return;
  }
  if (f->oneof_case) {
    uint32_t *c = PB_PTR_AT(msg, f->oneof_case, uint32_t);
    if (*c != f->number) return;
    *c = 0;
  }
  if (f->hasbit != PB_NO_HASBIT) pb_hasbit_clear(msg, f->hasbit);
  memset(PB_PTR_AT(msg, f->offset, char), 0, pb_rep_size(f->rep));
}

uint32_t pb_msg_oneof_case(const pb_msg *msg, const pb_fielddef *f) {
  return f->oneof_case ? *PB_CPTR_AT(msg, f->oneof_case, uint32_t) : 0;
}

size_t pb_msg_array_size(const pb_msg *msg, const pb_fielddef *f) {
  if (f->mode == PB_MODE_SINGULAR) return 0;
  return PB_CPTR_AT(msg, f->offset, pb_array)->size;
}

pb_value pb_msg_array_get(const pb_msg *msg, const pb_fielddef *f, size_t i) {
  pb_value v;
  memset(&v, 0, sizeof v);
  if (f->mode == PB_MODE_SINGULAR) return v;
  const pb_array *arr = PB_CPTR_AT(msg, f->offset, pb_array);
  if (i >= arr->size) return v;
  return read_rep((const char *)arr->data + i * pb_rep_size(f->rep), f->rep);
}

void *pb_array_reserve(pb_array *arr, uint32_t elem, size_t n, pb_arena *a) {
  if (arr->cap - arr->size >= n) return arr->data;
  size_t need = (size_t)arr->size + n;
  if (need > UINT32_MAX) return NULL;
  size_t cap = arr->cap ? (size_t)arr->cap * 2 : 4;
  while (cap < need) cap *= 2;
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  void *d = pb_arena_alloc(a, cap * elem + 16); /* see pb_dec_array_reserve */
  if (!d) return NULL;
  if (arr->size) memcpy(d, arr->data, (size_t)arr->size * elem);
  arr->data = d;
  arr->cap = (uint32_t)cap;
  return d;
}

pb_status pb_msg_array_append(pb_msg *msg, const pb_fielddef *f, pb_value v, pb_arena *a) {
  if (f->mode == PB_MODE_SINGULAR) return PB_ERR_ARG;
  pb_array *arr = PB_PTR_AT(msg, f->offset, pb_array);
  uint32_t elem = pb_rep_size(f->rep);
  if (!pb_array_reserve(arr, elem, 1, a)) return PB_ERR_NOMEM;
  if (f->type == PB_TYPE_BOOL) v.b = v.b != 0;
  write_rep((char *)arr->data + (size_t)arr->size * elem, f->rep, v);
  arr->size++;
  return PB_OK;
}

pb_msg *pb_msg_array_append_msg(pb_msg *msg, const pb_fielddef *f, pb_arena *a) {
  if (f->mode == PB_MODE_SINGULAR || f->rep != PB_REP_MSG) return NULL;
  pb_msg *sub = pb_msg_new(f->msg, a);
  pb_value v = {.msg = sub};
  if (!sub || pb_msg_array_append(msg, f, v, a)) return NULL;
  return sub;
}

static bool key_equal(const pb_fielddef *kf, pb_value a, pb_value b) {
  switch (kf->rep) {
    case PB_REP_1: return a.b == b.b;
    case PB_REP_4: return a.u32 == b.u32;
    case PB_REP_8: return a.u64 == b.u64;
    case PB_REP_STR:
      return a.str.size == b.str.size && (a.str.size == 0 || !memcmp(a.str.data, b.str.data, a.str.size));
  }
  return false;
}

bool pb_msg_map_get(const pb_msg *msg, const pb_fielddef *f, pb_value key, pb_value *val) {
  if (f->mode != PB_MODE_MAP) return false;
  const pb_array *arr = PB_CPTR_AT(msg, f->offset, pb_array);
  const pb_fielddef *kf = &f->msg->fields[0], *vf = &f->msg->fields[1];
  for (size_t i = arr->size; i-- > 0;) {
    const pb_msg *e = ((pb_msg *const *)arr->data)[i];
    if (key_equal(kf, pb_msg_get(e, kf), key)) {
      *val = pb_msg_get(e, vf);
      return true;
    }
  }
  return false;
}

pb_str pb_msg_unknown(const pb_msg *msg) {
  const pb_unknown *u = pb_msg_unknown_ptr(msg);
  return u ? (pb_str){u->data, u->size} : (pb_str){NULL, 0};
}

pb_status pb_unknown_append(pb_msg *msg, const char *p, size_t n, pb_arena *a) {
  pb_unknown **up = PB_PTR_AT(msg, 0, pb_unknown *);
  pb_unknown *u = *up;
  if (!u) {
    u = pb_arena_alloc(a, sizeof *u);
    if (!u) return PB_ERR_NOMEM;
    memset(u, 0, sizeof *u);
    *up = u;
  }
  if (u->cap - u->size < n) {
    size_t need = (size_t)u->size + n;
    if (need > UINT32_MAX) return PB_ERR_NOMEM;
    size_t cap = u->cap ? (size_t)u->cap * 2 : 64;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    char *d = pb_arena_alloc(a, cap);
    if (!d) return PB_ERR_NOMEM;
    if (u->size) memcpy(d, u->data, u->size);
    u->data = d;
    u->cap = (uint32_t)cap;
  }
  memcpy(u->data + u->size, p, n);
  u->size += (uint32_t)n;
  return PB_OK;
}
