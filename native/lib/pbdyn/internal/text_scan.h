/* The text-format tokenizer (text_scan.c) under the text parser
 * (text_parse.c): the tokens of protobuf C++'s io::Tokenizer as TextFormat
 * configures it, and the conversions of a number or string token to its
 * value. */
#ifndef PBDYN_INTERNAL_TEXT_SCAN_H
#define PBDYN_INTERNAL_TEXT_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal/strbuf.h"

typedef enum pbdyn__tok_kind {
  PBDYN_TOK_END,    /* the input ended */
  PBDYN_TOK_IDENT,  /* [A-Za-z_][A-Za-z0-9_]* */
  PBDYN_TOK_INT,    /* 123, 0x7f, 017 */
  PBDYN_TOK_FLOAT,  /* 1.5, .5, 1e9, 2f */
  PBDYN_TOK_STRING, /* "..." or '...', quotes included, escapes checked */
  PBDYN_TOK_SYMBOL, /* any other single byte */
  PBDYN_TOK_BAD,    /* a malformed token: an unterminated string, 08, 1x */
} pbdyn__tok_kind;

typedef struct pbdyn__tok {
  pbdyn__tok_kind kind;
  const char *p; /* its first byte (END: the end of the input) */
  size_t n;      /* its length */
} pbdyn__tok;

typedef struct pbdyn__text_scan {
  const char *p, *end; /* what follows the current token */
  pbdyn__tok tok;      /* the current token, the parser's one-token lookahead */
} pbdyn__text_scan;

/* Start on text[0..size) and read its first token. */
void pbdyn__text_scan_init(pbdyn__text_scan *s, const char *text, size_t size);

/* Read the next token, skipping whitespace and '#' comments. */
void pbdyn__text_scan_next(pbdyn__text_scan *s);

/* Whether the current token is the symbol c. */
PBDYN_INLINE bool pbdyn__text_scan_at(const pbdyn__text_scan *s, char c) {
  return s->tok.kind == PBDYN_TOK_SYMBOL && s->tok.p[0] == c;
}

/* If the current token is the symbol c, step over it and return true. */
PBDYN_INLINE bool pbdyn__text_scan_take(pbdyn__text_scan *s, char c) {
  if (!pbdyn__text_scan_at(s, c)) return false;
  pbdyn__text_scan_next(s);
  return true;
}

/* An INT token's value (hex, octal or decimal) if it is at most max. */
bool pbdyn__text_int_value(const pbdyn__tok *t, uint64_t max, uint64_t *v);

/* Whether an INT token is written in hex or octal (not allowed for floats). */
bool pbdyn__text_int_is_radix(const pbdyn__tok *t);

/* A decimal INT or a FLOAT token's value as a double, as strtod rounds it
 * (a trailing 'f' ignored, '.' the radix whatever the locale). */
double pbdyn__text_float_value(const pbdyn__tok *t);

/* A STRING token's bytes, escapes resolved, appended to o. */
void pbdyn__text_string_value(const pbdyn__tok *t, pbdyn__strbuf *o);

#endif /* PBDYN_INTERNAL_TEXT_SCAN_H */
