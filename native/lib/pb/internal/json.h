/* The JSON printer's state and the pieces its message half (json.c) shares
 * with its well-known-types half (json_wkt.c). */
#ifndef PB_INTERNAL_JSON_H
#define PB_INTERNAL_JSON_H

#include "internal/msg.h"
#include "internal/strbuf.h"

typedef struct pb_json {
  pb_strbuf o;
  pb_arena *a;      /* the caller's: Any's packed messages are decoded here */
  uint32_t flags;   /* PB_JSON_* */
  int depth;        /* message levels left below the current one */
  pb_status status; /* the first error; printing goes on harmlessly after it */
} pb_json;

/* Record the first error. */
PB_INLINE void pb_json_fail(pb_json *j, pb_status st) {
  if (j->status == PB_OK) j->status = st;
}

/* A message as its JSON value: a well-known type in its own form, any other
 * as an object. msg may be NULL (an unset map value): it prints as empty. */
void pb_json_msg(pb_json *j, const pb_msg *msg, const pb_msgdef *m);

/* The members of an ordinary message's object, without the braces; `first`
 * says whether none has been written before (Any writes "@type" first). */
void pb_json_fields(pb_json *j, const pb_msg *msg, const pb_msgdef *m, bool first);

/* One value of field f stored at p (a message: its pb_msg pointer). */
void pb_json_value(pb_json *j, const pb_fielddef *f, const void *p);

/* A map field as an object: keys as strings whatever their type, sorted
 * by key, the last duplicate winning. */
void pb_json_map(pb_json *j, const pb_fielddef *f, const pb_array *arr);

/* A quoted JSON string of UTF-8 text (PB_ERR_UTF8 if it is not). */
void pb_json_string(pb_json *j, const char *p, size_t n);

/* A double as a JSON number, or "NaN", "Infinity", "-Infinity" quoted. */
void pb_json_double(pb_json *j, double v);

/* If m is a well-known type with a JSON form of its own (Timestamp,
 * Duration, FieldMask, Struct, Value, ListValue, the wrappers, Any), print
 * msg in it and return true; else print nothing and return false. */
bool pb_json_wkt(pb_json *j, const pb_msg *msg, const pb_msgdef *m);

/* Whether m is such a type: an Any holding one prints it as
 * {"@type": ..., "value": <its form>}. */
bool pb_json_is_wkt(const pb_msgdef *m);

#endif /* PB_INTERNAL_JSON_H */
