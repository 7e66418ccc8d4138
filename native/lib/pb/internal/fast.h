/* The fast decoder's field functions: one per (field kind x cardinality x
 * tag size), all generated from the lists below.
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
 * Anything unusual -- a length of more than two bytes, a closed enum
 * value out of the 0..63 mask, a string crossing the message end -- makes
 * the core return PB_FAST_FALLBACK and the generic decoder takes that one
 * field; a full array or arena block makes it return PB_FAST_GROW. Errors are found by the generic
 * decoder too (the fast path falls back rather than judge), so every build
 * reports the same status on the same input.
 *
 * The cores are always-inline functions of (kind, cardinality, tag size)
 * constants; the switch decoder (decode_switch.c) uses the same cores, so
 * the two decoders differ only in how they get from one field to the next.
 */
#ifndef PB_INTERNAL_FAST_H
#define PB_INTERNAL_FAST_H

#include "internal/decode.h"

/* ---- the lists ---- */

/* Kinds, by the file that defines their functions (one per wire type):
 * X(F, kind) for each. Varint and fixed kinds are packable. */
#define PB_FAST_VARINT_KINDS(X, F) \
  X(F, boolean) X(F, varint32) X(F, varint64) X(F, zigzag32) X(F, zigzag64) X(F, enum_closed)
#define PB_FAST_FIXED_KINDS(X, F) X(F, fixed32) X(F, fixed64)
#define PB_FAST_STRING_KINDS(X, F) X(F, bytes) X(F, string_utf8)
#define PB_FAST_MESSAGE_KINDS(X, F) X(F, message)

enum {
#define PB_X(F, k) PB_FK_##k,
  PB_FAST_VARINT_KINDS(PB_X, ) PB_FAST_FIXED_KINDS(PB_X, )
  PB_FAST_STRING_KINDS(PB_X, ) PB_FAST_MESSAGE_KINDS(PB_X, )
#undef PB_X
  PB_FK_COUNT
};

enum { PB_FC_singular, PB_FC_oneof, PB_FC_repeated, PB_FC_packed, PB_FC_COUNT };

/* Every function of a kind: F(kind, cardinality, tag bytes). */
#define PB_FAST_CARDS_PACKABLE(F, k)                                          \
  F(k, singular, 1) F(k, singular, 2) F(k, oneof, 1) F(k, oneof, 2)          \
  F(k, repeated, 1) F(k, repeated, 2) F(k, packed, 1) F(k, packed, 2)
#define PB_FAST_CARDS_OTHER(F, k)                                             \
  F(k, singular, 1) F(k, singular, 2) F(k, oneof, 1) F(k, oneof, 2)          \
  F(k, repeated, 1) F(k, repeated, 2)

/* The functions each source defines (src/fast_<type>.c), and the whole
 * cross product, 82 functions: 48 varint, 16 fixed, 12 string, 6 message. */
#define PB_FAST_VARINT_FUNCS(F) PB_FAST_VARINT_KINDS(PB_FAST_CARDS_PACKABLE, F)
#define PB_FAST_FIXED_FUNCS(F) PB_FAST_FIXED_KINDS(PB_FAST_CARDS_PACKABLE, F)
#define PB_FAST_STRING_FUNCS(F) PB_FAST_STRING_KINDS(PB_FAST_CARDS_OTHER, F)
#define PB_FAST_MESSAGE_FUNCS(F) PB_FAST_MESSAGE_KINDS(PB_FAST_CARDS_OTHER, F)
#define PB_FAST_FUNCS(F)                                                      \
  PB_FAST_VARINT_FUNCS(F) PB_FAST_FIXED_FUNCS(F) PB_FAST_STRING_FUNCS(F)     \
  PB_FAST_MESSAGE_FUNCS(F)

#define PB_FAST_NAME(k, c, t) pb_fast_##k##_##c##_tag##t

/* Ids for the switch decoder (msgdef.fast_kind); 0 is "fallback". */
enum {
  PB_FID_FALLBACK = 0,
#define PB_F(k, c, t) PB_FID_##k##_##c##_##t,
  PB_FAST_FUNCS(PB_F)
#undef PB_F
  PB_FID_COUNT
};

#define PB_F(k, c, t) pb_fast_ret PB_CC PB_FAST_NAME(k, c, t)(PB_FAST_PARAMS);
PB_FAST_FUNCS(PB_F)
#undef PB_F

pb_fast_ret PB_CC pb_fast_fallback(PB_FAST_PARAMS);
pb_fast_ret PB_CC pb_fast_end(PB_FAST_PARAMS);

/* The function and switch id of (kind, cardinality, tag bytes); NULL / 0
 * for combinations that do not exist (packed strings). */
pb_fastfn *pb_fast_func(int kind, int card, int tagbytes);
uint8_t pb_fast_id(int kind, int card, int tagbytes);

/* Decode a sub-message with the fast decoder (a real call, not a tail call:
 * the parent's state is kept across it). */
const char *pb_fast_child(pb_dec *d, const char *ptr, pb_msg *msg, const pb_msgdef *m);
#if PB_MUSTTAIL
/* From a field function: straight into the child's chain, same convention. */
pb_fast_ret PB_CC pb_fast_start(PB_FAST_PARAMS);
#define pb_fast_call_child(d, p, sm, sub) pb_fast_start(d, p, sm, sub, 0, 0)
#else
#define pb_fast_call_child pb_fast_child
#endif

/* ---- the field data word (def.h) ---- */

#define PB_DATA_HASBIT(data) ((unsigned)((data) >> 16) & 63)
#define PB_DATA_SUB(data) ((unsigned)((data) >> 24) & 0xff)
#define PB_DATA_ENUM_MASK(data) ((uint32_t)((data) >> 24) & 0xffffff)
#define PB_DATA_CASE(data) ((unsigned)((data) >> 32) & 0xffff)
#define PB_DATA_OFFSET(data) ((unsigned)((data) >> 48))

/* Whether the tag matched: the XOR left zeros in the tag's bytes. */
#define PB_TAG_MISMATCH(data, t) ((t) == 1 ? (uint8_t)(data) != 0 : (uint16_t)(data) != 0)
/* Whether it matched but for the wire type `x` (XOR of the two). */
#define PB_TAG_IS_ALT(data, t, x) ((t) == 1 ? (uint8_t)(data) == (x) : (uint16_t)(data) == (x))

/* ---- dispatch and the function wrappers ---- */

#define PB_FAST_ARGS d, ptr, msg, m, hasbits, data

#if PB_MUSTTAIL
#define PB_JUMP(fn, dat) \
  PB_MUSTTAIL_ATTR return (fn)(d, ptr, msg, m, hasbits, (dat))
/* Dispatch the next field: the one bounds compare of the field, then an
 * indexed jump. Entries are 16 bytes and the mask keeps bits 3..7, so the
 * byte offset of a slot is (tag & mask) * 2. */
#define PB_DISPATCH()                                                          \
  do {                                                                         \
    if (PB_UNLIKELY(ptr >= d->limit_ptr)) PB_JUMP(pb_fast_end, 0);         \
    uint64_t tag_ = pb_load16(ptr);                                            \
    const pb_fastent *e_ =                                                     \
        (const pb_fastent *)((const char *)m->fast + (tag_ & m->fast_mask) * 2); \
    PB_JUMP(e_->fn, e_->data ^ tag_);                                       \
  } while (0)
#define PB_RETURN_ERROR() return NULL
#define PB_RETURN_END(p) return (p)
#else
#define PB_JUMP(fn, dat) return (fn)(d, ptr, msg, m, hasbits, (dat))
#define PB_DISPATCH() return (pb_fast_ret){ptr, hasbits}
#define PB_RETURN_ERROR() return (pb_fast_ret){NULL, 0}
#define PB_RETURN_END(p)  \
  do {                    \
    d->done_ptr = (p);    \
    return (pb_fast_ret){NULL, 0}; \
  } while (0)
#endif

/* What a core tells its wrapper. PB_FAST_GROW: memory is short (a full
 * array or arena block); the wrapper tail-calls pb_fast_grow, which provides
 * what d->grow_* describe and dispatches the same field again. So that no
 * field function makes a call on its common path, and most none at all:
 * they need no stack frame. */
enum { PB_FAST_NEXT = 0, PB_FAST_FALLBACK = 1, PB_FAST_GROW = 2 };

pb_fast_ret PB_CC pb_fast_grow(PB_FAST_PARAMS);

PB_INLINE int pb_fast_need(pb_dec *d, pb_array *arr, uint32_t elem, uint32_t n, size_t bytes) {
  d->grow_arr = arr;
  d->grow_elem = elem;
  d->grow_n = n;
  d->grow_bytes = bytes;
  return PB_FAST_GROW;
}

PB_INLINE void pb_fast_flush(pb_msg *msg, uint64_t hasbits) {
  *PB_PTR_AT(msg, PB_MSG_HASBITS, uint64_t) |= hasbits;
}

/* ---- shared pieces of the cores ---- */

/* Tag bytes at p, for "is the next field the same one". */
PB_INLINE uint32_t pb_fast_tag(const char *p, int tagbytes) {
  return tagbytes == 1 ? (uint8_t)*p : pb_load16(p);
}

/* Field number of the tag at p (oneof cases). */
PB_INLINE uint32_t pb_fast_tag_number(const char *p, int tagbytes) {
  if (tagbytes == 1) return (uint8_t)p[0] >> 3;
  return (((uint8_t)p[0] & 0x7fu) | ((uint32_t)(uint8_t)p[1] << 7)) >> 3;
}

/* A varint of up to 10 bytes, no call; NULL if longer. One and two bytes
 * inline, longer ones in a loop that is kept rolled: unrolled, it would
 * need more registers than a frameless function has. */
PB_INLINE const char *pb_fast_varint(const char *p, uint64_t *out) {
  uint64_t v = (uint8_t)p[0];
  if (PB_LIKELY(v < 0x80)) {
    *out = v;
    return p + 1;
  }
  /* each step adds the next byte minus the previous byte's continuation
   * bit, so no masking is needed until the end */
  uint64_t b = (uint8_t)p[1];
  v += (b - 1) << 7;
  if (PB_LIKELY(b < 0x80)) {
    *out = v;
    return p + 2;
  }
  PB_NOUNROLL
  for (int i = 2; i < 10; i++) {
    uint64_t b = (uint8_t)p[i];
    v += (b - 1) << (7 * i);
    if (b < 0x80) {
      *out = v;
      return p + i + 1;
    }
  }
  return NULL;
}

/* A length prefix of at most two bytes (up to 16383); NULL otherwise (the
 * fallback takes longer ones). */
PB_INLINE const char *pb_fast_size(const char *p, uint32_t *size) {
  uint32_t b0 = (uint8_t)p[0];
  if (PB_LIKELY(b0 < 0x80)) {
    *size = b0;
    return p + 1;
  }
  uint32_t b1 = (uint8_t)p[1];
  if (b1 >= 0x80) return NULL;
  *size = (b0 & 0x7f) | (b1 << 7);
  return p + 2;
}

/* Set presence of a singular or oneof field whose tag starts at tagp. */
PB_INLINE void pb_fast_presence(pb_msg *msg, uint64_t *hasbits, uint64_t data, int card,
                                const char *tagp, int tagbytes) {
  if (card == PB_FC_oneof)
    *PB_PTR_AT(msg, PB_DATA_CASE(data), uint32_t) = pb_fast_tag_number(tagp, tagbytes);
  else
    *hasbits |= (uint64_t)1 << PB_DATA_HASBIT(data);
}

/* ---- scalars: varint and fixed kinds ---- */

PB_INLINE uint32_t pb_kind_size(int kind) {
  switch (kind) {
    case PB_FK_boolean: return 1;
    case PB_FK_varint64: case PB_FK_zigzag64: case PB_FK_fixed64: return 8;
    default: return 4;
  }
}

PB_INLINE bool pb_kind_is_varint(int kind) { return kind <= PB_FK_enum_closed; }

/* Convert a varint to its stored form; false for a closed-enum value that
 * the mask in the data word (values 0..23) does not vouch for: the fallback
 * decides (defined values above 23 are then slower, not wrong). */
PB_INLINE bool pb_fast_convert(int kind, const pb_msgdef *m, uint64_t data, uint64_t *v) {
  switch (kind) {
    case PB_FK_boolean: *v = *v != 0; return true;
    case PB_FK_varint32: *v = (uint32_t)*v; return true;
    case PB_FK_zigzag32: *v = pb_zigzag32((uint32_t)*v); return true;
    case PB_FK_zigzag64: *v = pb_zigzag64(*v); return true;
    case PB_FK_enum_closed: {
      (void)m;
      uint32_t x = (uint32_t)*v;
      *v = x;
      return x < 24 && ((PB_DATA_ENUM_MASK(data) >> x) & 1);
    }
    default: return true;
  }
}

/* Read one scalar value at p (after its tag); NULL to fall back. */
PB_INLINE const char *pb_fast_scalar(int kind, const pb_msgdef *m, uint64_t data, const char *p,
                                     uint64_t *v) {
  if (kind == PB_FK_fixed32) {
    *v = pb_load32(p);
    return p + 4;
  }
  if (kind == PB_FK_fixed64) {
    *v = pb_load64(p);
    return p + 8;
  }
  p = pb_fast_varint(p, v);
  if (PB_UNLIKELY(!p) || PB_UNLIKELY(!pb_fast_convert(kind, m, data, v))) return NULL;
  return p;
}

PB_INLINE int pb_core_scalar(pb_dec *d, const char **pptr, pb_msg *msg, const pb_msgdef *m,
                             uint64_t *hasbits, uint64_t data, int kind, int card, int tagbytes) {
  const char *ptr = *pptr;
  uint32_t size = pb_kind_size(kind);
  uint64_t v;
  if (card != PB_FC_repeated) {
    const char *p = pb_fast_scalar(kind, m, data, ptr + tagbytes, &v);
    if (PB_UNLIKELY(!p)) return PB_FAST_FALLBACK;
    pb_fast_presence(msg, hasbits, data, card, ptr, tagbytes);
    memcpy(PB_PTR_AT(msg, PB_DATA_OFFSET(data), char), &v, size);
    *pptr = p;
    return PB_FAST_NEXT;
  }
  pb_array *arr = PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_array);
  uint32_t tag = pb_fast_tag(ptr, tagbytes);
  int r = PB_FAST_NEXT;
  do {
    if (PB_UNLIKELY(arr->size == arr->cap)) {
      r = pb_fast_need(d, arr, size, 1, 0);
      break;
    }
    const char *p = pb_fast_scalar(kind, m, data, ptr + tagbytes, &v);
    if (PB_UNLIKELY(!p)) {
      r = PB_FAST_FALLBACK;
      break;
    }
    memcpy((char *)arr->data + (size_t)arr->size++ * size, &v, size);
    ptr = p;
  } while (ptr < d->limit_ptr && pb_fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* Packed runs that lie below limit_ptr: every element then starts below
 * `end`, so varints are read with no bounds check; runs crossing it (the
 * last 16 bytes of the buffer) fall back. */
PB_INLINE int pb_core_packed(pb_dec *d, const char **pptr, pb_msg *msg, const pb_msgdef *m,
                             uint64_t data, int kind, int tagbytes) {
  const char *ptr = *pptr;
  uint32_t size, elem = pb_kind_size(kind);
  const char *p = pb_fast_size(ptr + tagbytes, &size);
  if (PB_UNLIKELY(!p) || PB_UNLIKELY((ptrdiff_t)size > d->limit_ptr - p)) return PB_FAST_FALLBACK;
  const char *pend = p + size;
  pb_array *arr = PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_array);
  if (size == 0) {
    *pptr = pend;
    return PB_FAST_NEXT;
  }
  if (!pb_kind_is_varint(kind)) {
    if (PB_UNLIKELY(size & (elem - 1))) return PB_FAST_FALLBACK;
    uint32_t n = size / elem;
    if (PB_UNLIKELY(arr->cap - arr->size < n)) return pb_fast_need(d, arr, elem, n, 0);
    /* 16 bytes per step: the source has slop, arrays have 16 bytes of
     * padding (pb_dec_array_reserve) */
    char *dst = (char *)arr->data + (size_t)arr->size * elem;
    PB_NOUNROLL
    for (uint32_t i = 0; i < size; i += 16) *(pb_v16 *)(dst + i) = *(const pb_v16 *)(p + i);
    arr->size += n;
    *pptr = pend;
    return PB_FAST_NEXT;
  }
  if (PB_UNLIKELY(pend[-1] & 0x80)) return PB_FAST_FALLBACK; /* last varint unterminated */
  /* count the varints: one terminator byte (< 0x80) each; words may read
   * past pend, inside the slop, and the mask drops those bytes */
  uint32_t n = 0;
  for (const char *q = p; q < pend; q += 8) {
    uint64_t w = ~pb_load64(q) & 0x8080808080808080ull;
    size_t left = (size_t)(pend - q);
    if (left < 8) w &= ((uint64_t)1 << (8 * left)) - 1;
    n += (uint32_t)__builtin_popcountll(w);
  }
  if (PB_UNLIKELY(arr->cap - arr->size < n)) return pb_fast_need(d, arr, elem, n, 0);
  uint32_t start = arr->size;
  char *dst = (char *)arr->data + (size_t)start * elem;
  while (p < pend) {
    uint64_t v;
    p = pb_fast_varint(p, &v);
    if (PB_UNLIKELY(!p) || PB_UNLIKELY(!pb_fast_convert(kind, m, data, &v))) {
      arr->size = start; /* undo: the fallback decodes the whole run */
      return PB_FAST_FALLBACK;
    }
    memcpy(dst, &v, elem);
    dst += elem;
  }
  arr->size = start + n;
  *pptr = pend;
  return PB_FAST_NEXT;
}

/* ---- strings and bytes ---- */

/* UTF-8 validation with no call: ASCII 8 bytes per step, then a compact
 * decoder loop from the first byte >= 0x80 (same rules as pb_utf8_valid). */
PB_INLINE bool pb_utf8_inline(const char *s, size_t n) {
  size_t i = 0;
  PB_NOUNROLL
  for (; i + 8 <= n; i += 8)
    if (pb_load64(s + i) & 0x8080808080808080ull) break;
  const uint8_t *p = (const uint8_t *)s + i, *end = (const uint8_t *)s + n;
  PB_NOUNROLL
  while (p < end) {
    uint32_t c = *p++;
    if (c < 0x80) continue;
    int more;
    uint32_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) more = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      more = 2;
      if (c == 0xe0) lo = 0xa0;      /* overlong */
      else if (c == 0xed) hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
      more = 3;
      if (c == 0xf0) lo = 0x90;      /* overlong */
      else if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    } else {
      return false;
    }
    if (end - p < more || p[0] < lo || p[0] > hi) return false;
    for (int k = 1; k < more; k++)
      if ((p[k] & 0xc0) != 0x80) return false;
    p += more;
  }
  return true;
}

PB_INLINE int pb_core_string(pb_dec *d, const char **pptr, pb_msg *msg, uint64_t *hasbits,
                             uint64_t data, int kind, int card, int tagbytes) {
  const char *ptr = *pptr;
  pb_array *arr = PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_array);
  uint32_t tag = pb_fast_tag(ptr, tagbytes);
  int r = PB_FAST_NEXT;
  do {
    uint32_t size;
    const char *p = pb_fast_size(ptr + tagbytes, &size);
    /* ending below limit_ptr, the bytes are followed by 16 readable ones */
    if (PB_UNLIKELY(!p) || PB_UNLIKELY((ptrdiff_t)size > d->limit_ptr - p) ||
        (kind == PB_FK_string_utf8 && PB_UNLIKELY(!pb_utf8_inline(p, size)))) {
      r = PB_FAST_FALLBACK;
      break;
    }
    if (card == PB_FC_repeated && PB_UNLIKELY(arr->size == arr->cap)) {
      r = pb_fast_need(d, arr, sizeof(pb_str), 1, 0);
      break;
    }
    pb_str s;
    s.size = size;
    if (d->flags & PB_DECODE_ALIAS) {
      s.data = pb_dec_input_addr(d, p);
    } else {
      /* 16 bytes per step from the slop-padded input into a 16-byte
       * rounded allocation: no call to memcpy */
      size_t alloc = (size | 15) + 1; /* room for whole 16-byte steps */
      if (PB_UNLIKELY((size_t)(d->aend - d->aptr) < alloc)) {
        r = pb_fast_need(d, NULL, 0, 0, alloc);
        break;
      }
      char *c = d->aptr;
      d->aptr += alloc;
      size_t i = 0;
      do {
        *(pb_v16 *)(c + i) = *(const pb_v16 *)(p + i);
        __asm__("" : : "r"(c) : "memory"); /* keep the loop: not a memcpy call */
        i += 16;
      } while (i < size);
      s.data = c;
    }
    if (card != PB_FC_repeated) {
      pb_fast_presence(msg, hasbits, data, card, ptr, tagbytes);
      *PB_PTR_AT(msg, PB_DATA_OFFSET(data), pb_str) = s;
      *pptr = p + size;
      return PB_FAST_NEXT;
    }
    ((pb_str *)arr->data)[arr->size++] = s;
    ptr = p + size;
  } while (ptr < d->limit_ptr && pb_fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* ---- sub-messages ---- */

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

/* Wire type XOR between the packed and the unpacked encoding of a kind. */
PB_INLINE uint32_t pb_kind_alt(int kind) {
  if (kind == PB_FK_fixed32) return 7; /* 2 ^ 5 */
  if (kind == PB_FK_fixed64) return 3; /* 2 ^ 1 */
  return 2;                            /* 2 ^ 0 */
}

/* ---- the generated functions ---- */

/* The function of (k, c, t): match the tag (or hand over to the twin for
 * the other repeated encoding, or fall back), run `core` (an expression
 * over the function's parameters that returns PB_FAST_NEXT, _FALLBACK or
 * _GROW), then dispatch the next field. */
#define PB_FAST_BODY(k, c, t, core, twin)                                      \
  pb_fast_ret PB_CC PB_FAST_NAME(k, c, t)(PB_FAST_PARAMS) {                     \
    if (PB_UNLIKELY(PB_TAG_MISMATCH(data, t))) {                                \
      twin                                                                      \
      PB_JUMP(pb_fast_fallback, data);                                     \
    }                                                                           \
    int r_ = core;                                                              \
    if (PB_UNLIKELY(r_ != PB_FAST_NEXT)) {                                      \
      if (r_ == PB_FAST_GROW) PB_JUMP(pb_fast_grow, data);                      \
      PB_JUMP(pb_fast_fallback, data);                                          \
    }                                                                           \
    PB_DISPATCH();                                                              \
  }

/* Repeated packable kinds accept both encodings: the repeated function
 * passes a packed run to its packed twin, and the reverse. */
#define PB_FAST_TWIN(k, c, t)                                                  \
  if (PB_FC_##c == PB_FC_repeated && PB_TAG_IS_ALT(data, t, pb_kind_alt(PB_FK_##k))) \
    PB_JUMP(PB_FAST_NAME(k, packed, t), data ^ pb_kind_alt(PB_FK_##k));     \
  if (PB_FC_##c == PB_FC_packed && PB_TAG_IS_ALT(data, t, pb_kind_alt(PB_FK_##k)))   \
    PB_JUMP(PB_FAST_NAME(k, repeated, t), data ^ pb_kind_alt(PB_FK_##k));

/* What each source instantiates its list with. */
#define PB_FAST_DEFINE_SCALAR(k, c, t)                                          \
  PB_FAST_BODY(k, c, t,                                                         \
               PB_FC_##c == PB_FC_packed                                        \
                   ? pb_core_packed(d, &ptr, msg, m, data, PB_FK_##k, t)        \
                   : pb_core_scalar(d, &ptr, msg, m, &hasbits, data, PB_FK_##k, PB_FC_##c, t), \
               PB_FAST_TWIN(k, c, t))
#define PB_FAST_DEFINE_STRING(k, c, t)                                          \
  PB_FAST_BODY(k, c, t, pb_core_string(d, &ptr, msg, &hasbits, data, PB_FK_##k, PB_FC_##c, t), )
#define PB_FAST_DEFINE_MESSAGE(k, c, t)                                         \
  PB_FAST_BODY(k, c, t, pb_core_message(d, &ptr, msg, m, data, PB_FC_##c, t, NULL), )

#endif /* PB_INTERNAL_FAST_H */
