/* Message internals: the unknown-field buffer, repeated-field arrays and the
 * presence helpers shared by decoders, encoder, dump and accessors. */
#ifndef PBDYN_INTERNAL_MSG_H
#define PBDYN_INTERNAL_MSG_H

#include "internal/def.h"

/* Unknown fields: raw wire bytes, appended in arrival order. */
typedef struct pbdyn__unknown {
  char *data;
  uint32_t size, cap;
} pbdyn__unknown;

/* A repeated field (maps too: an array of entry messages). Elements are
 * stored by value, pbdyn__rep_size() bytes each (pbdyn_msg* for messages). */
typedef struct pbdyn__array {
  void *data;
  uint32_t size, cap;
} pbdyn__array;

#define PBDYN_MSG_DEF 8       /* offset of the message's own pbdyn_msgdef */
#define PBDYN_MSG_HASBITS 16 /* offset of the first hasbit word */

/* The type a message was created with. */
PBDYN_INLINE const pbdyn_msgdef *pbdyn__msg_def(const pbdyn_msg *msg) {
  return *PBDYN_CPTR_AT(msg, PBDYN_MSG_DEF, pbdyn_msgdef *);
}
PBDYN_INLINE void pbdyn__msg_def_set(void *msg, const pbdyn_msgdef *m) {
  *PBDYN_PTR_AT(msg, PBDYN_MSG_DEF, const pbdyn_msgdef *) = m;
}

/* The type a function given (msg, m) works with: msg's own, which m must be
 * when it is not NULL; NULL for a mismatch. */
PBDYN_INLINE const pbdyn_msgdef *pbdyn__msg_check(const pbdyn_msg *msg, const pbdyn_msgdef *m) {
  const pbdyn_msgdef *own = pbdyn__msg_def(msg);
  return !m || m == own ? own : NULL;
}

/* Whether f is one of m's fields (not a field of another type): one
 * comparison, which every accessor given a message and a field pays. */
PBDYN_INLINE bool pbdyn__field_of(const pbdyn_msgdef *m, const pbdyn_fielddef *f) {
  return f->containing == m;
}

PBDYN_INLINE pbdyn__unknown *pbdyn__msg_unknown_ptr(const pbdyn_msg *msg) {
  return *(pbdyn__unknown *const *)msg;
}

PBDYN_INLINE bool pbdyn__hasbit_get(const pbdyn_msg *msg, uint32_t bit) {
  const uint64_t *w = PBDYN_CPTR_AT(msg, PBDYN_MSG_HASBITS, uint64_t);
  return (w[bit >> 6] >> (bit & 63)) & 1;
}
PBDYN_INLINE void pbdyn__hasbit_set(pbdyn_msg *msg, uint32_t bit) {
  uint64_t *w = PBDYN_PTR_AT(msg, PBDYN_MSG_HASBITS, uint64_t);
  w[bit >> 6] |= (uint64_t)1 << (bit & 63);
}
PBDYN_INLINE void pbdyn__hasbit_clear(pbdyn_msg *msg, uint32_t bit) {
  uint64_t *w = PBDYN_PTR_AT(msg, PBDYN_MSG_HASBITS, uint64_t);
  w[bit >> 6] &= ~((uint64_t)1 << (bit & 63));
}

/* Whether a singular field is present under its presence rules. */
bool pbdyn__field_present(const pbdyn_msg *msg, const pbdyn_fielddef *f);

/* Append bytes to a message's unknown fields (arena-grown). */
pbdyn_status pbdyn__unknown_append(pbdyn_msg *msg, const char *p, size_t n, pbdyn_arena *a);

/* Make room for `n` more elements; returns the array's data or NULL. */
void *pbdyn__array_reserve(pbdyn__array *arr, uint32_t elem_size, size_t n, pbdyn_arena *a);

#endif /* PBDYN_INTERNAL_MSG_H */
