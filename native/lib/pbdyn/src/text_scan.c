/* The text format's tokens, by protobuf C++ 3.21's io::Tokenizer rules as
 * TextFormat sets it up (what `protoc --encode` reads):
 *
 *   whitespace and '#' comments to the end of the line separate tokens
 *   identifiers   [A-Za-z_][A-Za-z0-9_]*
 *   integers      0x1f (at least one hex digit), 017 (octal: a leading zero
 *                 forbids 8 and 9), 123
 *   floats        1.5  .5  5.  1e9  1.5e-3, and any of them or an integer
 *                 followed by f or F; "e" needs an exponent
 *   strings       "..." or '...' on one line; escapes \a \b \f \n \r \t \v
 *                 \\ \' \" \?, \NNN (1-3 octal digits), \xHH (1-2 hex), \uXXXX,
 *                 \UXXXXXXXX; anything else is malformed, and so is a
 *                 Unicode escape past 10ffff or of a surrogate (even a pair),
 *                 as protobuf's conformance suite asks; protoc 3.21 keeps
 *                 the former as written and encodes the latter
 *   symbols       every other byte, alone
 *
 * A number directly followed by a letter, '_' or '.' (1a, 0x1.5, 1.5.2) is
 * malformed, as protobuf's "Need space between number and identifier".
 * Negative numbers are a '-' symbol and a number: the parser joins them.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "internal/text_scan.h"

static bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_octal(char c) { return c >= '0' && c <= '7'; }
static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The end of the number starting at p, or NULL if it is malformed. */
static const char *scan_number(const char *p, const char *end, bool *is_float) {
  *is_float = false;
  if (p[0] == '0' && p + 1 < end && (p[1] == 'x' || p[1] == 'X')) {
    p += 2;
    if (p == end || hex_digit(*p) < 0) return NULL;
    while (p < end && hex_digit(*p) >= 0) p++;
  } else if (p[0] == '0' && p + 1 < end && is_digit(p[1])) {
    while (p < end && is_digit(*p))
      if (!is_octal(*p++)) return NULL;
  } else {
    while (p < end && is_digit(*p)) p++;
    if (p < end && *p == '.') {
      *is_float = true;
      for (p++; p < end && is_digit(*p);) p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      *is_float = true;
      p++;
      if (p < end && (*p == '-' || *p == '+')) p++;
      if (p == end || !is_digit(*p)) return NULL;
      while (p < end && is_digit(*p)) p++;
    }
    if (p < end && (*p == 'f' || *p == 'F')) {
      *is_float = true;
      p++;
    }
  }
  if (p < end && (is_letter(*p) || is_digit(*p) || *p == '.')) return NULL;
  return p;
}

/* The end of the string whose opening quote is at p, or NULL if it is
 * unterminated or holds a malformed escape. */
static const char *scan_string(const char *p, const char *end) {
  char quote = *p++;
  while (p < end && *p != quote) {
    if (*p == '\n') return NULL;
    if (*p++ != '\\') continue;
    if (p == end) return NULL;
    char c = *p++;
    if (c && strchr("abfnrtv\\?'\"", c)) continue;
    if (is_octal(c)) {
      for (int i = 1; i < 3 && p < end && is_octal(*p); i++) p++;
    } else if (c == 'x' || c == 'X') {
      if (p == end || hex_digit(*p) < 0) return NULL;
      if (++p < end && hex_digit(*p) >= 0) p++;
    } else if (c == 'u' || c == 'U') {
      uint32_t cp = 0;
      for (int i = 0; i < (c == 'u' ? 4 : 8); i++, p++) {
        if (p == end || hex_digit(*p) < 0) return NULL;
        cp = cp << 4 | (uint32_t)hex_digit(*p);
      }
      if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return NULL;
    } else {
      return NULL;
    }
  }
  return p < end ? p + 1 : NULL;
}

void pbdyn__text_scan_next(pbdyn__text_scan *s) {
  const char *p = s->p, *end = s->end;
  for (;;) {
    while (p < end && (*p == ' ' || (*p >= '\t' && *p <= '\r'))) p++;
    if (p == end || *p != '#') break;
    while (p < end && *p != '\n') p++;
  }
  pbdyn__tok *t = &s->tok;
  t->p = p;
  if (p == end) {
    t->kind = PBDYN_TOK_END;
    t->n = 0;
    return;
  }
  const char *q;
  bool is_float;
  if (is_letter(*p)) {
    for (q = p + 1; q < end && (is_letter(*q) || is_digit(*q));) q++;
    t->kind = PBDYN_TOK_IDENT;
  } else if (is_digit(*p) || (*p == '.' && p + 1 < end && is_digit(p[1]))) {
    q = scan_number(p, end, &is_float);
    t->kind = is_float ? PBDYN_TOK_FLOAT : PBDYN_TOK_INT;
  } else if (*p == '"' || *p == '\'') {
    q = scan_string(p, end);
    t->kind = PBDYN_TOK_STRING;
  } else {
    q = p + 1;
    t->kind = PBDYN_TOK_SYMBOL;
  }
  if (!q) { /* the rest of the input is not read: the parser stops here */
    t->kind = PBDYN_TOK_BAD;
    q = p + 1;
  }
  t->n = (size_t)(q - p);
  s->p = q;
}

void pbdyn__text_scan_init(pbdyn__text_scan *s, const char *text, size_t size) {
  s->p = text;
  s->end = text + size;
  pbdyn__text_scan_next(s);
}

bool pbdyn__text_int_is_radix(const pbdyn__tok *t) { return t->n > 1 && t->p[0] == '0'; }

bool pbdyn__text_int_value(const pbdyn__tok *t, uint64_t max, uint64_t *v) {
  const char *p = t->p, *end = t->p + t->n;
  unsigned base = 10;
  if (t->n > 2 && (p[1] == 'x' || p[1] == 'X')) base = 16, p += 2;
  else if (t->n > 1 && p[0] == '0') base = 8, p++;
  uint64_t r = 0;
  for (; p < end; p++) {
    unsigned d = (unsigned)hex_digit(*p);
    if (d > max || r > (max - d) / base) return false;
    r = r * base + d;
  }
  *v = r;
  return true;
}

double pbdyn__text_float_value(const pbdyn__tok *t) {
  char small[64], *buf = small;
  size_t n = t->n;
  if (n && (t->p[n - 1] == 'f' || t->p[n - 1] == 'F')) n--;
  if (n >= sizeof small && !(buf = malloc(n + 1))) return 0; /* a token of 63+ digits */
  memcpy(buf, t->p, n);
  buf[n] = 0;
  /* strtod reads the locale's radix: where that is not '.', put it in (as
   * protobuf's NoLocaleStrtod does) */
  char *stop;
  double v = strtod(buf, &stop);
  const char *radix = localeconv()->decimal_point;
  if (*stop == '.' && radix && strcmp(radix, ".")) {
    char *dot = strchr(buf, '.');
    if (strlen(radix) == 1) {
      *dot = radix[0];
      v = strtod(buf, NULL);
    }
  }
  if (buf != small) free(buf);
  return v;
}

static uint32_t hex_run(const char **p, int digits) {
  uint32_t v = 0;
  for (int i = 0; i < digits; i++) v = v << 4 | (uint32_t)hex_digit(*(*p)++);
  return v;
}

/* The token was checked by scan_string: every escape here is well-formed. */
void pbdyn__text_string_value(const pbdyn__tok *t, pbdyn__strbuf *o) {
  const char *p = t->p + 1, *end = t->p + t->n - 1, *run = p;
  while (p < end) {
    if (*p != '\\') {
      p++;
      continue;
    }
    pbdyn__strbuf_put(o, run, (size_t)(p - run));
    char c = p[1], byte;
    p += 2;
    const char *named = strchr("a\ab\bf\fn\nr\rt\tv\v", c);
    if (named && !((named - "a\ab\bf\fn\nr\rt\tv\v") & 1)) {
      byte = named[1];
    } else if (is_octal(c)) {
      unsigned v = (unsigned)(c - '0');
      for (int i = 1; i < 3 && p < end && is_octal(*p); i++) v = v * 8 + (unsigned)(*p++ - '0');
      byte = (char)(v & 0xff); /* \400 and up wrap, as a C++ char does */
    } else if (c == 'x' || c == 'X') {
      unsigned v = (unsigned)hex_digit(*p++);
      if (p < end && hex_digit(*p) >= 0) v = v * 16 + (unsigned)hex_digit(*p++);
      byte = (char)v;
    } else if (c == 'u' || c == 'U') {
      uint32_t cp = hex_run(&p, c == 'u' ? 4 : 8);
      pbdyn__strbuf_put_utf8(o, cp);
      run = p;
      continue;
    } else {
      byte = c; /* \\ \' \" \? */
    }
    pbdyn__strbuf_put(o, &byte, 1);
    run = p;
  }
  pbdyn__strbuf_put(o, run, (size_t)(p - run));
}
