/* Where a parse of text or JSON failed, for pbdyn_parse_opts.error: shared
 * by the text (text_parse.c) and JSON (json_parse.c) parsers. */
#ifndef PBDYN_INTERNAL_PARSE_ERROR_H
#define PBDYN_INTERNAL_PARSE_ERROR_H

#include "internal/port.h"
#include "pbdyn.h"

/* The offset of `at` in text, and its line and column (from 1, in bytes). */
void pbdyn__parse_error_locate(const char *text, const char *at, pbdyn_parse_error *e);

#endif /* PBDYN_INTERNAL_PARSE_ERROR_H */
