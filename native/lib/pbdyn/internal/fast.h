/* The fast decoder's shared part: the calling convention of its field
 * functions, the one list their combinations come from, dispatch, and the
 * helpers every wire type uses. Each wire type has the rest to itself: its
 * cores in a header (fast_scalar.h: the varint and fixed kinds;
 * fast_string.h; fast_message.h) and its functions in a source
 * (src/fast_varint.c, fast_fixed.c, fast_string.c, fast_message.c); the
 * frame around them (message start and end, fallback, trampoline, function
 * table) is src/fast_dispatch.c.
 *
 * A field function is entered by dispatch with the decoder state in its six
 * arguments (d, ptr, msg, m, hasbits, data; see def.h for `data`), after
 * dispatch has XORed the input's first two bytes into `data`. It
 *   1. checks that the tag matched (the low 8 or 16 bits of data are 0);
 *      a repeated field seeing the other encoding (packed for unpacked or
 *      the reverse) passes itself to its twin; anything else goes to the
 *      fallback;
 *   2. parses the value with no bounds check (the slop guarantees 16
 *      readable bytes) and stores it; a repeated field keeps going while the
 *      next tag is the same;
 *   3. dispatches the next field: under musttail, a tail call through the
 *      table, inlined into every function (so each has its own indirect
 *      jump and its own branch history); in the portable build, a return
 *      to the trampoline loop.
 * Anything unusual -- a length of more than two bytes, a closed enum value
 * outside the 0..23 mask, a string crossing the message end -- makes the
 * core return PBDYN_FAST_FALLBACK and the generic decoder takes that one
 * field; a full array or arena block makes it return PBDYN_FAST_GROW. Errors
 * are found by the generic decoder too (the fast path falls back rather
 * than judge), so every build reports the same status on the same input.
 *
 * The cores are always-inline functions of (kind, cardinality, tag size)
 * constants; the switch decoder (decode_switch.c) inlines the same cores,
 * so the two decoders differ only in how they get from one field to the
 * next. That is why each wire type's cores live in a header rather than in
 * the source that defines its functions: the switch decoder's one loop
 * needs all of them.
 */
#ifndef PBDYN_INTERNAL_FAST_H
#define PBDYN_INTERNAL_FAST_H

#include "internal/decode.h"

/* ---- the lists ---- */

/* Kinds, by the file that defines their functions (one per wire type):
 * X(F, kind) for each. Varint and fixed kinds are packable. */
#define PBDYN_FAST_VARINT_KINDS(X, F) \
  X(F, boolean) X(F, varint32) X(F, varint64) X(F, zigzag32) X(F, zigzag64) X(F, enum_closed)
#define PBDYN_FAST_FIXED_KINDS(X, F) X(F, fixed32) X(F, fixed64)
#define PBDYN_FAST_STRING_KINDS(X, F) X(F, bytes) X(F, string_utf8)
#define PBDYN_FAST_MESSAGE_KINDS(X, F) X(F, message)

enum {
#define PBDYN_X(F, k) PBDYN_FK_##k,
  PBDYN_FAST_VARINT_KINDS(PBDYN_X, ) PBDYN_FAST_FIXED_KINDS(PBDYN_X, )
  PBDYN_FAST_STRING_KINDS(PBDYN_X, ) PBDYN_FAST_MESSAGE_KINDS(PBDYN_X, )
#undef PBDYN_X
  PBDYN_FK_COUNT
};

enum { PBDYN_FC_singular, PBDYN_FC_oneof, PBDYN_FC_repeated, PBDYN_FC_packed, PBDYN_FC_COUNT };

/* Every function of a kind: F(kind, cardinality, tag bytes). */
#define PBDYN_FAST_CARDS_PACKABLE(F, k)                                          \
  F(k, singular, 1) F(k, singular, 2) F(k, oneof, 1) F(k, oneof, 2)          \
  F(k, repeated, 1) F(k, repeated, 2) F(k, packed, 1) F(k, packed, 2)
#define PBDYN_FAST_CARDS_OTHER(F, k)                                             \
  F(k, singular, 1) F(k, singular, 2) F(k, oneof, 1) F(k, oneof, 2)          \
  F(k, repeated, 1) F(k, repeated, 2)

/* The functions each source defines (src/fast_<type>.c), and the whole
 * cross product, 82 functions: 48 varint, 16 fixed, 12 string, 6 message. */
#define PBDYN_FAST_VARINT_FUNCS(F) PBDYN_FAST_VARINT_KINDS(PBDYN_FAST_CARDS_PACKABLE, F)
#define PBDYN_FAST_FIXED_FUNCS(F) PBDYN_FAST_FIXED_KINDS(PBDYN_FAST_CARDS_PACKABLE, F)
#define PBDYN_FAST_STRING_FUNCS(F) PBDYN_FAST_STRING_KINDS(PBDYN_FAST_CARDS_OTHER, F)
#define PBDYN_FAST_MESSAGE_FUNCS(F) PBDYN_FAST_MESSAGE_KINDS(PBDYN_FAST_CARDS_OTHER, F)
#define PBDYN_FAST_FUNCS(F)                                                      \
  PBDYN_FAST_VARINT_FUNCS(F) PBDYN_FAST_FIXED_FUNCS(F) PBDYN_FAST_STRING_FUNCS(F)     \
  PBDYN_FAST_MESSAGE_FUNCS(F)

#define PBDYN_FAST_NAME(k, c, t) pbdyn__fast_##k##_##c##_tag##t

/* Ids for the switch decoder (msgdef.fast_kind); 0 is "fallback". */
enum {
  PBDYN_FID_FALLBACK = 0,
#define PBDYN_F(k, c, t) PBDYN_FID_##k##_##c##_##t,
  PBDYN_FAST_FUNCS(PBDYN_F)
#undef PBDYN_F
  PBDYN_FID_COUNT
};
_Static_assert(PBDYN_FID_COUNT <= 256, "switch ids are stored in uint8_t msgdef.fast_kind");

#define PBDYN_F(k, c, t) pbdyn__fast_ret PBDYN_CC PBDYN_FAST_NAME(k, c, t)(PBDYN_FAST_PARAMS);
PBDYN_FAST_FUNCS(PBDYN_F)
#undef PBDYN_F

pbdyn__fast_ret PBDYN_CC pbdyn__fast_fallback(PBDYN_FAST_PARAMS);
pbdyn__fast_ret PBDYN_CC pbdyn__fast_end(PBDYN_FAST_PARAMS);

/* The function and switch id of (kind, cardinality, tag bytes); NULL / 0
 * for combinations that do not exist (packed strings). */
pbdyn__fastfn *pbdyn__fast_func(int kind, int card, int tagbytes);
uint8_t pbdyn__fast_id(int kind, int card, int tagbytes);

/* Decode a sub-message with the fast decoder (a real call, not a tail call:
 * the parent's state is kept across it). */
const char *pbdyn__fast_child(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                              const pbdyn_msgdef *m);
#if PBDYN_MUSTTAIL
/* The same from a field function: straight into the child's chain, with the
 * field functions' convention (see pbdyn__fast_call_child, fast_message.h). */
pbdyn__fast_ret PBDYN_CC pbdyn__fast_start(PBDYN_FAST_PARAMS);
#endif

/* ---- the field data word (def.h) ---- */

#define PBDYN_DATA_HASBIT(data) ((unsigned)((data) >> 16) & 63)
#define PBDYN_DATA_SUB(data) ((unsigned)((data) >> 24) & 0xff)
#define PBDYN_DATA_ENUM_MASK(data) ((uint32_t)((data) >> 24) & 0xffffff)
#define PBDYN_DATA_CASE(data) ((unsigned)((data) >> 32) & 0xffff)
#define PBDYN_DATA_OFFSET(data) ((unsigned)((data) >> 48))

/* Whether the tag matched: the XOR left zeros in the tag's bytes. */
#define PBDYN_TAG_MISMATCH(data, t) ((t) == 1 ? (uint8_t)(data) != 0 : (uint16_t)(data) != 0)
/* Whether it matched but for the wire type `x` (XOR of the two). */
#define PBDYN_TAG_IS_ALT(data, t, x) ((t) == 1 ? (uint8_t)(data) == (x) : (uint16_t)(data) == (x))

/* ---- dispatch and the function wrappers ---- */

#if PBDYN_MUSTTAIL
#define PBDYN_JUMP(fn, dat) \
  PBDYN_MUSTTAIL_ATTR return (fn)(d, ptr, msg, m, hasbits, (dat))
/* Dispatch the next field: the one bounds compare of the field, then an
 * indexed jump. Entries are 16 bytes and the mask keeps bits 3..7, so the
 * byte offset of a slot is (tag & mask) * 2. */
#define PBDYN_DISPATCH()                                                          \
  do {                                                                         \
    if (PBDYN_UNLIKELY(ptr >= d->limit_ptr)) PBDYN_JUMP(pbdyn__fast_end, 0);         \
    uint64_t tag_ = pbdyn__load16(ptr);                                            \
    const pbdyn__fastent *e_ =                                                     \
        (const pbdyn__fastent *)((const char *)m->fast + (tag_ & m->fast_mask) * 2); \
    PBDYN_JUMP(e_->fn, e_->data ^ tag_);                                       \
  } while (0)
#define PBDYN_RETURN_ERROR() return NULL
#define PBDYN_RETURN_END(p) return (p)
#else
#define PBDYN_JUMP(fn, dat) return (fn)(d, ptr, msg, m, hasbits, (dat))
#define PBDYN_DISPATCH() return (pbdyn__fast_ret){ptr, hasbits}
#define PBDYN_RETURN_ERROR() return (pbdyn__fast_ret){NULL, 0}
#define PBDYN_RETURN_END(p)  \
  do {                    \
    d->done_ptr = (p);    \
    return (pbdyn__fast_ret){NULL, 0}; \
  } while (0)
#endif

/* What a core tells its wrapper. PBDYN_FAST_GROW: memory is short (a full
 * array or arena block); the wrapper tail-calls pbdyn__fast_grow, which provides
 * what d->grow_* describe and dispatches the same field again.
 * PBDYN_FAST_COPY: a packed fixed-width run to append (d->copy_*, the input
 * already past it); the wrapper tail-calls pbdyn__fast_copy, which grows the
 * array, copies the run with libc's memcpy and dispatches the next field. So
 * that no field function makes a call on its common path, and most none at
 * all: they need no stack frame. */
enum { PBDYN_FAST_NEXT = 0, PBDYN_FAST_FALLBACK = 1, PBDYN_FAST_GROW = 2, PBDYN_FAST_COPY = 3 };

pbdyn__fast_ret PBDYN_CC pbdyn__fast_grow(PBDYN_FAST_PARAMS);
pbdyn__fast_ret PBDYN_CC pbdyn__fast_copy(PBDYN_FAST_PARAMS);

PBDYN_INLINE int pbdyn__fast_need(pbdyn__dec *d, pbdyn__array *arr, uint32_t elem, uint32_t n,
                                  size_t bytes) {
  d->grow_arr = arr;
  d->grow_elem = elem;
  d->grow_n = n;
  d->grow_bytes = bytes;
  return PBDYN_FAST_GROW;
}

PBDYN_INLINE void pbdyn__fast_flush(pbdyn_msg *msg, uint64_t hasbits) {
  *PBDYN_PTR_AT(msg, PBDYN_MSG_HASBITS, uint64_t) |= hasbits;
}

/* ---- shared pieces of the cores ---- */

/* Tag bytes at p, for "is the next field the same one". */
PBDYN_INLINE uint32_t pbdyn__fast_tag(const char *p, int tagbytes) {
  return tagbytes == 1 ? (uint8_t)*p : pbdyn__load16(p);
}

/* Field number of the tag at p (oneof cases). */
PBDYN_INLINE uint32_t pbdyn__fast_tag_number(const char *p, int tagbytes) {
  if (tagbytes == 1) return (uint8_t)p[0] >> 3;
  return (((uint8_t)p[0] & 0x7fu) | ((uint32_t)(uint8_t)p[1] << 7)) >> 3;
}

/* A length prefix of at most two bytes (up to 16383); NULL otherwise (the
 * fallback takes longer ones). */
PBDYN_INLINE const char *pbdyn__fast_size(const char *p, uint32_t *size) {
  uint32_t b0 = (uint8_t)p[0];
  if (PBDYN_LIKELY(b0 < 0x80)) {
    *size = b0;
    return p + 1;
  }
  uint32_t b1 = (uint8_t)p[1];
  if (b1 >= 0x80) return NULL;
  *size = (b0 & 0x7f) | (b1 << 7);
  return p + 2;
}

/* Set presence of a singular or oneof field whose tag starts at tagp. */
PBDYN_INLINE void pbdyn__fast_presence(pbdyn_msg *msg, uint64_t *hasbits, uint64_t data, int card,
                                       const char *tagp, int tagbytes) {
  if (card == PBDYN_FC_oneof)
    *PBDYN_PTR_AT(msg, PBDYN_DATA_CASE(data), uint32_t) = pbdyn__fast_tag_number(tagp, tagbytes);
  else
    *hasbits |= (uint64_t)1 << PBDYN_DATA_HASBIT(data);
}

/* ---- the generated functions ---- */

/* The function of (k, c, t): match the tag (or hand over to the twin for
 * the other repeated encoding, or fall back), run `core` (an expression
 * over the function's parameters that returns PBDYN_FAST_NEXT, _FALLBACK or
 * _GROW), then dispatch the next field. */
#define PBDYN_FAST_BODY(k, c, t, core, twin)                                      \
  pbdyn__fast_ret PBDYN_CC PBDYN_FAST_NAME(k, c, t)(PBDYN_FAST_PARAMS) {                     \
    if (PBDYN_UNLIKELY(PBDYN_TAG_MISMATCH(data, t))) {                                \
      twin                                                                      \
      PBDYN_JUMP(pbdyn__fast_fallback, data);                                     \
    }                                                                           \
    int r_ = core;                                                              \
    if (PBDYN_UNLIKELY(r_ != PBDYN_FAST_NEXT)) {                                      \
      if (r_ == PBDYN_FAST_GROW) PBDYN_JUMP(pbdyn__fast_grow, data);                      \
      if (r_ == PBDYN_FAST_COPY) PBDYN_JUMP(pbdyn__fast_copy, data);                      \
      PBDYN_JUMP(pbdyn__fast_fallback, data);                                          \
    }                                                                           \
    PBDYN_DISPATCH();                                                              \
  }

#endif /* PBDYN_INTERNAL_FAST_H */
