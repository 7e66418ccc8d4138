/* The JSON printer's state and the pieces its message half (json.c) shares
 * with its well-known-types half (json_wkt.c); which types are well-known,
 * for the parser too (json_parse_wkt.c). */
#ifndef PBDYN_INTERNAL_JSON_H
#define PBDYN_INTERNAL_JSON_H

#include "internal/msg.h"
#include "internal/strbuf.h"

typedef struct pbdyn__json {
  pbdyn__strbuf o;
  pbdyn_arena *a;      /* the caller's: Any's packed messages are decoded here */
  uint32_t flags;   /* PBDYN_JSON_* */
  int depth;        /* message levels left below the current one */
  pbdyn_status status; /* the first error; printing goes on harmlessly after it */
} pbdyn__json;

/* Record the first error. */
PBDYN_INLINE void pbdyn__json_fail(pbdyn__json *j, pbdyn_status st) {
  if (j->status == PBDYN_OK) j->status = st;
}

/* A message as its JSON value: a well-known type in its own form, any other
 * as an object. msg may be NULL (an unset map value): it prints as empty. */
void pbdyn__json_msg(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m);

/* The members of an ordinary message's object, without the braces; `first`
 * says whether none has been written before (Any writes "@type" first). */
void pbdyn__json_fields(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m, bool first);

/* One value of field f stored at p (a message: its pbdyn_msg pointer). */
void pbdyn__json_value(pbdyn__json *j, const pbdyn_fielddef *f, const void *p);

/* A map field as an object: keys as strings whatever their type, sorted
 * by key, the last duplicate winning. */
void pbdyn__json_map(pbdyn__json *j, const pbdyn_fielddef *f, const pbdyn__array *arr);

/* A quoted JSON string of UTF-8 text (PBDYN_ERR_UTF8 if it is not). */
void pbdyn__json_string(pbdyn__json *j, const char *p, size_t n);

/* A double as a JSON number, or "NaN", "Infinity", "-Infinity" quoted. */
void pbdyn__json_double(pbdyn__json *j, double v);

/* If m is a well-known type with a JSON form of its own (Timestamp,
 * Duration, FieldMask, Struct, Value, ListValue, the wrappers, Any), print
 * msg in it and return true; else print nothing and return false. */
bool pbdyn__json_wkt(pbdyn__json *j, const pbdyn_msg *msg, const pbdyn_msgdef *m);

/* Whether m is such a type: an Any holding one prints it as
 * {"@type": ..., "value": <its form>}. */
bool pbdyn__json_is_wkt(const pbdyn_msgdef *m);

#endif /* PBDYN_INTERNAL_JSON_H */
