/* Cores of packed runs (repeated varint and fixed kinds, length-delimited),
 * used by src/fast_varint.c, src/fast_fixed.c and the switch decoder; and the
 * macro that defines those sources' functions.
 *
 * A varint run is counted first (one terminator byte < 0x80 per value, 8
 * bytes per step; a bool run needs no count: it has at most one value per
 * byte), so that the array grows once, then decoded with no branch
 * on a value's length: each step loads 8 bytes, finds the first terminator
 * (tzcnt of the inverted high bits), masks the value's bytes and packs their
 * 7-bit groups in three shift-and-or steps. A mispredicted length branch
 * costs ~15 cycles; runs of mixed magnitudes mispredict on most values in a
 * byte-at-a-time loop (protobuf C++'s, and pbdyn's before), here on none. Eight
 * one-byte values in a row (bools, small counts) are taken in one step.
 * Values of 9 and 10 bytes (negative int32 and int64) take a branch of their
 * own; closed enums, whose values must be checked, keep a per-value loop.
 * A fixed-width run of up to 256 bytes is copied 32 bytes per step, with no
 * call; a longer one (or one the array has no room for) is one memcpy in
 * pbdyn__fast_copy, tail-called, which first grows the array if need be (an
 * empty one to the run's exact size): no second dispatch of the field, no
 * generic decoder.
 *
 * Runs of 64 bytes or more first go through the vector kernels the CPU has
 * (packed_simd.h: AVX-512 decodes 16 or 8 values per 64-byte step, AVX2
 * four); this loop takes what they leave.
 *
 * The run's end may lie past limit_ptr, inside the buffer's last 16 bytes,
 * when it is the last field of the input: values starting below `end` are
 * read in place (their 16 bytes of slop are input bytes), the rest (at most
 * 16 bytes) from a zero-padded copy. Before, such a run, the last field of
 * many real messages and the whole of a one-field message, fell back to the
 * generic decoder value by value (3-5x slower on 12,000 bools). A fixed-width
 * run there goes to the memcpy, which reads no slop.
 */
#ifndef PBDYN_INTERNAL_FAST_PACKED_H
#define PBDYN_INTERNAL_FAST_PACKED_H

#include "internal/fast_scalar.h"
#include "internal/packed_simd.h"

#define PBDYN_HIGH_BITS 0x8080808080808080ull
/* Longer fixed-width runs go to libc's memcpy (pbdyn__fast_copy), which
 * copies with the widest vectors the CPU has, where this header may use
 * only baseline x86-64's 16 bytes. */
#define PBDYN_PACKED_FIXED_INLINE_MAX 256
/* Varint runs this long or longer go through the vector kernels first
 * (packed_simd.h): a kernel is a call, and works on whole 64-byte blocks. */
#define PBDYN_PACKED_SIMD_MIN 64

/* The vector decoder of a kind, if the set has one. */
PBDYN_INLINE const char *(*pbdyn__packed_simd_varints(const pbdyn__packed_simd *simd, int kind))(
    const char *, const char *, char **) {
  return kind < PBDYN_PACKED_SIMD_KINDS ? simd->varints[kind] : NULL;
}

/* The 7-bit groups of up to 8 varint bytes (high bits already clear), packed
 * into one value: 8 x 7 -> 4 x 14 -> 2 x 28 -> 56 bits. */
PBDYN_INLINE uint64_t pbdyn__varint_pack7(uint64_t x) {
  x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
  x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
  return (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
}

/* Store eight one-byte varints (the 8 bytes of w, each < 0x80), converted. */
PBDYN_INLINE void pbdyn__packed_store8(int kind, uint64_t w, char *dst) {
  if (kind == PBDYN_FK_boolean) {
    /* a byte b in 1..127 becomes 1: b + 0x7f carries into its high bit */
    uint64_t b = ((w + ~PBDYN_HIGH_BITS) & PBDYN_HIGH_BITS) >> 7;
    memcpy(dst, &b, 8);
    return;
  }
  for (int i = 0; i < 8; i++) {
    uint64_t v = (w >> (8 * i)) & 0xff;
    pbdyn__fast_convert(kind, 0, &v);
    memcpy(dst + i * pbdyn__kind_size(kind), &v, pbdyn__kind_size(kind));
  }
}

/* Decode the varints that start in [p, stop) into *dst; every byte below
 * stop must be followed by 16 readable ones. Returns the pointer after the
 * last value (past stop when a value straddles it), or NULL for a value of
 * more than 10 bytes or a closed-enum value the mask does not vouch for. */
PBDYN_INLINE const char *pbdyn__packed_varints(int kind, uint64_t data, const char *p,
                                               const char *stop, char **dst) {
  uint32_t elem = pbdyn__kind_size(kind);
  char *out = *dst;
  if (kind == PBDYN_FK_enum_closed) {
    while (p < stop) {
      uint64_t v;
      p = pbdyn__fast_varint(p, &v);
      if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY(!pbdyn__fast_convert(kind, data, &v))) return NULL;
      memcpy(out, &v, elem);
      out += elem;
    }
    *dst = out;
    return p;
  }
  while (p < stop) {
    uint64_t w = pbdyn__load64(p);
    uint64_t ends = ~w & PBDYN_HIGH_BITS; /* the terminators' high bits */
    uint64_t v;
    if (ends == PBDYN_HIGH_BITS && stop - p >= 8) {
      pbdyn__packed_store8(kind, w, out);
      out += 8 * elem;
      p += 8;
      continue;
    }
    if (PBDYN_LIKELY(ends != 0)) {
      unsigned t = (unsigned)__builtin_ctzll(ends); /* bit 7 of the last byte */
      /* bits 0..t: the value's bytes (2 << 63 wraps to 0, and 0 - 1 keeps all) */
      v = pbdyn__varint_pack7(w & ((2ull << t) - 1) & ~PBDYN_HIGH_BITS);
      p += (t + 1) >> 3;
    } else {
      /* 9 or 10 bytes: the last two add bits 56..62 and 63 */
      uint64_t b8 = (uint8_t)p[8], b9 = (uint8_t)p[9];
      v = pbdyn__varint_pack7(w & ~PBDYN_HIGH_BITS) | (b8 & 0x7f) << 56;
      if (b8 < 0x80) {
        p += 9;
      } else {
        if (PBDYN_UNLIKELY(b9 >= 0x80)) return NULL;
        v |= b9 << 63;
        p += 10;
      }
    }
    pbdyn__fast_convert(kind, data, &v);
    memcpy(out, &v, elem);
    out += elem;
  }
  *dst = out;
  return p;
}

/* Terminator bytes (< 0x80) in [p, stop): the number of varints ending there.
 * Words may read up to 7 bytes past stop; the mask drops them. One multiply
 * adds a word's eight 0/1 bytes into its top byte: baseline x86-64 has no
 * popcnt, and clang's vectorised emulation of it made this pass 70% of a
 * 12,000-bool decode. */
PBDYN_INLINE uint32_t pbdyn__packed_count(const char *p, const char *stop) {
  uint32_t n = 0;
  PBDYN_SCALAR_LOOP
  for (const char *q = p; q < stop; q += 8) {
    uint64_t w = (~pbdyn__load64(q) & PBDYN_HIGH_BITS) >> 7;
    size_t left = (size_t)(stop - q);
    if (left < 8) w &= ((uint64_t)1 << (8 * left)) - 1;
    n += (uint32_t)((w * 0x0101010101010101ull) >> 56);
  }
  return n;
}

PBDYN_INLINE int pbdyn__core_packed(pbdyn__dec *d, const char **pptr, pbdyn_msg *msg, uint64_t data,
                                    int kind, int tagbytes) {
  const char *ptr = *pptr;
  uint32_t size, elem = pbdyn__kind_size(kind);
  const char *p = pbdyn__fast_size(ptr + tagbytes, &size);
  /* the run must lie inside the current message; the generic decoder says why not */
  if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY(!pbdyn__dec_fits(d, p, size)))
    return PBDYN_FAST_FALLBACK;
  const char *pend = p + size;
  /* in place below `cut`; past it (a run ending in the buffer's last 16 bytes) the
   * input has no slop left. The run itself may start there. */
  const char *cut = pend <= d->end ? pend : p < d->end ? d->end : p;
  pbdyn__array *arr = PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn__array);
  if (size == 0) {
    *pptr = pend;
    return PBDYN_FAST_NEXT;
  }
  if (!pbdyn__kind_is_varint(kind)) {
    /* not a whole number of values: the generic decoder reports it */
    if (PBDYN_UNLIKELY(size & (elem - 1))) return PBDYN_FAST_FALLBACK;
    uint32_t n = size / elem;
    *pptr = pend;
    if (size > PBDYN_PACKED_FIXED_INLINE_MAX || PBDYN_UNLIKELY(pend != cut) ||
        PBDYN_UNLIKELY(arr->cap - arr->size < n)) {
      /* one memcpy, with the growth, in pbdyn__fast_copy: a call here would
       * cost every fixed-width run a stack frame */
      d->copy_arr = arr;
      d->copy_elem = elem;
      d->copy_from = p;
      d->copy_n = n;
      return PBDYN_FAST_COPY;
    }
    /* 32 bytes per step, then one 16-byte step over the rest: the source has slop,
     * arrays have 16 bytes of padding (pbdyn__dec_array_reserve) */
    char *dst = (char *)arr->data + (size_t)arr->size * elem;
    uint32_t i = 0;
    PBDYN_NOUNROLL
    for (; i + 32 <= size; i += 32) {
      pbdyn__v16 a = *(const pbdyn__v16 *)(p + i), b = *(const pbdyn__v16 *)(p + i + 16);
      *(pbdyn__v16 *)(dst + i) = a;
      *(pbdyn__v16 *)(dst + i + 16) = b;
    }
    for (; i < size; i += 16) *(pbdyn__v16 *)(dst + i) = *(const pbdyn__v16 *)(p + i);
    arr->size += n;
    return PBDYN_FAST_NEXT;
  }
  if (PBDYN_UNLIKELY(pend[-1] & 0x80)) return PBDYN_FAST_FALLBACK; /* last varint unterminated */
  const pbdyn__packed_simd *simd =
      kind < PBDYN_PACKED_SIMD_KINDS && size >= PBDYN_PACKED_SIMD_MIN ? pbdyn__packed_simd_get()
                                                                      : NULL;
  /* the bytes past cut, zero-padded: counted and decoded there */
  char tail[2 * PBDYN_SLOP];
  uint32_t n;
  if (kind == PBDYN_FK_boolean) {
    n = size; /* at most one value per byte: room for that costs no more than the run */
  } else {
    const char *rest = p;
    n = simd && simd->count ? simd->count(p, cut, &rest) : 0;
    n += pbdyn__packed_count(rest, cut);
    if (PBDYN_UNLIKELY(pend != cut)) {
      memset(tail, 0, sizeof tail);
      memcpy(tail, cut, (size_t)(pend - cut));
      n += pbdyn__packed_count(tail, tail + (pend - cut));
    }
  }
  if (PBDYN_UNLIKELY(arr->cap - arr->size < n)) return pbdyn__fast_need(d, arr, elem, n, 0);
  char *start = (char *)arr->data + (size_t)arr->size * elem, *dst = start;
  const char *from = p;
  if (simd && pbdyn__packed_simd_varints(simd, kind))
    from = pbdyn__packed_simd_varints(simd, kind)(p, cut, &dst);
  const char *q = pbdyn__packed_varints(kind, data, from, cut, &dst);
  if (q && PBDYN_UNLIKELY(q < pend)) {
    /* a value straddling cut was read in place: go on from where it ended */
    memset(tail, 0, sizeof tail);
    memcpy(tail, q, (size_t)(pend - q));
    q = pbdyn__packed_varints(kind, data, tail, tail + (pend - q), &dst) ? pend : NULL;
  }
  if (PBDYN_UNLIKELY(!q))
    return PBDYN_FAST_FALLBACK; /* nothing stored: the array's size is unchanged */
  arr->size += (uint32_t)((size_t)(dst - start) / elem);
  *pptr = pend;
  return PBDYN_FAST_NEXT;
}

/* The functions of src/fast_varint.c and src/fast_fixed.c. */
#define PBDYN_FAST_DEFINE_SCALAR(k, c, t) \
  PBDYN_FAST_BODY( \
      k, c, t, \
      PBDYN_FC_##c == PBDYN_FC_packed \
          ? pbdyn__core_packed(d, &ptr, msg, data, PBDYN_FK_##k, t) \
          : pbdyn__core_scalar(d, &ptr, msg, &hasbits, data, PBDYN_FK_##k, PBDYN_FC_##c, t), \
      PBDYN_FAST_TWIN(k, c, t))

#endif /* PBDYN_INTERNAL_FAST_PACKED_H */
