/* JSON's tokens (RFC 8259), for the JSON parser: symbols, strings, numbers
 * and the three literals, separated by space, tab, CR and LF.
 *
 * A string is checked whole here, so that the parser only copies it: no
 * raw byte below 0x20, escapes \" \\ \/ \b \f \n \r \t and \uXXXX (a high
 * surrogate only followed by a low one, a low one never alone, as
 * protobuf's parsers require), and its raw bytes well-formed UTF-8.
 */
#include <string.h>

#include "internal/json_scan.h"

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The end of the number at p (JSON's grammar), or NULL. */
static const char *scan_number(const char *p, const char *end) {
  if (p < end && *p == '-') p++;
  if (p == end || !is_digit(*p)) return NULL;
  if (*p == '0') p++;
  else while (p < end && is_digit(*p)) p++;
  if (p < end && *p == '.') {
    if (++p == end || !is_digit(*p)) return NULL;
    while (p < end && is_digit(*p)) p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    if (p == end || !is_digit(*p)) return NULL;
    while (p < end && is_digit(*p)) p++;
  }
  return p;
}

bool pbdyn__json_is_number(const char *text, size_t n) {
  return n && scan_number(text, text + n) == text + n;
}

/* Four hex digits at p (p + 4 <= end checked by the caller), or -1. */
static long hex4(const char *p) {
  long v = 0;
  for (int i = 0; i < 4; i++) {
    int d = hex_digit(p[i]);
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

/* The end of the string whose quote is at p, or NULL. */
static const char *scan_string(const char *p, const char *end) {
  const char *start = ++p;
  while (p < end && *p != '"') {
    unsigned char c = (unsigned char)*p;
    if (c < 0x20) return NULL;
    if (c != '\\') {
      p++;
      continue;
    }
    if (++p == end) return NULL;
    if (strchr("\"\\/bfnrt", *p) && *p) {
      p++;
      continue;
    }
    if (*p != 'u' || end - p < 5) return NULL;
    long cp = hex4(p + 1);
    p += 5;
    if (cp >= 0xdc00 && cp < 0xe000) return NULL; /* a low surrogate alone */
    if (cp >= 0xd800 && cp < 0xdc00) {
      if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return NULL;
      long lo = hex4(p + 2);
      if (lo < 0xdc00 || lo >= 0xe000) return NULL;
      p += 6;
    } else if (cp < 0) {
      return NULL;
    }
  }
  if (p == end || !pbdyn_utf8_valid(start, (size_t)(p - start))) return NULL;
  return p + 1;
}

void pbdyn__json_scan_next(pbdyn__json_scan *s) {
  const char *p = s->p, *end = s->end;
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  pbdyn__jtok *t = &s->tok;
  t->p = p;
  if (p == end) {
    t->kind = PBDYN_JTOK_END;
    t->n = 0;
    return;
  }
  const char *q = NULL;
  t->kind = PBDYN_JTOK_BAD;
  if (strchr("{}[]:,", *p) && *p) {
    t->kind = PBDYN_JTOK_SYMBOL, q = p + 1;
  } else if (*p == '"') {
    t->kind = PBDYN_JTOK_STRING, q = scan_string(p, end);
  } else if (*p == '-' || is_digit(*p)) {
    t->kind = PBDYN_JTOK_NUMBER, q = scan_number(p, end);
  } else {
    static const struct { const char *word; pbdyn__jtok_kind kind; } LITERALS[] = {
        {"true", PBDYN_JTOK_TRUE}, {"false", PBDYN_JTOK_FALSE}, {"null", PBDYN_JTOK_NULL}};
    for (int i = 0; i < 3; i++) {
      size_t n = strlen(LITERALS[i].word);
      if ((size_t)(end - p) >= n && !memcmp(p, LITERALS[i].word, n)) {
        t->kind = LITERALS[i].kind, q = p + n;
        break;
      }
    }
  }
  /* a number or literal runs into a letter or digit: "truex", "1a" */
  if (q && t->kind != PBDYN_JTOK_SYMBOL && t->kind != PBDYN_JTOK_STRING && q < end &&
      (((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z') || is_digit(*q) || *q == '_'))
    q = NULL;
  if (!q) {
    t->kind = PBDYN_JTOK_BAD;
    q = p + 1;
  }
  t->n = (size_t)(q - p);
  s->p = q;
}

void pbdyn__json_scan_init(pbdyn__json_scan *s, const char *json, size_t size) {
  s->p = json;
  s->end = json + size;
  pbdyn__json_scan_next(s);
}

void pbdyn__json_string_value(const pbdyn__jtok *t, pbdyn__strbuf *o) {
  const char *p = t->p + 1, *end = t->p + t->n - 1, *run = p;
  while (p < end) {
    if (*p != '\\') {
      p++;
      continue;
    }
    pbdyn__strbuf_put(o, run, (size_t)(p - run));
    char c = p[1];
    p += 2;
    if (c == 'u') {
      unsigned long cp = (unsigned long)hex4(p);
      p += 4;
      if (cp >= 0xd800 && cp < 0xdc00) { /* the scanner saw its low half */
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned long)hex4(p + 2) - 0xdc00);
        p += 6;
      }
      pbdyn__strbuf_put_utf8(o, (uint32_t)cp);
    } else {
      const char *named = strchr("b\bf\fn\nr\rt\t", c);
      char byte = named ? named[1] : c; /* \" \\ \/ stand for themselves */
      pbdyn__strbuf_put(o, &byte, 1);
    }
    run = p;
  }
  pbdyn__strbuf_put(o, run, (size_t)(p - run));
}
