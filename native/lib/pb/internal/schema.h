/* Steps of schema compilation after reading: layout and fast tables. */
#ifndef PB_INTERNAL_SCHEMA_H
#define PB_INTERNAL_SCHEMA_H

#include "internal/def.h"

/* Assign hasbits, oneof case words and field offsets; sets m->size and
 * m->zero_size. `fields` is m->fields, writable; on entry a member of
 * real oneof i has oneof_case = i + 1, on return the case word's offset. */
pb_status pb_layout_build(pb_msgdef *m, pb_fielddef *fields, size_t oneof_count,
                          const char *const *oneof_names);

/* Fill m->fast, m->fast_kind, m->fast_mask and m->subs from m's fields. */
pb_status pb_fasttable_build(pb_msgdef *m, pb_arena *a);

#endif /* PB_INTERNAL_SCHEMA_H */
