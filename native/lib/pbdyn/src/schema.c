/* Schema compilation: descriptors read by schema_reader.c are named, linked
 * (type names resolved to definitions), laid out (layout.c) and given fast
 * tables (fasttable.c). Everything lives in one arena owned by the schema.
 *
 * Semantics taken from descriptor.proto and the language guides:
 *  - proto3 files: singular scalars without `optional` have no presence
 *    (implicit), repeated scalars are packed unless [packed = false],
 *    strings are UTF-8 validated, enums are open;
 *  - proto2 files: presence for every singular field, packed only with
 *    [packed = true], no UTF-8 validation, enums closed;
 *  - a repeated field of a nested *Entry type with map_entry set is a map;
 *  - a proto3 `optional` field lives in a synthetic oneof that is not a
 *    real oneof: it gets a hasbit instead.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal/arena.h"
#include "internal/schema.h"
#include "internal/schema_raw.h"

/* A message or enum being compiled, with where it came from. */
typedef struct item {
  const char *full_name;
  const pbdyn__raw_msg *raw_msg;   /* or */
  const pbdyn__raw_enum *raw_enum;
  const pbdyn__raw_file *file;
  void *def;
} item;

typedef struct builder {
  pbdyn_arena *a;
  item *items;
  size_t count, cap;
  item **sorted; /* by full_name */
  const pbdyn_schema *schema;
} builder;

static const char *join(pbdyn_arena *a, const char *prefix, const char *name) {
  size_t lp = strlen(prefix), ln = strlen(name);
  char *s = pbdyn_arena_alloc(a, lp + ln + 2);
  if (!s) return NULL;
  if (lp) {
    memcpy(s, prefix, lp);
    s[lp++] = '.';
  }
  memcpy(s + lp, name, ln + 1);
  return s;
}

static pbdyn_status add_item(builder *b, item it) {
  if (b->count == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 64;
    item *n = realloc(b->items, nc * sizeof *n);
    if (!n) return PBDYN_ERR_NOMEM;
    b->items = n;
    b->cap = nc;
  }
  b->items[b->count++] = it;
  return PBDYN_OK;
}

static pbdyn_status collect_enum(builder *b, const pbdyn__raw_file *f, const char *prefix,
                                 const pbdyn__raw_enum *e) {
  const char *name = join(b->a, prefix, e->name);
  if (!name) return PBDYN_ERR_NOMEM;
  return add_item(b, (item){name, NULL, e, f, NULL});
}

static pbdyn_status collect_msg(builder *b, const pbdyn__raw_file *f, const char *prefix,
                                const pbdyn__raw_msg *m) {
  const char *name = join(b->a, prefix, m->name);
  if (!name) return PBDYN_ERR_NOMEM;
  pbdyn_status st = add_item(b, (item){name, m, NULL, f, NULL});
  for (size_t i = 0; !st && i < m->nested_count; i++)
    st = collect_msg(b, f, name, &m->nested[i]);
  for (size_t i = 0; !st && i < m->enum_count; i++)
    st = collect_enum(b, f, name, &m->enums[i]);
  return st;
}

static int item_cmp(const void *pa, const void *pb) {
  return strcmp((*(item *const *)pa)->full_name, (*(item *const *)pb)->full_name);
}

static item *lookup(const builder *b, const char *name) {
  size_t lo = 0, hi = b->count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    int c = strcmp(b->sorted[mid]->full_name, name);
    if (!c) return b->sorted[mid];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static bool is_proto3(const pbdyn__raw_file *f) { return strcmp(f->syntax, "proto3") == 0; }

static int i32_cmp(const void *pa, const void *pb) {
  int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
  return (a > b) - (a < b);
}

static pbdyn_status build_enum(builder *b, item *it) {
  const pbdyn__raw_enum *r = it->raw_enum;
  pbdyn_enumdef *e = it->def;
  if (r->value_count == 0) return PBDYN_ERR_SCHEMA;
  e->full_name = it->full_name;
  e->null_value = pbdyn__wkt_is_null_value(it->full_name);
  e->closed = !is_proto3(it->file);
  e->count = (uint32_t)r->value_count;
  int32_t *nums = pbdyn_arena_alloc(b->a, r->value_count * sizeof *nums);
  int32_t *sorted = pbdyn_arena_alloc(b->a, r->value_count * sizeof *sorted);
  const char **names = pbdyn_arena_alloc(b->a, r->value_count * sizeof *names);
  if (!nums || !sorted || !names) return PBDYN_ERR_NOMEM;
  for (size_t i = 0; i < r->value_count; i++) {
    nums[i] = sorted[i] = r->values[i].number;
    names[i] = r->values[i].name;
    if (nums[i] >= 0 && nums[i] < 64) e->mask |= (uint64_t)1 << nums[i];
  }
  qsort(sorted, r->value_count, sizeof *sorted, i32_cmp);
  size_t u = 0;
  for (size_t i = 0; i < r->value_count; i++)
    if (!u || sorted[u - 1] != sorted[i]) sorted[u++] = sorted[i];
  e->numbers = nums;
  e->names = (const char *const *)names;
  e->sorted = sorted;
  e->sorted_count = (uint32_t)u;
  return PBDYN_OK;
}

/* C-style escapes as protoc writes bytes defaults (CEscape). */
static size_t unescape(const char *s, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '\\' || i + 1 == n) {
      out[o++] = s[i];
      continue;
    }
    char c = s[++i];
    if (c >= '0' && c <= '7') {
      int v = 0;
      for (int k = 0; k < 3 && i < n && s[i] >= '0' && s[i] <= '7'; k++) v = v * 8 + (s[i++] - '0');
      i--;
      out[o++] = (char)v;
    } else if (c == 'x') {
      int v = 0;
      for (int k = 0; k < 2 && i + 1 < n; k++) {
        char h = (char)(s[i + 1] | 32);
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
        if (d < 0) break;
        v = v * 16 + d;
        i++;
      }
      out[o++] = (char)v;
    } else {
      static const char from[] = "nrtabfv", to[] = "\n\r\t\a\b\f\v";
      const char *p = strchr(from, c);
      out[o++] = p && c ? to[p - from] : c;
    }
  }
  return o;
}

static pbdyn_status parse_default(builder *b, pbdyn_fielddef *f, const pbdyn__raw_field *r) {
  const char *s = r->default_value;
  char *end = NULL;
  errno = 0;
  switch (f->type) {
    case PBDYN_TYPE_BOOL:
      if (!strcmp(s, "true")) f->defval.b = true;
      else if (strcmp(s, "false")) return PBDYN_ERR_SCHEMA;
      return PBDYN_OK;
    case PBDYN_TYPE_STRING:
    case PBDYN_TYPE_BYTES: {
      char *o = pbdyn_arena_alloc(b->a, r->default_len + 1);
      if (!o) return PBDYN_ERR_NOMEM;
      size_t n = f->type == PBDYN_TYPE_BYTES ? unescape(s, r->default_len, o)
                                          : (memcpy(o, s, r->default_len), r->default_len);
      o[n] = 0;
      f->defval.str = (pbdyn_str){o, n};
      return PBDYN_OK;
    }
    case PBDYN_TYPE_FLOAT: f->defval.f = strtof(s, &end); break;
    case PBDYN_TYPE_DOUBLE: f->defval.d = strtod(s, &end); break;
    case PBDYN_TYPE_INT32: case PBDYN_TYPE_SINT32: case PBDYN_TYPE_SFIXED32:
      f->defval.i32 = (int32_t)strtol(s, &end, 0);
      break;
    case PBDYN_TYPE_INT64: case PBDYN_TYPE_SINT64: case PBDYN_TYPE_SFIXED64:
      f->defval.i64 = strtoll(s, &end, 0);
      break;
    case PBDYN_TYPE_UINT32: case PBDYN_TYPE_FIXED32:
      f->defval.u32 = (uint32_t)strtoul(s, &end, 0);
      break;
    case PBDYN_TYPE_UINT64: case PBDYN_TYPE_FIXED64:
      f->defval.u64 = strtoull(s, &end, 0);
      break;
    case PBDYN_TYPE_ENUM:
      for (uint32_t i = 0; f->en && i < f->en->count; i++)
        if (!strcmp(f->en->names[i], s)) {
          f->defval.i32 = f->en->numbers[i];
          return PBDYN_OK;
        }
      return PBDYN_ERR_SCHEMA;
    default: return PBDYN_ERR_SCHEMA;
  }
  return end && *end == 0 && end != s ? PBDYN_OK : PBDYN_ERR_SCHEMA;
}

static int field_cmp(const void *pa, const void *pb) {
  uint32_t a = ((const pbdyn_fielddef *)pa)->number, b = ((const pbdyn_fielddef *)pb)->number;
  return (a > b) - (a < b);
}

/* protoc's ToJsonName, for descriptor sets written without json_name: each
 * '_' dropped and the letter after it upper-cased ("foo_bar_1" -> "fooBar1"). */
static const char *json_name(pbdyn_arena *a, const char *name) {
  char *out = pbdyn_arena_alloc(a, strlen(name) + 1), *o = out;
  if (!out) return NULL;
  bool upper = false;
  for (const char *p = name; *p; p++) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    *o++ = upper && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
    upper = false;
  }
  *o = 0;
  return out;
}

static pbdyn_status build_msg(builder *b, item *it) {
  const pbdyn__raw_msg *r = it->raw_msg;
  pbdyn_msgdef *m = it->def;
  bool p3 = is_proto3(it->file);
  m->full_name = it->full_name;
  m->wkt = (uint8_t)pbdyn__wkt_of(it->full_name);
  m->schema = b->schema;
  m->map_entry = r->map_entry;
  m->field_count = (uint32_t)r->field_count;
  pbdyn_fielddef *fields = pbdyn_arena_alloc(b->a, (r->field_count + 1) * sizeof *fields);
  if (!fields) return PBDYN_ERR_NOMEM;
  memset(fields, 0, (r->field_count + 1) * sizeof *fields);

  for (size_t i = 0; i < r->field_count; i++) {
    const pbdyn__raw_field *rf = &r->fields[i];
    pbdyn_fielddef *f = &fields[i];
    if (rf->number < 1 || rf->number > (1 << 29) - 1) return PBDYN_ERR_SCHEMA;
    if (rf->label < 1 || rf->label > 3) return PBDYN_ERR_SCHEMA;
    f->number = (uint32_t)rf->number;
    f->containing = m;
    f->name = rf->name;
    f->json_name = rf->json_name ? rf->json_name : json_name(b->a, rf->name);
    if (!f->json_name) return PBDYN_ERR_NOMEM;
    int type = rf->type;
    if (rf->type_name) {
      if (rf->type_name[0] != '.') return PBDYN_ERR_SCHEMA; /* relative names unsupported */
      item *t = lookup(b, rf->type_name + 1);
      if (!t) return PBDYN_ERR_SCHEMA;
      if (t->raw_msg) {
        if (type == 0) type = PBDYN_TYPE_MESSAGE;
        if (type != PBDYN_TYPE_MESSAGE && type != PBDYN_TYPE_GROUP) return PBDYN_ERR_SCHEMA;
        f->msg = t->def;
      } else {
        if (type == 0) type = PBDYN_TYPE_ENUM;
        if (type != PBDYN_TYPE_ENUM) return PBDYN_ERR_SCHEMA;
        f->en = t->def;
      }
    }
    if (type < PBDYN_TYPE_DOUBLE || type > PBDYN_TYPE_SINT64) return PBDYN_ERR_SCHEMA;
    if ((type == PBDYN_TYPE_MESSAGE || type == PBDYN_TYPE_GROUP) && !f->msg)
      return PBDYN_ERR_SCHEMA;
    if (type == PBDYN_TYPE_ENUM && !f->en) return PBDYN_ERR_SCHEMA;
    f->type = (uint8_t)type;
    f->rep = (uint8_t)pbdyn__type_rep(type);
    if (rf->label == 3) {
      const item *t = rf->type_name ? lookup(b, rf->type_name + 1) : NULL;
      f->mode = t && t->raw_msg && t->raw_msg->map_entry && type == PBDYN_TYPE_MESSAGE
                    ? PBDYN_MODE_MAP : PBDYN_MODE_REPEATED;
      if (f->mode == PBDYN_MODE_REPEATED && pbdyn__type_is_packable(type) &&
          (rf->packed == 1 || (rf->packed == -1 && p3)))
        f->flags |= PBDYN_F_PACKED;
    }
    if (rf->label == 2) f->flags |= PBDYN_F_REQUIRED;
    if (rf->oneof_index >= 0 && !rf->proto3_optional) {
      if ((size_t)rf->oneof_index >= r->oneof_count || rf->label == 3) return PBDYN_ERR_SCHEMA;
      f->oneof_case = (uint16_t)(rf->oneof_index + 1);
    }
    if (p3 && rf->label == 1 && !rf->proto3_optional && !f->oneof_case &&
        f->rep != PBDYN_REP_MSG)
      f->flags |= PBDYN_F_IMPLICIT;
    if (p3 && type == PBDYN_TYPE_STRING) f->flags |= PBDYN_F_UTF8;
    if (type == PBDYN_TYPE_ENUM && f->en->closed) f->flags |= PBDYN_F_CLOSED;
    if (type == PBDYN_TYPE_ENUM && f->mode == PBDYN_MODE_SINGULAR)
      f->defval.i32 = f->en->numbers[0];
    if (rf->default_value && f->mode == PBDYN_MODE_SINGULAR && f->rep != PBDYN_REP_MSG) {
      pbdyn_status st = parse_default(b, f, rf);
      if (st) return st;
      f->flags |= PBDYN_F_DEFAULT;
    }
  }
  /* sort by number; duplicates are an error */
  qsort(fields, r->field_count, sizeof *fields, field_cmp);
  for (size_t i = 1; i < r->field_count; i++)
    if (fields[i].number == fields[i - 1].number) return PBDYN_ERR_SCHEMA;
  if (r->field_count > 0xffff) return PBDYN_ERR_SCHEMA;
  uint32_t dense = 0;
  while (dense < r->field_count && fields[dense].number == dense + 1) dense++;
  m->dense_below = dense;
  m->fields = fields;
  if (m->map_entry) {
    /* key = 1, value = 2, both singular */
    if (r->field_count != 2 || fields[0].number != 1 || fields[1].number != 2 ||
        fields[0].mode || fields[1].mode)
      return PBDYN_ERR_SCHEMA;
  }
  return pbdyn__layout_build(m, fields, r->oneof_count, r->oneofs);
}

static int msg_name_cmp(const void *pa, const void *pb) {
  return strcmp((*(pbdyn_msgdef *const *)pa)->full_name, (*(pbdyn_msgdef *const *)pb)->full_name);
}
static int enum_name_cmp(const void *pa, const void *pb) {
  return strcmp((*(pbdyn_enumdef *const *)pa)->full_name, (*(pbdyn_enumdef *const *)pb)->full_name);
}

static pbdyn_status load(builder *b, pbdyn_schema *s, const char *buf, size_t size) {
  pbdyn__raw_set set;
  pbdyn_status st = pbdyn__raw_read(buf, size, &set, b->a);
  if (st) return st;
  for (size_t i = 0; !st && i < set.file_count; i++) {
    const pbdyn__raw_file *f = &set.files[i];
    for (size_t j = 0; !st && j < f->msg_count; j++)
      st = collect_msg(b, f, f->package, &f->msgs[j]);
    for (size_t j = 0; !st && j < f->enum_count; j++)
      st = collect_enum(b, f, f->package, &f->enums[j]);
  }
  if (st) return st;
  b->sorted = malloc((b->count + 1) * sizeof *b->sorted);
  if (!b->sorted) return PBDYN_ERR_NOMEM;
  for (size_t i = 0; i < b->count; i++) b->sorted[i] = &b->items[i];
  qsort(b->sorted, b->count, sizeof *b->sorted, item_cmp);
  for (size_t i = 1; i < b->count; i++)
    if (!strcmp(b->sorted[i]->full_name, b->sorted[i - 1]->full_name)) return PBDYN_ERR_SCHEMA;

  for (size_t i = 0; i < b->count; i++) {
    item *it = &b->items[i];
    size_t sz = it->raw_msg ? sizeof(pbdyn_msgdef) : sizeof(pbdyn_enumdef);
    it->def = pbdyn_arena_alloc(b->a, sz);
    if (!it->def) return PBDYN_ERR_NOMEM;
    memset(it->def, 0, sz);
    if (it->raw_msg) s->msg_count++;
    else s->enum_count++;
  }
  s->msgs = pbdyn_arena_alloc(b->a, (s->msg_count + 1) * sizeof *s->msgs);
  s->msgs_by_name = pbdyn_arena_alloc(b->a, (s->msg_count + 1) * sizeof *s->msgs);
  s->enums_by_name = pbdyn_arena_alloc(b->a, (s->enum_count + 1) * sizeof *s->enums_by_name);
  if (!s->msgs || !s->msgs_by_name || !s->enums_by_name) return PBDYN_ERR_NOMEM;
  size_t nm = 0, ne = 0;
  /* enums first: message fields read enum values for their defaults */
  for (size_t i = 0; !st && i < b->count; i++) {
    if (b->items[i].raw_msg) continue;
    st = build_enum(b, &b->items[i]);
    s->enums_by_name[ne++] = b->items[i].def;
  }
  for (size_t i = 0; !st && i < b->count; i++) {
    if (!b->items[i].raw_msg) continue;
    st = build_msg(b, &b->items[i]);
    s->msgs[nm++] = b->items[i].def;
  }
  for (size_t i = 0; !st && i < nm; i++) st = pbdyn__fasttable_build(s->msgs[i], b->a);
  if (st) return st;
  memcpy(s->msgs_by_name, s->msgs, nm * sizeof *s->msgs);
  qsort(s->msgs_by_name, nm, sizeof *s->msgs, msg_name_cmp);
  qsort(s->enums_by_name, ne, sizeof *s->enums_by_name, enum_name_cmp);
  return PBDYN_OK;
}

pbdyn_status pbdyn_schema_load(const void *fds, size_t size, pbdyn_schema **out) {
  if (!out || (!fds && size)) return PBDYN_ERR_ARG;
  if (!fds) fds = ""; /* no arithmetic on a null pointer */
  *out = NULL;
  pbdyn_arena *a = pbdyn_arena_new(64 * 1024);
  if (!a) return PBDYN_ERR_NOMEM;
  pbdyn_schema *s = pbdyn_arena_alloc(a, sizeof *s);
  if (!s) {
    pbdyn_arena_free(a);
    return PBDYN_ERR_NOMEM;
  }
  memset(s, 0, sizeof *s);
  s->arena = a;
  builder b = {.a = a, .schema = s};
  pbdyn_status st = load(&b, s, fds, size);
  free(b.items);
  free(b.sorted);
  if (st) {
    pbdyn_arena_free(a);
    return st;
  }
  *out = s;
  return PBDYN_OK;
}

void pbdyn_schema_free(pbdyn_schema *s) {
  if (s) pbdyn_arena_free(s->arena);
}
