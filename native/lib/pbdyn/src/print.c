/* print.c — the field walk shared by the dump (dump.c) and the text format (text.c). */
#include <stdlib.h>

#include "internal/encode.h"
#include "internal/print.h"

/* Map entries by key (protobuf C++ sorts them for the text format; the dump too). */
static void print_map(pbdyn__strbuf *o, const pbdyn__printer *pr, const pbdyn_fielddef *f,
                      const pbdyn__array *arr, int depth) {
  uint32_t n;
  const pbdyn_msg **ents = pbdyn__map_sorted_entries(arr, f->msg, &n);
  if (!ents) {
    o->oom = true;
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    pbdyn__strbuf_indent(o, depth);
    pr->entry_label(o, f);
    pbdyn__strbuf_puts(o, " {\n");
    for (int k = 0; k < 2; k++) {
      const pbdyn_fielddef *kv = &f->msg->fields[k];
      pr->value(o, kv, PBDYN_CPTR_AT(ents[i], kv->offset, char), depth + 1);
    }
    pbdyn__strbuf_indent(o, depth);
    pbdyn__strbuf_puts(o, "}\n");
  }
  free(ents);
}

void pbdyn__print_fields(pbdyn__strbuf *o, const pbdyn__printer *pr, const pbdyn_msg *msg,
                         const pbdyn_msgdef *m, int depth) {
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pbdyn_fielddef *f = &m->fields[i];
    const char *p = PBDYN_CPTR_AT(msg, f->offset, char);
    if (f->mode == PBDYN_MODE_SINGULAR) {
      if (pbdyn__field_present(msg, f)) pr->value(o, f, p, depth);
      continue;
    }
    const pbdyn__array *arr = (const pbdyn__array *)p;
    if (f->mode == PBDYN_MODE_MAP) {
      print_map(o, pr, f, arr, depth);
      continue;
    }
    uint32_t elem = pbdyn__rep_size(f->rep);
    for (uint32_t j = 0; j < arr->size; j++)
      pr->value(o, f, (const char *)arr->data + (size_t)j * elem, depth);
  }
}
