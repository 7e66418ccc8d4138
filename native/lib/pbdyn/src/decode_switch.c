/* The switch-loop decoder: the "before" of the tail-call experiment.
 *
 * Same tables, same per-field code (the cores of internal/fast_scalar.h,
 * fast_packed.h, fast_string.h and fast_message.h) as the fast decoder; only the way from
 * one field to the next differs: a loop around one `switch` on the slot's
 * function id, so that every field goes through the same indirect jump (the
 * switch's jump table) and the decoder state lives in one frame, where the
 * compiler keeps or spills it as the whole loop's register pressure allows.
 * The fast decoder instead has one indirect jump per field function and the
 * state in argument registers.
 */
#include "internal/fast_message.h"
#include "internal/fast_packed.h"
#include "internal/fast_string.h"

/* One field of any kind, by the same cores as the fast functions. */
PBDYN_INLINE int pbdyn__core(pbdyn__dec *d, const char **pptr, pbdyn_msg *msg,
                             const pbdyn_msgdef *m, uint64_t *hasbits, uint64_t data, int kind,
                             int card, int tagbytes, pbdyn__msgdecoder *child) {
  if (kind == PBDYN_FK_message)
    return pbdyn__core_message(d, pptr, msg, m, data, card, tagbytes, child);
  if (kind == PBDYN_FK_bytes || kind == PBDYN_FK_string_utf8)
    return pbdyn__core_string(d, pptr, msg, hasbits, data, kind, card, tagbytes);
  if (card == PBDYN_FC_packed) return pbdyn__core_packed(d, pptr, msg, data, kind, tagbytes);
  return pbdyn__core_scalar(d, pptr, msg, hasbits, data, kind, card, tagbytes);
}

const char *pbdyn__switch_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                              const pbdyn_msgdef *m) {
  uint64_t hasbits = 0;
  for (;;) {
    if (PBDYN_UNLIKELY(ptr >= d->limit_ptr)) {
      bool done;
      ptr = pbdyn__dec_done_slow(d, ptr, &done);
      if (!ptr) return NULL;
      if (done) {
        pbdyn__fast_flush(msg, hasbits);
        return ptr;
      }
      continue;
    }
    uint64_t tag = pbdyn__load16(ptr);
    uint32_t slot = (uint32_t)(tag & m->fast_mask) >> 3;
    uint64_t data = m->fast[slot].data ^ tag;
    int r;
    switch (m->fast_kind[slot]) {
#define PBDYN_F(k, c, t)                                                               \
  case PBDYN_FID_##k##_##c##_##t:                                                      \
    r = PBDYN_TAG_MISMATCH(data, t) ? PBDYN_FAST_FALLBACK                                 \
                                 : pbdyn__core(d, &ptr, msg, m, &hasbits, data, PBDYN_FK_##k, \
                                               PBDYN_FC_##c, t, pbdyn__switch_msg);           \
    break;
      PBDYN_FAST_FUNCS(PBDYN_F)
#undef PBDYN_F
      default: r = PBDYN_FAST_FALLBACK;
    }
    if (PBDYN_LIKELY(r == PBDYN_FAST_NEXT)) continue;
    if (r == PBDYN_FAST_GROW) { /* provide, then run the same field again */
      if (d->grow_arr && !pbdyn__dec_array_reserve(d, d->grow_arr, d->grow_elem, d->grow_n))
        return NULL;
      if (d->grow_bytes && !pbdyn__dec_reserve_bytes(d, d->grow_bytes)) return NULL;
      d->grow_arr = NULL;
      d->grow_bytes = 0;
      continue;
    }
    if (r == PBDYN_FAST_COPY) { /* ptr is already past the run */
      if (!pbdyn__dec_fixed_run(d, d->copy_arr, d->copy_elem, d->copy_from, d->copy_n))
        return NULL;
      continue;
    }
    /* one field by the generic decoder (errors included) */
    if (d->status != PBDYN_OK) return NULL;
    pbdyn__fast_flush(msg, hasbits);
    hasbits = 0;
    ptr = pbdyn__generic_field(d, ptr, msg, m);
    if (!ptr) return NULL;
    if (d->end_group != PBDYN_NOGROUP) return ptr;
  }
}
