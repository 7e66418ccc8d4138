/* The descriptor messages as read from a FileDescriptorSet, before linking:
 * only the fields that shape decoding. Strings point into the schema arena. */
#ifndef PBDYN_INTERNAL_SCHEMA_RAW_H
#define PBDYN_INTERNAL_SCHEMA_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "pbdyn.h"

typedef struct pbdyn__raw_field {
  const char *name;
  const char *json_name;     /* NULL when absent */
  const char *type_name;     /* ".pkg.Type" or NULL */
  const char *default_value; /* NULL when absent */
  size_t default_len;
  int64_t number;
  int32_t label;             /* 1 optional, 2 required, 3 repeated */
  int32_t type;              /* pbdyn_type, 0 when absent */
  int32_t oneof_index;       /* -1 when absent */
  int8_t packed;             /* -1 unset, 0, 1 */
  bool proto3_optional;
} pbdyn__raw_field;

typedef struct pbdyn__raw_enumval {
  const char *name;
  int32_t number;
} pbdyn__raw_enumval;

typedef struct pbdyn__raw_enum {
  const char *name;
  pbdyn__raw_enumval *values;
  size_t value_count;
} pbdyn__raw_enum;

typedef struct pbdyn__raw_msg {
  const char *name;
  pbdyn__raw_field *fields;
  size_t field_count;
  struct pbdyn__raw_msg *nested;
  size_t nested_count;
  pbdyn__raw_enum *enums;
  size_t enum_count;
  const char **oneofs;
  size_t oneof_count;
  bool map_entry;
} pbdyn__raw_msg;

typedef struct pbdyn__raw_file {
  const char *package; /* "" when absent */
  const char *syntax;  /* "" when absent (proto2) */
  pbdyn__raw_msg *msgs;
  size_t msg_count;
  pbdyn__raw_enum *enums;
  size_t enum_count;
} pbdyn__raw_file;

typedef struct pbdyn__raw_set {
  pbdyn__raw_file *files;
  size_t file_count;
} pbdyn__raw_set;

/* Read a serialized FileDescriptorSet; everything is allocated in a. */
pbdyn_status pbdyn__raw_read(const char *buf, size_t size, pbdyn__raw_set *out, pbdyn_arena *a);

#endif /* PBDYN_INTERNAL_SCHEMA_RAW_H */
