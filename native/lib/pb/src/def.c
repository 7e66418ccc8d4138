/* Read-only accessors of compiled definitions (schema, messages, fields,
 * enums): the public face of internal/def.h. */
#include <string.h>

#include "internal/def.h"

const pb_msgdef *pb_schema_find(const pb_schema *s, const char *name) {
  size_t lo = 0, hi = s->msg_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(s->msgs_by_name[mid]->full_name, name);
    if (!c) return s->msgs_by_name[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const pb_enumdef *pb_schema_find_enum(const pb_schema *s, const char *name) {
  size_t lo = 0, hi = s->enum_count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(s->enums_by_name[mid]->full_name, name);
    if (!c) return s->enums_by_name[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

size_t pb_schema_msg_count(const pb_schema *s) { return s->msg_count; }
const pb_msgdef *pb_schema_msg(const pb_schema *s, size_t i) {
  return i < s->msg_count ? s->msgs[i] : NULL;
}

const char *pb_msgdef_name(const pb_msgdef *m) { return m->full_name; }
size_t pb_msgdef_size(const pb_msgdef *m) { return m->size; }
bool pb_msgdef_is_map_entry(const pb_msgdef *m) { return m->map_entry; }
size_t pb_msgdef_field_count(const pb_msgdef *m) { return m->field_count; }

const pb_fielddef *pb_msgdef_field(const pb_msgdef *m, size_t i) {
  return i < m->field_count ? &m->fields[i] : NULL;
}

const pb_fielddef *pb_msgdef_field_by_number(const pb_msgdef *m, uint32_t number) {
  return pb_msgdef_find(m, number);
}

/* Linear: messages have tens of fields, and lookups by name happen outside
 * the decode loop (resolve once, then access by definition). */
const pb_fielddef *pb_msgdef_field_by_name(const pb_msgdef *m, const char *name) {
  for (uint32_t i = 0; i < m->field_count; i++)
    if (!strcmp(m->fields[i].name, name)) return &m->fields[i];
  return NULL;
}

uint32_t pb_fielddef_number(const pb_fielddef *f) { return f->number; }
const char *pb_fielddef_name(const pb_fielddef *f) { return f->name; }
const char *pb_fielddef_json_name(const pb_fielddef *f) { return f->json_name; }
pb_type pb_fielddef_type(const pb_fielddef *f) { return (pb_type)f->type; }
bool pb_fielddef_is_repeated(const pb_fielddef *f) { return f->mode != PB_MODE_SINGULAR; }
bool pb_fielddef_is_map(const pb_fielddef *f) { return f->mode == PB_MODE_MAP; }
bool pb_fielddef_is_packed(const pb_fielddef *f) { return f->flags & PB_F_PACKED; }
bool pb_fielddef_has_presence(const pb_fielddef *f) {
  return f->mode == PB_MODE_SINGULAR && !(f->flags & PB_F_IMPLICIT);
}
const char *pb_fielddef_oneof_name(const pb_fielddef *f) {
  return f->oneof_case ? f->oneof_name : NULL;
}
const pb_msgdef *pb_fielddef_msg(const pb_fielddef *f) { return f->msg; }
const pb_enumdef *pb_fielddef_enum(const pb_fielddef *f) { return f->en; }

const char *pb_enumdef_name(const pb_enumdef *e) { return e->full_name; }
bool pb_enumdef_is_closed(const pb_enumdef *e) { return e->closed; }

bool pb_enum_contains(const pb_enumdef *e, int32_t v) {
  if (v >= 0 && v < 64) return (e->mask >> v) & 1;
  uint32_t lo = 0, hi = e->sorted_count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (e->sorted[mid] == v) return true;
    if (e->sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

bool pb_enumdef_has_value(const pb_enumdef *e, int32_t v) { return pb_enum_contains(e, v); }

const char *pb_status_str(pb_status st) {
  switch (st) {
    case PB_OK: return "ok";
    case PB_ERR_TRUNCATED: return "truncated input";
    case PB_ERR_VARINT: return "varint too long";
    case PB_ERR_FIELD_NUMBER: return "bad field number";
    case PB_ERR_WIRE_TYPE: return "bad wire type";
    case PB_ERR_LENGTH: return "bad length";
    case PB_ERR_UTF8: return "invalid UTF-8 in a string field";
    case PB_ERR_GROUP: return "unmatched or missing end-group tag";
    case PB_ERR_DEPTH: return "nesting deeper than the limit";
    case PB_ERR_REQUIRED: return "missing required field";
    case PB_ERR_NOMEM: return "out of memory";
    case PB_ERR_SCHEMA: return "malformed or inconsistent descriptor set";
    case PB_ERR_NOT_FOUND: return "not found";
    case PB_ERR_ARG: return "bad argument";
    case PB_ERR_JSON: return "a value with no JSON form";
  }
  return "unknown status";
}
