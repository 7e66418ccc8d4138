/* Message layout: where each field lives in an instance.
 *
 * Header (unknown-field pointer, the message's own type), hasbit words, oneof case words, then the
 * storage slots sorted by decreasing size so that little padding is needed
 * (16- and 8-byte slots stay 8-aligned, then 4, then 1). The members of one
 * oneof share a slot as large as the largest member.
 * Slots that are read only when a hasbit or a oneof case says so come last:
 * the fast decoder zeroes a new instance only up to them (zero_size), so
 * that a FieldDescriptorProto costs one 32-byte clear instead of four.
 * Hasbits go in field-number order, skipping bit 63 of the first word (the
 * fast decoder's dummy bit for fields without presence): a message with up
 * to 63 hasbit fields keeps them all in one word, which the fast decoder
 * accumulates in a register and stores once per message.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/msg.h"
#include "internal/schema.h"

typedef struct slot {
  uint32_t lazy;    /* 1: read only under a hasbit or a oneof case */
  uint32_t size;
  uint32_t order;   /* tie-break: first field number, to keep layouts stable */
  int field;        /* index of a non-oneof field, or -1 */
  int oneof;        /* index of a oneof, or -1 */
} slot;

static int slot_cmp(const void *pa, const void *pb) {
  const slot *a = pa, *b = pb;
  if (a->lazy != b->lazy) return a->lazy < b->lazy ? -1 : 1;
  if (a->size != b->size) return a->size > b->size ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

static uint32_t value_size(const pbdyn_fielddef *f) {
  return f->mode == PBDYN_MODE_SINGULAR ? pbdyn__rep_size(f->rep) : (uint32_t)sizeof(pbdyn__array);
}

/* Fields carry the index of their oneof in oneof_case until layout replaces
 * it with the case word's offset: index + 1, 0 meaning none. */
pbdyn_status pbdyn__layout_build(pbdyn_msgdef *m, pbdyn_fielddef *fields, size_t oneof_count,
                                 const char *const *oneof_names) {
  size_t n = m->field_count;
  uint32_t nbits = 0;
  for (size_t i = 0; i < n; i++) {
    pbdyn_fielddef *f = &fields[i];
    bool needs = f->mode == PBDYN_MODE_SINGULAR && f->rep != PBDYN_REP_MSG &&
                 !f->oneof_case && !(f->flags & PBDYN_F_IMPLICIT);
    if (!needs) {
      f->hasbit = PBDYN_NO_HASBIT;
      continue;
    }
    if (nbits == PBDYN_DUMMY_HASBIT) nbits++;
    f->hasbit = (uint16_t)nbits++;
  }
  uint32_t hasbit_words = nbits ? (nbits + 63) / 64 : 1;

  uint32_t off = PBDYN_MSG_HASBITS + 8 * hasbit_words;
  uint32_t *case_off = calloc(oneof_count + 1, sizeof *case_off);
  uint32_t *oneof_size = calloc(oneof_count + 1, sizeof *oneof_size);
  uint32_t *oneof_first = calloc(oneof_count + 1, sizeof *oneof_first);
  slot *slots = calloc(n + oneof_count + 1, sizeof *slots);
  if (!case_off || !oneof_size || !oneof_first || !slots) {
    free(case_off), free(oneof_size), free(oneof_first), free(slots);
    return PBDYN_ERR_NOMEM;
  }
  /* case words, in oneof declaration order, only for oneofs in use */
  for (size_t i = 0; i < n; i++) {
    uint32_t o = fields[i].oneof_case;
    if (!o) continue;
    uint32_t sz = value_size(&fields[i]);
    if (sz > oneof_size[o - 1]) oneof_size[o - 1] = sz;
    if (!oneof_first[o - 1]) oneof_first[o - 1] = fields[i].number;
  }
  for (size_t o = 0; o < oneof_count; o++) {
    if (!oneof_size[o]) continue;
    case_off[o] = off;
    off += 4;
  }
  off = (uint32_t)PBDYN_ALIGN8(off);

  size_t ns = 0;
  for (size_t i = 0; i < n; i++) {
    if (fields[i].oneof_case) continue;
    bool lazy = fields[i].hasbit != PBDYN_NO_HASBIT;
    slots[ns++] = (slot){lazy, value_size(&fields[i]), fields[i].number, (int)i, -1};
  }
  for (size_t o = 0; o < oneof_count; o++) {
    if (!oneof_size[o]) continue;
    uint32_t sz = oneof_size[o] < 8 ? oneof_size[o] : (oneof_size[o] + 7) & ~7u;
    slots[ns++] = (slot){1, sz, oneof_first[o], -1, (int)o};
  }
  qsort(slots, ns, sizeof *slots, slot_cmp);
  uint32_t eager_end = off;
  for (size_t s = 0; s < ns; s++) {
    uint32_t align = slots[s].size >= 8 ? 8 : slots[s].size;
    off = (off + align - 1) & ~(align - 1);
    if (slots[s].field >= 0) {
      fields[slots[s].field].offset = off;
    } else {
      for (size_t i = 0; i < n; i++)
        if (fields[i].oneof_case == (uint32_t)slots[s].oneof + 1) fields[i].offset = off;
    }
    off += slots[s].size;
    if (!slots[s].lazy) eager_end = off;
  }
  for (size_t i = 0; i < n; i++) {
    uint32_t o = fields[i].oneof_case;
    if (!o) continue;
    fields[i].oneof_name = oneof_names[o - 1];
    fields[i].oneof_case = (uint16_t)case_off[o - 1];
  }
  /* a multiple of 32: the fast decoder zeroes new instances 32 bytes at a
   * time */
  m->size = (off + 31) & ~31u;
  m->zero_size = (eager_end + 31) & ~31u;
  /* case words follow the hasbits closely; their offsets fit 16 bits unless
   * a message has some 500,000 hasbit fields */
  bool ok = true;
  for (size_t o = 0; o < oneof_count; o++) ok &= case_off[o] <= 0xffff;
  free(case_off), free(oneof_size), free(oneof_first), free(slots);
  return ok ? PBDYN_OK : PBDYN_ERR_SCHEMA;
}
