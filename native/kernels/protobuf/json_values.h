/* Whether two JSON texts hold the same values, for the printing kernel
 * (pb_print.c): printers may spell a value differently (upb writes a double
 * with %.17g where pbdyn writes the shortest form that reads back; protobuf
 * C++ escapes '<' as \u003c), so texts are compared token by token: strings
 * after their escapes are decoded, numbers by the double they read as,
 * literals and punctuation as bytes. Members are not reordered: every printer
 * here writes them in field-number order, and a reordering would be a
 * difference worth seeing. Returns 1 when the same, else 0 and in *where the
 * offset into a of the first token that differs. */
#ifndef JSON_VALUES_H
#define JSON_VALUES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *jv_space(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

static int jv_hex4(const char *p, const char *end, uint32_t *v) {
  if (end - p < 4) return 0;
  *v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return 0;
    *v = *v << 4 | (uint32_t)d;
  }
  return 1;
}

static size_t jv_utf8(uint32_t cp, char *out) {
  if (cp < 0x80) return out[0] = (char)cp, 1;
  if (cp < 0x800) return out[0] = (char)(0xc0 | cp >> 6), out[1] = (char)(0x80 | (cp & 0x3f)), 2;
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | cp >> 12), out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | cp >> 18), out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
  out[2] = (char)(0x80 | (cp >> 6 & 0x3f)), out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* The string starting at p (its opening quote) decoded into out (room for as
 * many bytes as the escaped form has); its end past the closing quote, or
 * NULL when malformed. */
static const char *jv_string(const char *p, const char *end, char *out, size_t *n) {
  static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
  size_t k = 0;
  for (p++; p < end && *p != '"'; p++) {
    if (*p != '\\') {
      out[k++] = *p;
      continue;
    }
    if (++p == end) return NULL;
    const char *e = *p ? strchr(esc, *p) : NULL;
    if (e && (e - esc) % 2 == 0) {
      out[k++] = e[1];
      continue;
    }
    uint32_t cp, lo;
    if (*p != 'u' || !jv_hex4(p + 1, end, &cp)) return NULL;
    p += 4;
    if (cp >= 0xd800 && cp < 0xdc00 && end - p > 6 && p[1] == '\\' && p[2] == 'u' &&
        jv_hex4(p + 3, end, &lo) && lo >= 0xdc00 && lo < 0xe000) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      p += 6;
    }
    k += jv_utf8(cp, out + k);
  }
  if (p == end) return NULL;
  *n = k;
  return p + 1;
}

static int json_same_values(const char *a, size_t na, const char *b, size_t nb, size_t *where) {
  const char *pa = a, *ea = a + na, *pb = b, *eb = b + nb;
  size_t room = (na > nb ? na : nb) + 1;
  char *sa = malloc(room), *sb = malloc(room);
  int same = sa && sb;
  while (same) {
    pa = jv_space(pa, ea), pb = jv_space(pb, eb);
    *where = (size_t)(pa - a);
    if (pa == ea || pb == eb) {
      same = pa == ea && pb == eb;
      break;
    }
    if (*pa == '"' || *pb == '"') {
      size_t la, lb;
      if (*pa != *pb || !(pa = jv_string(pa, ea, sa, &la)) || !(pb = jv_string(pb, eb, sb, &lb)))
        same = 0;
      else same = la == lb && !memcmp(sa, sb, la);
    } else if (*pa == '-' || (*pa >= '0' && *pa <= '9')) {
      /* numbers: strtod stops at the token's end; the texts are NUL-terminated
       * or end in punctuation, which strtod does not read */
      char *ra, *rb;
      double va = strtod(pa, &ra), vb = strtod(pb, &rb);
      same = ra != pa && rb != pb && ra <= ea && rb <= eb && va == vb;
      pa = ra, pb = rb;
    } else if (*pa >= 'a' && *pa <= 'z') { /* true, false, null */
      size_t la = 0, lb = 0;
      while (pa + la < ea && pa[la] >= 'a' && pa[la] <= 'z') la++;
      while (pb + lb < eb && pb[lb] >= 'a' && pb[lb] <= 'z') lb++;
      same = la == lb && !memcmp(pa, pb, la);
      pa += la, pb += lb;
    } else {
      same = *pa++ == *pb++;
    }
  }
  free(sa);
  free(sb);
  return same;
}

#endif /* JSON_VALUES_H */
