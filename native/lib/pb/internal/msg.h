/* Message internals: the unknown-field buffer, repeated-field arrays and the
 * presence helpers shared by decoders, encoder, dump and accessors. */
#ifndef PB_INTERNAL_MSG_H
#define PB_INTERNAL_MSG_H

#include "internal/def.h"

/* Unknown fields: raw wire bytes, appended in arrival order. */
typedef struct pb_unknown {
  char *data;
  uint32_t size, cap;
} pb_unknown;

/* A repeated field (maps too: an array of entry messages). Elements are
 * stored by value, pb_rep_size() bytes each (pb_msg* for messages). */
typedef struct pb_array {
  void *data;
  uint32_t size, cap;
} pb_array;

#define PB_MSG_HASBITS 8 /* offset of the first hasbit word */

PB_INLINE pb_unknown *pb_msg_unknown_ptr(const pb_msg *msg) {
  return *(pb_unknown *const *)msg;
}

PB_INLINE bool pb_hasbit_get(const pb_msg *msg, uint32_t bit) {
  const uint64_t *w = PB_CPTR_AT(msg, PB_MSG_HASBITS, uint64_t);
  return (w[bit >> 6] >> (bit & 63)) & 1;
}
PB_INLINE void pb_hasbit_set(pb_msg *msg, uint32_t bit) {
  uint64_t *w = PB_PTR_AT(msg, PB_MSG_HASBITS, uint64_t);
  w[bit >> 6] |= (uint64_t)1 << (bit & 63);
}
PB_INLINE void pb_hasbit_clear(pb_msg *msg, uint32_t bit) {
  uint64_t *w = PB_PTR_AT(msg, PB_MSG_HASBITS, uint64_t);
  w[bit >> 6] &= ~((uint64_t)1 << (bit & 63));
}

/* Whether a singular field is present under its presence rules. */
bool pb_field_present(const pb_msg *msg, const pb_fielddef *f);

/* Append bytes to a message's unknown fields (arena-grown). */
pb_status pb_unknown_append(pb_msg *msg, const char *p, size_t n, pb_arena *a);

/* Make room for `n` more elements; returns the array's data or NULL. */
void *pb_array_reserve(pb_array *arr, uint32_t elem_size, size_t n, pb_arena *a);

#endif /* PB_INTERNAL_MSG_H */
