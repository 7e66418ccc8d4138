/* Compiled schema: message layouts, field definitions, enum value sets and
 * the fast-decoder dispatch table of every message type.
 *
 * A message instance is laid out as
 *   [0, 8)     pointer to its unknown-field bytes (pbdyn__unknown), NULL if none
 *   [8, 8+8h)  h >= 1 words of hasbits; bit 63 of word 0 is never assigned:
 *              the fast decoder ORs it in for fields without presence
 *   then       one uint32 case word per real oneof (the member's number)
 *   then       field storage by decreasing size (16: strings and arrays,
 *              8: 64-bit scalars and message pointers, 4, 1), members of a
 *              oneof sharing one slot; storage guarded by a hasbit or a oneof
 *              case after all the rest (layout.c).
 */
#ifndef PBDYN_INTERNAL_DEF_H
#define PBDYN_INTERNAL_DEF_H

#include <stdbool.h>
#include <stdint.h>

#include "internal/port.h"
#include "pbdyn.h"

struct pbdyn__dec;

/* ---- the fast table --------------------------------------------------------
 * 32 entries at most, indexed by bits 3..7 of the first tag byte: a field
 * number below 16 with a one-byte tag lands in slot = number, a number in
 * 16..2047 (two-byte tag, continuation bit set) in 16 + (number & 15).
 * `data` packs what the field function needs, so that it reads nothing else
 * from the table:
 *   bits  0..15  expected tag bytes; dispatch XORs in the input's first two
 *                bytes, so a match leaves 0 in the low 8 (1-byte tag) or 16
 *                bits
 *   bits 16..23  hasbit index (63: the dummy bit of fields without presence)
 *   bits 24..31  index into msgdef.subs (sub-message type), or
 *   bits 24..47  for a closed enum: bit v set when v (0..23) is defined
 *   bits 32..47  offset of the oneof case word (oneof members)
 *   bits 48..63  offset of the field's storage
 */
#define PBDYN_FAST_SLOTS 32

#if PBDYN_MUSTTAIL
typedef const char *pbdyn__fast_ret;
#else
typedef struct pbdyn__fast_ret {
  const char *ptr;  /* NULL: message ended (d->done_ptr) or error (d->status) */
  uint64_t hasbits;
} pbdyn__fast_ret;
#endif

#define PBDYN_FAST_PARAMS                                                       \
  struct pbdyn__dec *d, const char *ptr, pbdyn_msg *msg, const pbdyn_msgdef *m,        \
      uint64_t hasbits, uint64_t data
typedef pbdyn__fast_ret PBDYN_CC pbdyn__fastfn(PBDYN_FAST_PARAMS);

typedef struct pbdyn__fastent {
  pbdyn__fastfn *fn;
  uint64_t data;
} pbdyn__fastent;

/* ---- definitions ----------------------------------------------------------- */

enum { PBDYN_MODE_SINGULAR = 0, PBDYN_MODE_REPEATED = 1, PBDYN_MODE_MAP = 2 };

/* Storage classes: bytes a value occupies in a message or an array. */
enum {
  PBDYN_REP_1 = 0,   /* bool */
  PBDYN_REP_4 = 1,   /* 32-bit scalars, enums */
  PBDYN_REP_8 = 2,   /* 64-bit scalars */
  PBDYN_REP_STR = 3, /* pbdyn_str */
  PBDYN_REP_MSG = 4, /* pbdyn_msg* */
};

enum {
  PBDYN_F_PACKED = 1u << 0,   /* repeated scalar, encoded packed */
  PBDYN_F_UTF8 = 1u << 1,     /* proto3 string: validate UTF-8 */
  PBDYN_F_REQUIRED = 1u << 2, /* proto2 required */
  PBDYN_F_IMPLICIT = 1u << 3, /* proto3 singular scalar without presence */
  PBDYN_F_CLOSED = 1u << 4,   /* enum field whose enum is closed */
  PBDYN_F_DEFAULT = 1u << 5,  /* has a proto2 [default = ...] */
};

#define PBDYN_NO_HASBIT 0xffffu
#define PBDYN_DUMMY_HASBIT 63

struct pbdyn_fielddef {
  uint32_t number;
  uint32_t offset;      /* of the storage (the slot, for oneof members) */
  uint16_t hasbit;      /* bit index, or PBDYN_NO_HASBIT */
  uint16_t oneof_case;  /* offset of the case word; 0: not in a real oneof */
  uint8_t type;         /* pbdyn_type */
  uint8_t mode;         /* PBDYN_MODE_* */
  uint8_t rep;          /* PBDYN_REP_* of one value */
  uint8_t flags;        /* PBDYN_F_* */
  const pbdyn_msgdef *containing; /* the message type it is a field of */
  const char *name;
  const char *json_name; /* the descriptor's json_name, else lowerCamelCase */
  const char *oneof_name;
  const pbdyn_msgdef *msg; /* MESSAGE, GROUP, map entry */
  const pbdyn_enumdef *en; /* ENUM */
  pbdyn_value defval;      /* proto2 default (strings live in the schema) */
};

/* The well-known types with a JSON (and text) form of their own, by full name
 * (google.protobuf.Timestamp, ...; the nine wrappers are one kind): known
 * when the schema is built, so that a printer asks no string comparison per
 * message (a fifth of descriptor.proto's JSON time, whose messages all
 * share the google.protobuf. prefix). */
typedef enum pbdyn__wkt {
  PBDYN_WKT_NONE, PBDYN_WKT_ANY, PBDYN_WKT_TIMESTAMP, PBDYN_WKT_DURATION, PBDYN_WKT_FIELDMASK,
  PBDYN_WKT_STRUCT, PBDYN_WKT_VALUE, PBDYN_WKT_LISTVALUE, PBDYN_WKT_WRAPPER,
} pbdyn__wkt;

/* The kind of the message type named full_name (wkt.c). */
pbdyn__wkt pbdyn__wkt_of(const char *full_name);

/* Whether full_name is google.protobuf.NullValue, JSON's null. */
bool pbdyn__wkt_is_null_value(const char *full_name);

struct pbdyn_enumdef {
  const char *full_name;
  bool closed;
  bool null_value;    /* google.protobuf.NullValue */
  uint64_t mask;      /* bit v set when value v in 0..63 is defined */
  uint32_t count;     /* values in declaration order */
  const int32_t *numbers;
  const char *const *names;
  uint32_t sorted_count;    /* distinct values, ascending, for membership */
  const int32_t *sorted;
};

struct pbdyn_msgdef {
  /* hot, read by every dispatch */
  pbdyn__fastent fast[PBDYN_FAST_SLOTS];
  uint32_t fast_mask;    /* (slots - 1) << 3, applied to the 16-bit tag */
  uint32_t size;         /* bytes of an instance */
  uint32_t zero_size;    /* leading bytes a new instance needs zeroed: the
                            rest is read only under a hasbit or oneof case */
  const void *const *subs; /* pbdyn_msgdef* by fast data bits 24..31 */
  const pbdyn_fielddef *fields; /* by increasing number */
  uint32_t field_count;
  uint32_t dense_below;  /* fields[i].number == i + 1 for all i < this */
  uint8_t fast_kind[PBDYN_FAST_SLOTS]; /* same slots, for the switch decoder */
  bool map_entry;
  uint8_t wkt;            /* pbdyn__wkt */
  const char *full_name;
  const pbdyn_schema *schema; /* the schema it belongs to (Any resolves in it) */
};

struct pbdyn_schema {
  pbdyn_arena *arena;
  pbdyn_msgdef **msgs;           /* definition order */
  size_t msg_count;
  pbdyn_msgdef **msgs_by_name;   /* sorted by full_name */
  size_t enum_count;
  pbdyn_enumdef **enums_by_name;
};

/* Field lookup by number: a direct index below dense_below, then binary
 * search. */
PBDYN_INLINE const pbdyn_fielddef *pbdyn__msgdef_find(const pbdyn_msgdef *m, uint32_t number) {
  uint32_t i = number - 1; /* 0 wraps to UINT32_MAX */
  if (i < m->dense_below) return &m->fields[i];
  uint32_t lo = m->dense_below, hi = m->field_count;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    uint32_t n = m->fields[mid].number;
    if (n == number) return &m->fields[mid];
    if (n < number) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

/* Whether a closed enum defines v. */
bool pbdyn__enum_contains(const pbdyn_enumdef *e, int32_t v);

/* Field type predicates over pbdyn_type numbers. */
PBDYN_INLINE bool pbdyn__type_is_varint(int t) {
  return t == PBDYN_TYPE_INT64 || t == PBDYN_TYPE_UINT64 || t == PBDYN_TYPE_INT32 ||
         t == PBDYN_TYPE_BOOL || t == PBDYN_TYPE_UINT32 || t == PBDYN_TYPE_ENUM ||
         t == PBDYN_TYPE_SINT32 || t == PBDYN_TYPE_SINT64;
}
PBDYN_INLINE bool pbdyn__type_is_fixed32(int t) {
  return t == PBDYN_TYPE_FLOAT || t == PBDYN_TYPE_FIXED32 || t == PBDYN_TYPE_SFIXED32;
}
PBDYN_INLINE bool pbdyn__type_is_fixed64(int t) {
  return t == PBDYN_TYPE_DOUBLE || t == PBDYN_TYPE_FIXED64 || t == PBDYN_TYPE_SFIXED64;
}
PBDYN_INLINE bool pbdyn__type_is_packable(int t) {
  return pbdyn__type_is_varint(t) || pbdyn__type_is_fixed32(t) || pbdyn__type_is_fixed64(t);
}
/* Wire type of an unpacked value of type t. */
PBDYN_INLINE int pbdyn__type_wiretype(int t) {
  if (pbdyn__type_is_varint(t)) return 0;
  if (pbdyn__type_is_fixed64(t)) return 1;
  if (pbdyn__type_is_fixed32(t)) return 5;
  if (t == PBDYN_TYPE_GROUP) return 3;
  return 2;
}
PBDYN_INLINE int pbdyn__type_rep(int t) {
  switch (t) {
    case PBDYN_TYPE_BOOL: return PBDYN_REP_1;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_UINT32: case PBDYN_TYPE_SINT32:
    case PBDYN_TYPE_FIXED32: case PBDYN_TYPE_SFIXED32: case PBDYN_TYPE_FLOAT:
    case PBDYN_TYPE_ENUM: return PBDYN_REP_4;
    case PBDYN_TYPE_STRING: case PBDYN_TYPE_BYTES: return PBDYN_REP_STR;
    case PBDYN_TYPE_MESSAGE: case PBDYN_TYPE_GROUP: return PBDYN_REP_MSG;
    default: return PBDYN_REP_8;
  }
}
/* Bytes of one value of a storage class. */
PBDYN_INLINE uint32_t pbdyn__rep_size(int rep) {
  static const uint8_t sz[] = {1, 4, 8, 16, 8};
  return sz[rep];
}

#endif /* PBDYN_INTERNAL_DEF_H */
