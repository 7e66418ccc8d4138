/* Cores of sub-messages (groups and maps go to the generic decoder); used
 * by src/fast_message.c and the switch decoder.
 *
 * A sub-message is the one field kind whose function makes a call on its
 * common path: the child's fields are decoded by a real call (its own
 * chain, or pbdyn__switch_msg), so the parent's state survives in the frame.
 * That costs a frame: 137-158 instructions with pushes and pops (clang-19
 * -O2, x86-64), where a singular scalar field's function has none.
 */
#ifndef PBDYN_INTERNAL_FAST_MESSAGE_H
#define PBDYN_INTERNAL_FAST_MESSAGE_H

#include "internal/fast.h"

/* How a field function enters a sub-message: under musttail, straight into
 * the child's chain with the same convention (pbdyn__fast_start, a real call:
 * the parent's state is kept across it); in the portable build, through the
 * trampoline loop of pbdyn__fast_child. */
#if PBDYN_MUSTTAIL
#define pbdyn__fast_call_child(d, p, sm, sub) pbdyn__fast_start(d, p, sm, sub, 0, 0)
#else
#define pbdyn__fast_call_child pbdyn__fast_child
#endif

/* A new instance from the current arena block, zeroed up to zero_size
 * (the rest is guarded by hasbits and oneof cases), or NULL when the block
 * is short (the caller asks for more). */
PBDYN_INLINE pbdyn_msg *pbdyn__fast_new_msg(pbdyn__dec *d, const pbdyn_msgdef *m) {
  size_t size = m->size;
  if (PBDYN_UNLIKELY((size_t)(d->aend - d->aptr) < size)) return NULL;
  char *p = d->aptr;
  d->aptr += size;
  size_t zero = m->zero_size;
  for (size_t i = 0; i < zero; i += 32) {
    *(pbdyn__v16 *)(p + i) = (pbdyn__v16){0};
    *(pbdyn__v16 *)(p + i + 16) = (pbdyn__v16){0};
    __asm__("" : : "r"(p) : "memory"); /* keep the loop: not a memset call */
  }
  pbdyn__msg_def_set(p, m);
  return (pbdyn_msg *)p;
}

/* `child` decodes the sub-message: pbdyn__switch_msg, or NULL for the fast
 * decoder (which then starts the child's chain directly).
 *
 * Only sub-messages that end below limit_ptr are taken here, so that the
 * child cannot reach `end`: no buffer flip can happen inside it, and the
 * parent's limit and limit_ptr are saved and restored as they are, with no
 * arithmetic. The few that do not (the last message of each level, ending
 * within 16 bytes of the buffer's end) go to the generic decoder, which
 * hands their fields back to the fast one. */
PBDYN_INLINE int pbdyn__core_message(pbdyn__dec *d, const char **pptr, pbdyn_msg *msg,
                                     const pbdyn_msgdef *m, uint64_t data, int card, int tagbytes,
                                     pbdyn__msgdecoder *child) {
  const char *ptr = *pptr;
  const pbdyn_msgdef *sub = m->subs[PBDYN_DATA_SUB(data)];
  uint32_t tag = pbdyn__fast_tag(ptr, tagbytes);
  pbdyn__array *arr = PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn__array);
  int r = PBDYN_FAST_NEXT;
  do {
    uint32_t size;
    const char *p = pbdyn__fast_size(ptr + tagbytes, &size);
    const char *limit_ptr = d->limit_ptr;
    /* the generic decoder reports bad lengths and depth */
    if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY((ptrdiff_t)size > limit_ptr - p) ||
        PBDYN_UNLIKELY(d->depth <= 0)) {
      r = PBDYN_FAST_FALLBACK;
      break;
    }
    pbdyn_msg *sm;
    if (card == PBDYN_FC_repeated) {
      if (PBDYN_UNLIKELY(arr->size == arr->cap)) {
        r = pbdyn__fast_need(d, arr, sizeof(pbdyn_msg *), 1, 0);
        break;
      }
      sm = pbdyn__fast_new_msg(d, sub);
      if (PBDYN_UNLIKELY(!sm)) {
        r = pbdyn__fast_need(d, NULL, 0, 0, sub->size);
        break;
      }
      ((pbdyn_msg **)arr->data)[arr->size++] = sm;
    } else {
      pbdyn_msg **slot = PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn_msg *);
      if (card == PBDYN_FC_oneof) {
        uint32_t *c = PBDYN_PTR_AT(msg, PBDYN_DATA_CASE(data), uint32_t);
        uint32_t number = pbdyn__fast_tag_number(ptr, tagbytes);
        if (*c != number) {
          *slot = NULL;
          *c = number;
        }
      }
      sm = *slot;
      if (!sm) {
        sm = pbdyn__fast_new_msg(d, sub);
        if (PBDYN_UNLIKELY(!sm)) {
          r = pbdyn__fast_need(d, NULL, 0, 0, sub->size);
          break;
        }
        *slot = sm;
      }
    }
    ptrdiff_t limit = d->limit;
    d->limit_ptr = p + size;
    d->limit = (p + size) - d->end;
    d->depth--;
    p = child ? child(d, p, sm, sub) : pbdyn__fast_call_child(d, p, sm, sub);
    if (PBDYN_UNLIKELY(!p)) return PBDYN_FAST_FALLBACK; /* status says why */
    if (PBDYN_UNLIKELY(d->end_group != PBDYN_NOGROUP)) {
      d->status = PBDYN_ERR_GROUP;
      return PBDYN_FAST_FALLBACK;
    }
    d->depth++;
    d->limit = limit;
    d->limit_ptr = limit_ptr;
    ptr = p;
  } while (card == PBDYN_FC_repeated && ptr < d->limit_ptr &&
           pbdyn__fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* The functions of src/fast_message.c. */
#define PBDYN_FAST_DEFINE_MESSAGE(k, c, t)                                         \
  PBDYN_FAST_BODY(k, c, t, pbdyn__core_message(d, &ptr, msg, m, data, PBDYN_FC_##c, t, NULL), )

#endif /* PBDYN_INTERNAL_FAST_MESSAGE_H */
