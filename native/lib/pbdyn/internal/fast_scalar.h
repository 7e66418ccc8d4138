/* Cores of the varint and fixed-width kinds (bool, int32/uint32/open enum,
 * int64/uint64, sint32, sint64, closed enum; fixed32/sfixed32/float,
 * fixed64/sfixed64/double), used by src/fast_varint.c, src/fast_fixed.c and
 * the switch decoder.
 *
 * The two wire types share this header because they differ only in how one
 * value is read (a varint decode or a 4- or 8-byte load); presence, the
 * repeated loop and the hand-over between the packed and the unpacked
 * encoding are the same code. Packed runs have a header of their own
 * (fast_packed.h), which also defines the functions. A singular field's
 * function is 20 instructions for a fixed kind and 49-58 for a varint kind,
 * with no stack frame (clang-19 -O2, x86-64, slow branches included); only
 * packed runs and repeated closed enums (86) need a frame.
 */
#ifndef PBDYN_INTERNAL_FAST_SCALAR_H
#define PBDYN_INTERNAL_FAST_SCALAR_H

#include "internal/fast.h"

/* A varint of up to 10 bytes, no call; NULL if longer. One and two bytes
 * inline, longer ones in a loop that is kept rolled: unrolled, it would
 * need more registers than a frameless function has. */
PBDYN_INLINE const char *pbdyn__fast_varint(const char *p, uint64_t *out) {
  uint64_t v = (uint8_t)p[0];
  if (PBDYN_LIKELY(v < 0x80)) {
    *out = v;
    return p + 1;
  }
  /* each step adds the next byte minus the previous byte's continuation
   * bit, so no masking is needed until the end */
  uint64_t b = (uint8_t)p[1];
  v += (b - 1) << 7;
  if (PBDYN_LIKELY(b < 0x80)) {
    *out = v;
    return p + 2;
  }
  PBDYN_NOUNROLL
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

PBDYN_INLINE uint32_t pbdyn__kind_size(int kind) {
  switch (kind) {
    case PBDYN_FK_boolean: return 1;
    case PBDYN_FK_varint64: case PBDYN_FK_zigzag64: case PBDYN_FK_fixed64: return 8;
    default: return 4;
  }
}

PBDYN_INLINE bool pbdyn__kind_is_varint(int kind) { return kind <= PBDYN_FK_enum_closed; }

/* Convert a varint to its stored form; false for a closed-enum value that
 * the mask in the data word (values 0..23) does not vouch for: the fallback
 * decides (defined values above 23 are then slower, not wrong). */
PBDYN_INLINE bool pbdyn__fast_convert(int kind, uint64_t data, uint64_t *v) {
  switch (kind) {
    case PBDYN_FK_boolean: *v = *v != 0; return true;
    case PBDYN_FK_varint32: *v = (uint32_t)*v; return true;
    case PBDYN_FK_zigzag32: *v = pbdyn__zigzag32((uint32_t)*v); return true;
    case PBDYN_FK_zigzag64: *v = pbdyn__zigzag64(*v); return true;
    case PBDYN_FK_enum_closed: {
      uint32_t x = (uint32_t)*v;
      *v = x;
      return x < 24 && ((PBDYN_DATA_ENUM_MASK(data) >> x) & 1);
    }
    default: return true;
  }
}

/* Read one scalar value at p (after its tag); NULL to fall back. */
PBDYN_INLINE const char *pbdyn__fast_scalar(int kind, uint64_t data, const char *p, uint64_t *v) {
  if (kind == PBDYN_FK_fixed32) {
    *v = pbdyn__load32(p);
    return p + 4;
  }
  if (kind == PBDYN_FK_fixed64) {
    *v = pbdyn__load64(p);
    return p + 8;
  }
  p = pbdyn__fast_varint(p, v);
  if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY(!pbdyn__fast_convert(kind, data, v))) return NULL;
  return p;
}

PBDYN_INLINE int pbdyn__core_scalar(pbdyn__dec *d, const char **pptr, pbdyn_msg *msg,
                                    uint64_t *hasbits, uint64_t data, int kind, int card,
                                    int tagbytes) {
  const char *ptr = *pptr;
  uint32_t size = pbdyn__kind_size(kind);
  uint64_t v;
  if (card != PBDYN_FC_repeated) {
    const char *p = pbdyn__fast_scalar(kind, data, ptr + tagbytes, &v);
    if (PBDYN_UNLIKELY(!p)) return PBDYN_FAST_FALLBACK;
    pbdyn__fast_presence(msg, hasbits, data, card, ptr, tagbytes);
    memcpy(PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), char), &v, size);
    *pptr = p;
    return PBDYN_FAST_NEXT;
  }
  pbdyn__array *arr = PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn__array);
  uint32_t tag = pbdyn__fast_tag(ptr, tagbytes);
  int r = PBDYN_FAST_NEXT;
  do {
    if (PBDYN_UNLIKELY(arr->size == arr->cap)) {
      r = pbdyn__fast_need(d, arr, size, 1, 0);
      break;
    }
    const char *p = pbdyn__fast_scalar(kind, data, ptr + tagbytes, &v);
    if (PBDYN_UNLIKELY(!p)) {
      r = PBDYN_FAST_FALLBACK;
      break;
    }
    memcpy((char *)arr->data + (size_t)arr->size++ * size, &v, size);
    ptr = p;
  } while (ptr < d->limit_ptr && pbdyn__fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* Wire type XOR between the packed and the unpacked encoding of a kind. */
PBDYN_INLINE uint32_t pbdyn__kind_alt(int kind) {
  if (kind == PBDYN_FK_fixed32) return 7; /* 2 ^ 5 */
  if (kind == PBDYN_FK_fixed64) return 3; /* 2 ^ 1 */
  return 2;                            /* 2 ^ 0 */
}

/* Repeated packable kinds accept both encodings: the repeated function
 * passes a packed run to its packed twin, and the reverse. */
#define PBDYN_FAST_TWIN(k, c, t) \
  if (PBDYN_FC_##c == PBDYN_FC_repeated && \
      PBDYN_TAG_IS_ALT(data, t, pbdyn__kind_alt(PBDYN_FK_##k))) \
    PBDYN_JUMP(PBDYN_FAST_NAME(k, packed, t), data ^ pbdyn__kind_alt(PBDYN_FK_##k)); \
  if (PBDYN_FC_##c == PBDYN_FC_packed && PBDYN_TAG_IS_ALT(data, t, pbdyn__kind_alt(PBDYN_FK_##k))) \
    PBDYN_JUMP(PBDYN_FAST_NAME(k, repeated, t), data ^ pbdyn__kind_alt(PBDYN_FK_##k));

#endif /* PBDYN_INTERNAL_FAST_SCALAR_H */
