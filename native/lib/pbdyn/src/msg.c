/* Message accessors: presence, get/set by field definition, repeated fields,
 * maps and unknown fields. Field definitions are found by number or name
 * through def.c; these functions take the definition so that a caller
 * resolves names once, outside its loops. Each checks first that the field
 * is one of the message's type's own (one comparison, pbdyn__field_of): a
 * field of another type would address another layout. */
#include <string.h>

#include "internal/arena.h"
#include "internal/msg.h"

pbdyn_msg *pbdyn_msg_new(const pbdyn_msgdef *m, pbdyn_arena *a) {
  pbdyn_msg *msg = pbdyn_arena_alloc(a, m->size);
  if (!msg) return NULL;
  memset(msg, 0, m->size);
  pbdyn__msg_def_set(msg, m);
  return msg;
}

const pbdyn_msgdef *pbdyn_msg_msgdef(const pbdyn_msg *msg) { return pbdyn__msg_def(msg); }

static pbdyn_value read_rep(const void *p, int rep) {
  pbdyn_value v;
  memset(&v, 0, sizeof v);
  switch (rep) {
    case PBDYN_REP_1: v.b = *(const bool *)p; break;
    case PBDYN_REP_4: memcpy(&v.u32, p, 4); break;
    case PBDYN_REP_8: memcpy(&v.u64, p, 8); break;
    case PBDYN_REP_STR: memcpy(&v.str, p, sizeof v.str); break;
    case PBDYN_REP_MSG: memcpy(&v.msg, p, sizeof v.msg); break;
  }
  return v;
}

static void write_rep(void *p, int rep, pbdyn_value v) {
  switch (rep) {
    case PBDYN_REP_1: *(bool *)p = v.b; break;
    case PBDYN_REP_4: memcpy(p, &v.u32, 4); break;
    case PBDYN_REP_8: memcpy(p, &v.u64, 8); break;
    case PBDYN_REP_STR: memcpy(p, &v.str, sizeof v.str); break;
    case PBDYN_REP_MSG: memcpy(p, &v.msg, sizeof v.msg); break;
  }
}

static bool nonzero(const char *p, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (p[i]) return true;
  return false;
}

bool pbdyn__field_present(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (f->oneof_case) return *PBDYN_CPTR_AT(msg, f->oneof_case, uint32_t) == f->number;
  if (f->hasbit != PBDYN_NO_HASBIT) return pbdyn__hasbit_get(msg, f->hasbit);
  const char *p = PBDYN_CPTR_AT(msg, f->offset, char);
  if (f->rep == PBDYN_REP_MSG) return *(pbdyn_msg *const *)p != NULL;
  if (f->rep == PBDYN_REP_STR) return ((const pbdyn_str *)p)->size != 0;
  /* implicit presence: set when not all zero bits (-0.0 counts as set) */
  return nonzero(p, pbdyn__rep_size(f->rep));
}

/* Whether f is a field of msg's type. */
static bool owns(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  return pbdyn__field_of(pbdyn__msg_def(msg), f);
}

bool pbdyn_msg_has(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (!owns(msg, f)) return false;
  if (f->mode != PBDYN_MODE_SINGULAR) return PBDYN_CPTR_AT(msg, f->offset, pbdyn__array)->size != 0;
  return pbdyn__field_present(msg, f);
}

pbdyn_value pbdyn_msg_get(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  pbdyn_value v;
  memset(&v, 0, sizeof v);
  if (!owns(msg, f) || f->mode != PBDYN_MODE_SINGULAR) return v;
  if (!pbdyn__field_present(msg, f)) return f->rep == PBDYN_REP_MSG ? v : f->defval;
  return read_rep(PBDYN_CPTR_AT(msg, f->offset, char), f->rep);
}

pbdyn_status pbdyn_msg_set(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value v) {
  if (!msg || !f || !owns(msg, f) || f->mode != PBDYN_MODE_SINGULAR) return PBDYN_ERR_ARG;
  if (f->oneof_case) *PBDYN_PTR_AT(msg, f->oneof_case, uint32_t) = f->number;
  if (f->hasbit != PBDYN_NO_HASBIT) pbdyn__hasbit_set(msg, f->hasbit);
  if (f->type == PBDYN_TYPE_BOOL) v.b = v.b != 0;
  write_rep(PBDYN_PTR_AT(msg, f->offset, char), f->rep, v);
  return PBDYN_OK;
}

pbdyn_msg *pbdyn_msg_mutable(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_arena *a) {
  if (!owns(msg, f) || f->mode != PBDYN_MODE_SINGULAR || f->rep != PBDYN_REP_MSG) return NULL;
  pbdyn_msg **slot = PBDYN_PTR_AT(msg, f->offset, pbdyn_msg *);
  if (pbdyn__field_present(msg, f)) return *slot;
  pbdyn_msg *sub = pbdyn_msg_new(f->msg, a);
  if (!sub) return NULL;
  if (f->oneof_case) *PBDYN_PTR_AT(msg, f->oneof_case, uint32_t) = f->number;
  *slot = sub;
  return sub;
}

pbdyn_status pbdyn_msg_clear(pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (!msg || !f || !owns(msg, f)) return PBDYN_ERR_ARG;
  if (f->mode != PBDYN_MODE_SINGULAR) {
    PBDYN_PTR_AT(msg, f->offset, pbdyn__array)->size = 0;
    return PBDYN_OK;
  }
  if (f->oneof_case) {
    uint32_t *c = PBDYN_PTR_AT(msg, f->oneof_case, uint32_t);
    if (*c != f->number) return PBDYN_OK;
    *c = 0;
  }
  if (f->hasbit != PBDYN_NO_HASBIT) pbdyn__hasbit_clear(msg, f->hasbit);
  memset(PBDYN_PTR_AT(msg, f->offset, char), 0, pbdyn__rep_size(f->rep));
  return PBDYN_OK;
}

uint32_t pbdyn_msg_oneof_case(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (!owns(msg, f) || !f->oneof_case) return 0;
  return *PBDYN_CPTR_AT(msg, f->oneof_case, uint32_t);
}

size_t pbdyn_msg_array_size(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (!owns(msg, f) || f->mode == PBDYN_MODE_SINGULAR) return 0;
  return PBDYN_CPTR_AT(msg, f->offset, pbdyn__array)->size;
}

pbdyn_value pbdyn_msg_array_get(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i) {
  pbdyn_value v;
  memset(&v, 0, sizeof v);
  if (!owns(msg, f) || f->mode == PBDYN_MODE_SINGULAR) return v;
  const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
  if (i >= arr->size) return v;
  return read_rep((const char *)arr->data + i * pbdyn__rep_size(f->rep), f->rep);
}

void *pbdyn__array_reserve(pbdyn__array *arr, uint32_t elem, size_t n, pbdyn_arena *a) {
  if (arr->cap - arr->size >= n) return arr->data;
  size_t need = (size_t)arr->size + n;
  if (need > UINT32_MAX) return NULL;
  size_t cap = arr->cap ? (size_t)arr->cap * 2 : 4;
  while (cap < need) cap *= 2;
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  void *d = pbdyn_arena_alloc(a, cap * elem + 16); /* see pbdyn__dec_array_reserve */
  if (!d) return NULL;
  if (arr->size) memcpy(d, arr->data, (size_t)arr->size * elem);
  arr->data = d;
  arr->cap = (uint32_t)cap;
  return d;
}

pbdyn_status pbdyn_msg_array_append(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value v,
                                    pbdyn_arena *a) {
  if (!msg || !f || !a || !owns(msg, f) || f->mode == PBDYN_MODE_SINGULAR) return PBDYN_ERR_ARG;
  pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
  uint32_t elem = pbdyn__rep_size(f->rep);
  if (!pbdyn__array_reserve(arr, elem, 1, a)) return PBDYN_ERR_NOMEM;
  if (f->type == PBDYN_TYPE_BOOL) v.b = v.b != 0;
  write_rep((char *)arr->data + (size_t)arr->size * elem, f->rep, v);
  arr->size++;
  return PBDYN_OK;
}

pbdyn_msg *pbdyn_msg_array_append_msg(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_arena *a) {
  if (!owns(msg, f) || f->mode == PBDYN_MODE_SINGULAR || f->rep != PBDYN_REP_MSG) return NULL;
  pbdyn_msg *sub = pbdyn_msg_new(f->msg, a);
  pbdyn_value v = {.msg = sub};
  if (!sub || pbdyn_msg_array_append(msg, f, v, a)) return NULL;
  return sub;
}

pbdyn_str pbdyn_msg_unknown(const pbdyn_msg *msg) {
  const pbdyn__unknown *u = pbdyn__msg_unknown_ptr(msg);
  return u ? (pbdyn_str){u->data, u->size} : (pbdyn_str){NULL, 0};
}

pbdyn_status pbdyn__unknown_append(pbdyn_msg *msg, const char *p, size_t n, pbdyn_arena *a) {
  pbdyn__unknown **up = PBDYN_PTR_AT(msg, 0, pbdyn__unknown *);
  pbdyn__unknown *u = *up;
  if (!u) {
    u = pbdyn_arena_alloc(a, sizeof *u);
    if (!u) return PBDYN_ERR_NOMEM;
    memset(u, 0, sizeof *u);
    *up = u;
  }
  if (u->cap - u->size < n) {
    size_t need = (size_t)u->size + n;
    if (need > UINT32_MAX) return PBDYN_ERR_NOMEM;
    size_t cap = u->cap ? (size_t)u->cap * 2 : 64;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    char *d = pbdyn_arena_alloc(a, cap);
    if (!d) return PBDYN_ERR_NOMEM;
    if (u->size) memcpy(d, u->data, u->size);
    u->data = d;
    u->cap = (uint32_t)cap;
  }
  memcpy(u->data + u->size, p, n);
  u->size += (uint32_t)n;
  return PBDYN_OK;
}
