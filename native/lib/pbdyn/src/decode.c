/* pbdyn_decode: sets up the input stream and the arena, runs the chosen
 * decoder over the top-level message, and turns its end state into a status.
 * Also the slow paths every decoder shares: end of message / buffer flip,
 * arena growth, long varints. */
#include "internal/decode.h"

const char *pbdyn__dec_done_slow(pbdyn__dec *d, const char *ptr, bool *done) {
  ptrdiff_t overrun = ptr - d->end;
  if (overrun == d->limit) {
    *done = true;
    return ptr;
  }
  /* A flip is possible only while in the caller's buffer (limit > 0 holds
   * only there) and before the current message's end. */
  if (overrun > d->limit || d->limit <= 0) {
    *done = true;
    return pbdyn__dec_err(d, PBDYN_ERR_TRUNCATED);
  }
  char *p = d->patch;
  memcpy(p, d->end, PBDYN_SLOP);
  memset(p + PBDYN_SLOP, 0, PBDYN_SLOP);
  d->input_delta = (uintptr_t)d->end - (uintptr_t)p;
  d->end = d->data_end = p + PBDYN_SLOP;
  d->limit -= PBDYN_SLOP;
  pbdyn__dec_set_limit_ptr(d);
  *done = false;
  return p + overrun;
}

void *pbdyn__dec_alloc_slow(pbdyn__dec *d, size_t size) {
  pbdyn__dec_arena_put(d);
  void *p = pbdyn_arena_alloc(d->arena, size);
  pbdyn__dec_arena_take(d);
  if (!p) d->status = PBDYN_ERR_NOMEM;
  return p;
}

bool pbdyn__dec_reserve_bytes(pbdyn__dec *d, size_t n) {
  if ((size_t)(d->aend - d->aptr) >= n) return true;
  pbdyn__dec_arena_put(d);
  char *p = pbdyn__arena_alloc_slow(d->arena, n);
  if (!p) {
    d->status = PBDYN_ERR_NOMEM;
    return false;
  }
  d->arena->ptr = p; /* a fresh block: hand the n bytes back, free */
  pbdyn__dec_arena_take(d);
  return true;
}

void *pbdyn__dec_array_reserve(pbdyn__dec *d, pbdyn__array *arr, uint32_t elem, size_t n) {
  if (arr->cap - arr->size >= n) return arr->data;
  size_t need = (size_t)arr->size + n;
  /* 8 to start: repeated fields of descriptor.proto average about that;
   * doubling, or exactly what a packed run needs when that is more */
  size_t cap = arr->cap ? (size_t)arr->cap * 2 : 8;
  if (cap < need) cap = need;
  if (need > UINT32_MAX) {
    d->status = PBDYN_ERR_NOMEM;
    return NULL;
  }
  if (cap > UINT32_MAX) cap = UINT32_MAX;
  /* 16 bytes of padding: the fast decoder copies packed runs 16 at a time */
  void *data = pbdyn__dec_alloc(d, cap * elem + 16);
  if (!data) return NULL;
  if (arr->size) memcpy(data, arr->data, (size_t)arr->size * elem);
  arr->data = data;
  arr->cap = (uint32_t)cap;
  return data;
}

const char *pbdyn__varint_slow(const char *p, uint64_t *out) {
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
static bool has_required(const pbdyn_msg *msg, const pbdyn_msgdef *m, int depth) {
  if (depth > 200) return true;
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pbdyn_fielddef *f = &m->fields[i];
    if ((f->flags & PBDYN_F_REQUIRED) && !pbdyn__field_present(msg, f)) return false;
    if (f->rep != PBDYN_REP_MSG) continue;
    if (f->mode == PBDYN_MODE_SINGULAR) {
      const pbdyn_msg *sub = *PBDYN_CPTR_AT(msg, f->offset, pbdyn_msg *);
      if (sub && pbdyn__field_present(msg, f) && !has_required(sub, f->msg, depth + 1))
        return false;
    } else {
      const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
      for (uint32_t j = 0; j < arr->size; j++)
        if (!has_required(((pbdyn_msg *const *)arr->data)[j], f->msg, depth + 1)) return false;
    }
  }
  return true;
}

/* The offset in the caller's buffer of p, a pointer into it or into the patch. */
static size_t input_offset(const pbdyn__dec *d, const char *buf, const char *p) {
  uintptr_t at = (uintptr_t)p;
  if (at >= (uintptr_t)d->patch && at < (uintptr_t)d->patch + sizeof d->patch)
    at += d->input_delta;
  return (size_t)(at - (uintptr_t)buf);
}

/* One decode of buf into msg by `decode`; on an input error *where (if not
 * NULL) gets the offset of the tag of the field the generic code last began. */
static pbdyn_status run(const char *buf, size_t size, pbdyn_msg *msg, const pbdyn_msgdef *m,
                        pbdyn_arena *a, const pbdyn_decode_opts *opts,
                        pbdyn__msgdecoder *decode, size_t *where) {
  pbdyn__dec d;
  d.depth = opts->max_depth > 0 ? opts->max_depth : PBDYN_DEFAULT_DEPTH;
  d.end_group = PBDYN_NOGROUP;
  d.flags = opts->flags;
  d.status = PBDYN_OK;
  d.done_ptr = NULL;
  d.grow_arr = NULL;
  d.grow_bytes = 0;
  d.arena = a;
  d.decode_msg = decode;
  pbdyn__dec_arena_take(&d);
  const char *ptr = pbdyn__dec_init(&d, buf, size);
  d.field_start = ptr;
  ptr = d.decode_msg(&d, ptr, msg, m);
  pbdyn__dec_arena_put(&d);
  pbdyn_status st = !ptr ? (d.status ? d.status : PBDYN_ERR_NOMEM)
                    : d.end_group != PBDYN_NOGROUP ? PBDYN_ERR_GROUP
                                                   : PBDYN_OK;
  if (st != PBDYN_OK && where) *where = input_offset(&d, buf, d.field_start);
  return st;
}

/* Where a decode that failed with `st` went wrong: a second pass of the
 * generic decoder alone, into a message of its own, so that no fast path
 * keeps track of positions (every decoder rejects the same field of the same
 * input). */
static size_t error_offset(const char *buf, size_t size, const pbdyn_msgdef *m,
                           const pbdyn_decode_opts *opts, pbdyn_status st) {
  if (st == PBDYN_ERR_REQUIRED || st == PBDYN_ERR_NOMEM || size >= INT32_MAX)
    return PBDYN_NO_OFFSET;
  pbdyn_arena *scratch = pbdyn_arena_new(0);
  pbdyn_msg *msg = scratch ? pbdyn_msg_new(m, scratch) : NULL;
  size_t where = PBDYN_NO_OFFSET;
  if (msg && run(buf, size, msg, m, scratch, opts, pbdyn__generic_msg, &where) != st)
    where = PBDYN_NO_OFFSET;
  pbdyn_arena_free(scratch);
  return where;
}

pbdyn_status pbdyn_decode(const void *buf, size_t size, pbdyn_msg *msg, const pbdyn_msgdef *m,
                          pbdyn_arena *a, const pbdyn_decode_opts *opts) {
  static const pbdyn_decode_opts defaults = {0, PBDYN_DECODER_FAST, 0, NULL};
  if (!msg || !a || (!buf && size) || !(m = pbdyn__msg_check(msg, m))) return PBDYN_ERR_ARG;
  if (!opts) opts = &defaults;
  if (!buf) buf = ""; /* size 0: no arithmetic on a null pointer */
  /* A limit the stack cannot hold would turn a hostile input into a crash. */
  if (opts->max_depth < 0 || opts->max_depth > PBDYN_MAX_DEPTH) return PBDYN_ERR_ARG;
  pbdyn__msgdecoder *decode;
  switch (opts->decoder) {
    case PBDYN_DECODER_FAST: decode = pbdyn__fast_msg; break;
    case PBDYN_DECODER_SWITCH: decode = pbdyn__switch_msg; break;
    case PBDYN_DECODER_GENERIC: decode = pbdyn__generic_msg; break;
    default: return PBDYN_ERR_ARG;
  }
  /* limits are kept in 32-bit-safe arithmetic, as in Google's parsers */
  pbdyn_status st = size >= INT32_MAX ? PBDYN_ERR_LENGTH
                                      : run(buf, size, msg, m, a, opts, decode, NULL);
  if (st == PBDYN_OK && (opts->flags & PBDYN_DECODE_CHECK_REQUIRED) && !has_required(msg, m, 0))
    st = PBDYN_ERR_REQUIRED;
  if (st != PBDYN_OK && opts->error_offset)
    *opts->error_offset = error_offset(buf, size, m, opts, st);
  return st;
}
