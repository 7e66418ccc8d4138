/* Decoder state and the input stream shared by the three decoders.
 *
 * End of input without a bounds check per byte: every read of a field may
 * run up to 16 bytes past its start ("slop"). While parsing the caller's
 * buffer, `end` is 16 bytes before its end, so a field starting below `end`
 * is readable whole. When parsing reaches `end`, the last 16 bytes are
 * copied into `patch` followed by 16 zero bytes, and parsing continues
 * there (a "flip", once per decode). Inputs of 16 bytes or less are parsed
 * from the patch from the start.
 *
 * Message ends are limits relative to `end` (so that they survive the flip):
 * the current message ends at end + limit, and `limit_ptr` = end +
 * min(limit, 0) is the one pointer that dispatch compares with: below it,
 * a field can be parsed with no other check; at or past it, the slow path
 * decides between end of message, flip, and overrun (an error).
 */
#ifndef PB_INTERNAL_DECODE_H
#define PB_INTERNAL_DECODE_H

#include <stddef.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/def.h"
#include "internal/msg.h"

#define PB_SLOP 16
#define PB_NOGROUP UINT32_MAX
#define PB_DEFAULT_DEPTH 100

typedef struct pb_dec pb_dec;

/* Decodes the fields of one message until its limit or an end-group tag;
 * returns the pointer after the last field, or NULL with d->status set. */
typedef const char *pb_msgdecoder(pb_dec *d, const char *ptr, pb_msg *msg,
                                  const pb_msgdef *m);

struct pb_dec {
  const char *limit_ptr; /* read by every dispatch */
  const char *end;
  const char *data_end;  /* end of the input's bytes in the current buffer */
  ptrdiff_t limit;
  char *aptr, *aend;     /* the arena's current block, owned while decoding */
  int depth;             /* levels left */
  uint32_t end_group;    /* PB_NOGROUP, or the number of the end-group tag read */
  uint32_t flags;        /* PB_DECODE_* */
  pb_status status;
  uintptr_t input_delta; /* patch address + delta = caller's address */
  const char *done_ptr;  /* trampoline: where the message ended */
  pb_array *grow_arr;    /* what a fast field function lacks: room in an */
  uint32_t grow_elem;    /* array for grow_n elements of grow_elem bytes, */
  uint32_t grow_n;       /* and/or grow_bytes in the arena block */
  size_t grow_bytes;
  pb_arena *arena;
  pb_msgdecoder *decode_msg; /* decodes sub-messages met by the generic code */
  char patch[2 * PB_SLOP];
};

/* ---- input stream ---- */

PB_INLINE void pb_dec_set_limit_ptr(pb_dec *d) {
  d->limit_ptr = d->end + (d->limit < 0 ? d->limit : 0);
}

PB_INLINE const char *pb_dec_init(pb_dec *d, const char *buf, size_t size) {
  if (size <= PB_SLOP) {
    memset(d->patch, 0, sizeof d->patch);
    if (size) memcpy(d->patch, buf, size);
    d->end = d->data_end = d->patch + size;
    d->limit = 0;
    d->input_delta = (uintptr_t)buf - (uintptr_t)d->patch;
    buf = d->patch;
  } else {
    d->end = buf + size - PB_SLOP;
    d->data_end = buf + size;
    d->limit = PB_SLOP;
    d->input_delta = 0;
  }
  pb_dec_set_limit_ptr(d);
  return buf;
}

/* Set an error and return NULL, for `return pb_dec_err(d, ...)`. */
PB_INLINE const char *pb_dec_err(pb_dec *d, pb_status st) {
  d->status = st;
  return NULL;
}

/* The slow half of pb_dec_done: end of message, flip, or overrun. */
const char *pb_dec_done_slow(pb_dec *d, const char *ptr, bool *done);

/* True when the current message has ended (or on error: *ptr is then NULL).
 * May move *ptr into the patch buffer. */
PB_INLINE bool pb_dec_done(pb_dec *d, const char **ptr) {
  if (PB_LIKELY(*ptr < d->limit_ptr)) return false;
  bool done;
  *ptr = pb_dec_done_slow(d, *ptr, &done);
  return done;
}

/* Whether ptr has run past the current message's end. */
PB_INLINE bool pb_dec_overrun(const pb_dec *d, const char *ptr) {
  return ptr - d->end > d->limit;
}

/* Enter a length-delimited region of `size` bytes at ptr; returns the delta
 * to restore with pb_dec_pop_limit, or -1 if it runs past the current
 * message (the caller reports PB_ERR_LENGTH). size < 2^31. */
PB_INLINE ptrdiff_t pb_dec_push_limit(pb_dec *d, const char *ptr, size_t size) {
  ptrdiff_t nl = (ptr - d->end) + (ptrdiff_t)size;
  if (PB_UNLIKELY(nl > d->limit)) return -1;
  ptrdiff_t delta = d->limit - nl;
  d->limit = nl;
  pb_dec_set_limit_ptr(d);
  return delta;
}

PB_INLINE void pb_dec_pop_limit(pb_dec *d, ptrdiff_t delta) {
  d->limit += delta;
  pb_dec_set_limit_ptr(d);
}

/* Whether `size` bytes at ptr lie inside the current message. */
PB_INLINE bool pb_dec_fits(const pb_dec *d, const char *ptr, size_t size) {
  return (ptrdiff_t)size <= d->end + d->limit - ptr;
}

/* The caller's address of a pointer into the input (for aliasing). */
PB_INLINE const char *pb_dec_input_addr(const pb_dec *d, const char *p) {
  return (const char *)((uintptr_t)p + d->input_delta);
}

/* ---- arena ---- */

void *pb_dec_alloc_slow(pb_dec *d, size_t size);

PB_INLINE void *pb_dec_alloc(pb_dec *d, size_t size) {
  size = PB_ALIGN8(size);
  if (PB_LIKELY((size_t)(d->aend - d->aptr) >= size)) {
    void *p = d->aptr;
    d->aptr += size;
    return p;
  }
  return pb_dec_alloc_slow(d, size);
}

/* Hand the arena back to the world (before calling code that allocates
 * through pb_arena_alloc) and take it again afterwards. */
PB_INLINE void pb_dec_arena_put(pb_dec *d) { d->arena->ptr = d->aptr; }
PB_INLINE void pb_dec_arena_take(pb_dec *d) {
  d->aptr = d->arena->ptr;
  d->aend = d->arena->end;
}

PB_INLINE pb_msg *pb_dec_new_msg(pb_dec *d, const pb_msgdef *m) {
  pb_msg *msg = pb_dec_alloc(d, m->size);
  if (msg) memset(msg, 0, m->size);
  return msg;
}

/* 16-byte vectors for the fast decoder's inline copies and zeroing. */
typedef char pb_v16 __attribute__((vector_size(16), aligned(1)));

/* Make sure the current arena block has `n` free bytes (a new block if
 * not); false (and status) when out of memory. */
bool pb_dec_reserve_bytes(pb_dec *d, size_t n);

/* Grow an array to hold `n` more elements; NULL (and status) if out of
 * memory. */
void *pb_dec_array_reserve(pb_dec *d, pb_array *arr, uint32_t elem, size_t n);

/* ---- varints (no bounds checks: callers stand on the slop) ---- */

/* Reads a varint of up to 10 bytes; NULL if longer. Bits past 64 are
 * dropped, as Google's parsers do. */
const char *pb_varint_slow(const char *p, uint64_t *out);

PB_INLINE const char *pb_varint(const char *p, uint64_t *out) {
  uint8_t b = (uint8_t)*p;
  if (PB_LIKELY(b < 0x80)) {
    *out = b;
    return p + 1;
  }
  return pb_varint_slow(p, out);
}

PB_INLINE uint32_t pb_zigzag32(uint32_t n) { return (n >> 1) ^ -(n & 1); }
PB_INLINE uint64_t pb_zigzag64(uint64_t n) { return (n >> 1) ^ -(n & 1); }

/* ---- the decoders ---- */

/* Generic: decode one field at ptr (ptr below limit_ptr). On an end-group
 * tag it sets d->end_group and returns the pointer after the tag. */
const char *pb_generic_field(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m);
const char *pb_generic_msg(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m);
const char *pb_switch_msg(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m);
const char *pb_fast_msg(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m);

/* Validate proto3 string bytes, ASCII first. */
PB_INLINE bool pb_utf8_fast(const char *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    if (pb_load64(p + i) & 0x8080808080808080ull) return pb_utf8_valid(p + i, n - i);
  for (; i < n; i++)
    if ((uint8_t)p[i] & 0x80) return pb_utf8_valid(p + i, n - i);
  return true;
}

#endif /* PB_INTERNAL_DECODE_H */
