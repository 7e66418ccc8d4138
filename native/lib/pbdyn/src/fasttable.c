/* Fast tables: for each message, which field function handles which slot.
 *
 * A field gets a slot when its tag is one or two bytes (numbers 1..2047)
 * and its layout fits the data word (offsets below 64 KiB, a hasbit below
 * 63, at most 256 sub-message types). Maps, groups and closed enums in a
 * oneof never do: the generic decoder takes them. A closed enum carries the
 * set of its values 0..23 in the data word (bits 24..47), so that checking
 * a value costs no load. Two fields in one slot (numbers equal modulo 16, or one
 * small and one large) -- the lower number wins; the other decodes through
 * the fallback, correctly but slower. The table has the fewest slots, a
 * power of two, that cover every slot in use: tags of other slots alias
 * onto them and fail the XOR check.
 */
#include "internal/arena.h"
#include "internal/fast.h"
#include "internal/schema.h"

/* The fast kind of a field, or -1. */
static int field_kind(const pbdyn_fielddef *f) {
  switch (f->type) {
    case PBDYN_TYPE_BOOL: return PBDYN_FK_boolean;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_UINT32: return PBDYN_FK_varint32;
    case PBDYN_TYPE_ENUM:
      return (f->flags & PBDYN_F_CLOSED) ? PBDYN_FK_enum_closed : PBDYN_FK_varint32;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_UINT64: return PBDYN_FK_varint64;
    case PBDYN_TYPE_SINT32: return PBDYN_FK_zigzag32;
    case PBDYN_TYPE_SINT64: return PBDYN_FK_zigzag64;
    case PBDYN_TYPE_FIXED32:
    case PBDYN_TYPE_SFIXED32:
    case PBDYN_TYPE_FLOAT: return PBDYN_FK_fixed32;
    case PBDYN_TYPE_FIXED64:
    case PBDYN_TYPE_SFIXED64:
    case PBDYN_TYPE_DOUBLE: return PBDYN_FK_fixed64;
    case PBDYN_TYPE_STRING:
      return (f->flags & PBDYN_F_UTF8) ? PBDYN_FK_string_utf8 : PBDYN_FK_bytes;
    case PBDYN_TYPE_BYTES: return PBDYN_FK_bytes;
    case PBDYN_TYPE_MESSAGE: return f->mode == PBDYN_MODE_MAP ? -1 : PBDYN_FK_message;
    default: return -1; /* groups */
  }
}

pbdyn_status pbdyn__fasttable_build(pbdyn_msgdef *m, pbdyn_arena *a) {
  for (int s = 0; s < PBDYN_FAST_SLOTS; s++) {
    m->fast[s] = (pbdyn__fastent){pbdyn__fast_fallback, 0};
    m->fast_kind[s] = PBDYN_FID_FALLBACK;
  }
  const void **subs = pbdyn_arena_alloc(a, (m->field_count + 1) * sizeof *subs);
  if (!subs) return PBDYN_ERR_NOMEM;
  uint32_t nsubs = 0, max_slot = 0;
  for (uint32_t i = 0; i < m->field_count; i++) {
    const pbdyn_fielddef *f = &m->fields[i];
    int kind = field_kind(f);
    if (kind < 0 || f->number >= 2048 || f->offset > 0xffff) continue;
    int card;
    if (f->mode != PBDYN_MODE_SINGULAR)
      card = (f->flags & PBDYN_F_PACKED) ? PBDYN_FC_packed : PBDYN_FC_repeated;
    else if (f->oneof_case)
      card = PBDYN_FC_oneof;
    else if (f->hasbit != PBDYN_NO_HASBIT && f->hasbit >= PBDYN_DUMMY_HASBIT)
      continue;
    else
      card = PBDYN_FC_singular;
    int wt = card == PBDYN_FC_packed ? 2 : pbdyn__type_wiretype(f->type);
    uint32_t tag = (f->number << 3) | (uint32_t)wt;
    int tagbytes = f->number < 16 ? 1 : 2;
    uint64_t expect = tagbytes == 1 ? tag : ((tag & 0x7f) | 0x80) | ((tag >> 7) << 8);
    uint32_t slot = (uint32_t)((expect & 0xf8) >> 3);
    if (m->fast_kind[slot] != PBDYN_FID_FALLBACK) continue; /* lower number holds it */
    uint64_t aux = 0; /* bits 24..47 */
    if (kind == PBDYN_FK_message) {
      if (nsubs > 0xff) continue;
      subs[nsubs] = f->msg;
      aux = nsubs++;
    } else if (kind == PBDYN_FK_enum_closed) {
      /* the values 0..23 in place of the sub index and case offset */
      if (card == PBDYN_FC_oneof) continue;
      aux = f->en->mask & 0xffffff;
    }
    uint64_t hasbit = f->hasbit == PBDYN_NO_HASBIT ? PBDYN_DUMMY_HASBIT : f->hasbit;
    uint64_t data = expect | hasbit << 16 | aux << 24 | (uint64_t)f->oneof_case << 32 |
                    (uint64_t)f->offset << 48;
    m->fast[slot] = (pbdyn__fastent){pbdyn__fast_func(kind, card, tagbytes), data};
    m->fast_kind[slot] = pbdyn__fast_id(kind, card, tagbytes);
    if (slot > max_slot) max_slot = slot;
  }
  uint32_t n = 1;
  while (n <= max_slot) n *= 2;
  m->fast_mask = (n - 1) << 3;
  m->subs = (const void *const *)subs;
  return PBDYN_OK;
}
