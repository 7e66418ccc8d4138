/* The field walk of the text writers (dump.c, text.c): each present value of a message
 * in field order, and each map's entries by key as a block that holds key and value. */
#ifndef PBDYN_INTERNAL_PRINT_H
#define PBDYN_INTERNAL_PRINT_H

#include "internal/strbuf.h"

typedef struct pbdyn__printer {
  /* One value of f stored at p, at depth: its line, or its block for a message. */
  void (*value)(pbdyn__strbuf *o, const pbdyn_fielddef *f, const void *p, int depth);
  /* What opens a map entry's block before " {" (the field's name, or more). */
  void (*entry_label)(pbdyn__strbuf *o, const pbdyn_fielddef *f);
} pbdyn__printer;

/* The fields of msg (of type m); its unknown fields are the caller's to print. */
void pbdyn__print_fields(pbdyn__strbuf *o, const pbdyn__printer *pr, const pbdyn_msg *msg,
                         const pbdyn_msgdef *m, int depth);

#endif /* PBDYN_INTERNAL_PRINT_H */
