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
