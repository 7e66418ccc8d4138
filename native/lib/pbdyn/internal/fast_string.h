/* Cores of strings and bytes (proto2 strings and bytes unchecked, proto3
 * strings UTF-8 validated), copied into the arena or aliased into the
 * input; used by src/fast_string.c and the switch decoder.
 *
 * No call on the common path: a copy moves 16 bytes per step from the
 * slop-padded input into a 16-byte rounded allocation instead of calling
 * memcpy, and UTF-8 is checked inline. Lengths of one or two bytes (up to
 * 16383) are taken here, longer ones by the fallback. A singular bytes
 * field's function is 66 instructions with no stack frame (clang-19 -O2,
 * x86-64, slow branches included); with the UTF-8 loop, a proto3 string's
 * is 164-192 and needs a frame.
 */
#ifndef PBDYN_INTERNAL_FAST_STRING_H
#define PBDYN_INTERNAL_FAST_STRING_H

#include "internal/fast.h"

/* UTF-8 validation with no call: ASCII 8 bytes per step, the last 0-7 bytes
 * in one more load (s[n .. n+7] must be readable: the caller stands on the
 * slop), then a compact decoder loop from the first word holding a byte
 * >= 0x80 (same rules as pbdyn_utf8_valid). The last bytes went one by one:
 * a quarter of a short ASCII string's function (perf, the strings payload). */
PBDYN_INLINE bool pbdyn__utf8_inline(const char *s, size_t n) {
  size_t i = 0;
  PBDYN_NOUNROLL
  for (; i + 8 <= n; i += 8)
    if (pbdyn__load64(s + i) & 0x8080808080808080ull) break;
  if (i + 8 > n) { /* no word failed: the tail, its bytes below n kept */
    uint64_t keep = ((uint64_t)1 << (8 * (n - i))) - 1;
    if (!(pbdyn__load64(s + i) & keep & 0x8080808080808080ull)) return true;
  }
  const uint8_t *p = (const uint8_t *)s + i, *end = (const uint8_t *)s + n;
  PBDYN_NOUNROLL
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

PBDYN_INLINE int pbdyn__core_string(pbdyn__dec *d, const char **pptr, pbdyn_msg *msg,
                                    uint64_t *hasbits, uint64_t data, int kind, int card,
                                    int tagbytes) {
  const char *ptr = *pptr;
  pbdyn__array *arr = PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn__array);
  uint32_t tag = pbdyn__fast_tag(ptr, tagbytes);
  int r = PBDYN_FAST_NEXT;
  do {
    uint32_t size;
    const char *p = pbdyn__fast_size(ptr + tagbytes, &size);
    /* ending below limit_ptr, the bytes are followed by 16 readable ones */
    if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY((ptrdiff_t)size > d->limit_ptr - p) ||
        (kind == PBDYN_FK_string_utf8 && PBDYN_UNLIKELY(!pbdyn__utf8_inline(p, size)))) {
      r = PBDYN_FAST_FALLBACK;
      break;
    }
    if (card == PBDYN_FC_repeated && PBDYN_UNLIKELY(arr->size == arr->cap)) {
      r = pbdyn__fast_need(d, arr, sizeof(pbdyn_str), 1, 0);
      break;
    }
    pbdyn_str s;
    s.size = size;
    if (d->flags & PBDYN_DECODE_ALIAS) {
      s.data = pbdyn__dec_input_addr(d, p);
    } else {
      /* 16 bytes per step from the slop-padded input into a 16-byte
       * rounded allocation: no call to memcpy */
      size_t alloc = (size | 15) + 1; /* room for whole 16-byte steps */
      if (PBDYN_UNLIKELY((size_t)(d->aend - d->aptr) < alloc)) {
        r = pbdyn__fast_need(d, NULL, 0, 0, alloc);
        break;
      }
      char *c = d->aptr;
      d->aptr += alloc;
      size_t i = 0;
      do {
        *(pbdyn__v16 *)(c + i) = *(const pbdyn__v16 *)(p + i);
        __asm__("" : : "r"(c) : "memory"); /* keep the loop: not a memcpy call */
        i += 16;
      } while (i < size);
      s.data = c;
    }
    if (card != PBDYN_FC_repeated) {
      pbdyn__fast_presence(msg, hasbits, data, card, ptr, tagbytes);
      *PBDYN_PTR_AT(msg, PBDYN_DATA_OFFSET(data), pbdyn_str) = s;
      *pptr = p + size;
      return PBDYN_FAST_NEXT;
    }
    ((pbdyn_str *)arr->data)[arr->size++] = s;
    ptr = p + size;
  } while (ptr < d->limit_ptr && pbdyn__fast_tag(ptr, tagbytes) == tag);
  *pptr = ptr;
  return r;
}

/* The functions of src/fast_string.c. */
#define PBDYN_FAST_DEFINE_STRING(k, c, t) \
  PBDYN_FAST_BODY( \
      k, c, t, pbdyn__core_string(d, &ptr, msg, &hasbits, data, PBDYN_FK_##k, PBDYN_FC_##c, t), )

#endif /* PBDYN_INTERNAL_FAST_STRING_H */
