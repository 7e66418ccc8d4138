/* The generic decoder: complete on its own, and the fallback of the fast and
 * switch decoders for everything they do not handle (long tags, groups,
 * maps, closed-enum values out of range, wire-type mismatches, unknown
 * fields, values near the end of the buffer, every error).
 *
 * Semantics follow Google's parsers (upb, protobuf C++), checked by the
 * differential tests against the PyPI `protobuf` package:
 *  - a field whose wire type does not match its declared type is an
 *    unknown field; repeated scalars accept packed and unpacked input;
 *  - singular scalars: the last value wins; sub-messages merge;
 *  - a closed enum's undefined value goes to the unknown fields: the raw
 *    field for an unpacked value, re-encoded as a varint field (canonical
 *    tag, then the 64-bit value as read) for a packed one;
 *  - a map entry with unknown fields (an extra field, or an undefined
 *    closed-enum value) is re-encoded whole into the unknown fields;
 *  - tags are at most 5 bytes and at most 2^32-1, other varints at most 10
 *    bytes; length prefixes at most 5 bytes (a 6- to 10-byte overlong
 *    encoding of a small length is rejected, as upb and protobuf C++ do),
 *    below 2^31 and inside the enclosing message.
 */
#include "internal/decode.h"
#include "internal/encode.h"

/* The pointer after a field's value must not pass the message end. */
#define CHECK_OVERRUN(d, p) \
  do {                      \
    if (PBDYN_UNLIKELY(pbdyn__dec_overrun(d, p))) return pbdyn__dec_err(d, PBDYN_ERR_TRUNCATED); \
  } while (0)

static const char *read_tag(pbdyn__dec *d, const char *ptr, uint32_t *tag) {
  uint64_t v;
  const char *p = pbdyn__varint(ptr, &v);
  if (!p || p - ptr > 5) return pbdyn__dec_err(d, PBDYN_ERR_VARINT);
  CHECK_OVERRUN(d, p);
  if (v > UINT32_MAX) return pbdyn__dec_err(d, PBDYN_ERR_FIELD_NUMBER);
  *tag = (uint32_t)v;
  return p;
}

/* A length prefix's varint: at most 5 bytes, whatever its value (Google's
 * parsers read lengths with a 5-byte reader). */
PBDYN_INLINE const char *size_varint(pbdyn__dec *d, const char *ptr, uint64_t *v) {
  const char *p = pbdyn__varint(ptr, v);
  if (PBDYN_UNLIKELY(!p) || PBDYN_UNLIKELY(p - ptr > 5)) return pbdyn__dec_err(d, PBDYN_ERR_VARINT);
  return p;
}

/* A length prefix: the size must fit the current message. */
static const char *read_size(pbdyn__dec *d, const char *ptr, uint32_t *size) {
  uint64_t v;
  const char *p = size_varint(d, ptr, &v);
  if (!p) return NULL;
  CHECK_OVERRUN(d, p);
  if (v >= INT32_MAX || !pbdyn__dec_fits(d, p, v)) return pbdyn__dec_err(d, PBDYN_ERR_LENGTH);
  *size = (uint32_t)v;
  return p;
}

/* The length of a string that must be valid UTF-8. When it runs past the
 * current message but not past the input, Google's parsers validate the
 * bytes before they notice the overrun: report what they report (UTF8 if
 * the bytes are invalid, else LENGTH). */
static const char *read_utf8_size(pbdyn__dec *d, const char *ptr, uint32_t *size) {
  uint64_t v;
  const char *p = size_varint(d, ptr, &v);
  if (!p) return NULL;
  CHECK_OVERRUN(d, p);
  if (v < INT32_MAX && !pbdyn__dec_fits(d, p, v) && (ptrdiff_t)v <= d->data_end - p &&
      !pbdyn__utf8_fast(p, v))
    return pbdyn__dec_err(d, PBDYN_ERR_UTF8);
  if (v >= INT32_MAX || !pbdyn__dec_fits(d, p, v)) return pbdyn__dec_err(d, PBDYN_ERR_LENGTH);
  *size = (uint32_t)v;
  return p;
}

static pbdyn_status add_unknown(pbdyn__dec *d, pbdyn_msg *msg, const char *p, size_t n) {
  pbdyn__dec_arena_put(d);
  pbdyn_status st = pbdyn__unknown_append(msg, p, n, d->arena);
  pbdyn__dec_arena_take(d);
  return st;
}

static char *put_varint(char *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (char)(v | 0x80);
    v >>= 7;
  }
  *p++ = (char)v;
  return p;
}

/* An undefined closed-enum value from a packed run, as its own field. */
static pbdyn_status add_unknown_enum(pbdyn__dec *d, pbdyn_msg *msg, uint32_t number, uint64_t raw) {
  char buf[16];
  char *p = put_varint(buf, (uint64_t)number << 3);
  p = put_varint(p, raw);
  return add_unknown(d, msg, buf, (size_t)(p - buf));
}

static const char *unknown_field(pbdyn__dec *d, const char *start, const char *ptr, pbdyn_msg *msg,
                                 uint32_t fnum, int wt);

/* Skip the body of an unknown group whose start tag is already recorded,
 * appending each inner field's bytes to msg's unknown fields as it goes
 * (the group may span the buffer flip, a field never does). */
static const char *skip_group(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg, uint32_t number) {
  if (--d->depth < 0) return pbdyn__dec_err(d, PBDYN_ERR_DEPTH);
  for (;;) {
    if (pbdyn__dec_done(d, &ptr)) return ptr ? pbdyn__dec_err(d, PBDYN_ERR_GROUP) : NULL;
    const char *start = d->field_start = ptr;
    uint32_t tag;
    if (!(ptr = read_tag(d, ptr, &tag))) return NULL;
    uint32_t fnum = tag >> 3;
    int wt = tag & 7;
    if (fnum == 0) return pbdyn__dec_err(d, PBDYN_ERR_FIELD_NUMBER);
    if (wt == 4) {
      if (fnum != number) return pbdyn__dec_err(d, PBDYN_ERR_GROUP);
      if (add_unknown(d, msg, start, (size_t)(ptr - start)))
        return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
      d->depth++;
      return ptr;
    }
    if (wt > 5) return pbdyn__dec_err(d, PBDYN_ERR_WIRE_TYPE);
    if (!(ptr = unknown_field(d, start, ptr, msg, fnum, wt))) return NULL;
  }
}

/* An unknown field whose tag (at start) has been read, wire type 0-3 or 5; ptr is
 * after it. A group (3) is recorded whole, through skip_group. */
static const char *unknown_field(pbdyn__dec *d, const char *start, const char *ptr, pbdyn_msg *msg,
                                 uint32_t fnum, int wt) {
  uint64_t v;
  uint32_t size;
  switch (wt) {
    case 0:
      if (!(ptr = pbdyn__varint(ptr, &v))) return pbdyn__dec_err(d, PBDYN_ERR_VARINT);
      break;
    case 1: ptr += 8; break;
    case 5: ptr += 4; break;
    case 2:
      if (!(ptr = read_size(d, ptr, &size))) return NULL;
      ptr += size;
      break;
    case 3:
      if (add_unknown(d, msg, start, (size_t)(ptr - start)))
        return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
      return skip_group(d, ptr, msg, fnum);
  }
  CHECK_OVERRUN(d, ptr);
  if (add_unknown(d, msg, start, (size_t)(ptr - start))) return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
  return ptr;
}

/* Convert a varint to the field's stored form. */
PBDYN_INLINE uint64_t varint_value(int type, uint64_t v) {
  switch (type) {
    case PBDYN_TYPE_BOOL: return v != 0;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_UINT32: case PBDYN_TYPE_ENUM: return (uint32_t)v;
    case PBDYN_TYPE_SINT32: return pbdyn__zigzag32((uint32_t)v);
    case PBDYN_TYPE_SINT64: return pbdyn__zigzag64(v);
    default: return v;
  }
}

/* Presence and oneof bookkeeping for a singular field about to be set;
 * returns its storage. A oneof switching members clears the slot, so that
 * a sub-message starts afresh. */
static void *singular_slot(pbdyn_msg *msg, const pbdyn_fielddef *f) {
  void *slot = PBDYN_PTR_AT(msg, f->offset, char);
  if (f->oneof_case) {
    uint32_t *c = PBDYN_PTR_AT(msg, f->oneof_case, uint32_t);
    if (*c != f->number) {
      memset(slot, 0, pbdyn__rep_size(f->rep));
      *c = f->number;
    }
  } else if (f->hasbit != PBDYN_NO_HASBIT) {
    pbdyn__hasbit_set(msg, f->hasbit);
  }
  return slot;
}

/* Store a scalar (already converted) into a singular or repeated field. */
static bool store_scalar(pbdyn__dec *d, pbdyn_msg *msg, const pbdyn_fielddef *f, uint64_t v) {
  uint32_t size = pbdyn__rep_size(f->rep);
  void *dst;
  if (f->mode == PBDYN_MODE_SINGULAR) {
    dst = singular_slot(msg, f);
  } else {
    pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
    if (arr->size == arr->cap && !pbdyn__dec_array_reserve(d, arr, size, 1)) return false;
    dst = (char *)arr->data + (size_t)arr->size++ * size;
  }
  memcpy(dst, &v, size);
  return true;
}

static const char *store_string(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                const pbdyn_fielddef *f, uint32_t size) {
  if ((f->flags & PBDYN_F_UTF8) && !pbdyn__utf8_fast(ptr, size))
    return pbdyn__dec_err(d, PBDYN_ERR_UTF8);
  pbdyn_str s = {pbdyn__dec_input_addr(d, ptr), size};
  if (!(d->flags & PBDYN_DECODE_ALIAS)) {
    char *c = pbdyn__dec_alloc(d, size);
    if (!c) return NULL;
    memcpy(c, ptr, size);
    s.data = c;
  }
  if (f->mode == PBDYN_MODE_SINGULAR) {
    memcpy(singular_slot(msg, f), &s, sizeof s);
  } else {
    pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
    if (arr->size == arr->cap && !pbdyn__dec_array_reserve(d, arr, sizeof s, 1)) return NULL;
    ((pbdyn_str *)arr->data)[arr->size++] = s;
  }
  return ptr + size;
}

/* Decode a length-delimited sub-message of `size` bytes into sub. */
static const char *decode_sub(pbdyn__dec *d, const char *ptr, pbdyn_msg *sub, const pbdyn_msgdef *m,
                              uint32_t size) {
  ptrdiff_t delta = pbdyn__dec_push_limit(d, ptr, size);
  if (delta < 0) return pbdyn__dec_err(d, PBDYN_ERR_LENGTH);
  if (--d->depth < 0) return pbdyn__dec_err(d, PBDYN_ERR_DEPTH);
  ptr = d->decode_msg(d, ptr, sub, m);
  if (!ptr) return NULL;
  if (d->end_group != PBDYN_NOGROUP) return pbdyn__dec_err(d, PBDYN_ERR_GROUP);
  d->depth++;
  pbdyn__dec_pop_limit(d, delta);
  return ptr;
}

/* Decode a group body into sub, up to the end-group tag of `number`. */
static const char *decode_group(pbdyn__dec *d, const char *ptr, pbdyn_msg *sub,
                                const pbdyn_msgdef *m, uint32_t number) {
  if (pbdyn__dec_done(d, &ptr)) return ptr ? pbdyn__dec_err(d, PBDYN_ERR_GROUP) : NULL;
  if (--d->depth < 0) return pbdyn__dec_err(d, PBDYN_ERR_DEPTH);
  ptr = d->decode_msg(d, ptr, sub, m);
  if (!ptr) return NULL;
  if (d->end_group != number) return pbdyn__dec_err(d, PBDYN_ERR_GROUP);
  d->end_group = PBDYN_NOGROUP;
  d->depth++;
  return ptr;
}

/* The message a MESSAGE or GROUP field's value goes into. */
static pbdyn_msg *target_msg(pbdyn__dec *d, pbdyn_msg *msg, const pbdyn_fielddef *f) {
  if (f->mode == PBDYN_MODE_SINGULAR) {
    pbdyn_msg **slot = singular_slot(msg, f);
    if (!*slot) *slot = pbdyn__dec_new_msg(d, f->msg);
    return *slot;
  }
  pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
  if (arr->size == arr->cap && !pbdyn__dec_array_reserve(d, arr, sizeof(pbdyn_msg *), 1))
    return NULL;
  pbdyn_msg *sub = pbdyn__dec_new_msg(d, f->msg);
  if (sub) ((pbdyn_msg **)arr->data)[arr->size++] = sub;
  return sub;
}

static const char *decode_map_entry(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                    const pbdyn_fielddef *f, uint32_t size) {
  const pbdyn_msgdef *em = f->msg;
  pbdyn_msg *ent = pbdyn__dec_new_msg(d, em);
  if (!ent) return NULL;
  ptr = decode_sub(d, ptr, ent, em, size);
  if (!ptr) return NULL;
  if (pbdyn__msg_unknown_ptr(ent)) {
    char *buf;
    size_t n;
    pbdyn__dec_arena_put(d);
    pbdyn_status st = pbdyn_encode(ent, em, d->arena, &buf, &n);
    pbdyn__dec_arena_take(d);
    if (st) return pbdyn__dec_err(d, st);
    char hdr[16];
    char *h = put_varint(hdr, ((uint64_t)f->number << 3) | 2);
    h = put_varint(h, n);
    if (add_unknown(d, msg, hdr, (size_t)(h - hdr)) || add_unknown(d, msg, buf, n))
      return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
    return ptr;
  }
  pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
  if (arr->size == arr->cap && !pbdyn__dec_array_reserve(d, arr, sizeof(pbdyn_msg *), 1))
    return NULL;
  ((pbdyn_msg **)arr->data)[arr->size++] = ent;
  return ptr;
}

static const char *decode_packed(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                 const pbdyn_fielddef *f, uint32_t size) {
  pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
  uint32_t elem = pbdyn__rep_size(f->rep);
  if (!pbdyn__type_is_varint(f->type)) {
    /* fixed-size run: in one piece (it lies inside the current message,
     * which lies inside one buffer: the caller's or the patch) */
    if (size % elem) return pbdyn__dec_err(d, PBDYN_ERR_LENGTH);
    if (size && !pbdyn__dec_fixed_run(d, arr, elem, ptr, size / elem)) return NULL;
    return ptr + size;
  }
  ptrdiff_t delta = pbdyn__dec_push_limit(d, ptr, size);
  if (delta < 0) return pbdyn__dec_err(d, PBDYN_ERR_LENGTH);
  while (!pbdyn__dec_done(d, &ptr)) {
    uint64_t raw;
    if (!(ptr = pbdyn__varint(ptr, &raw))) return pbdyn__dec_err(d, PBDYN_ERR_VARINT);
    CHECK_OVERRUN(d, ptr);
    uint64_t v = varint_value(f->type, raw);
    if ((f->flags & PBDYN_F_CLOSED) && !pbdyn__enum_contains(f->en, (int32_t)v)) {
      if (add_unknown_enum(d, msg, f->number, raw)) return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
      continue;
    }
    if (!store_scalar(d, msg, f, v)) return NULL;
  }
  if (!ptr) return NULL;
  pbdyn__dec_pop_limit(d, delta);
  return ptr;
}

const char *pbdyn__generic_field(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                                 const pbdyn_msgdef *m) {
  const char *start = d->field_start = ptr;
  uint32_t tag;
  if (!(ptr = read_tag(d, ptr, &tag))) return NULL;
  uint32_t fnum = tag >> 3;
  int wt = tag & 7;
  if (fnum == 0) return pbdyn__dec_err(d, PBDYN_ERR_FIELD_NUMBER);
  if (wt == 4) {
    d->end_group = fnum;
    return ptr;
  }
  if (wt > 5) return pbdyn__dec_err(d, PBDYN_ERR_WIRE_TYPE);
  const pbdyn_fielddef *f = pbdyn__msgdef_find(m, fnum);
  if (!f) return unknown_field(d, start, ptr, msg, fnum, wt);
  int type = f->type;
  uint64_t v;
  switch (wt) {
    case 0:
      if (!pbdyn__type_is_varint(type)) break;
      if (!(ptr = pbdyn__varint(ptr, &v))) return pbdyn__dec_err(d, PBDYN_ERR_VARINT);
      CHECK_OVERRUN(d, ptr);
      v = varint_value(type, v);
      if ((f->flags & PBDYN_F_CLOSED) && !pbdyn__enum_contains(f->en, (int32_t)v)) {
        if (add_unknown(d, msg, start, (size_t)(ptr - start)))
          return pbdyn__dec_err(d, PBDYN_ERR_NOMEM);
        return ptr;
      }
      return store_scalar(d, msg, f, v) ? ptr : NULL;
    case 1:
    case 5:
      if (wt == 1 ? !pbdyn__type_is_fixed64(type) : !pbdyn__type_is_fixed32(type)) break;
      v = wt == 1 ? pbdyn__load64(ptr) : pbdyn__load32(ptr);
      ptr += wt == 1 ? 8 : 4;
      CHECK_OVERRUN(d, ptr);
      return store_scalar(d, msg, f, v) ? ptr : NULL;
    case 2: {
      bool packed = f->mode == PBDYN_MODE_REPEATED && pbdyn__type_is_packable(type);
      if (!packed && type != PBDYN_TYPE_STRING && type != PBDYN_TYPE_BYTES &&
          type != PBDYN_TYPE_MESSAGE)
        break;
      uint32_t size;
      ptr = (f->flags & PBDYN_F_UTF8) ? read_utf8_size(d, ptr, &size) : read_size(d, ptr, &size);
      if (!ptr) return NULL;
      if (packed) return decode_packed(d, ptr, msg, f, size);
      if (type != PBDYN_TYPE_MESSAGE) return store_string(d, ptr, msg, f, size);
      if (f->mode == PBDYN_MODE_MAP) return decode_map_entry(d, ptr, msg, f, size);
      pbdyn_msg *sub = target_msg(d, msg, f);
      return sub ? decode_sub(d, ptr, sub, f->msg, size) : NULL;
    }
    case 3: {
      if (type != PBDYN_TYPE_GROUP) break;
      pbdyn_msg *sub = target_msg(d, msg, f);
      return sub ? decode_group(d, ptr, sub, f->msg, fnum) : NULL;
    }
  }
  return unknown_field(d, start, ptr, msg, fnum, wt);
}

const char *pbdyn__generic_msg(pbdyn__dec *d, const char *ptr, pbdyn_msg *msg,
                               const pbdyn_msgdef *m) {
  while (!pbdyn__dec_done(d, &ptr)) {
    ptr = pbdyn__generic_field(d, ptr, msg, m);
    if (!ptr) return NULL;
    if (d->end_group != PBDYN_NOGROUP) return ptr;
  }
  return ptr;
}
