/* Maps are stored as the array of their entries in arrival order; a later
 * entry with the same key replaces an earlier one. This file resolves that
 * for the encoder, the printers and the map API: which entries survive, and
 * how keys order; and it looks keys up, sets and deletes them.
 * Survivors are found with a hash set over the keys (FNV-1a), from the last
 * entry backwards, so n entries cost O(n). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/encode.h"

static pbdyn_str key_bytes(const pbdyn_fielddef *kf, const pbdyn_msg *e) {
  const char *p = PBDYN_CPTR_AT(e, kf->offset, char);
  if (kf->rep == PBDYN_REP_STR) return *(const pbdyn_str *)p;
  return (pbdyn_str){p, pbdyn__rep_size(kf->rep)};
}

static uint64_t hash(pbdyn_str s) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < s.size; i++) h = (h ^ (uint8_t)s.data[i]) * 1099511628211ull;
  return h;
}

static bool same(pbdyn_str a, pbdyn_str b) {
  return a.size == b.size && (a.size == 0 || !memcmp(a.data, b.data, a.size));
}

uint32_t *pbdyn__map_live_entries(const pbdyn__array *arr, const pbdyn_msgdef *entry, uint32_t *n) {
  *n = 0;
  const pbdyn_fielddef *kf = &entry->fields[0];
  uint32_t count = arr->size;
  if (!count) return NULL;
  uint32_t slots = 16;
  while (slots < 2 * count) slots *= 2;
  int64_t *set = malloc(slots * sizeof *set);
  uint32_t *live = malloc(count * sizeof *live);
  if (!set || !live) {
    free(set);
    free(live);
    return NULL;
  }
  for (uint32_t i = 0; i < slots; i++) set[i] = -1;
  pbdyn_msg *const *ents = arr->data;
  uint32_t nl = 0;
  for (uint32_t i = count; i-- > 0;) {
    pbdyn_str k = key_bytes(kf, ents[i]);
    uint32_t h = (uint32_t)hash(k) & (slots - 1);
    bool dup = false;
    while (set[h] >= 0) {
      if (same(key_bytes(kf, ents[set[h]]), k)) {
        dup = true;
        break;
      }
      h = (h + 1) & (slots - 1);
    }
    if (dup) continue;
    set[h] = i;
    live[nl++] = i;
  }
  free(set);
  /* found backwards: reverse into arrival order */
  for (uint32_t i = 0; i < nl / 2; i++) {
    uint32_t t = live[i];
    live[i] = live[nl - 1 - i];
    live[nl - 1 - i] = t;
  }
  *n = nl;
  return live;
}

static int key_cmp(const pbdyn_fielddef *kf, const pbdyn_msg *a, const pbdyn_msg *b) {
  const char *pa = PBDYN_CPTR_AT(a, kf->offset, char), *pb = PBDYN_CPTR_AT(b, kf->offset, char);
  switch (kf->type) {
    case PBDYN_TYPE_STRING:
    case PBDYN_TYPE_BYTES: {
      const pbdyn_str *x = (const pbdyn_str *)pa, *y = (const pbdyn_str *)pb;
      size_t n = x->size < y->size ? x->size : y->size;
      int c = n ? memcmp(x->data, y->data, n) : 0;
      if (c) return c;
      return (x->size > y->size) - (x->size < y->size);
    }
    case PBDYN_TYPE_BOOL: return *(const bool *)pa - *(const bool *)pb;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32: {
      int32_t x, y;
      memcpy(&x, pa, 4), memcpy(&y, pb, 4);
      return (x > y) - (x < y);
    }
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32: {
      uint32_t x, y;
      memcpy(&x, pa, 4), memcpy(&y, pb, 4);
      return (x > y) - (x < y);
    }
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64: {
      int64_t x, y;
      memcpy(&x, pa, 8), memcpy(&y, pb, 8);
      return (x > y) - (x < y);
    }
    default: {
      uint64_t x, y;
      memcpy(&x, pa, 8), memcpy(&y, pb, 8);
      return (x > y) - (x < y);
    }
  }
}

static int entry_cmp(const void *a, const void *b, void *kf) {
  return key_cmp(kf, *(pbdyn_msg *const *)a, *(pbdyn_msg *const *)b);
}

const pbdyn_msg **pbdyn__map_sorted_entries(const pbdyn__array *arr, const pbdyn_msgdef *entry,
                                            uint32_t *n) {
  uint32_t *live = pbdyn__map_live_entries(arr, entry, n);
  const pbdyn_msg **ents = malloc((*n + 1) * sizeof *ents);
  if ((!live && arr->size) || !ents) {
    free(live);
    free(ents);
    *n = 0;
    return NULL;
  }
  for (uint32_t i = 0; i < *n; i++) ents[i] = ((pbdyn_msg *const *)arr->data)[live[i]];
  free(live);
  qsort_r(ents, *n, sizeof *ents, entry_cmp, (void *)&entry->fields[0]);
  return ents;
}

/* Whether f is a map field of msg's type. */
static bool is_map_of(const pbdyn_msg *msg, const pbdyn_fielddef *f) {
  return msg && f && f->mode == PBDYN_MODE_MAP && pbdyn__field_of(pbdyn__msg_def(msg), f);
}

static bool key_equal(const pbdyn_fielddef *kf, pbdyn_value a, pbdyn_value b) {
  switch (kf->rep) {
    case PBDYN_REP_1: return a.b == b.b;
    case PBDYN_REP_4: return a.u32 == b.u32;
    case PBDYN_REP_8: return a.u64 == b.u64;
    case PBDYN_REP_STR:
      return a.str.size == b.str.size &&
             (a.str.size == 0 || !memcmp(a.str.data, b.str.data, a.str.size));
  }
  return false;
}

bool pbdyn_msg_map_get(const pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                       pbdyn_value *val) {
  if (!is_map_of(msg, f) || !val) return false;
  const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
  const pbdyn_fielddef *kf = &f->msg->fields[0], *vf = &f->msg->fields[1];
  for (size_t i = arr->size; i-- > 0;) {
    const pbdyn_msg *e = ((pbdyn_msg *const *)arr->data)[i];
    if (key_equal(kf, pbdyn_msg_get(e, kf), key)) {
      *val = pbdyn_msg_get(e, vf);
      return true;
    }
  }
  return false;
}

/* The last entry with this key, or NULL. */
static pbdyn_msg *find_entry(const pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key) {
  const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
  const pbdyn_fielddef *kf = &f->msg->fields[0];
  for (size_t i = arr->size; i-- > 0;) {
    pbdyn_msg *e = ((pbdyn_msg *const *)arr->data)[i];
    if (key_equal(kf, pbdyn_msg_get(e, kf), key)) return e;
  }
  return NULL;
}

pbdyn_status pbdyn_msg_map_size(const pbdyn_msg *msg, const pbdyn_fielddef *f, size_t *size) {
  if (!size || !is_map_of(msg, f)) return PBDYN_ERR_ARG;
  const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
  uint32_t n;
  uint32_t *live = pbdyn__map_live_entries(arr, f->msg, &n);
  if (!live && arr->size) return PBDYN_ERR_NOMEM;
  free(live);
  *size = n;
  return PBDYN_OK;
}

pbdyn_status pbdyn_msg_map_set(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                               pbdyn_value val, pbdyn_arena *a) {
  if (!a || !is_map_of(msg, f)) return PBDYN_ERR_ARG;
  const pbdyn_fielddef *kf = &f->msg->fields[0], *vf = &f->msg->fields[1];
  pbdyn_msg *e = find_entry(msg, f, key);
  if (e) return pbdyn_msg_set(e, vf, val);
  e = pbdyn_msg_new(f->msg, a);
  if (!e) return PBDYN_ERR_NOMEM;
  pbdyn_status st = pbdyn_msg_set(e, kf, key);
  if (!st) st = pbdyn_msg_set(e, vf, val);
  pbdyn_value entry = {.msg = e};
  return st ? st : pbdyn_msg_array_append(msg, f, entry, a);
}

/* Every entry with the key goes, not only the last that pbdyn_msg_map_get
 * reads: an earlier duplicate would otherwise survive as the key's value. */
pbdyn_status pbdyn_msg_map_delete(pbdyn_msg *msg, const pbdyn_fielddef *f, pbdyn_value key,
                                  bool *deleted) {
  if (!is_map_of(msg, f)) return PBDYN_ERR_ARG;
  pbdyn__array *arr = PBDYN_PTR_AT(msg, f->offset, pbdyn__array);
  const pbdyn_fielddef *kf = &f->msg->fields[0];
  pbdyn_msg **ents = arr->data;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < arr->size; i++)
    if (!key_equal(kf, pbdyn_msg_get(ents[i], kf), key)) ents[kept++] = ents[i];
  if (deleted) *deleted = kept < arr->size;
  arr->size = kept;
  return PBDYN_OK;
}

pbdyn_status pbdyn_msg_map_iter_init(const pbdyn_msg *msg, const pbdyn_fielddef *f,
                                     pbdyn_arena *a, pbdyn_map_iter *it) {
  if (!a || !it || !is_map_of(msg, f)) return PBDYN_ERR_ARG;
  const pbdyn__array *arr = PBDYN_CPTR_AT(msg, f->offset, pbdyn__array);
  uint32_t n = 0;
  const pbdyn_msg **sorted = pbdyn__map_sorted_entries(arr, f->msg, &n);
  if (!sorted) return PBDYN_ERR_NOMEM;
  const pbdyn_msg **copy = pbdyn_arena_alloc(a, (n + 1) * sizeof *copy);
  if (copy && n) memcpy(copy, sorted, n * sizeof *copy);
  free(sorted);
  if (!copy) return PBDYN_ERR_NOMEM;
  *it = (pbdyn_map_iter){copy, n, 0, &f->msg->fields[0], &f->msg->fields[1]};
  return PBDYN_OK;
}

bool pbdyn_map_iter_next(pbdyn_map_iter *it, pbdyn_value *key, pbdyn_value *val) {
  if (it->next >= it->count) return false;
  const pbdyn_msg *e = it->entries[it->next++];
  *key = pbdyn_msg_get(e, it->key);
  *val = pbdyn_msg_get(e, it->value);
  return true;
}
