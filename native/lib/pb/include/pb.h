/* pb — a protobuf binary-format library with a tail-call decoder.
 *
 * Schemas are loaded at run time from a serialized FileDescriptorSet (what
 * `protoc --descriptor_set_out=F --include_imports` writes) and compiled into
 * message layouts and decode tables; no code generation is needed. Messages
 * live in an arena and are read and written through field definitions, found
 * by number or by name.
 *
 *     pb_schema *s;
 *     if (pb_schema_load(fds, fds_len, &s) != PB_OK) ...;
 *     const pb_msgdef *m = pb_schema_find(s, "google.protobuf.FileDescriptorSet");
 *     pb_arena *a = pb_arena_new(0);
 *     pb_msg *msg = pb_msg_new(m, a);
 *     pb_status st = pb_decode(buf, len, msg, m, a, NULL);
 *     const pb_fielddef *f = pb_msgdef_field_by_name(m, "file");
 *     size_t n = pb_msg_array_size(msg, f);
 *
 * Three decoders share the same tables (pb_decoder): the fast one (one small
 * function per field kind x cardinality x tag size, chained by guaranteed
 * tail calls under clang, or returning to a trampoline loop elsewhere), a
 * switch loop, and the generic decoder that the other two fall back to and
 * that is complete on its own. All three accept and reject the same inputs.
 *
 * Errors are returned as pb_status; nothing in the library aborts or exits.
 * Input is never read out of bounds, whatever its content.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may
 * be NULL only where its comment says so. pb does not check the others, not
 * even in the functions that return a pb_status: a NULL there is undefined
 * behaviour.
 */
#ifndef PB_H
#define PB_H

/* The version of this header and of the library built with it (semantic versioning).
 * PB_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define PB_VERSION_MAJOR 0
#define PB_VERSION_MINOR 2
#define PB_VERSION_PATCH 0
#define PB_VERSION (PB_VERSION_MAJOR * 10000 + PB_VERSION_MINOR * 100 + PB_VERSION_PATCH)
#define PB_VERSION_STRING "0.2.0"

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

typedef enum pb_status {
  PB_OK = 0,
  PB_ERR_TRUNCATED,    /* input ended inside a tag or a value */
  PB_ERR_VARINT,       /* a varint longer than 10 bytes (a tag or a length
                          prefix longer than 5) */
  PB_ERR_FIELD_NUMBER, /* field number 0 or above 2^29-1 */
  PB_ERR_WIRE_TYPE,    /* wire type 6 or 7 */
  PB_ERR_LENGTH,       /* a length past the end of the enclosing message, or
                          a packed fixed-size run not a multiple of its size */
  PB_ERR_UTF8,         /* invalid UTF-8 in a field that must be validated */
  PB_ERR_GROUP,        /* end-group tag unmatched, mismatched, or missing */
  PB_ERR_DEPTH,        /* messages nested deeper than the depth limit */
  PB_ERR_REQUIRED,     /* a required field is missing (only when checked) */
  PB_ERR_NOMEM,        /* the arena could not grow */
  PB_ERR_SCHEMA,       /* the descriptor set is malformed or inconsistent */
  PB_ERR_NOT_FOUND,    /* no such type or field */
  PB_ERR_ARG,          /* an argument is out of range or of the wrong kind */
  PB_ERR_JSON,         /* a value the JSON mapping has no form for: a Timestamp
                          or Duration out of range, a FieldMask path not in
                          snake_case, a Value number NaN or infinite */
} pb_status;

/* A short constant English name of a status: "truncated input", ... */
const char *pb_status_str(pb_status st);

/* ---- arena --------------------------------------------------------------
 * A bump allocator. Everything a decode creates (messages, arrays, copied
 * strings, unknown-field bytes) lives here and is freed all at once. */

typedef struct pb_arena pb_arena;

/* A new arena whose first block holds `initial` bytes (0: 4 KiB). NULL if
 * memory is exhausted. */
pb_arena *pb_arena_new(size_t initial);

/* Forget every allocation but keep the largest block, so that a decode into
 * a reused arena allocates no memory from the system once warm. */
void pb_arena_reset(pb_arena *a);

/* Free the arena and everything allocated in it. NULL is accepted. */
void pb_arena_free(pb_arena *a);

/* `size` bytes aligned to 8, uninitialised; NULL if memory is exhausted. */
void *pb_arena_alloc(pb_arena *a, size_t size);

/* Bytes handed out since creation or the last reset (for tests and sizing). */
size_t pb_arena_used(const pb_arena *a);

/* ---- schema ------------------------------------------------------------ */

typedef struct pb_schema pb_schema;
typedef struct pb_msgdef pb_msgdef;
typedef struct pb_fielddef pb_fielddef;
typedef struct pb_enumdef pb_enumdef;

/* Field types, numbered as in descriptor.proto's FieldDescriptorProto.Type. */
typedef enum pb_type {
  PB_TYPE_DOUBLE = 1,
  PB_TYPE_FLOAT = 2,
  PB_TYPE_INT64 = 3,
  PB_TYPE_UINT64 = 4,
  PB_TYPE_INT32 = 5,
  PB_TYPE_FIXED64 = 6,
  PB_TYPE_FIXED32 = 7,
  PB_TYPE_BOOL = 8,
  PB_TYPE_STRING = 9,
  PB_TYPE_GROUP = 10,
  PB_TYPE_MESSAGE = 11,
  PB_TYPE_BYTES = 12,
  PB_TYPE_UINT32 = 13,
  PB_TYPE_ENUM = 14,
  PB_TYPE_SFIXED32 = 15,
  PB_TYPE_SFIXED64 = 16,
  PB_TYPE_SINT32 = 17,
  PB_TYPE_SINT64 = 18,
} pb_type;

/* Parse a serialized FileDescriptorSet and compile every message it defines.
 * The set must be self-contained (protoc --include_imports) and use fully
 * qualified type names (as protoc writes them). Extensions are not compiled:
 * extension fields decode as unknown fields. On success *out owns a copy of
 * everything it needs; the input may be freed. */
pb_status pb_schema_load(const void *fds, size_t size, pb_schema **out);

/* Free a schema. Messages of its types must not be used afterwards. */
void pb_schema_free(pb_schema *s);

/* A message type by full name without a leading dot ("pkg.Outer.Inner");
 * NULL if absent. */
const pb_msgdef *pb_schema_find(const pb_schema *s, const char *full_name);

/* An enum type by full name; NULL if absent. */
const pb_enumdef *pb_schema_find_enum(const pb_schema *s, const char *full_name);

/* Message types in the schema, in definition order. */
size_t pb_schema_msg_count(const pb_schema *s);
const pb_msgdef *pb_schema_msg(const pb_schema *s, size_t i);

const char *pb_msgdef_name(const pb_msgdef *m);  /* full name */
size_t pb_msgdef_size(const pb_msgdef *m);       /* bytes of one instance */
bool pb_msgdef_is_map_entry(const pb_msgdef *m);
size_t pb_msgdef_field_count(const pb_msgdef *m);
/* The i-th field in increasing field-number order. */
const pb_fielddef *pb_msgdef_field(const pb_msgdef *m, size_t i);
const pb_fielddef *pb_msgdef_field_by_number(const pb_msgdef *m, uint32_t number);
const pb_fielddef *pb_msgdef_field_by_name(const pb_msgdef *m, const char *name);

uint32_t pb_fielddef_number(const pb_fielddef *f);
const char *pb_fielddef_name(const pb_fielddef *f);
/* The field's JSON name: the descriptor's json_name (protoc writes one for
 * every field), else the name in lowerCamelCase ("foo_bar" -> "fooBar"). */
const char *pb_fielddef_json_name(const pb_fielddef *f);
pb_type pb_fielddef_type(const pb_fielddef *f);
bool pb_fielddef_is_repeated(const pb_fielddef *f); /* true for maps too */
bool pb_fielddef_is_map(const pb_fielddef *f);
bool pb_fielddef_is_packed(const pb_fielddef *f);   /* how the encoder writes it */
/* Explicit presence: proto2 optional/required, proto3 `optional`, messages,
 * oneof members. False for repeated fields and proto3 implicit scalars. */
bool pb_fielddef_has_presence(const pb_fielddef *f);
/* The oneof's name for a member of a real (not synthetic) oneof, else NULL. */
const char *pb_fielddef_oneof_name(const pb_fielddef *f);
/* Message (or group, or map entry) type of a field, else NULL. */
const pb_msgdef *pb_fielddef_msg(const pb_fielddef *f);
const pb_enumdef *pb_fielddef_enum(const pb_fielddef *f);

const char *pb_enumdef_name(const pb_enumdef *e);
bool pb_enumdef_is_closed(const pb_enumdef *e);   /* proto2 enums are closed */
bool pb_enumdef_has_value(const pb_enumdef *e, int32_t v);

/* ---- messages -----------------------------------------------------------
 * A message is arena memory laid out by its pb_msgdef. Values are read and
 * written through pb_value, whose active member follows the field type:
 *   i32: INT32 SINT32 SFIXED32 ENUM     u32: UINT32 FIXED32
 *   i64: INT64 SINT64 SFIXED64          u64: UINT64 FIXED64
 *   f: FLOAT   d: DOUBLE   b: BOOL   str: STRING BYTES   msg: MESSAGE GROUP */

typedef struct pb_msg pb_msg;

typedef struct pb_str {
  const char *data;
  size_t size;
} pb_str;

typedef union pb_value {
  int32_t i32;
  uint32_t u32;
  int64_t i64;
  uint64_t u64;
  float f;
  double d;
  bool b;
  pb_str str;
  const pb_msg *msg;
} pb_value;

/* A new, empty message of type m; NULL if the arena is exhausted. */
pb_msg *pb_msg_new(const pb_msgdef *m, pb_arena *a);

/* Whether a field with presence is set (for repeated fields: non-empty). */
bool pb_msg_has(const pb_msg *msg, const pb_fielddef *f);

/* A singular field's value, or its default when unset (proto2 [default=],
 * else zero; an unset message reads as NULL). */
pb_value pb_msg_get(const pb_msg *msg, const pb_fielddef *f);

/* Set a singular field (and its presence; for a oneof member, the case).
 * Strings are stored as given: copy them into the arena first if needed. */
pb_status pb_msg_set(pb_msg *msg, const pb_fielddef *f, pb_value v);

/* The sub-message of a singular message field, created empty if unset. */
pb_msg *pb_msg_mutable(pb_msg *msg, const pb_fielddef *f, pb_arena *a);

/* Clear a field: presence, value, repeated elements. */
void pb_msg_clear(pb_msg *msg, const pb_fielddef *f);

/* Field number of the set member of the oneof that f belongs to, or 0. */
uint32_t pb_msg_oneof_case(const pb_msg *msg, const pb_fielddef *f);

/* Repeated fields (maps: entries in arrival order, see pb_msg_map_get). */
size_t pb_msg_array_size(const pb_msg *msg, const pb_fielddef *f);
pb_value pb_msg_array_get(const pb_msg *msg, const pb_fielddef *f, size_t i);
pb_status pb_msg_array_append(pb_msg *msg, const pb_fielddef *f, pb_value v,
                              pb_arena *a);
/* Append a new empty message to a repeated message field; NULL on error. */
pb_msg *pb_msg_array_append_msg(pb_msg *msg, const pb_fielddef *f, pb_arena *a);

/* Look a key up in a map field; the last entry with that key wins, as on
 * the wire. Returns false if absent. */
bool pb_msg_map_get(const pb_msg *msg, const pb_fielddef *f, pb_value key,
                    pb_value *val);

/* Unknown fields of this message, as wire bytes in arrival order. */
pb_str pb_msg_unknown(const pb_msg *msg);

/* ---- decoding ------------------------------------------------------------ */

typedef enum pb_decoder {
  PB_DECODER_FAST = 0,    /* tail-call (clang) or trampoline (portable) build */
  PB_DECODER_SWITCH = 1,  /* a switch loop over the same tables */
  PB_DECODER_GENERIC = 2, /* the complete fallback alone */
} pb_decoder;

enum {
  /* Strings and bytes point into the input instead of being copied: the
   * input must then outlive the message. */
  PB_DECODE_ALIAS = 1u << 0,
  /* Fail with PB_ERR_REQUIRED when a proto2 required field is missing. */
  PB_DECODE_CHECK_REQUIRED = 1u << 1,
};

/* The deepest nesting a caller may allow. Each level of a message or group
 * is a frame on the C stack: at most ~180 bytes in an optimised build (the
 * switch decoder; ~80 for the fast and generic ones), so 4096 levels fit a
 * 1 MiB thread stack; sanitizer builds take up to ~8 KB a level (the switch
 * decoder under AddressSanitizer: 32 MiB at this depth). A thread with less
 * stack should ask for less. */
#define PB_MAX_DEPTH 4096

typedef struct pb_decode_opts {
  uint32_t flags;      /* PB_DECODE_* */
  pb_decoder decoder;  /* which decoder runs */
  int max_depth;       /* nesting limit: 0 means 100, as in Google's parsers;
                        * 1..PB_MAX_DEPTH as given; anything else is
                        * PB_ERR_ARG */
} pb_decode_opts;

/* Merge the wire-format message in buf[0..size) into msg (of type m),
 * allocating in a. opts may be NULL (fast decoder, copy strings, depth 100).
 * On error msg may be partially filled; it stays safe to read and encode. */
pb_status pb_decode(const void *buf, size_t size, pb_msg *msg, const pb_msgdef *m,
                    pb_arena *a, const pb_decode_opts *opts);

/* Which fast decoder this build of the library has: "musttail" (clang's
 * guaranteed tail calls) or "trampoline" (a loop that each field function
 * returns to). */
const char *pb_decode_fast_kind(void);

/* ---- encoding and text ---------------------------------------------------- */

/* Serialize msg: known fields in field-number order (repeated fields packed
 * where the schema says so, map entries with key and value), then unknown
 * fields. The result lives in the arena. */
pb_status pb_encode(const pb_msg *msg, const pb_msgdef *m, pb_arena *a,
                    char **out, size_t *size);

/* A canonical text dump for comparisons: one line per present value in
 * field-number order ("<number>:<name> <value>"), nested messages indented,
 * map entries sorted by key with the last duplicate winning, floats as the
 * hex of their bits (NaNs quietened), strings and bytes as hex, unknown
 * fields last as "? <hex>". The result is NUL-terminated, in the arena. */
pb_status pb_dump(const pb_msg *msg, const pb_msgdef *m, pb_arena *a, char **out,
                  size_t *size);

/* The text format, byte for byte as protobuf C++ 3.21 prints it
 * (TextFormat::Print, what `protoc --decode=TYPE` writes): known fields in
 * field-number order as "name: value" lines, messages as "name {" blocks
 * indented by two spaces (a group named by its type), map entries sorted by
 * key, enums by name (undefined values as numbers), strings and bytes
 * C-escaped with octal escapes for every byte outside 0x20..0x7e, floats
 * with 6 or 9 significant digits and doubles with 15 or 17 (the fewer when
 * they read back exactly), unknown fields last by number. Extensions are
 * unknown fields here (pb_schema_load). The result is NUL-terminated, in
 * the arena. */
pb_status pb_text_encode(const pb_msg *msg, const pb_msgdef *m, pb_arena *a, char **out,
                         size_t *size);

/* ---- JSON ----------------------------------------------------------------- */

enum {
  /* Keys are the proto field names ("foo_bar") instead of the JSON names
   * ("fooBar"). */
  PB_JSON_PROTO_NAMES = 1u << 0,
  /* Also print the fields without presence when they hold their default:
   * proto3 implicit scalars (0, "", false, the first enum value), empty
   * repeated fields ([]) and maps ({}). Fields with presence print only
   * when set, as in protobuf. */
  PB_JSON_EMIT_DEFAULTS = 1u << 1,
};

typedef struct pb_json_opts {
  uint32_t flags; /* PB_JSON_* */
  int max_depth;  /* nesting limit, Any's packed messages included: 0 means
                   * 100; 1..PB_MAX_DEPTH as given; else PB_ERR_ARG */
} pb_json_opts;

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
 * m's schema: PB_ERR_NOT_FOUND when the schema lacks it, its decode status
 * when it does not decode). Errors: PB_ERR_JSON (see pb_status), PB_ERR_UTF8
 * for a proto2 string that is not UTF-8, PB_ERR_DEPTH. opts may be NULL.
 * The result is NUL-terminated, in the arena. */
pb_status pb_json_encode(const pb_msg *msg, const pb_msgdef *m, pb_arena *a, char **out,
                         size_t *size, const pb_json_opts *opts);

/* ---- UTF-8 ---------------------------------------------------------------- */

/* Whether buf[0..size) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF), with an 8-bytes-at-a-time ASCII fast path. */
bool pb_utf8_valid(const char *buf, size_t size);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* PB_H */
