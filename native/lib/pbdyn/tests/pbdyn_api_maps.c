/* The API test program's checks of the map API: size, get, set, delete and
 * iteration over maps whose keys the wire repeats. */
#include "pbdyn_api_test.h"

/* Maps: a key repeated on the wire counts once, its last value wins;
 * setting replaces or appends; iteration is by key, each key once. */
void test_map_api(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  const pbdyn_fielddef *f = F(m, "m_string_int32");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  /* {"b": 1}, {"a": 2}, {"b": 3} on the wire (field 70) */
  static const char wire[] = "\xb2\x04\x05\x0a\x01" "b\x10\x01" "\xb2\x04\x05\x0a\x01" "a\x10\x02"
                             "\xb2\x04\x05\x0a\x01" "b\x10\x03";
  CHECK(pbdyn_decode(wire, sizeof wire - 1, msg, NULL, a, NULL) == PBDYN_OK);
  size_t n = 0;
  CHECK(pbdyn_msg_array_size(msg, f) == 3);
  CHECK(pbdyn_msg_map_size(msg, f, &n) == PBDYN_OK && n == 2);
  pbdyn_value k = {.str = {"b", 1}}, v;
  CHECK(pbdyn_msg_map_get(msg, f, k, &v) && v.i32 == 3);
  v.i32 = 4;
  CHECK(pbdyn_msg_map_set(msg, f, k, v, a) == PBDYN_OK);
  k.str = (pbdyn_str){"c", 1};
  v.i32 = 5;
  CHECK(pbdyn_msg_map_set(msg, f, k, v, a) == PBDYN_OK);
  CHECK(pbdyn_msg_map_size(msg, f, &n) == PBDYN_OK && n == 3);
  pbdyn_map_iter it;
  CHECK(pbdyn_msg_map_iter_init(msg, f, a, &it) == PBDYN_OK);
  static const char keys[] = "abc";
  static const int32_t vals[] = {2, 4, 5};
  for (int i = 0; i < 3; i++) {
    CHECK(pbdyn_map_iter_next(&it, &k, &v));
    CHECK(str_eq(k.str, &keys[i], 1) && v.i32 == vals[i]);
  }
  CHECK(!pbdyn_map_iter_next(&it, &k, &v));
  /* the encoder writes each key once */
  char *out;
  size_t len;
  CHECK(pbdyn_encode(msg, NULL, a, &out, &len) == PBDYN_OK && len == 3 * 8);
  /* not a map field, or a map of another type */
  CHECK(pbdyn_msg_map_size(msg, F(m, "r_int32"), &n) == PBDYN_ERR_ARG);
  const pbdyn_msgdef *m2 = pbdyn_schema_find(s, "allkinds2.All");
  CHECK(pbdyn_msg_map_iter_init(msg, F(m2, "m_int32_string"), a, &it) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_map_set(msg, F(m, "i_int32"), k, v, a) == PBDYN_ERR_ARG);
  pbdyn_arena_free(a);
}

/* The entries of a string-keyed map in array (arrival) order, as "k=v ...". */
static const char *entries(const pbdyn_msg *msg, const pbdyn_fielddef *f, char *buf,
                           size_t cap) {
  const pbdyn_msgdef *em = pbdyn_fielddef_msg(f);
  size_t used = 0;
  buf[0] = 0;
  for (size_t i = 0; i < pbdyn_msg_array_size(msg, f); i++) {
    const pbdyn_msg *e = pbdyn_msg_array_get(msg, f, i).msg;
    pbdyn_str k = pbdyn_msg_get(e, F(em, "key")).str;
    used += (size_t)snprintf(buf + used, cap - used, "%s%.*s=%d", used ? " " : "", (int)k.size,
                             k.data, (int)pbdyn_msg_get(e, F(em, "value")).i32);
  }
  return buf;
}

/* Deleting a key removes every entry with it, a repeated one from the wire
 * included, and keeps the others in their order: size, get, iteration and
 * every encoder stop seeing it. String, integer and bool keys; a key absent,
 * deleted twice, set again; every key; and a field that is no map of the
 * message's type. */
void test_map_delete(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  const pbdyn_fielddef *f = F(m, "m_string_int32");
  pbdyn_arena *a = pbdyn_arena_new(0);
  /* {"b": 1}, {"a": 2}, {"b": 3}, {"c": 4} on the wire (field 70) */
  static const char wire[] = "\xb2\x04\x05\x0a\x01" "b\x10\x01" "\xb2\x04\x05\x0a\x01" "a\x10\x02"
                             "\xb2\x04\x05\x0a\x01" "b\x10\x03" "\xb2\x04\x05\x0a\x01" "c\x10\x04";
  static const char without_b[] = "\xb2\x04\x05\x0a\x01" "a\x10\x02"
                                  "\xb2\x04\x05\x0a\x01" "c\x10\x04";
  char buf[128];
  for (int dec = PBDYN_DECODER_FAST; dec <= PBDYN_DECODER_GENERIC; dec++) {
    pbdyn_msg *msg = pbdyn_msg_new(m, a);
    pbdyn_decode_opts o = {0, (pbdyn_decoder)dec, 0, NULL};
    CHECK(pbdyn_decode(wire, sizeof wire - 1, msg, m, a, &o) == PBDYN_OK);
    CHECK(strcmp(entries(msg, f, buf, sizeof buf), "b=1 a=2 b=3 c=4") == 0);
    pbdyn_value k = {.str = {"b", 1}}, v;
    bool deleted = false;
    size_t n = 0;
    CHECK(pbdyn_msg_map_delete(msg, f, k, &deleted) == PBDYN_OK && deleted);
    CHECK(strcmp(entries(msg, f, buf, sizeof buf), "a=2 c=4") == 0); /* both b, in order */
    CHECK(pbdyn_msg_map_size(msg, f, &n) == PBDYN_OK && n == 2);
    CHECK(!pbdyn_msg_map_get(msg, f, k, &v));
    CHECK(pbdyn_msg_map_delete(msg, f, k, &deleted) == PBDYN_OK && !deleted); /* again */
    k.str = (pbdyn_str){"bb", 2};
    deleted = true;
    CHECK(pbdyn_msg_map_delete(msg, f, k, &deleted) == PBDYN_OK && !deleted); /* absent */
    k.str = (pbdyn_str){"", 0};
    CHECK(pbdyn_msg_map_delete(msg, f, k, &deleted) == PBDYN_OK && !deleted);
    CHECK(strcmp(entries(msg, f, buf, sizeof buf), "a=2 c=4") == 0);
    pbdyn_map_iter it;
    CHECK(pbdyn_msg_map_iter_init(msg, f, a, &it) == PBDYN_OK && it.count == 2);
    /* every encoder sees the two keys left */
    char *out;
    size_t len;
    CHECK(pbdyn_encode(msg, NULL, a, &out, &len) == PBDYN_OK);
    CHECK(len == sizeof without_b - 1 && memcmp(out, without_b, len) == 0);
    pbdyn_msg *back = pbdyn_msg_new(m, a);
    CHECK(pbdyn_decode(out, len, back, m, a, &o) == PBDYN_OK);
    CHECK(strcmp(entries(back, f, buf, sizeof buf), "a=2 c=4") == 0);
    CHECK(pbdyn_json_encode(msg, NULL, a, &out, &len, NULL) == PBDYN_OK);
    CHECK(strcmp(out, "{\"mStringInt32\":{\"a\":2,\"c\":4}}") == 0);
    CHECK(pbdyn_text_encode(msg, NULL, a, &out, &len) == PBDYN_OK);
    CHECK(strcmp(out, "m_string_int32 {\n  key: \"a\"\n  value: 2\n}\n"
                      "m_string_int32 {\n  key: \"c\"\n  value: 4\n}\n") == 0);
    /* set again: a new entry, last */
    k.str = (pbdyn_str){"b", 1};
    v.i32 = 5;
    CHECK(pbdyn_msg_map_set(msg, f, k, v, a) == PBDYN_OK);
    CHECK(strcmp(entries(msg, f, buf, sizeof buf), "a=2 c=4 b=5") == 0);
    CHECK(pbdyn_msg_map_get(msg, f, k, &v) && v.i32 == 5);
    /* every key (deleted may be NULL): an empty map */
    static const char *const keys[] = {"c", "b", "a"};
    for (int i = 0; i < 3; i++) {
      k.str = (pbdyn_str){keys[i], 1};
      CHECK(pbdyn_msg_map_delete(msg, f, k, i == 1 ? NULL : &deleted) == PBDYN_OK);
    }
    CHECK(pbdyn_msg_map_size(msg, f, &n) == PBDYN_OK && n == 0);
    CHECK(pbdyn_msg_array_size(msg, f) == 0 && !pbdyn_msg_has(msg, f));
    CHECK(pbdyn_encode(msg, NULL, a, &out, &len) == PBDYN_OK && len == 0);
    CHECK(pbdyn_json_encode(msg, NULL, a, &out, &len, NULL) == PBDYN_OK && !strcmp(out, "{}"));
  }

  /* integer keys: int32 (negative and 0), uint64 (all ones), int64 */
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  const pbdyn_fielddef *items = F(m, "m_int32_item"), *moods = F(m, "m_uint64_mood");
  const pbdyn_fielddef *alls = F(m, "m_int64_all");
  pbdyn_value k, v = {.msg = pbdyn_msg_new(pbdyn_fielddef_msg(F(m, "i_item")), a)};
  bool deleted = false;
  size_t n = 0;
  for (int32_t key = -1; key <= 1; key++) {
    k.i32 = key;
    CHECK(pbdyn_msg_map_set(msg, items, k, v, a) == PBDYN_OK);
  }
  k.i32 = -1;
  CHECK(pbdyn_msg_map_delete(msg, items, k, &deleted) == PBDYN_OK && deleted);
  k.i32 = 0;
  CHECK(pbdyn_msg_map_delete(msg, items, k, &deleted) == PBDYN_OK && deleted);
  CHECK(pbdyn_msg_map_delete(msg, items, k, &deleted) == PBDYN_OK && !deleted);
  CHECK(pbdyn_msg_map_size(msg, items, &n) == PBDYN_OK && n == 1);
  k.i32 = 1;
  CHECK(pbdyn_msg_map_get(msg, items, k, &v) && v.msg != NULL);
  k.u64 = UINT64_MAX;
  v.i32 = 2;
  CHECK(pbdyn_msg_map_set(msg, moods, k, v, a) == PBDYN_OK);
  k.u64 = UINT64_MAX - 1;
  CHECK(pbdyn_msg_map_delete(msg, moods, k, &deleted) == PBDYN_OK && !deleted);
  k.u64 = UINT64_MAX;
  CHECK(pbdyn_msg_map_delete(msg, moods, k, &deleted) == PBDYN_OK && deleted);
  CHECK(pbdyn_msg_array_size(msg, moods) == 0);
  k.i64 = INT64_MIN;
  v.msg = pbdyn_msg_new(m, a);
  CHECK(pbdyn_msg_map_set(msg, alls, k, v, a) == PBDYN_OK);
  CHECK(pbdyn_msg_map_delete(msg, alls, k, &deleted) == PBDYN_OK && deleted);
  CHECK(pbdyn_msg_array_size(msg, alls) == 0);

  /* bool keys: {true: 1.5}, {false: 2.5}, {true: 3.5} and an entry with no key
   * (false, the key's default) on the wire (field 74) */
  static const char bools[] = "\xd2\x04\x07\x08\x01\x15\x00\x00\xc0\x3f"
                              "\xd2\x04\x07\x08\x00\x15\x00\x00\x20\x40"
                              "\xd2\x04\x07\x08\x01\x15\x00\x00\x60\x40"
                              "\xd2\x04\x05\x15\x00\x00\x80\x40";
  const pbdyn_fielddef *bf = F(m, "m_bool_float");
  msg = pbdyn_msg_new(m, a);
  CHECK(pbdyn_decode(bools, sizeof bools - 1, msg, m, a, NULL) == PBDYN_OK);
  CHECK(pbdyn_msg_array_size(msg, bf) == 4);
  k.b = false;
  CHECK(pbdyn_msg_map_get(msg, bf, k, &v) && v.f == 4.0f); /* the keyless entry, last */
  CHECK(pbdyn_msg_map_delete(msg, bf, k, &deleted) == PBDYN_OK && deleted);
  CHECK(pbdyn_msg_array_size(msg, bf) == 2 && !pbdyn_msg_map_get(msg, bf, k, &v));
  k.b = true;
  CHECK(pbdyn_msg_map_get(msg, bf, k, &v) && v.f == 3.5f);
  CHECK(pbdyn_msg_map_delete(msg, bf, k, &deleted) == PBDYN_OK && deleted);
  CHECK(pbdyn_msg_array_size(msg, bf) == 0);
  CHECK(pbdyn_msg_map_delete(msg, bf, k, &deleted) == PBDYN_OK && !deleted);

  /* not a map field, a map of another type, NULL: refused, nothing written */
  const pbdyn_msgdef *m2 = pbdyn_schema_find(s, "allkinds2.All");
  deleted = true;
  k.i32 = 0;
  CHECK(pbdyn_msg_map_delete(msg, F(m, "r_int32"), k, &deleted) == PBDYN_ERR_ARG && deleted);
  CHECK(pbdyn_msg_map_delete(msg, F(m, "i_int32"), k, &deleted) == PBDYN_ERR_ARG && deleted);
  CHECK(pbdyn_msg_map_delete(msg, F(m2, "m_int32_string"), k, &deleted) == PBDYN_ERR_ARG &&
        deleted);
  CHECK(pbdyn_msg_map_delete(NULL, bf, k, &deleted) == PBDYN_ERR_ARG && deleted);
  CHECK(pbdyn_msg_map_delete(msg, NULL, k, &deleted) == PBDYN_ERR_ARG && deleted);
  pbdyn_arena_free(a);
}
