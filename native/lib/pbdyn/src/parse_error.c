/* Where a parse failed, as an offset, a line and a column: counted only
 * when a parse fails, so that a successful one pays nothing for it. */
#include "internal/parse_error.h"

void pbdyn__parse_error_locate(const char *text, const char *at, pbdyn_parse_error *e) {
  e->offset = (size_t)(at - text);
  e->line = 1;
  e->column = 1;
  for (const char *p = text; p < at; p++) {
    if (*p == '\n') e->line++, e->column = 1;
    else e->column++;
  }
}
