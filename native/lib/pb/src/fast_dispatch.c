/* The fast decoder's frame: where a message starts and ends, the fallback
 * to the generic decoder, the trampoline loop of the portable build, and the
 * table of field functions that fasttable.c fills message tables from.
 *
 * Under musttail the chain dispatch -> field function -> dispatch -> ...
 * never returns until the message ends: pb_fast_end returns the final
 * pointer to whoever started the message (pb_fast_child, a real call). In
 * the portable build every field function returns {ptr, hasbits} to the
 * loop in pb_fast_child; a NULL ptr means the message ended at d->done_ptr
 * (an end-group tag) or an error (d->status).
 */
#include "internal/fast.h"

const char *pb_decode_fast_kind(void) { return PB_MUSTTAIL ? "musttail" : "trampoline"; }

/* The buffer must flip, or the input overran. */
static pb_fast_ret PB_CC pb_fast_end_slow(PB_FAST_PARAMS) {
  (void)data, (void)m;
  bool done;
  ptr = pb_dec_done_slow(d, ptr, &done);
  if (!ptr) PB_RETURN_ERROR();
  if (done) {
    pb_fast_flush(msg, hasbits);
    PB_RETURN_END(ptr);
  }
  PB_DISPATCH();
}

/* The common case, with no stack frame: the message ends at its limit. */
pb_fast_ret PB_CC pb_fast_end(PB_FAST_PARAMS) {
  if (PB_LIKELY(ptr - d->end == d->limit)) {
    pb_fast_flush(msg, hasbits);
    PB_RETURN_END(ptr);
  }
  PB_JUMP(pb_fast_end_slow, data);
}

/* One field by the generic decoder; also where errors surface. */
pb_fast_ret PB_CC pb_fast_fallback(PB_FAST_PARAMS) {
  (void)data;
  if (PB_UNLIKELY(d->status != PB_OK)) PB_RETURN_ERROR();
  pb_fast_flush(msg, hasbits);
  hasbits = 0;
  ptr = pb_generic_field(d, ptr, msg, m);
  if (PB_UNLIKELY(!ptr)) PB_RETURN_ERROR();
  if (PB_UNLIKELY(d->end_group != PB_NOGROUP)) PB_RETURN_END(ptr);
  PB_DISPATCH();
}

/* Provide what a field function lacked, then run that field again. */
pb_fast_ret PB_CC pb_fast_grow(PB_FAST_PARAMS) {
  (void)data, (void)msg, (void)m;
  if (d->grow_arr && !pb_dec_array_reserve(d, d->grow_arr, d->grow_elem, d->grow_n))
    PB_RETURN_ERROR();
  if (d->grow_bytes && !pb_dec_reserve_bytes(d, d->grow_bytes)) PB_RETURN_ERROR();
  d->grow_arr = NULL;
  d->grow_bytes = 0;
  PB_DISPATCH();
}

#if PB_MUSTTAIL
pb_fast_ret PB_CC pb_fast_start(PB_FAST_PARAMS) {
  (void)data;
  PB_DISPATCH();
}

const char *pb_fast_child(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m) {
  return pb_fast_start(d, ptr, msg, m, 0, 0);
}
#else
const char *pb_fast_child(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m) {
  uint64_t hasbits = 0;
  for (;;) {
    pb_fast_ret r;
    if (PB_UNLIKELY(ptr >= d->limit_ptr)) {
      r = pb_fast_end(d, ptr, msg, m, hasbits, 0);
    } else {
      uint64_t tag = pb_load16(ptr);
      const pb_fastent *e =
          (const pb_fastent *)((const char *)m->fast + (tag & m->fast_mask) * 2);
      r = e->fn(d, ptr, msg, m, hasbits, e->data ^ tag);
    }
    if (PB_UNLIKELY(!r.ptr)) return d->status ? NULL : d->done_ptr;
    ptr = r.ptr;
    hasbits = r.hasbits;
  }
}
#endif

const char *pb_fast_msg(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m) {
  return pb_fast_child(d, ptr, msg, m);
}

/* ---- the function table ---- */

static pb_fastfn *const funcs[PB_FK_COUNT][PB_FC_COUNT][2] = {
#define PB_F(k, c, t) [PB_FK_##k][PB_FC_##c][t - 1] = PB_FAST_NAME(k, c, t),
    PB_FAST_FUNCS(PB_F)
#undef PB_F
};

static const uint8_t ids[PB_FK_COUNT][PB_FC_COUNT][2] = {
#define PB_F(k, c, t) [PB_FK_##k][PB_FC_##c][t - 1] = PB_FID_##k##_##c##_##t,
    PB_FAST_FUNCS(PB_F)
#undef PB_F
};

pb_fastfn *pb_fast_func(int kind, int card, int tagbytes) {
  return funcs[kind][card][tagbytes - 1];
}

uint8_t pb_fast_id(int kind, int card, int tagbytes) { return ids[kind][card][tagbytes - 1]; }
