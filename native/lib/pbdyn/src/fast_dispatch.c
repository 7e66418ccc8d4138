/* The fast decoder's frame: where a message starts and ends, the fallback
 * to the generic decoder, the trampoline loop of the portable build, and the
 * table of field functions that fasttable.c fills message tables from.
 *
 * Under musttail the chain dispatch -> field function -> dispatch -> ...
 * never returns until the message ends: pbdyn__fast_end returns the final
 * pointer to whoever started the message (pbdyn__fast_child, a real call). In
 * the portable build every field function returns {ptr, hasbits} to the
 * loop in pbdyn__fast_child; a NULL ptr means the message ended at d->done_ptr
 * (an end-group tag) or an error (d->status).
 */
#include "internal/fast.h"

const char *pbdyn_decode_fast_kind(void) { return PBDYN_MUSTTAIL ? "musttail" : "trampoline"; }

/* The buffer must flip, or the input overran. */
static pbdyn__fast_ret PBDYN_CC pbdyn__fast_end_slow(PBDYN_FAST_PARAMS) {
  (void)data, (void)m;
  bool done;
  ptr = pbdyn__dec_done_slow(d, ptr, &done);
  if (!ptr) PBDYN_RETURN_ERROR();
  if (done) {
    pbdyn__fast_flush(msg, hasbits);
    PBDYN_RETURN_END(ptr);
  }
  PBDYN_DISPATCH();
}

/* The common case, with no stack frame: the message ends at its limit. */
pbdyn__fast_ret PBDYN_CC pbdyn__fast_end(PBDYN_FAST_PARAMS) {
  if (PBDYN_LIKELY(ptr - d->end == d->limit)) {
    pbdyn__fast_flush(msg, hasbits);
    PBDYN_RETURN_END(ptr);
  }
  PBDYN_JUMP(pbdyn__fast_end_slow, data);
}

/* One field by the generic decoder; also where errors surface. */
pbdyn__fast_ret PBDYN_CC pbdyn__fast_fallback(PBDYN_FAST_PARAMS) {
  (void)data;
  if (PBDYN_UNLIKELY(d->status != PBDYN_OK)) PBDYN_RETURN_ERROR();
  pbdyn__fast_flush(msg, hasbits);
  hasbits = 0;
  ptr = pbdyn__generic_field(d, ptr, msg, m);
  if (PBDYN_UNLIKELY(!ptr)) PBDYN_RETURN_ERROR();
  if (PBDYN_UNLIKELY(d->end_group != PBDYN_NOGROUP)) PBDYN_RETURN_END(ptr);
  PBDYN_DISPATCH();
}

/* Provide what a field function lacked, then run that field again. */
pbdyn__fast_ret PBDYN_CC pbdyn__fast_grow(PBDYN_FAST_PARAMS) {
  (void)data, (void)msg, (void)m;
  if (d->grow_arr && !pbdyn__dec_array_reserve(d, d->grow_arr, d->grow_elem, d->grow_n))
    PBDYN_RETURN_ERROR();
  if (d->grow_bytes && !pbdyn__dec_reserve_bytes(d, d->grow_bytes)) PBDYN_RETURN_ERROR();
  d->grow_arr = NULL;
  d->grow_bytes = 0;
  PBDYN_DISPATCH();
}

/* Append the packed fixed-width run a field function passed over, then go on. */
pbdyn__fast_ret PBDYN_CC pbdyn__fast_copy(PBDYN_FAST_PARAMS) {
  (void)data, (void)msg, (void)m;
  if (!pbdyn__dec_fixed_run(d, d->copy_arr, d->copy_elem, d->copy_from, d->copy_n))
    PBDYN_RETURN_ERROR();
  PBDYN_DISPATCH();
}

#if PBDYN_MUSTTAIL
pbdyn__fast_ret PBDYN_CC pbdyn__fast_start(PBDYN_FAST_PARAMS) {
  (void)data;
  PBDYN_DISPATCH();
}

const char *pbdyn__fast_child(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                              const pbdyn_msgdef *m) {
  return pbdyn__fast_start(d, ptr, msg, m, 0, 0);
}
#else
const char *pbdyn__fast_child(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                              const pbdyn_msgdef *m) {
  uint64_t hasbits = 0;
  for (;;) {
    pbdyn__fast_ret r;
    if (PBDYN_UNLIKELY(ptr >= d->limit_ptr)) {
      r = pbdyn__fast_end(d, ptr, msg, m, hasbits, 0);
    } else {
      uint64_t tag = pbdyn__load16(ptr);
      const pbdyn__fastent *e =
          (const pbdyn__fastent *)((const char *)m->fast + (tag & m->fast_mask) * 2);
      r = e->fn(d, ptr, msg, m, hasbits, e->data ^ tag);
    }
    if (PBDYN_UNLIKELY(!r.ptr)) return d->status ? NULL : d->done_ptr;
    ptr = r.ptr;
    hasbits = r.hasbits;
  }
}
#endif

const char *pbdyn__fast_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg, const pbdyn_msgdef *m) {
  return pbdyn__fast_child(d, ptr, msg, m);
}

/* ---- the function table ---- */

static pbdyn__fastfn *const funcs[PBDYN_FK_COUNT][PBDYN_FC_COUNT][2] = {
#define PBDYN_F(k, c, t) [PBDYN_FK_##k][PBDYN_FC_##c][t - 1] = PBDYN_FAST_NAME(k, c, t),
    PBDYN_FAST_FUNCS(PBDYN_F)
#undef PBDYN_F
};

static const uint8_t ids[PBDYN_FK_COUNT][PBDYN_FC_COUNT][2] = {
#define PBDYN_F(k, c, t) [PBDYN_FK_##k][PBDYN_FC_##c][t - 1] = PBDYN_FID_##k##_##c##_##t,
    PBDYN_FAST_FUNCS(PBDYN_F)
#undef PBDYN_F
};

pbdyn__fastfn *pbdyn__fast_func(int kind, int card, int tagbytes) {
  return funcs[kind][card][tagbytes - 1];
}

uint8_t pbdyn__fast_id(int kind, int card, int tagbytes) { return ids[kind][card][tagbytes - 1]; }
