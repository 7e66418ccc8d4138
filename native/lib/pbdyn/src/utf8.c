/* UTF-8 validation (RFC 3629): no overlong forms, no surrogates
 * (U+D800..U+DFFF), nothing above U+10FFFF. The ASCII fast path (8 bytes
 * per step) lives in internal/decode.h and calls this only from the first
 * word that has a byte >= 0x80, so text that is mostly ASCII costs about one
 * load and one test per 8 bytes. */
#include "internal/decode.h"

bool pbdyn_utf8_valid(const char *buf, size_t size) {
  const uint8_t *p = (const uint8_t *)buf, *end = p + size;
  while (p < end) {
    uint8_t c = *p;
    if (c < 0x80) {
      /* skip ASCII a word at a time */
      while (end - p >= 8 && !(pbdyn__load64((const char *)p) & 0x8080808080808080ull)) p += 8;
      while (p < end && *p < 0x80) p++;
      continue;
    }
    size_t left = (size_t)(end - p);
    if (c >= 0xc2 && c <= 0xdf) {
      if (left < 2 || (p[1] & 0xc0) != 0x80) return false;
      p += 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      if (left < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80) return false;
      if (c == 0xe0 && p[1] < 0xa0) return false; /* overlong */
      if (c == 0xed && p[1] > 0x9f) return false; /* surrogate */
      p += 3;
    } else if (c >= 0xf0 && c <= 0xf4) {
      if (left < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
          (p[3] & 0xc0) != 0x80)
        return false;
      if (c == 0xf0 && p[1] < 0x90) return false; /* overlong */
      if (c == 0xf4 && p[1] > 0x8f) return false; /* > U+10FFFF */
      p += 4;
    } else {
      return false; /* continuation byte, 0xc0/0xc1, or 0xf5..0xff */
    }
  }
  return true;
}
