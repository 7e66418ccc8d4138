/* Steps of schema compilation after reading: layout and fast tables. */
#ifndef PBDYN_INTERNAL_SCHEMA_H
#define PBDYN_INTERNAL_SCHEMA_H

#include "internal/def.h"

/* Assign hasbits, oneof case words and field offsets; sets m->size and
 * m->zero_size. `fields` is m->fields, writable; on entry a member of
 * real oneof i has oneof_case = i + 1, on return the case word's offset. */
pbdyn_status pbdyn__layout_build(pbdyn_msgdef *m, pbdyn_fielddef *fields, size_t oneof_count,
                                 const char *const *oneof_names);

/* Fill m->fast, m->fast_kind, m->fast_mask and m->subs from m's fields. */
pbdyn_status pbdyn__fasttable_build(pbdyn_msgdef *m, pbdyn_arena *a);

#endif /* PBDYN_INTERNAL_SCHEMA_H */
