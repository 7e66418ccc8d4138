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
#ifndef PBDYN_INTERNAL_DECODE_H
#define PBDYN_INTERNAL_DECODE_H

#include <stddef.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/def.h"
#include "internal/msg.h"

#define PBDYN_SLOP 16
#define PBDYN_NOGROUP UINT32_MAX
#define PBDYN_DEFAULT_DEPTH 100

typedef struct pbdyn__dec pbdyn__dec;

/* Decodes the fields of one message until its limit or an end-group tag;
 * returns the pointer after the last field, or NULL with d->status set. */
typedef const char *pbdyn__msgdecoder(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                      const pbdyn_msgdef *m);

struct pbdyn__dec {
  const char *limit_ptr; /* read by every dispatch */
  const char *end;
  const char *data_end;  /* end of the input's bytes in the current buffer */
  ptrdiff_t limit;
  char *aptr, *aend;     /* the arena's current block, owned while decoding */
  int depth;             /* levels left */
  uint32_t end_group;    /* PBDYN_NOGROUP, or the number of the end-group tag read */
  uint32_t flags;        /* PBDYN_DECODE_* */
  pbdyn_status status;
  uintptr_t input_delta; /* patch address + delta = caller's address */
  const char *done_ptr;  /* trampoline: where the message ended */
  pbdyn__array *grow_arr;    /* what a fast field function lacks: room in an */
  uint32_t grow_elem;    /* array for grow_n elements of grow_elem bytes, */
  uint32_t grow_n;       /* and/or grow_bytes in the arena block */
  size_t grow_bytes;
  pbdyn__array *copy_arr;    /* a fixed-width run a fast field function hands */
  const char *copy_from; /* to pbdyn__fast_copy: copy_n elements of */
  uint32_t copy_elem;    /* copy_elem bytes at copy_from */
  uint32_t copy_n;
  pbdyn_arena *arena;
  pbdyn__msgdecoder *decode_msg; /* decodes sub-messages met by the generic code */
  const char *field_start; /* the tag of the field the generic code last began */
  char patch[2 * PBDYN_SLOP];
};

/* ---- input stream ---- */

PBDYN_INLINE void pbdyn__dec_set_limit_ptr(pbdyn__dec *d) {
  d->limit_ptr = d->end + (d->limit < 0 ? d->limit : 0);
}

PBDYN_INLINE const char *pbdyn__dec_init(pbdyn__dec *d, const char *buf, size_t size) {
  if (size <= PBDYN_SLOP) {
    memset(d->patch, 0, sizeof d->patch);
    if (size) memcpy(d->patch, buf, size);
    d->end = d->data_end = d->patch + size;
    d->limit = 0;
    d->input_delta = (uintptr_t)buf - (uintptr_t)d->patch;
    buf = d->patch;
  } else {
    d->end = buf + size - PBDYN_SLOP;
    d->data_end = buf + size;
    d->limit = PBDYN_SLOP;
    d->input_delta = 0;
  }
  pbdyn__dec_set_limit_ptr(d);
  return buf;
}

/* Set an error and return NULL, for `return pbdyn__dec_err(d, ...)`. */
PBDYN_INLINE const char *pbdyn__dec_err(pbdyn__dec *d, pbdyn_status st) {
  d->status = st;
  return NULL;
}

/* The slow half of pbdyn__dec_done: end of message, flip, or overrun. */
const char *pbdyn__dec_done_slow(pbdyn__dec *d, const char *ptr, bool *done);

/* True when the current message has ended (or on error: *ptr is then NULL).
 * May move *ptr into the patch buffer. */
PBDYN_INLINE bool pbdyn__dec_done(pbdyn__dec *d, const char **ptr) {
  if (PBDYN_LIKELY(*ptr < d->limit_ptr)) return false;
  bool done;
  *ptr = pbdyn__dec_done_slow(d, *ptr, &done);
  return done;
}

/* Whether ptr has run past the current message's end. */
PBDYN_INLINE bool pbdyn__dec_overrun(const pbdyn__dec *d, const char *ptr) {
  return ptr - d->end > d->limit;
}

/* Enter a length-delimited region of `size` bytes at ptr; returns the delta
 * to restore with pbdyn__dec_pop_limit, or -1 if it runs past the current
 * message (the caller reports PBDYN_ERR_LENGTH). size < 2^31. */
PBDYN_INLINE ptrdiff_t pbdyn__dec_push_limit(pbdyn__dec *d, const char *ptr, size_t size) {
  ptrdiff_t nl = (ptr - d->end) + (ptrdiff_t)size;
  if (PBDYN_UNLIKELY(nl > d->limit)) return -1;
  ptrdiff_t delta = d->limit - nl;
  d->limit = nl;
  pbdyn__dec_set_limit_ptr(d);
  return delta;
}

PBDYN_INLINE void pbdyn__dec_pop_limit(pbdyn__dec *d, ptrdiff_t delta) {
  d->limit += delta;
  pbdyn__dec_set_limit_ptr(d);
}

/* Whether `size` bytes at ptr lie inside the current message. */
PBDYN_INLINE bool pbdyn__dec_fits(const pbdyn__dec *d, const char *ptr, size_t size) {
  return (ptrdiff_t)size <= d->end + d->limit - ptr;
}

/* The caller's address of a pointer into the input (for aliasing). */
PBDYN_INLINE const char *pbdyn__dec_input_addr(const pbdyn__dec *d, const char *p) {
  return (const char *)((uintptr_t)p + d->input_delta);
}

/* ---- arena ---- */

void *pbdyn__dec_alloc_slow(pbdyn__dec *d, size_t size);

PBDYN_INLINE void *pbdyn__dec_alloc(pbdyn__dec *d, size_t size) {
  size = PBDYN_ALIGN8(size);
  if (PBDYN_LIKELY((size_t)(d->aend - d->aptr) >= size)) {
    void *p = d->aptr;
    d->aptr += size;
    return p;
  }
  return pbdyn__dec_alloc_slow(d, size);
}

/* Hand the arena back to the world (before calling code that allocates
 * through pbdyn_arena_alloc) and take it again afterwards. */
PBDYN_INLINE void pbdyn__dec_arena_put(pbdyn__dec *d) { d->arena->ptr = d->aptr; }
PBDYN_INLINE void pbdyn__dec_arena_take(pbdyn__dec *d) {
  d->aptr = d->arena->ptr;
  d->aend = d->arena->end;
}

PBDYN_INLINE pbdyn_msg *pbdyn__dec_new_msg(pbdyn__dec *d, const pbdyn_msgdef *m) {
  pbdyn_msg *msg = pbdyn__dec_alloc(d, m->size);
  if (!msg) return NULL;
  memset(msg, 0, m->size);
  pbdyn__msg_def_set(msg, m);
  return msg;
}

/* 16-byte vectors for the fast decoder's inline copies and zeroing. */
typedef char pbdyn__v16 __attribute__((vector_size(16), aligned(1)));

/* Make sure the current arena block has `n` free bytes (a new block if
 * not); false (and status) when out of memory. */
bool pbdyn__dec_reserve_bytes(pbdyn__dec *d, size_t n);

/* Grow an array to hold `n` more elements; NULL (and status) if out of
 * memory. */
void *pbdyn__dec_array_reserve(pbdyn__dec *d, pbdyn__array *arr, uint32_t elem, size_t n);

/* Runs of this many bytes or more are placed for memcpy's sake (pbdyn__run_skew),
 * which skips at most PBDYN_RUN_SKEW_MAX bytes before one. */
#define PBDYN_RUN_SKEW_MIN 4096
#define PBDYN_RUN_SKEW_MAX 2112

/* Bytes to leave free before the array at dst that a run of `bytes` bytes at
 * src is copied into, so that dst lies 1,792 to 4,031 bytes ahead of src
 * modulo 4 KiB (else 2,041-2,048 after the skip). Closer ahead, loads alias
 * the page offsets of the stores just made and the copy slows: with glibc
 * 2.36's memcpy (rep movsb) on AMD Zen 5, one 16,000-byte copy from L2 takes
 * 133 ns when dst is 1-63 bytes ahead, ~109 ns up to ~1 KiB ahead, 98-99 ns
 * from ~1.4 KiB on; the benchmark's packed-fixed message (runs of 8,000,
 * 16,000 and 16,000 bytes, all at the same distance) 454 ns at 57-64 bytes
 * ahead, 295 at 1 KiB, 273 at 1,792, 270-272 from 2 KiB to 4,031 bytes.
 * Skipped: ~500 bytes per run of 4 KiB or more on average. */
PBDYN_INLINE size_t pbdyn__run_skew(const char *dst, const char *src, size_t bytes) {
  size_t ahead = (size_t)((uintptr_t)dst - (uintptr_t)src) & 4095;
  if (bytes < PBDYN_RUN_SKEW_MIN || ahead - 1792 < 4032 - 1792) return 0;
  return ((2048 - ahead) & 4095) & ~(size_t)7;
}

/* Append a packed fixed-width run, n elements of elem bytes at p (all of
 * them input bytes: no slop is read), to arr; false (and status) if out of
 * memory. Every decoder's path for the runs it does not copy inline. An
 * empty array (a field's first run, the common case) takes the run's size
 * from the arena block here, placed by pbdyn__run_skew, with no call when the
 * block has room: ~20 instructions, against ~45 through
 * pbdyn__dec_array_reserve. */
PBDYN_INLINE bool pbdyn__dec_fixed_run(pbdyn__dec *d, pbdyn__array *arr, uint32_t elem,
                                      const char *p, uint32_t n) {
  size_t bytes = (size_t)n * elem;
  if (arr->cap == 0 && n >= 8) {
    size_t room = PBDYN_ALIGN8(bytes + 16); /* the padding pbdyn__dec_array_reserve leaves */
    size_t skew = pbdyn__run_skew(d->aptr, p, bytes);
    if (PBDYN_UNLIKELY((size_t)(d->aend - d->aptr) < skew + room)) {
      size_t most = bytes >= PBDYN_RUN_SKEW_MIN ? PBDYN_RUN_SKEW_MAX : 0;
      if (!pbdyn__dec_reserve_bytes(d, room + most)) return false; /* a new block */
      skew = pbdyn__run_skew(d->aptr, p, bytes);
    }
    arr->data = d->aptr + skew;
    arr->cap = n;
    d->aptr += skew + room;
  } else if (arr->cap - arr->size < n && !pbdyn__dec_array_reserve(d, arr, elem, n)) {
    return false;
  }
  /* the wire's little-endian values are the host's (port.h) */
  memcpy((char *)arr->data + (size_t)arr->size * elem, p, bytes);
  arr->size += n;
  return true;
}

/* ---- varints (no bounds checks: callers stand on the slop) ---- */

/* Reads a varint of up to 10 bytes; NULL if longer. Bits past 64 are
 * dropped, as Google's parsers do. */
const char *pbdyn__varint_slow(const char *p, uint64_t *out);

PBDYN_INLINE const char *pbdyn__varint(const char *p, uint64_t *out) {
  uint8_t b = (uint8_t)*p;
  if (PBDYN_LIKELY(b < 0x80)) {
    *out = b;
    return p + 1;
  }
  return pbdyn__varint_slow(p, out);
}

PBDYN_INLINE uint32_t pbdyn__zigzag32(uint32_t n) { return (n >> 1) ^ -(n & 1); }
PBDYN_INLINE uint64_t pbdyn__zigzag64(uint64_t n) { return (n >> 1) ^ -(n & 1); }

/* ---- the decoders ---- */

/* Generic: decode one field at ptr (ptr below limit_ptr). On an end-group
 * tag it sets d->end_group and returns the pointer after the tag. */
const char *pbdyn__generic_field(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                 const pbdyn_msgdef *m);
const char *pbdyn__generic_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                               const pbdyn_msgdef *m);
const char *pbdyn__switch_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                              const pbdyn_msgdef *m);
const char *pbdyn__fast_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg, const pbdyn_msgdef *m);

/* Validate proto3 string bytes, ASCII first. */
PBDYN_INLINE bool pbdyn__utf8_fast(const char *p, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    if (pbdyn__load64(p + i) & 0x8080808080808080ull) return pbdyn_utf8_valid(p + i, n - i);
  for (; i < n; i++)
    if ((uint8_t)p[i] & 0x80) return pbdyn_utf8_valid(p + i, n - i);
  return true;
}

#endif /* PBDYN_INTERNAL_DECODE_H */
