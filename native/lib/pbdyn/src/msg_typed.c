/* Typed accessors: one C type each, checked against the field before any
 * read or write, so that reading a uint32 field as int32 (the wrong member
 * of pbdyn_value) is an error, not a silently wrong number. They are thin:
 * the check, then the untyped accessor of msg.c. The C types and the field
 * types each accepts come from one list, PBDYN_TYPED below. */
#include <string.h>

#include "internal/arena.h"
#include "internal/msg.h"

/* Field types as bits, for the masks of the list. */
#define T(t) (1u << PBDYN_TYPE_##t)

/* X(name, C type, pbdyn_value member, accepted field types) */
#define PBDYN_TYPED(X)                                        \
  X(int32, int32_t, i32, T(INT32) | T(SINT32) | T(SFIXED32))  \
  X(uint32, uint32_t, u32, T(UINT32) | T(FIXED32))            \
  X(int64, int64_t, i64, T(INT64) | T(SINT64) | T(SFIXED64))  \
  X(uint64, uint64_t, u64, T(UINT64) | T(FIXED64))            \
  X(float, float, f, T(FLOAT))                                \
  X(double, double, d, T(DOUBLE))                             \
  X(bool, bool, b, T(BOOL))                                   \
  X(enum, int32_t, i32, T(ENUM))                              \
  X(str, pbdyn_str, str, T(STRING) | T(BYTES))

#define MSG_TYPES (T(MESSAGE) | T(GROUP))

/* Whether f is a field of msg's type, of one of `types`, singular or not. */
static bool fits(const pbdyn_msg *msg, const pbdyn_fielddef *f, uint32_t types, bool singular) {
  return msg && f && pbdyn__field_of(pbdyn__msg_def(msg), f) && (types >> f->type & 1) &&
         (f->mode == PBDYN_MODE_SINGULAR) == singular && f->mode != PBDYN_MODE_MAP;
}

#define PBDYN_DEFINE_TYPED(name, ctype, member, types)                                      \
  pbdyn_status pbdyn_msg_get_##name(const pbdyn_msg *msg, const pbdyn_fielddef *f,          \
                                    ctype *out) {                                           \
    if (!out || !fits(msg, f, types, true)) return PBDYN_ERR_ARG;                           \
    *out = pbdyn_msg_get(msg, f).member;                                                    \
    return PBDYN_OK;                                                                        \
  }                                                                                         \
  pbdyn_status pbdyn_msg_set_##name(pbdyn_msg *msg, const pbdyn_fielddef *f, ctype v) {     \
    if (!fits(msg, f, types, true)) return PBDYN_ERR_ARG;                                   \
    pbdyn_value value = {.member = v};                                                      \
    return pbdyn_msg_set(msg, f, value);                                                    \
  }                                                                                         \
  pbdyn_status pbdyn_msg_array_get_##name(const pbdyn_msg *msg, const pbdyn_fielddef *f,    \
                                          size_t i, ctype *out) {                           \
    if (!out || !fits(msg, f, types, false)) return PBDYN_ERR_ARG;                          \
    if (i >= pbdyn_msg_array_size(msg, f)) return PBDYN_ERR_ARG;                            \
    *out = pbdyn_msg_array_get(msg, f, i).member;                                           \
    return PBDYN_OK;                                                                        \
  }                                                                                         \
  pbdyn_status pbdyn_msg_array_append_##name(pbdyn_msg *msg, const pbdyn_fielddef *f,       \
                                             ctype v, pbdyn_arena *a) {                     \
    if (!a || !fits(msg, f, types, false)) return PBDYN_ERR_ARG;                            \
    pbdyn_value value = {.member = v};                                                      \
    return pbdyn_msg_array_append(msg, f, value, a);                                        \
  }

PBDYN_TYPED(PBDYN_DEFINE_TYPED)

pbdyn_status pbdyn_msg_get_msg(const pbdyn_msg *msg, const pbdyn_fielddef *f,
                               const pbdyn_msg **out) {
  if (!out || !fits(msg, f, MSG_TYPES, true)) return PBDYN_ERR_ARG;
  *out = pbdyn_msg_get(msg, f).msg;
  return PBDYN_OK;
}

pbdyn_status pbdyn_msg_array_get_msg(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t i,
                                     const pbdyn_msg **out) {
  if (!out || !fits(msg, f, MSG_TYPES, false)) return PBDYN_ERR_ARG;
  if (i >= pbdyn_msg_array_size(msg, f)) return PBDYN_ERR_ARG;
  *out = pbdyn_msg_array_get(msg, f, i).msg;
  return PBDYN_OK;
}

/* data[0..size) copied into the arena, checked as the decoder checks it. */
static pbdyn_status copy_str(const pbdyn_fielddef *f, const char *data, size_t size,
                             pbdyn_arena *a, pbdyn_str *out) {
  if (!data && size) return PBDYN_ERR_ARG;
  if (size && (f->flags & PBDYN_F_UTF8) && !pbdyn_utf8_valid(data, size)) return PBDYN_ERR_UTF8;
  if (size > UINT32_MAX) return PBDYN_ERR_LENGTH; /* past what the wire format holds */
  char *copy = pbdyn_arena_alloc(a, size ? size : 1);
  if (!copy) return PBDYN_ERR_NOMEM;
  if (size) memcpy(copy, data, size);
  *out = (pbdyn_str){copy, size};
  return PBDYN_OK;
}

pbdyn_status pbdyn_msg_set_str_copy(pbdyn_msg *msg, const pbdyn_fielddef *f, const char *data,
                                    size_t size, pbdyn_arena *a) {
  if (!a || !fits(msg, f, T(STRING) | T(BYTES), true)) return PBDYN_ERR_ARG;
  pbdyn_str s;
  pbdyn_status st = copy_str(f, data, size, a, &s);
  return st ? st : pbdyn_msg_set_str(msg, f, s);
}

pbdyn_status pbdyn_msg_array_append_str_copy(pbdyn_msg *msg, const pbdyn_fielddef *f,
                                             const char *data, size_t size, pbdyn_arena *a) {
  if (!a || !fits(msg, f, T(STRING) | T(BYTES), false)) return PBDYN_ERR_ARG;
  pbdyn_str s;
  pbdyn_status st = copy_str(f, data, size, a, &s);
  return st ? st : pbdyn_msg_array_append_str(msg, f, s, a);
}
