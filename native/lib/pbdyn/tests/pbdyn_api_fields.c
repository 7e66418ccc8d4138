/* The API test program's checks of message types and of the typed
 * accessors: what a function given a message, a type and a field refuses. */
#include "pbdyn_api_test.h"

/* A message knows its type, sub-messages, groups and map entries included:
 * functions given a message take NULL for its type and refuse another. */
void test_message_types(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds2.All");
  const pbdyn_msgdef *item = pbdyn_schema_find(s, "allkinds3.Item");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  CHECK(pbdyn_msg_msgdef(msg) == m);
  /* o_child (17) { o_int32: 1 }, OGroup (19) { g_a: 2 } */
  static const char wire[] = "\x8a\x01\x02\x08\x01" "\x9b\x01\xa0\x01\x02\x9c\x01";
  size_t n = sizeof wire - 1;
  CHECK(pbdyn_decode(wire, n, msg, NULL, a, NULL) == PBDYN_OK);
  const pbdyn_fielddef *child = F(m, "o_child"), *group = F(m, "ogroup");
  CHECK(pbdyn_msg_msgdef(pbdyn_msg_get(msg, child).msg) == m);
  CHECK(pbdyn_msg_msgdef(pbdyn_msg_get(msg, group).msg) == pbdyn_fielddef_msg(group));
  /* the wrong type is refused before anything is read or written */
  pbdyn_msg *other = pbdyn_msg_new(item, a);
  CHECK(pbdyn_decode(wire, n, other, m, a, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_unknown(other).size == 0);
  char *out = NULL, *own;
  size_t len = 0, own_len;
  CHECK(pbdyn_encode(msg, item, a, &out, &len) == PBDYN_ERR_ARG && out == NULL);
  CHECK(pbdyn_text_encode(msg, item, a, &out, &len) == PBDYN_ERR_ARG && out == NULL);
  CHECK(pbdyn_dump(msg, item, a, &out, &len) == PBDYN_ERR_ARG && out == NULL);
  CHECK(pbdyn_json_encode(msg, item, a, &out, &len, NULL) == PBDYN_ERR_ARG && out == NULL);
  /* NULL means the message's own type: the same bytes as naming it */
  CHECK(pbdyn_encode(msg, NULL, a, &own, &own_len) == PBDYN_OK);
  CHECK(pbdyn_encode(msg, m, a, &out, &len) == PBDYN_OK);
  CHECK(len == own_len && memcmp(out, own, len) == 0 && len == n);
  CHECK(pbdyn_text_encode(msg, NULL, a, &own, &own_len) == PBDYN_OK);
  CHECK(pbdyn_text_encode(msg, m, a, &out, &len) == PBDYN_OK && strcmp(own, out) == 0);
  CHECK(pbdyn_json_encode(msg, NULL, a, &own, &own_len, NULL) == PBDYN_OK);
  CHECK(pbdyn_json_encode(msg, m, a, &out, &len, NULL) == PBDYN_OK && strcmp(own, out) == 0);
  CHECK(pbdyn_dump(msg, NULL, a, &own, &own_len) == PBDYN_OK);
  CHECK(pbdyn_dump(msg, m, a, &out, &len) == PBDYN_OK && strcmp(own, out) == 0);
  CHECK(pbdyn_msg_msgdef(pbdyn_msg_mutable(msg, F(m, "o_leaf"), a)) ==
        pbdyn_schema_find(s, "allkinds2.Leaf"));
  CHECK(pbdyn_msg_msgdef(pbdyn_msg_array_append_msg(msg, F(m, "r_child"), a)) == m);
  pbdyn_arena_free(a);
}

/* Typed accessors refuse a field of another type, or of another message; the
 * string setter copies into the arena and validates what the decoder does. */
void test_typed_accessors(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  const pbdyn_msgdef *item = pbdyn_schema_find(s, "allkinds3.Item");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  int32_t i32 = 5;
  uint32_t u32 = 5;
  int64_t i64;
  uint64_t u64;
  float fl;
  double db;
  bool b;
  pbdyn_str str;
  const pbdyn_msg *sub;
  CHECK(pbdyn_msg_set_uint32(msg, F(m, "i_uint32"), 4000000000u) == PBDYN_OK);
  CHECK(pbdyn_msg_get_int32(msg, F(m, "i_uint32"), &i32) == PBDYN_ERR_ARG && i32 == 5);
  CHECK(pbdyn_msg_get_uint32(msg, F(m, "i_uint32"), &u32) == PBDYN_OK && u32 == 4000000000u);
  CHECK(pbdyn_msg_set_int32(msg, F(m, "i_uint32"), -1) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_get_uint32(msg, F(m, "i_uint32"), &u32) == PBDYN_OK && u32 == 4000000000u);
  CHECK(pbdyn_msg_set_int32(msg, F(m, "i_sint32"), -7) == PBDYN_OK);
  CHECK(pbdyn_msg_get_int32(msg, F(m, "i_sint32"), &i32) == PBDYN_OK && i32 == -7);
  CHECK(pbdyn_msg_set_int64(msg, F(m, "i_sfixed64"), INT64_MIN) == PBDYN_OK);
  CHECK(pbdyn_msg_get_int64(msg, F(m, "i_sfixed64"), &i64) == PBDYN_OK && i64 == INT64_MIN);
  CHECK(pbdyn_msg_get_uint64(msg, F(m, "i_sfixed64"), &u64) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_set_uint64(msg, F(m, "i_fixed64"), UINT64_MAX) == PBDYN_OK);
  CHECK(pbdyn_msg_get_uint64(msg, F(m, "i_fixed64"), &u64) == PBDYN_OK && u64 == UINT64_MAX);
  CHECK(pbdyn_msg_set_float(msg, F(m, "i_float"), 1.5f) == PBDYN_OK);
  CHECK(pbdyn_msg_get_double(msg, F(m, "i_float"), &db) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_get_float(msg, F(m, "i_float"), &fl) == PBDYN_OK && fl == 1.5f);
  CHECK(pbdyn_msg_get_double(msg, F(m, "i_double"), &db) == PBDYN_OK && db == 0.0);
  CHECK(pbdyn_msg_set_bool(msg, F(m, "i_bool"), true) == PBDYN_OK);
  CHECK(pbdyn_msg_get_bool(msg, F(m, "i_bool"), &b) == PBDYN_OK && b);
  /* an enum is read as an enum, not as an int32 */
  CHECK(pbdyn_msg_set_enum(msg, F(m, "i_mood"), -1) == PBDYN_OK);
  CHECK(pbdyn_msg_get_int32(msg, F(m, "i_mood"), &i32) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_get_enum(msg, F(m, "i_mood"), &i32) == PBDYN_OK && i32 == -1);
  /* singular and repeated accessors do not mix; a map is not an array here */
  CHECK(pbdyn_msg_get_int32(msg, F(m, "r_int32"), &i32) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append_int32(msg, F(m, "i_int32"), 1, a) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append_int32(msg, F(m, "r_int32"), 9, a) == PBDYN_OK);
  CHECK(pbdyn_msg_array_get_int32(msg, F(m, "r_int32"), 0, &i32) == PBDYN_OK && i32 == 9);
  CHECK(pbdyn_msg_array_get_int32(msg, F(m, "r_int32"), 1, &i32) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_get_msg(msg, F(m, "m_int32_item"), 0, &sub) == PBDYN_ERR_ARG);
  /* a field of another message type is refused, even of a matching type */
  CHECK(pbdyn_msg_get_str(msg, F(item, "key"), &str) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_get_msg(msg, F(m, "i_item"), &sub) == PBDYN_OK && sub == NULL);
  /* the copying setter: the caller's buffer may change afterwards */
  char buf[8] = "abc";
  CHECK(pbdyn_msg_set_str_copy(msg, F(m, "i_bytes"), buf, 3, a) == PBDYN_OK);
  memcpy(buf, "xyz", 3);
  CHECK(pbdyn_msg_get_str(msg, F(m, "i_bytes"), &str) == PBDYN_OK && str_eq(str, "abc", 3));
  CHECK(str.data != buf);
  CHECK(pbdyn_msg_set_str_copy(msg, F(m, "i_string"), "\xc0\x80", 2, a) == PBDYN_ERR_UTF8);
  CHECK(pbdyn_msg_get_str(msg, F(m, "i_string"), &str) == PBDYN_OK && str.size == 0);
  CHECK(pbdyn_msg_set_str_copy(msg, F(m, "i_string"), NULL, 0, a) == PBDYN_OK);
  CHECK(pbdyn_msg_array_append_str_copy(msg, F(m, "r_string"), "q", 1, a) == PBDYN_OK);
  CHECK(pbdyn_msg_array_get_str(msg, F(m, "r_string"), 0, &str) == PBDYN_OK &&
        str_eq(str, "q", 1));
  CHECK(pbdyn_msg_set_str_copy(msg, F(m, "i_int32"), "q", 1, a) == PBDYN_ERR_ARG);
  /* the untyped setters check the message too */
  pbdyn_value v = {.str = {"k", 1}};
  CHECK(pbdyn_msg_set(msg, F(item, "key"), v) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append(msg, F(item, "children"), v, a) == PBDYN_ERR_ARG);
  CHECK(!pbdyn_msg_map_get(msg, F(pbdyn_schema_find(s, "allkinds2.All"), "m_int32_string"), v,
                           &v));
  pbdyn_arena_free(a);
}

/* Every field of msg's type given a value that reads as nonzero: all bits
 * set for numbers, true, "x" for strings, an empty message, one element for a
 * repeated field and one entry for a map, so that a read through another
 * type's layout would find something. */
static void fill(pbdyn_msg *msg, pbdyn_arena *a) {
  const pbdyn_msgdef *m = pbdyn_msg_msgdef(msg);
  for (size_t i = 0; i < pbdyn_msgdef_field_count(m); i++) {
    const pbdyn_fielddef *f = pbdyn_msgdef_field(m, i);
    pbdyn_type t = pbdyn_fielddef_type(f);
    bool sub = t == PBDYN_TYPE_MESSAGE || t == PBDYN_TYPE_GROUP;
    pbdyn_value v;
    memset(&v, 0xff, sizeof v);
    if (t == PBDYN_TYPE_STRING || t == PBDYN_TYPE_BYTES) v.str = (pbdyn_str){"x", 1};
    if (t == PBDYN_TYPE_BOOL) v.b = true; /* 0xff is no bool */
    if (pbdyn_fielddef_is_repeated(f))
      CHECK(sub ? pbdyn_msg_array_append_msg(msg, f, a) != NULL
                : pbdyn_msg_array_append(msg, f, v, a) == PBDYN_OK);
    else
      CHECK(sub ? pbdyn_msg_mutable(msg, f, a) != NULL : pbdyn_msg_set(msg, f, v) == PBDYN_OK);
  }
}

static bool is_zero(pbdyn_value v) {
  pbdyn_value z;
  memset(&z, 0, sizeof z);
  return memcmp(&v, &z, sizeof v) == 0;
}

/* The untyped accessors given a field of another message type: each returns
 * what pbdyn.h says (false, a zero value, 0, NULL, PBDYN_ERR_ARG) and reads,
 * writes and allocates nothing; and an index past the end reads as zero.
 * Every field of every other type of the schema is tried on a message whose
 * every field is set, so that a read through the wrong layout would show. */
void test_wrong_fields(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  fill(msg, a);
  char *before, *after;
  size_t before_len, after_len;
  CHECK(pbdyn_encode(msg, NULL, a, &before, &before_len) == PBDYN_OK);
  size_t used = pbdyn_arena_used(a);
  pbdyn_value v = {.u64 = 1}, k = {.u64 = 0};
  pbdyn_map_iter it;
  bool deleted = true;
  size_t tried = 0;
  for (size_t t = 0; t < pbdyn_schema_msg_count(s); t++) {
    const pbdyn_msgdef *other = pbdyn_schema_msg(s, t);
    if (other == m) continue;
    for (size_t i = 0; i < pbdyn_msgdef_field_count(other); i++) {
      const pbdyn_fielddef *f = pbdyn_msgdef_field(other, i);
      size_t n = 12345;
      CHECK(!pbdyn_msg_has(msg, f));
      CHECK(is_zero(pbdyn_msg_get(msg, f)));
      CHECK(pbdyn_msg_set(msg, f, v) == PBDYN_ERR_ARG);
      CHECK(pbdyn_msg_mutable(msg, f, a) == NULL);
      CHECK(pbdyn_msg_clear(msg, f) == PBDYN_ERR_ARG);
      CHECK(pbdyn_msg_oneof_case(msg, f) == 0);
      CHECK(pbdyn_msg_array_size(msg, f) == 0);
      CHECK(is_zero(pbdyn_msg_array_get(msg, f, 0)));
      CHECK(pbdyn_msg_array_append(msg, f, v, a) == PBDYN_ERR_ARG);
      CHECK(pbdyn_msg_array_append_msg(msg, f, a) == NULL);
      CHECK(!pbdyn_msg_map_get(msg, f, k, &v) && v.u64 == 1);
      CHECK(pbdyn_msg_map_size(msg, f, &n) == PBDYN_ERR_ARG && n == 12345);
      CHECK(pbdyn_msg_map_set(msg, f, k, v, a) == PBDYN_ERR_ARG);
      CHECK(pbdyn_msg_map_delete(msg, f, k, &deleted) == PBDYN_ERR_ARG && deleted);
      CHECK(pbdyn_msg_map_iter_init(msg, f, a, &it) == PBDYN_ERR_ARG);
      tried++;
    }
  }
  CHECK(tried > 150); /* allkinds2's messages, Item, the map entries */
  CHECK(pbdyn_arena_used(a) == used);
  CHECK(pbdyn_encode(msg, NULL, a, &after, &after_len) == PBDYN_OK);
  CHECK(after_len == before_len && memcmp(after, before, after_len) == 0);

  /* an index past the end, a singular field read as an array and the
   * other way round: zero, as for a field of another type */
  const pbdyn_fielddef *r = F(m, "r_int32"), *mf = F(m, "m_int32_item");
  int32_t x = 5;
  CHECK(pbdyn_msg_array_size(msg, r) == 1 && pbdyn_msg_array_get(msg, r, 0).i32 == -1);
  CHECK(is_zero(pbdyn_msg_array_get(msg, r, 1)));
  CHECK(is_zero(pbdyn_msg_array_get(msg, r, SIZE_MAX)));
  CHECK(pbdyn_msg_array_get_int32(msg, r, 1, &x) == PBDYN_ERR_ARG && x == 5);
  CHECK(pbdyn_msg_array_get(msg, mf, 0).msg != NULL && is_zero(pbdyn_msg_array_get(msg, mf, 1)));
  CHECK(is_zero(pbdyn_msg_get(msg, r)) && is_zero(pbdyn_msg_get(msg, mf)));
  CHECK(pbdyn_msg_array_size(msg, F(m, "i_int32")) == 0);
  CHECK(is_zero(pbdyn_msg_array_get(msg, F(m, "i_int32"), 0)));
  CHECK(pbdyn_msg_mutable(msg, F(m, "i_int32"), a) == NULL);
  CHECK(pbdyn_msg_array_append_msg(msg, r, a) == NULL);
  /* the fields of its own type still read what was set */
  CHECK(pbdyn_msg_get(msg, F(m, "i_int32")).i32 == -1);
  CHECK(pbdyn_msg_oneof_case(msg, F(m, "k_int32")) == 66); /* k_float, set last */
  CHECK(pbdyn_msg_clear(msg, r) == PBDYN_OK && pbdyn_msg_array_size(msg, r) == 0);
  pbdyn_arena_free(a);
}
