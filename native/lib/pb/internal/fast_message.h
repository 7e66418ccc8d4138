/* Cores of sub-messages (groups and maps go to the generic decoder); used
 * by src/fast_message.c and the switch decoder.
 *
 * A sub-message is the one field kind whose function makes a call on its
 * common path: the child's fields are decoded by a real call (its own
 * chain, or pb_switch_msg), so the parent's state survives in the frame.
 * That costs a frame: 137-158 instructions with pushes and pops (clang-19
 * -O2, x86-64), where a singular scalar field's function has none.
 */
#ifndef PB_INTERNAL_FAST_MESSAGE_H
#define PB_INTERNAL_FAST_MESSAGE_H

#include "internal/fast.h"

/* How a field function enters a sub-message: under musttail, straight into
 * the child's chain with the same convention (pb_fast_start, a real call:
 * the parent's state is kept across it); in the portable build, through the
 * trampoline loop of pb_fast_child. */
#if PB_MUSTTAIL
#define pb_fast_call_child(d, p, sm, sub) pb_fast_start(d, p, sm, sub, 0, 0)
#else
#define pb_fast_call_child pb_fast_child
#endif

/* A new instance from the current arena block, zeroed up to zero_size
 * (the rest is guarded by hasbits and oneof cases), or NULL when the block
 * is short (the caller asks for more). */
PB_INLINE pb_msg *pb_fast_new_msg(pb_dec *d, const pb_msgdef *m) {
  size_t size = m->size;
  if (PB_UNLIKELY((size_t)(d->aend - d->aptr) < size)) return NULL;
  char *p = d->aptr;
  d->aptr += size;
  size_t zero = m->zero_size;
  for (size_t i = 0; i < zero; i += 32) {
    *(pb_v16 *)(p + i) = (pb_v16){0};
    *(pb_v16 *)(p + i + 16) = (pb_v16){0};
    __asm__("" : : "r"(p) : "memory"); /* keep the loop: not a memset call */
  }
  return (pb_msg *)p;
}

/* `child` decodes the sub-message: pb_switch_msg, or NULL for the fast
 * decoder (which then starts the child's chain directly).
 *
 * Only sub-messages that end below limit_ptr are taken here, so that the
 * child cannot reach `end`: no buffer flip can happen inside it, and the
 * parent's limit and limit_ptr are saved and restored as they are, with no
 * arithmetic. The few that do not (the last message of each level, ending
 * within 16 bytes of the buffer's end) go to the generic decoder, which
 * hands their fields back to the fast one. */
PB_INLINE int pb_core_message(pb_dec *d, const char **pptr, pb_msg *msg, const pb_msgdef *m,
                              uint64_t data, int card, int tagbytes, pb_msgdecoder *child) {
  const char *ptr = *pptr;
  const pb_msgdef *sub = m->subs[PB_DATA_SUB(data)];
  uint32_t tag = pb_fast_tag(ptr, tagbytes);
  pb_array *arr = PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_array);
  int r = PB_FAST_NEXT;
  do {
    uint32_t size;
    const char *p = pb_fast_size(ptr + tagbytes, &size);
    const char *limit_ptr = d->limit_ptr;
    /* the generic decoder reports bad lengths and depth */
    if (PB_UNLIKELY(!p) || PB_UNLIKELY((ptrdiff_t)size > limit_ptr - p) ||
        PB_UNLIKELY(d->depth <= 0)) {
      r = PB_FAST_FALLBACK;
      break;
    }
    pb_msg *sm;
    if (card == PB_FC_repeated) {
      if (PB_UNLIKELY(arr->size == arr->cap)) {
        r = pb_fast_need(d, arr, sizeof(pb_msg *), 1, 0);
        break;
      }
      sm = pb_fast_new_msg(d, sub);
      if (PB_UNLIKELY(!sm)) {
        r = pb_fast_need(d, NULL, 0, 0, sub->size);
        break;
      }
      ((pb_msg **)arr->data)[arr->size++] = sm;
    } else {
      pb_msg **slot = PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_msg *);
      if (card == PB_FC_oneof) {
        uint32_t *c = PB_PTR_AT(msg, PB_DATA_CASE(data), uint32_t);
        uint32_t number = pb_fast_tag_number(ptr, tagbytes);
        if (*c != number) {
          *slot = NULL;
          *c = number;
        }
      }
      sm = *slot;
      if (!sm) {
        sm = pb_fast_new_msg(d, sub);
        if (PB_UNLIKELY(!sm)) {
          r = pb_fast_need(d, NULL, 0, 0, sub->size);
          break;
        }
        *slot = sm;
      }
    }
    ptrdiff_t limit = d->limit;
    d->limit_ptr = p + size;
    d->limit = (p + size) - d->end;
    d->depth--;
    p = child ? child(d, p, sm, sub) : pb_fast_call_child(d, p, sm, sub);
    if (PB_UNLIKELY(!p)) return PB_FAST_FALLBACK; /* status says why */
    if (PB_UNLIKELY(d->end_group != PB_NOGROUP)) {
      d->status = PB_ERR_GROUP;
      return PB_FAST_FALLBACK;
    }
    d->depth++;
    d->limit = limit;
    d->limit_ptr = limit_ptr;
    ptr = p;
  } while (card == PB_FC_repeated && ptr < d->limit_ptr && pb_fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* The functions of src/fast_message.c. */
#define PB_FAST_DEFINE_MESSAGE(k, c, t)                                         \
  PB_FAST_BODY(k, c, t, pb_core_message(d, &ptr, msg, m, data, PB_FC_##c, t, NULL), )

#endif /* PB_INTERNAL_FAST_MESSAGE_H */
