/* pb_decode: sets up the input stream and the arena, runs the chosen
 * decoder over the top-level message, and turns its end state into a status.
 * Also the slow paths every decoder shares: end of message / buffer flip,
 * arena growth, long varints. */
#include "internal/decode.h"

const char *pb_dec_done_slow(pb_dec *d, const char *ptr, bool *done) {
  ptrdiff_t overrun = ptr - d->end;
  if (overrun == d->limit) {
    *done = true;
    return ptr;
  }
  /* A flip is possible only while in the caller's buffer (limit > 0 holds
   * only there) and before the current message's end. */
  if (overrun > d->limit || d->limit <= 0) {
    *done = true;
    return pb_dec_err(d, PB_ERR_TRUNCATED);
  }
  char *p = d->patch;
  memcpy(p, d->end, PB_SLOP);
  memset(p + PB_SLOP, 0, PB_SLOP);
  d->input_delta = (uintptr_t)d->end - (uintptr_t)p;
  d->end = d->data_end = p + PB_SLOP;
  d->limit -= PB_SLOP;
  pb_dec_set_limit_ptr(d);
  *done = false;
  return p + overrun;
}

void *pb_dec_alloc_slow(pb_dec *d, size_t size) {
  pb_dec_arena_put(d);
  void *p = pb_arena_alloc(d->arena, size);
  pb_dec_arena_take(d);
  if (!p) d->status = PB_ERR_NOMEM;
  return p;
}

bool pb_dec_reserve_bytes(pb_dec *d, size_t n) {
  if ((size_t)(d->aend - d->aptr) >= n) return true;
  pb_dec_arena_put(d);
  char *p = pb_arena_alloc_slow(d->arena, n);
  if (!p) {
    d->status = PB_ERR_NOMEM;
    return false;
  }
  d->arena->ptr = p; /* a fresh block: hand the n bytes back, free */
  pb_dec_arena_take(d);
  return true;
}

void *pb_dec_array_reserve(pb_dec *d, pb_array *arr, uint32_t elem, size_t n) {
  if (arr->cap - arr->size >= n) return arr->data;
  size_t need = (size_t)arr->size + n;
  /* 8 to start: repeated fields of descriptor.proto average about that */
  size_t cap = arr->cap ? (size_t)arr->cap * 2 : 8;
  while (cap < need) cap *= 2;
  if (need > UINT32_MAX) {
    d->status = PB_ERR_NOMEM;
    return NULL;
  }
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  /* 16 bytes of padding: the fast decoder copies packed runs 16 at a time */
  void *data = pb_dec_alloc(d, cap * elem + 16);
  if (!data) return NULL;
  if (arr->size) memcpy(data, arr->data, (size_t)arr->size * elem);
  arr->data = data;
  arr->cap = (uint32_t)cap;
  return data;
}

const char *pb_varint_slow(const char *p, uint64_t *out) {
  uint64_t v = 0;
  for (int i = 0; i < 10; i++) {
    uint64_t b = (uint8_t)p[i];
    v |= (b & 0x7f) << (7 * i); /* i = 9 keeps bit 63 only, like Google's */
    if (b < 0x80) {
      *out = v;
      return p + i + 1;
    }
  }
  return NULL;
}

/* Required fields, checked after the decode (only on request). */
static bool has_required(const pb_msg *msg, const pb_msgdef *m, int depth) {
  if (depth > 200) return true;
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pb_fielddef *f = &m->fields[i];
    if ((f->flags & PB_F_REQUIRED) && !pb_field_present(msg, f)) return false;
    if (f->rep != PB_REP_MSG) continue;
    if (f->mode == PB_MODE_SINGULAR) {
      const pb_msg *sub = *PB_CPTR_AT(msg, f->offset, pb_msg *);
      if (sub && pb_field_present(msg, f) && !has_required(sub, f->msg, depth + 1)) return false;
    } else {
      const pb_array *arr = PB_CPTR_AT(msg, f->offset, pb_array);
      for (uint32_t j = 0; j < arr->size; j++)
        if (!has_required(((pb_msg *const *)arr->data)[j], f->msg, depth + 1)) return false;
    }
  }
  return true;
}

pb_status pb_decode(const void *buf, size_t size, pb_msg *msg, const pb_msgdef *m,
                    pb_arena *a, const pb_decode_opts *opts) {
  static const pb_decode_opts defaults = {0, PB_DECODER_FAST, 0};
  if (!opts) opts = &defaults;
  /* limits are kept in 32-bit-safe arithmetic, as in Google's parsers */
  if (size >= INT32_MAX) return PB_ERR_LENGTH;
  /* A limit the stack cannot hold would turn a hostile input into a crash. */
  if (opts->max_depth < 0 || opts->max_depth > PB_MAX_DEPTH) return PB_ERR_ARG;
  pb_dec d;
  d.depth = opts->max_depth > 0 ? opts->max_depth : PB_DEFAULT_DEPTH;
  d.end_group = PB_NOGROUP;
  d.flags = opts->flags;
  d.status = PB_OK;
  d.done_ptr = NULL;
  d.grow_arr = NULL;
  d.grow_bytes = 0;
  d.arena = a;
  pb_dec_arena_take(&d);
  switch (opts->decoder) {
    case PB_DECODER_FAST: d.decode_msg = pb_fast_msg; break;
    case PB_DECODER_SWITCH: d.decode_msg = pb_switch_msg; break;
    case PB_DECODER_GENERIC: d.decode_msg = pb_generic_msg; break;
    default: return PB_ERR_ARG;
  }
  const char *ptr = pb_dec_init(&d, buf, size);
  ptr = d.decode_msg(&d, ptr, msg, m);
  pb_dec_arena_put(&d);
  if (!ptr) return d.status ? d.status : PB_ERR_NOMEM;
  if (d.end_group != PB_NOGROUP) return PB_ERR_GROUP;
  if ((d.flags & PB_DECODE_CHECK_REQUIRED) && !has_required(msg, m, 0))
    return PB_ERR_REQUIRED;
  return PB_OK;
}
