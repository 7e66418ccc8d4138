/* pbdyn — a protobuf binary-format library with a tail-call decoder.
 *
 * Schemas are loaded at run time from a serialized FileDescriptorSet (what
 * `protoc --descriptor_set_out=F --include_imports` writes) and compiled into
 * message layouts and decode tables; no code generation is needed. Messages
 * live in an arena and are read and written through field definitions, found
 * by number or by name.
 *
 *     pbdyn_schema *s;
 *     if (pbdyn_schema_load(fds, fds_len, &s) != PBDYN_OK) ...;
 *     const pbdyn_msgdef *m = pbdyn_schema_find(s, "google.protobuf.FileDescriptorSet");
 *     pbdyn_arena *a = pbdyn_arena_new(0);
 *     pbdyn_msg *msg = pbdyn_msg_new(m, a);
 *     pbdyn_status st = pbdyn_decode(buf, len, msg, m, a, NULL);
 *     const pbdyn_fielddef *f = pbdyn_msgdef_field_by_name(m, "file");
 *     size_t n = pbdyn_msg_array_size(msg, f);
 *
 * Three decoders share the same tables (pbdyn_decoder): the fast one (one small
 * function per field kind x cardinality x tag size, chained by guaranteed
 * tail calls under clang, or returning to a trampoline loop elsewhere), a
 * switch loop, and the generic decoder that the other two fall back to and
 * that is complete on its own. All three accept and reject the same inputs.
 *
 * Errors are returned as pbdyn_status; nothing in the library aborts or exits.
 * Input is never read out of bounds, whatever its content.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may
 * be NULL only where its comment says so (the message type of a function that
 * takes a message may be NULL: pbdyn_msg_msgdef). Every function that returns a
 * pbdyn_status checks the others and returns PBDYN_ERR_ARG for a NULL one,
 * writing nothing (an input buffer may be NULL when its size is 0); the
 * functions that return no status do not check (a NULL there is undefined
 * behaviour), except pbdyn_arena_free, which does nothing with NULL.
 */
#ifndef PBDYN_H
#define PBDYN_H

/* The version of this header and of the library built with it (semantic versioning).
 * PBDYN_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define PBDYN_VERSION_MAJOR 0
#define PBDYN_VERSION_MINOR 2
#define PBDYN_VERSION_PATCH 0
#define PBDYN_VERSION \
  (PBDYN_VERSION_MAJOR * 10000 + PBDYN_VERSION_MINOR * 100 + PBDYN_VERSION_PATCH)
#define PBDYN_VERSION_STRING "0.2.0"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with internal symbols hidden (internal/port.h); the
 * public API keeps default visibility. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ---- status ------------------------------------------------------------ */

typedef enum pbdyn_status {
  PBDYN_OK = 0,
  PBDYN_ERR_TRUNCATED,    /* input ended inside a tag or a value */
  PBDYN_ERR_VARINT,       /* a varint longer than 10 bytes (a tag or a length
                             prefix longer than 5) */
  PBDYN_ERR_FIELD_NUMBER, /* field number 0 or above 2^29-1 */
  PBDYN_ERR_WIRE_TYPE,    /* wire type 6 or 7 */
  PBDYN_ERR_LENGTH,       /* a length past the end of the enclosing message, or
                             a packed fixed-size run not a multiple of its size */
  PBDYN_ERR_UTF8,         /* invalid UTF-8 in a field that must be validated */
  PBDYN_ERR_GROUP,        /* end-group tag unmatched, mismatched, or missing */
  PBDYN_ERR_DEPTH,        /* messages nested deeper than the depth limit */
  PBDYN_ERR_REQUIRED,     /* a required field is missing (only when checked) */
  PBDYN_ERR_NOMEM,        /* the arena could not grow */
  PBDYN_ERR_SCHEMA,       /* the descriptor set is malformed or inconsistent */
  PBDYN_ERR_NOT_FOUND,    /* no such type or field */
  PBDYN_ERR_ARG,          /* an argument is out of range or of the wrong kind */
  PBDYN_ERR_JSON,         /* a value the JSON mapping has no form for: a Timestamp
                             or Duration out of range, a FieldMask path not in
                             snake_case, a Value number NaN or infinite */
  PBDYN_ERR_SYNTAX,       /* text or JSON that does not parse (pbdyn_text_decode,
                             pbdyn_json_decode): a malformed token, an unexpected
                             one, a number out of its field's range, a singular
                             field given twice */
} pbdyn_status;

/* A short constant English name of a status: "truncated input", ... */
const char *pbdyn_status_str(pbdyn_status st);

/* ---- arena --------------------------------------------------------------
 * A bump allocator. Everything a decode creates (messages, arrays, copied
 * strings, unknown-field bytes) lives here and is freed all at once. */

typedef struct pbdyn_arena pbdyn_arena;

/* A new arena whose first block holds `initial` bytes (0: 4 KiB). NULL if
 * memory is exhausted. */
pbdyn_arena *pbdyn_arena_new(size_t initial);

/* Forget every allocation but keep the largest block, so that a decode into
 * a reused arena allocates no memory from the system once warm. */
void pbdyn_arena_reset(pbdyn_arena *a);

/* Free the arena and everything allocated in it. NULL is accepted. */
void pbdyn_arena_free(pbdyn_arena *a);

/* `size` bytes aligned to 8, uninitialised; NULL if memory is exhausted. */
void *pbdyn_arena_alloc(pbdyn_arena *a, size_t size);

/* Bytes handed out since creation or the last reset (for tests and sizing). */
size_t pbdyn_arena_used(const pbdyn_arena *a);

/* ---- schema ------------------------------------------------------------ */

typedef struct pbdyn_schema pbdyn_schema;
typedef struct pbdyn_msgdef pbdyn_msgdef;
typedef struct pbdyn_fielddef pbdyn_fielddef;
typedef struct pbdyn_enumdef pbdyn_enumdef;

/* Field types, numbered as in descriptor.proto's FieldDescriptorProto.Type. */
typedef enum pbdyn_type {
  PBDYN_TYPE_DOUBLE = 1,
  PBDYN_TYPE_FLOAT = 2,
  PBDYN_TYPE_INT64 = 3,
  PBDYN_TYPE_UINT64 = 4,
  PBDYN_TYPE_INT32 = 5,
  PBDYN_TYPE_FIXED64 = 6,
  PBDYN_TYPE_FIXED32 = 7,
  PBDYN_TYPE_BOOL = 8,
  PBDYN_TYPE_STRING = 9,
  PBDYN_TYPE_GROUP = 10,
  PBDYN_TYPE_MESSAGE = 11,
  PBDYN_TYPE_BYTES = 12,
  PBDYN_TYPE_UINT32 = 13,
  PBDYN_TYPE_ENUM = 14,
  PBDYN_TYPE_SFIXED32 = 15,
  PBDYN_TYPE_SFIXED64 = 16,
  PBDYN_TYPE_SINT32 = 17,
  PBDYN_TYPE_SINT64 = 18,
} pbdyn_type;

/* Parse a serialized FileDescriptorSet and compile every message it defines.
 * The set must be self-contained (protoc --include_imports) and use fully
 * qualified type names (as protoc writes them). Extensions are not compiled:
 * extension fields decode as unknown fields. On success *out owns a copy of
 * everything it needs; the input may be freed. */
pbdyn_status pbdyn_schema_load(const void *fds, size_t size, pbdyn_schema **out);

/* Free a schema. Messages of its types must not be used afterwards. */
void pbdyn_schema_free(pbdyn_schema *s);

/* A message type by full name without a leading dot ("pkg.Outer.Inner");
 * NULL if absent. */
const pbdyn_msgdef *pbdyn_schema_find(const pbdyn_schema *s, const char *full_name);

/* An enum type by full name; NULL if absent. */
const pbdyn_enumdef *pbdyn_schema_find_enum(const pbdyn_schema *s, const char *full_name);

/* Message types in the schema, in definition order. */
size_t pbdyn_schema_msg_count(const pbdyn_schema *s);
const pbdyn_msgdef *pbdyn_schema_msg(const pbdyn_schema *s, size_t i);

const char *pbdyn_msgdef_name(const pbdyn_msgdef *m); /* full name */
size_t pbdyn_msgdef_size(const pbdyn_msgdef *m);      /* bytes of one instance */
bool pbdyn_msgdef_is_map_entry(const pbdyn_msgdef *m);
size_t pbdyn_msgdef_field_count(const pbdyn_msgdef *m);
/* The i-th field in increasing field-number order. */
const pbdyn_fielddef *pbdyn_msgdef_field(const pbdyn_msgdef *m, size_t i);
const pbdyn_fielddef *pbdyn_msgdef_field_by_number(const pbdyn_msgdef *m, uint32_t number);
const pbdyn_fielddef *pbdyn_msgdef_field_by_name(const pbdyn_msgdef *m, const char *name);

uint32_t pbdyn_fielddef_number(const pbdyn_fielddef *f);
const char *pbdyn_fielddef_name(const pbdyn_fielddef *f);
/* The field's JSON name: the descriptor's json_name (protoc writes one for
 * every field), else the name in lowerCamelCase ("foo_bar" -> "fooBar"). */
const char *pbdyn_fielddef_json_name(const pbdyn_fielddef *f);
pbdyn_type pbdyn_fielddef_type(const pbdyn_fielddef *f);
bool pbdyn_fielddef_is_repeated(const pbdyn_fielddef *f); /* true for maps too */
bool pbdyn_fielddef_is_map(const pbdyn_fielddef *f);
bool pbdyn_fielddef_is_packed(const pbdyn_fielddef *f);   /* how the encoder writes it */
/* Explicit presence: proto2 optional/required, proto3 `optional`, messages,
 * oneof members. False for repeated fields and proto3 implicit scalars. */
bool pbdyn_fielddef_has_presence(const pbdyn_fielddef *f);
/* The oneof's name for a member of a real (not synthetic) oneof, else NULL. */
const char *pbdyn_fielddef_oneof_name(const pbdyn_fielddef *f);
/* Message (or group, or map entry) type of a field, else NULL. */
const pbdyn_msgdef *pbdyn_fielddef_msg(const pbdyn_fielddef *f);
const pbdyn_enumdef *pbdyn_fielddef_enum(const pbdyn_fielddef *f);

const char *pbdyn_enumdef_name(const pbdyn_enumdef *e);
bool pbdyn_enumdef_is_closed(const pbdyn_enumdef *e); /* proto2 enums are closed */
bool pbdyn_enumdef_has_value(const pbdyn_enumdef *e, int32_t v);
/* The name of value v (the first declared, where names alias one number);
 * NULL when v is not defined. */
const char *pbdyn_enumdef_value_name(const pbdyn_enumdef *e, int32_t v);
/* The number of the value called name; PBDYN_ERR_NOT_FOUND when none is. */
pbdyn_status pbdyn_enumdef_value_by_name(const pbdyn_enumdef *e, const char *name, int32_t *v);
/* The values in declaration order, aliases included: the i-th one's name and
 * number (PBDYN_ERR_ARG for i past the count). */
size_t pbdyn_enumdef_value_count(const pbdyn_enumdef *e);
pbdyn_status pbdyn_enumdef_value(const pbdyn_enumdef *e, size_t i, const char **name,
                                 int32_t *v);

/* ---- messages -----------------------------------------------------------
 * A message is arena memory laid out by its pbdyn_msgdef. Values are read and
 * written through pbdyn_value, whose active member follows the field type:
 *   i32: INT32 SINT32 SFIXED32 ENUM     u32: UINT32 FIXED32
 *   i64: INT64 SINT64 SFIXED64          u64: UINT64 FIXED64
 *   f: FLOAT   d: DOUBLE   b: BOOL   str: STRING BYTES   msg: MESSAGE GROUP */

typedef struct pbdyn_msg pbdyn_msg;

typedef struct pbdyn_str {
  const char *data;
  size_t size;
} pbdyn_str;

typedef union pbdyn_value {
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float f;
  double d;
  bool b;
  pbdyn_str str;
  const pbdyn_msg *msg;
} pbdyn_value;

/* A new, empty message of type m; NULL if the arena is exhausted. */
pbdyn_msg *pbdyn_msg_new(const pbdyn_msgdef *m, pbdyn_arena *a);

/* The type msg was created with (by pbdyn_msg_new, or by a decoder for a
 * sub-message, a group or a map entry). Every function below that takes a
 * message and a pbdyn_msgdef m also accepts m = NULL for the message's own
 * type, and returns PBDYN_ERR_ARG when m is another type. */
const pbdyn_msgdef *pbdyn_msg_msgdef(const pbdyn_msg *msg);

/* A field of another type. Every function below that takes a message and a
 * field (the typed accessors and the map functions too) first checks that
 * the field is one of the message's type's own, because a field of another
 * type addresses another layout; the check is one comparison (a field
 * definition knows its message type). Given such a field, or an index past
 * the end, a function that returns a status returns PBDYN_ERR_ARG and the
 * others return what their comment says; none reads or writes a value. */

/* Whether a field with presence is set (for repeated fields: non-empty);
 * false for a field of another type. */
bool pbdyn_msg_has(const pbdyn_msg *msg, const pbdyn_fielddef *f);

/* A singular field's value, or its default when unset (proto2 [default=],
 * else zero; an unset message reads as NULL). A repeated field or a field
 * of another type reads as a zero pbdyn_value (all bits 0: numbers 0,
 * false, an empty string, a NULL message), not as f's default. */
pbdyn_value pbdyn_msg_get(const pbdyn_msg *msg, const pbdyn_fielddef *f);

/* Set a singular field (and its presence; for a oneof member, the case);
 * PBDYN_ERR_ARG for a repeated field or a field of another message type.
 * Strings are stored as given: copy them into the arena first if needed. */
pbdyn_status pbdyn_msg_set(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value v);

/* The sub-message of a singular message field, created empty if unset;
 * NULL for any other field, a field of another type, or an exhausted arena. */
pbdyn_msg *pbdyn_msg_mutable(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_arena *a);

/* Clear a field: presence, value, repeated elements (a oneof member only
 * while it is the set one). PBDYN_ERR_ARG for a field of another type. */
pbdyn_status pbdyn_msg_clear(pbdyn_msg *msg, const pbdyn_fielddef *f);

/* Field number of the set member of the oneof that f belongs to; 0 when
 * none is set, for a field in no oneof, and for a field of another type. */
uint32_t pbdyn_msg_oneof_case(const pbdyn_msg *msg, const pbdyn_fielddef *f);

/* Repeated fields (maps: entries in arrival order, see pbdyn_msg_map_get).
 * array_size is 0 and array_get a zero pbdyn_value (as pbdyn_msg_get's) for
 * a singular field or a field of another type; array_get also for an index
 * i past the end. array_append: PBDYN_ERR_ARG for a singular field or a
 * field of another type. */
size_t pbdyn_msg_array_size(const pbdyn_msg *msg, const pbdyn_fielddef *f);
pbdyn_value pbdyn_msg_array_get(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i);
pbdyn_status pbdyn_msg_array_append(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value v,
                                    pbdyn_arena *a);
/* Append a new empty message to a repeated message field; NULL for any
 * other field, a field of another type, or an exhausted arena. */
pbdyn_msg *pbdyn_msg_array_append_msg(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_arena *a);

/* Look a key up in a map field; the last entry with that key wins, as on
 * the wire. Returns false if absent, or if f is not a map field of msg's
 * type. */
bool pbdyn_msg_map_get(const pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                       pbdyn_value *val);

/* The number of distinct keys in a map field (the wire may repeat a key:
 * the last entry wins, as pbdyn_msg_map_get reads it). PBDYN_ERR_ARG when f
 * is not a map field of msg's type. */
pbdyn_status pbdyn_msg_map_size(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t *size);

/* Set a map entry: the value of an existing key is replaced (in its last
 * entry), a new key appends an entry. Strings are stored as given, as by
 * pbdyn_msg_set. PBDYN_ERR_ARG when f is not a map field of msg's type. */
pbdyn_status pbdyn_msg_map_set(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                               pbdyn_value val, pbdyn_arena *a);

/* Delete a key from a map field: every entry with that key goes (the wire
 * may have repeated it), and the others keep their order. *deleted says
 * whether the key was there (deleted may be NULL). PBDYN_ERR_ARG when f is
 * not a map field of msg's type. The entries stay in the arena until it is
 * reset or freed: an iterator made before the delete still reads them. */
pbdyn_status pbdyn_msg_map_delete(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                                  bool *deleted);

/* Iteration over a map's entries, each key once (its last value), in
 * increasing key order (strings bytewise), as the text format prints them:
 *
 *     pbdyn_map_iter it;
 *     pbdyn_value k, v;
 *     if (pbdyn_msg_map_iter_init(msg, f, a, &it) != PBDYN_OK) ...;
 *     while (pbdyn_map_iter_next(&it, &k, &v)) ...;
 *
 * The iterator's list lives in the arena a; it sees the map as it was at
 * init. An entry without a value reads the value field's default (NULL for
 * a message). PBDYN_ERR_ARG when f is not a map field of msg's type. */
typedef struct pbdyn_map_iter {
  const pbdyn_msg *const *entries;
  size_t count, next;
  const pbdyn_fielddef *key, *value;
} pbdyn_map_iter;
pbdyn_status pbdyn_msg_map_iter_init(const pbdyn_msg *msg, const pbdyn_fielddef *f,
                                     pbdyn_arena *a, pbdyn_map_iter *it);
bool pbdyn_map_iter_next(pbdyn_map_iter *it, pbdyn_value *key, pbdyn_value *val);

/* Unknown fields of this message, as wire bytes in arrival order. */
pbdyn_str pbdyn_msg_unknown(const pbdyn_msg *msg);

/* ---- typed accessors -------------------------------------------------------
 * Each reads or writes one C type and returns PBDYN_ERR_ARG, touching
 * nothing, when f is not a field of msg's type or its type does not hold
 * that C type: reading a UINT32 field with pbdyn_msg_get_int32 is an error.
 *   int32 (int32_t): INT32 SINT32 SFIXED32     uint32: UINT32 FIXED32
 *   int64 (int64_t): INT64 SINT64 SFIXED64     uint64: UINT64 FIXED64
 *   float, double, bool: FLOAT, DOUBLE, BOOL   enum (int32_t): ENUM
 *   str (pbdyn_str): STRING BYTES              msg (const pbdyn_msg *): MESSAGE GROUP
 * get/set take a singular field (get reads the default when unset, as
 * pbdyn_msg_get); array_get/array_append a repeated one that is not a map
 * (array_get: PBDYN_ERR_ARG for an index past the end). */
pbdyn_status pbdyn_msg_get_int32(const pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t *out);
pbdyn_status pbdyn_msg_get_uint32(const pbdyn_msg *msg, const pbdyn_fielddef *f, uint32_t *out);
pbdyn_status pbdyn_msg_get_int64(const pbdyn_msg *msg, const pbdyn_fielddef *f, int64_t *out);
pbdyn_status pbdyn_msg_get_uint64(const pbdyn_msg *msg, const pbdyn_fielddef *f, uint64_t *out);
pbdyn_status pbdyn_msg_get_float(const pbdyn_msg *msg, const pbdyn_fielddef *f, float *out);
pbdyn_status pbdyn_msg_get_double(const pbdyn_msg *msg, const pbdyn_fielddef *f, double *out);
pbdyn_status pbdyn_msg_get_bool(const pbdyn_msg *msg, const pbdyn_fielddef *f, bool *out);
pbdyn_status pbdyn_msg_get_enum(const pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t *out);
pbdyn_status pbdyn_msg_get_str(const pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_str *out);
pbdyn_status pbdyn_msg_get_msg(const pbdyn_msg *msg, const pbdyn_fielddef *f,
                               const pbdyn_msg **out);

pbdyn_status pbdyn_msg_set_int32(pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t v);
pbdyn_status pbdyn_msg_set_uint32(pbdyn_msg *msg, const pbdyn_fielddef *f, uint32_t v);
pbdyn_status pbdyn_msg_set_int64(pbdyn_msg *msg, const pbdyn_fielddef *f, int64_t v);
pbdyn_status pbdyn_msg_set_uint64(pbdyn_msg *msg, const pbdyn_fielddef *f, uint64_t v);
pbdyn_status pbdyn_msg_set_float(pbdyn_msg *msg, const pbdyn_fielddef *f, float v);
pbdyn_status pbdyn_msg_set_double(pbdyn_msg *msg, const pbdyn_fielddef *f, double v);
pbdyn_status pbdyn_msg_set_bool(pbdyn_msg *msg, const pbdyn_fielddef *f, bool v);
pbdyn_status pbdyn_msg_set_enum(pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t v);
/* Stores v as given: its bytes must outlive the message (see _str_copy). */
pbdyn_status pbdyn_msg_set_str(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_str v);
/* Copies data[0..size) into the arena first (data may be NULL when size is
 * 0); a proto3 string field refuses invalid UTF-8 with PBDYN_ERR_UTF8, as
 * the decoder does. */
pbdyn_status pbdyn_msg_set_str_copy(pbdyn_msg *msg, const pbdyn_fielddef *f, const char *data,
                                    size_t size, pbdyn_arena *a);

pbdyn_status pbdyn_msg_array_get_int32(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                       int32_t *out);
pbdyn_status pbdyn_msg_array_get_uint32(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                        uint32_t *out);
pbdyn_status pbdyn_msg_array_get_int64(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                       int64_t *out);
pbdyn_status pbdyn_msg_array_get_uint64(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                        uint64_t *out);
pbdyn_status pbdyn_msg_array_get_float(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                       float *out);
pbdyn_status pbdyn_msg_array_get_double(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                        double *out);
pbdyn_status pbdyn_msg_array_get_bool(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                      bool *out);
pbdyn_status pbdyn_msg_array_get_enum(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                      int32_t *out);
pbdyn_status pbdyn_msg_array_get_str(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                     pbdyn_str *out);
pbdyn_status pbdyn_msg_array_get_msg(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                     const pbdyn_msg **out);

pbdyn_status pbdyn_msg_array_append_int32(pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t v,
                                          pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_uint32(pbdyn_msg *msg, const pbdyn_fielddef *f, uint32_t v,
                                           pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_int64(pbdyn_msg *msg, const pbdyn_fielddef *f, int64_t v,
                                          pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_uint64(pbdyn_msg *msg, const pbdyn_fielddef *f, uint64_t v,
                                           pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_float(pbdyn_msg *msg, const pbdyn_fielddef *f, float v,
                                          pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_double(pbdyn_msg *msg, const pbdyn_fielddef *f, double v,
                                           pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_bool(pbdyn_msg *msg, const pbdyn_fielddef *f, bool v,
                                         pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_enum(pbdyn_msg *msg, const pbdyn_fielddef *f, int32_t v,
                                         pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_str(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_str v,
                                        pbdyn_arena *a);
pbdyn_status pbdyn_msg_array_append_str_copy(pbdyn_msg *msg, const pbdyn_fielddef *f,
                                             const char *data, size_t size, pbdyn_arena *a);

/* ---- decoding ------------------------------------------------------------ */

typedef enum pbdyn_decoder {
  PBDYN_DECODER_FAST = 0,    /* tail-call (clang) or trampoline (portable) build */
  PBDYN_DECODER_SWITCH = 1,  /* a switch loop over the same tables */
  PBDYN_DECODER_GENERIC = 2, /* the complete fallback alone */
} pbdyn_decoder;

enum {
  /* Strings and bytes point into the input instead of being copied: the
   * input must then outlive the message. */
  PBDYN_DECODE_ALIAS = 1u << 0,
  /* Fail with PBDYN_ERR_REQUIRED when a proto2 required field is missing. */
  PBDYN_DECODE_CHECK_REQUIRED = 1u << 1,
};

/* The deepest nesting a caller may allow. Each level of a message or group
 * is a frame on the C stack: at most ~180 bytes in an optimised build (the
 * switch decoder; ~80 for the fast and generic ones), so 4096 levels fit a
 * 1 MiB thread stack; sanitizer builds take up to ~8 KB a level (the switch
 * decoder under AddressSanitizer: 32 MiB at this depth). A thread with less
 * stack should ask for less. */
#define PBDYN_MAX_DEPTH 4096

typedef struct pbdyn_decode_opts {
  uint32_t flags;        /* PBDYN_DECODE_* */
  pbdyn_decoder decoder; /* which decoder runs */
  int max_depth;         /* nesting limit: 0 means 100, as in Google's parsers;
                          * 1..PBDYN_MAX_DEPTH as given; anything else is
                          * PBDYN_ERR_ARG */
  size_t *error_offset;  /* NULL, or where a failed decode writes the offset
                          * in buf of the field it could not decode (below) */
} pbdyn_decode_opts;

/* An error offset where no byte of the input is at fault (PBDYN_ERR_REQUIRED,
 * PBDYN_ERR_NOMEM, an input of 2 GiB or more). */
#define PBDYN_NO_OFFSET SIZE_MAX

/* Merge the wire-format message in buf[0..size) into msg (of type m),
 * allocating in a. opts may be NULL (fast decoder, copy strings, depth 100).
 * On error msg may be partially filled; it stays safe to read and encode.
 * With opts->error_offset, a failed decode (any status but PBDYN_ERR_ARG)
 * also writes where the input went wrong: the offset of the tag of the field
 * being decoded when the error was found, the innermost one for an error
 * inside a sub-message or group (for a missing end-group tag, the last tag
 * read before the input ended). Every decoder reports the same offset: it is
 * found by a second pass of the generic decoder over the input, so that a
 * successful decode pays nothing for it. */
pbdyn_status pbdyn_decode(const void *buf, size_t size, pbdyn_msg *msg, const pbdyn_msgdef *m,
                          pbdyn_arena *a, const pbdyn_decode_opts *opts);

/* Which fast decoder this build of the library has: "musttail" (clang's
 * guaranteed tail calls) or "trampoline" (a loop that each field function
 * returns to). */
const char *pbdyn_decode_fast_kind(void);

/* Which vector kernels decode long packed varint runs on this CPU, chosen at
 * the first packed run by cpuid: "avx512" (F, BW, VBMI, VBMI2), "avx2", or
 * "portable" (any other CPU or compiler). Every choice decodes the same. */
const char *pbdyn_decode_packed_kind(void);

/* ---- encoding and text ---------------------------------------------------- */

/* Serialize msg: known fields in field-number order (repeated fields packed
 * where the schema says so, map entries with key and value), then unknown
 * fields. The result lives in the arena. */
pbdyn_status pbdyn_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a,
                          char **out, size_t *size);

/* A canonical text dump for comparisons: one line per present value in
 * field-number order ("<number>:<name> <value>"), nested messages indented,
 * map entries sorted by key with the last duplicate winning, floats as the
 * hex of their bits (NaNs quietened), strings and bytes as hex, unknown
 * fields last as "? <hex>". The result is NUL-terminated, in the arena. */
pbdyn_status pbdyn_dump(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a, char **out,
                        size_t *size);

/* The text format, byte for byte as protobuf C++ 3.21 prints it
 * (TextFormat::Print, what `protoc --decode=TYPE` writes): known fields in
 * field-number order as "name: value" lines, messages as "name {" blocks
 * indented by two spaces (a group named by its type), map entries sorted by
 * key, enums by name (undefined values as numbers), strings and bytes
 * C-escaped with octal escapes for every byte outside 0x20..0x7e, floats
 * with 6 or 9 significant digits and doubles with 15 or 17 (the fewer when
 * they read back exactly), unknown fields last by number. Extensions are
 * unknown fields here (pbdyn_schema_load). The result is NUL-terminated, in
 * the arena. */
pbdyn_status pbdyn_text_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a,
                               char **out, size_t *size);

/* Where a parse of text or JSON failed (pbdyn_text_decode, pbdyn_json_decode):
 * the byte offset of the token at fault, and its line and column, both
 * counted from 1 (columns in bytes). */
typedef struct pbdyn_parse_error {
  size_t offset;
  uint32_t line, column;
} pbdyn_parse_error;

enum {
  /* JSON: skip members that name no field, and enum names the enum lacks
   * (the field is left unset), instead of PBDYN_ERR_NOT_FOUND. */
  PBDYN_PARSE_IGNORE_UNKNOWN = 1u << 0,
};

typedef struct pbdyn_parse_opts {
  uint32_t flags;           /* PBDYN_PARSE_* */
  int max_depth;            /* messages nested below the top one: 0 means 100;
                             * 1..PBDYN_MAX_DEPTH as given; else PBDYN_ERR_ARG.
                             * Each level is C stack: ~320 bytes for the text
                             * parser, ~260 for JSON (clang -O2, x86-64), so a
                             * 1 MiB thread stack holds ~3,200 text levels:
                             * there, ask for fewer than PBDYN_MAX_DEPTH */
  pbdyn_parse_error *error; /* NULL, or where a failed parse says where */
} pbdyn_parse_opts;

/* Merge the text format in text[0..size) into msg (of type m), as protobuf
 * C++ 3.21's TextFormat::Parse reads it (`protoc --encode=TYPE`): everything
 * pbdyn_text_encode prints reads back as the same message. Fields are named
 * by name (a group by its type's name, as printed), messages are "{...}" or
 * "<...>" blocks, repeated fields may also be lists ("f: [1, 2]"), strings
 * may be adjacent quoted pieces with C escapes (octal, hex, 4 and 8 digit
 * Unicode),
 * integers decimal, hex or octal, '#' starts a comment. A field number in
 * place of a name that no field has is an unknown field in the printed
 * forms ("5: 150" a varint, "5: 0x0000000a" a fixed32 (16 digits: fixed64),
 * a quoted string and "5 { ... }" length-delimited, "5 {}" an empty group).
 * Extensions and Any's expanded form are not read. Errors: PBDYN_ERR_SYNTAX,
 * PBDYN_ERR_NOT_FOUND (no such field or enum value; a closed enum's
 * undefined number), PBDYN_ERR_UTF8 (a proto3 string), PBDYN_ERR_FIELD_NUMBER
 * (an unknown field's number out of range), PBDYN_ERR_DEPTH; with
 * opts->error, a failed parse also writes where. On error msg may be
 * partially filled; it stays safe to read and encode. Strings are copied
 * into the arena: text may be freed afterwards. opts may be NULL. */
pbdyn_status pbdyn_text_decode(const char *text, size_t size, pbdyn_msg *msg,
                               const pbdyn_msgdef *m, pbdyn_arena *a,
                               const pbdyn_parse_opts *opts);

/* ---- JSON ----------------------------------------------------------------- */

enum {
  /* Keys are the proto field names ("foo_bar") instead of the JSON names
   * ("fooBar"). */
  PBDYN_JSON_PROTO_NAMES = 1u << 0,
  /* Also print the fields without presence when they hold their default:
   * proto3 implicit scalars (0, "", false, the first enum value), empty
   * repeated fields ([]) and maps ({}). Fields with presence print only
   * when set, as in protobuf. */
  PBDYN_JSON_EMIT_DEFAULTS = 1u << 1,
};

typedef struct pbdyn_json_opts {
  uint32_t flags; /* PBDYN_JSON_* */
  int max_depth;  /* nesting limit, Any's packed messages included: 0 means
                   * 100; 1..PBDYN_MAX_DEPTH as given; else PBDYN_ERR_ARG */
} pbdyn_json_opts;

/* The proto3 JSON mapping of msg (of type m), on one line with no spaces,
 * as protobuf's MessageToJsonString prints it: fields in field-number order
 * by JSON name, present ones only (proto2 and proto3 presence); 64-bit
 * integers as strings, enums by name (undefined numbers as numbers), bytes
 * as standard base64 with padding, floats and doubles as the shortest
 * decimal that reads back exactly, or "NaN", "Infinity", "-Infinity"; maps
 * as objects with string keys (sorted by key, the last duplicate winning),
 * repeated fields as arrays; unknown fields left out. The well-known types
 * of google/protobuf/ in the schema print in their JSON forms: Timestamp
 * (RFC 3339, "Z", 0, 3, 6 or 9 fractional digits), Duration ("1.5s"), the
 * wrappers (the bare value), Struct, Value, ListValue, FieldMask, Empty, and
 * Any ("@type" first; the packed message is decoded with the type found in
 * m's schema: PBDYN_ERR_NOT_FOUND when the schema lacks it, its decode status
 * when it does not decode). Errors: PBDYN_ERR_JSON (see pbdyn_status), PBDYN_ERR_UTF8
 * for a proto2 string that is not UTF-8, PBDYN_ERR_DEPTH. opts may be NULL.
 * The result is NUL-terminated, in the arena. */
pbdyn_status pbdyn_json_encode(const pbdyn_msg *msg, const pbdyn_msgdef *m, pbdyn_arena *a,
                               char **out, size_t *size, const pbdyn_json_opts *opts);

/* Merge the proto3 JSON mapping in json[0..size) into msg (of type m), as
 * protobuf's JSON parsers read it (json_format.Parse): everything
 * pbdyn_json_encode prints, under either flag, reads back as the same
 * message (but unknown fields, which JSON does not carry). Members by JSON
 * name or proto field name, in any order; null leaves a field unset (a
 * Value reads it as null_value); integers as numbers or quoted numbers,
 * integral and in range (1e3 is an integer); floats also as "NaN",
 * "Infinity", "-Infinity" and quoted numbers; bytes as base64, standard or
 * URL-safe, padding optional; enums by name or number; maps as objects with
 * quoted keys; the well-known types in their own forms (Timestamp with any
 * UTC offset; Any with "@type" anywhere among its members, its type from
 * m's schema). Errors: PBDYN_ERR_SYNTAX (malformed JSON, a value of the
 * wrong kind or out of range, a field given twice, two members of a oneof),
 * PBDYN_ERR_NOT_FOUND (no such field, enum name or Any type; see
 * PBDYN_PARSE_IGNORE_UNKNOWN), PBDYN_ERR_UTF8, PBDYN_ERR_DEPTH; opts->error
 * as for pbdyn_text_decode. opts may be NULL. */
pbdyn_status pbdyn_json_decode(const char *json, size_t size, pbdyn_msg *msg,
                               const pbdyn_msgdef *m, pbdyn_arena *a,
                               const pbdyn_parse_opts *opts);

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Whether buf[0..size) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF), with an 8-bytes-at-a-time ASCII fast path. */
bool pbdyn_utf8_valid(const char *buf, size_t size);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* PBDYN_H */
