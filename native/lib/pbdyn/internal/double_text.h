/* The shortest decimal that reads back as a finite double, as "%.*g" with
 * the fewest digits writes it (C locale): JSON's doubles (json.c, and
 * json_wkt.c's Value numbers through pbdyn__json_double). */
#ifndef PBDYN_INTERNAL_DOUBLE_TEXT_H
#define PBDYN_INTERNAL_DOUBLE_TEXT_H

#include <stddef.h>

/* Room for the text and its NUL: "-2.2250738585072014e-308" is 24 bytes. */
#define PBDYN_DOUBLE_TEXT 40

/* Write v (finite) at out (PBDYN_DOUBLE_TEXT bytes), NUL-terminated, with
 * '.' as the decimal point whatever the locale; returns its length. */
size_t pbdyn__double_shortest(double v, char *out);

#endif /* PBDYN_INTERNAL_DOUBLE_TEXT_H */
