/* Read-only accessors of compiled definitions (schema, messages, fields,
 * enums): the public face of internal/def.h. */
#include <string.h>

#include "internal/def.h"

const pbdyn_msgdef *pbdyn_schema_find(const pbdyn_schema *s, const char *name) {
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

const pbdyn_enumdef *pbdyn_schema_find_enum(const pbdyn_schema *s, const char *name) {
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

size_t pbdyn_schema_msg_count(const pbdyn_schema *s) { return s->msg_count; }
const pbdyn_msgdef *pbdyn_schema_msg(const pbdyn_schema *s, size_t i) {
  return i < s->msg_count ? s->msgs[i] : NULL;
}

const char *pbdyn_msgdef_name(const pbdyn_msgdef *m) { return m->full_name; }
size_t pbdyn_msgdef_size(const pbdyn_msgdef *m) { return m->size; }
bool pbdyn_msgdef_is_map_entry(const pbdyn_msgdef *m) { return m->map_entry; }
size_t pbdyn_msgdef_field_count(const pbdyn_msgdef *m) { return m->field_count; }

const pbdyn_fielddef *pbdyn_msgdef_field(const pbdyn_msgdef *m, size_t i) {
  return i < m->field_count ? &m->fields[i] : NULL;
}

const pbdyn_fielddef *pbdyn_msgdef_field_by_number(const pbdyn_msgdef *m, uint32_t number) {
  return pbdyn__msgdef_find(m, number);
}

/* Linear: messages have tens of fields, and lookups by name happen outside
 * the decode loop (resolve once, then access by definition). */
const pbdyn_fielddef *pbdyn_msgdef_field_by_name(const pbdyn_msgdef *m, const char *name) {
  for (uint32_t i = 0; i < m->field_count; i++)
    if (!strcmp(m->fields[i].name, name)) return &m->fields[i];
  return NULL;
}

uint32_t pbdyn_fielddef_number(const pbdyn_fielddef *f) { return f->number; }
const char *pbdyn_fielddef_name(const pbdyn_fielddef *f) { return f->name; }
const char *pbdyn_fielddef_json_name(const pbdyn_fielddef *f) { return f->json_name; }
pbdyn_type pbdyn_fielddef_type(const pbdyn_fielddef *f) { return (pbdyn_type)f->type; }
bool pbdyn_fielddef_is_repeated(const pbdyn_fielddef *f) { return f->mode != PBDYN_MODE_SINGULAR; }
bool pbdyn_fielddef_is_map(const pbdyn_fielddef *f) { return f->mode == PBDYN_MODE_MAP; }
bool pbdyn_fielddef_is_packed(const pbdyn_fielddef *f) { return f->flags & PBDYN_F_PACKED; }
bool pbdyn_fielddef_has_presence(const pbdyn_fielddef *f) {
  return f->mode == PBDYN_MODE_SINGULAR && !(f->flags & PBDYN_F_IMPLICIT);
}
const char *pbdyn_fielddef_oneof_name(const pbdyn_fielddef *f) {
  return f->oneof_case ? f->oneof_name : NULL;
}
const pbdyn_msgdef *pbdyn_fielddef_msg(const pbdyn_fielddef *f) { return f->msg; }
const pbdyn_enumdef *pbdyn_fielddef_enum(const pbdyn_fielddef *f) { return f->en; }

const char *pbdyn_enumdef_name(const pbdyn_enumdef *e) { return e->full_name; }
bool pbdyn_enumdef_is_closed(const pbdyn_enumdef *e) { return e->closed; }

bool pbdyn__enum_contains(const pbdyn_enumdef *e, int32_t v) {
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

bool pbdyn_enumdef_has_value(const pbdyn_enumdef *e, int32_t v) {
  return pbdyn__enum_contains(e, v);
}

/* Enum values are few (a median of ~5 in Debian's protos): a linear scan in
 * declaration order finds the first of aliased names, as protobuf does. */
const char *pbdyn_enumdef_value_name(const pbdyn_enumdef *e, int32_t v) {
  for (uint32_t i = 0; i < e->count; i++)
    if (e->numbers[i] == v) return e->names[i];
  return NULL;
}

pbdyn_status pbdyn_enumdef_value_by_name(const pbdyn_enumdef *e, const char *name, int32_t *v) {
  if (!e || !name || !v) return PBDYN_ERR_ARG;
  for (uint32_t i = 0; i < e->count; i++) {
    if (!strcmp(e->names[i], name)) {
      *v = e->numbers[i];
      return PBDYN_OK;
    }
  }
  return PBDYN_ERR_NOT_FOUND;
}

size_t pbdyn_enumdef_value_count(const pbdyn_enumdef *e) { return e->count; }

pbdyn_status pbdyn_enumdef_value(const pbdyn_enumdef *e, size_t i, const char **name,
                                 int32_t *v) {
  if (!e || !name || !v || i >= e->count) return PBDYN_ERR_ARG;
  *name = e->names[i];
  *v = e->numbers[i];
  return PBDYN_OK;
}

const char *pbdyn_status_str(pbdyn_status st) {
  switch (st) {
    case PBDYN_OK: return "ok";
    case PBDYN_ERR_TRUNCATED: return "truncated input";
    case PBDYN_ERR_VARINT: return "varint too long";
    case PBDYN_ERR_FIELD_NUMBER: return "bad field number";
    case PBDYN_ERR_WIRE_TYPE: return "bad wire type";
    case PBDYN_ERR_LENGTH: return "bad length";
    case PBDYN_ERR_UTF8: return "invalid UTF-8 in a string field";
    case PBDYN_ERR_GROUP: return "unmatched or missing end-group tag";
    case PBDYN_ERR_DEPTH: return "nesting deeper than the limit";
    case PBDYN_ERR_REQUIRED: return "missing required field";
    case PBDYN_ERR_NOMEM: return "out of memory";
    case PBDYN_ERR_SCHEMA: return "malformed or inconsistent descriptor set";
    case PBDYN_ERR_NOT_FOUND: return "not found";
    case PBDYN_ERR_ARG: return "bad argument";
    case PBDYN_ERR_JSON: return "a value with no JSON form";
    case PBDYN_ERR_SYNTAX: return "malformed text or JSON";
  }
  return "unknown status";
}
