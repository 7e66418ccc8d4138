/* The JSON parser's state and the pieces its message half (json_parse.c)
 * shares with its well-known-types half (json_parse_wkt.c). Every function
 * returns false on error, with the first error recorded in the state. */
#ifndef PBDYN_INTERNAL_JSON_PARSE_H
#define PBDYN_INTERNAL_JSON_PARSE_H

#include "internal/json_scan.h"
#include "internal/msg.h"

typedef struct pbdyn__jparser {
  pbdyn__json_scan s;
  pbdyn_arena *a;
  uint32_t flags;      /* PBDYN_PARSE_* */
  int depth;           /* message levels left below the current one */
  pbdyn_status status; /* the first error */
  const char *err_at;  /* where it is */
  pbdyn__strbuf str;   /* the current string token's text, escapes resolved */
} pbdyn__jparser;

/* Record an error at `at` (the first one wins); returns false. */
bool pbdyn__jparse_fail_at(pbdyn__jparser *J, pbdyn_status st, const char *at);

/* Record an error at the current token (a malformed token: PBDYN_ERR_SYNTAX). */
bool pbdyn__jparse_fail(pbdyn__jparser *J, pbdyn_status st);

/* Step over the symbol c, or fail. */
bool pbdyn__jparse_expect(pbdyn__jparser *J, char c);

/* The current token as a string into J->str (NUL-terminated), stepping over it. */
bool pbdyn__jparse_string(pbdyn__jparser *J);

/* Step over one value, whatever it is (nesting counts against the depth). */
bool pbdyn__jparse_skip(pbdyn__jparser *J);

/* A message's JSON value into msg (of type m): its well-known form, or an
 * object of fields. */
bool pbdyn__jparse_message(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m);

/* The members of an object of m into msg, from after its '{' to after its
 * '}'; a member called `skip` (Any's "@type") is stepped over. */
bool pbdyn__jparse_members(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m,
                           const char *skip);

/* One JSON value of field f into msg: set, or appended when `append`. */
bool pbdyn__jparse_value(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *f,
                         bool append);

/* A map field's object into msg: each member an entry, its key read as the
 * key's type (a quoted number, "true" or "false", a string). */
bool pbdyn__jparse_map(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_fielddef *f);

/* If m is a well-known type with a JSON form of its own, parse msg in that
 * form and set *done; else leave it false and read nothing. */
bool pbdyn__jparse_wkt(pbdyn__jparser *J, pbdyn_msg *msg, const pbdyn_msgdef *m, bool *done);

#endif /* PBDYN_INTERNAL_JSON_PARSE_H */
