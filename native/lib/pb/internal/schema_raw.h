/* The descriptor messages as read from a FileDescriptorSet, before linking:
 * only the fields that shape decoding. Strings point into the schema arena. */
#ifndef PB_INTERNAL_SCHEMA_RAW_H
#define PB_INTERNAL_SCHEMA_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "pb.h"

typedef struct pb_raw_field {
  const char *name;
  const char *json_name;     /* NULL when absent */
  const char *type_name;     /* ".pkg.Type" or NULL */
  const char *default_value; /* NULL when absent */
  size_t default_len;
  int64_t number;
  int32_t label;             /* 1 optional, 2 required, 3 repeated */
  int32_t type;              /* pb_type, 0 when absent */
  int32_t oneof_index;       /* -1 when absent */
  int8_t packed;             /* -1 unset, 0, 1 */
  bool proto3_optional;
} pb_raw_field;

typedef struct pb_raw_enumval {
  const char *name;
  int32_t number;
} pb_raw_enumval;

typedef struct pb_raw_enum {
  const char *name;
  pb_raw_enumval *values;
  size_t value_count;
} pb_raw_enum;

typedef struct pb_raw_msg {
  const char *name;
  pb_raw_field *fields;
  size_t field_count;
  struct pb_raw_msg *nested;
  size_t nested_count;
  pb_raw_enum *enums;
  size_t enum_count;
  const char **oneofs;
  size_t oneof_count;
  bool map_entry;
} pb_raw_msg;

typedef struct pb_raw_file {
  const char *package; /* "" when absent */
  const char *syntax;  /* "" when absent (proto2) */
  pb_raw_msg *msgs;
  size_t msg_count;
  pb_raw_enum *enums;
  size_t enum_count;
} pb_raw_file;

typedef struct pb_raw_set {
  pb_raw_file *files;
  size_t file_count;
} pb_raw_set;

/* Read a serialized FileDescriptorSet; everything is allocated in a. */
pb_status pb_raw_read(const char *buf, size_t size, pb_raw_set *out, pb_arena *a);

#endif /* PB_INTERNAL_SCHEMA_RAW_H */
