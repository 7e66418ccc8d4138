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
PB_INLINE int pb_core(pb_dec *d, const char **pptr, pb_msg *msg, const pb_msgdef *m,
                      uint64_t *hasbits, uint64_t data, int kind, int card, int tagbytes,
                      pb_msgdecoder *child) {
  if (kind == PB_FK_message)
    return pb_core_message(d, pptr, msg, m, data, card, tagbytes, child);
  if (kind == PB_FK_bytes || kind == PB_FK_string_utf8)
    return pb_core_string(d, pptr, msg, hasbits, data, kind, card, tagbytes);
  if (card == PB_FC_packed) return pb_core_packed(d, pptr, msg, data, kind, tagbytes);
  return pb_core_scalar(d, pptr, msg, hasbits, data, kind, card, tagbytes);
}

const char *pb_switch_msg(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m) {
  uint64_t hasbits = 0;
  for (;;) {
    if (PB_UNLIKELY(ptr >= d->limit_ptr)) {
      bool done;
      ptr = pb_dec_done_slow(d, ptr, &done);
      if (!ptr) return NULL;
      if (done) {
        pb_fast_flush(msg, hasbits);
        return ptr;
      }
      continue;
    }
    uint64_t tag = pb_load16(ptr);
    uint32_t slot = (uint32_t)(tag & m->fast_mask) >> 3;
    uint64_t data = m->fast[slot].data ^ tag;
    int r;
    switch (m->fast_kind[slot]) {
#define PB_F(k, c, t)                                                               \
  case PB_FID_##k##_##c##_##t:                                                      \
    r = PB_TAG_MISMATCH(data, t) ? PB_FAST_FALLBACK                                 \
                                 : pb_core(d, &ptr, msg, m, &hasbits, data, PB_FK_##k, \
                                           PB_FC_##c, t, pb_switch_msg);           \
    break;
      PB_FAST_FUNCS(PB_F)
#undef PB_F
      default: r = PB_FAST_FALLBACK;
    }
    if (PB_LIKELY(r == PB_FAST_NEXT)) continue;
    if (r == PB_FAST_GROW) { /* provide, then run the same field again */
      if (d->grow_arr && !pb_dec_array_reserve(d, d->grow_arr, d->grow_elem, d->grow_n))
        return NULL;
      if (d->grow_bytes && !pb_dec_reserve_bytes(d, d->grow_bytes)) return NULL;
      d->grow_arr = NULL;
      d->grow_bytes = 0;
      continue;
    }
    /* one field by the generic decoder (errors included) */
    if (d->status != PB_OK) return NULL;
    pb_fast_flush(msg, hasbits);
    hasbits = 0;
    ptr = pb_generic_field(d, ptr, msg, m);
    if (!ptr) return NULL;
    if (d->end_group != PB_NOGROUP) return ptr;
  }
}
