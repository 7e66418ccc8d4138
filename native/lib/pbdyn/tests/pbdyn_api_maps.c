/* The API test program's checks of the map API: size, get, set and
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
