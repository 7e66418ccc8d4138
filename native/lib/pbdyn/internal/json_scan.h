/* The JSON tokenizer (json_scan.c) under the JSON parser (json_parse.c,
 * json_parse_wkt.c): RFC 8259 tokens, and a string token's text. */
#ifndef PBDYN_INTERNAL_JSON_SCAN_H
#define PBDYN_INTERNAL_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "internal/strbuf.h"

typedef enum pbdyn__jtok_kind {
  PBDYN_JTOK_END,    /* the input ended */
  PBDYN_JTOK_SYMBOL, /* { } [ ] : , */
  PBDYN_JTOK_STRING, /* quotes included; escapes and UTF-8 checked */
  PBDYN_JTOK_NUMBER, /* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  PBDYN_JTOK_TRUE,
  PBDYN_JTOK_FALSE,
  PBDYN_JTOK_NULL,
  PBDYN_JTOK_BAD, /* anything else: the parser stops there */
} pbdyn__jtok_kind;

typedef struct pbdyn__jtok {
  pbdyn__jtok_kind kind;
  const char *p; /* its first byte (END: the end of the input) */
  size_t n;
} pbdyn__jtok;

typedef struct pbdyn__json_scan {
  const char *p, *end; /* what follows the current token */
  pbdyn__jtok tok;     /* the current token */
} pbdyn__json_scan;

/* Start on json[0..size) and read its first token. */
void pbdyn__json_scan_init(pbdyn__json_scan *s, const char *json, size_t size);

/* Read the next token, skipping JSON's whitespace (space, tab, CR, LF). */
void pbdyn__json_scan_next(pbdyn__json_scan *s);

/* Whether the current token is the symbol c. */
PBDYN_INLINE bool pbdyn__json_scan_at(const pbdyn__json_scan *s, char c) {
  return s->tok.kind == PBDYN_JTOK_SYMBOL && s->tok.p[0] == c;
}

/* If the current token is the symbol c, step over it and return true. */
PBDYN_INLINE bool pbdyn__json_scan_take(pbdyn__json_scan *s, char c) {
  if (!pbdyn__json_scan_at(s, c)) return false;
  pbdyn__json_scan_next(s);
  return true;
}

/* A STRING token's text, escapes resolved (a \u surrogate pair as one code
 * point), appended to o. The scanner checked it: it is UTF-8. */
void pbdyn__json_string_value(const pbdyn__jtok *t, pbdyn__strbuf *o);

/* Whether text[0..n) is a whole JSON number (for numbers quoted in strings). */
bool pbdyn__json_is_number(const char *text, size_t n);

#endif /* PBDYN_INTERNAL_JSON_SCAN_H */
