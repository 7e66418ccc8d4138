/* Pieces of the text-format printer (text.c) shared with its unknown-field
 * half (text_unknown.c). */
#ifndef PBDYN_INTERNAL_TEXT_H
#define PBDYN_INTERNAL_TEXT_H

#include "internal/strbuf.h"

/* protobuf C++'s CEscape: \n \r \t \" \' \\ by name, every other byte
 * outside 0x20..0x7e (UTF-8 included) as three octal digits. */
void pbdyn__text_escape(pbdyn__strbuf *o, const char *p, size_t n);

/* Unknown-field wire bytes as TextFormat prints an UnknownFieldSet, one
 * field a line at `depth`; the bytes are a decoder's output, so well-formed. */
void pbdyn__text_unknown(pbdyn__strbuf *o, const char *p, size_t n, int depth);

#endif /* PBDYN_INTERNAL_TEXT_H */
