/* The public API exercised from C: schema introspection, accessors by name
 * and by number, presence and defaults, oneofs, repeated fields, maps,
 * unknown fields, copy versus alias, the arena, encode/decode round trips
 * and schema errors; message types, typed accessors and fields of another
 * type in pbdyn_api_fields.c, the map API in pbdyn_api_maps.c. Usage:
 * pbdyn_api_test ALLKINDS.pb; prints "ok N checks" and exits 0, or names the
 * first failed check and exits 1. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"
#include "pbdyn_api_test.h"
#include "read_file.h"

int checks;

static void test_introspection(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds2.All");
  CHECK(m != NULL);
  CHECK(strcmp(pbdyn_msgdef_name(m), "allkinds2.All") == 0);
  CHECK(pbdyn_schema_find(s, ".allkinds2.All") == NULL);
  CHECK(pbdyn_schema_find(s, "allkinds2.Nope") == NULL);
  CHECK(pbdyn_schema_find(s, "allkinds2.All.OGroup") != NULL);
  CHECK(pbdyn_msgdef_is_map_entry(pbdyn_schema_find(s, "allkinds2.All.MInt32StringEntry")));
  /* fields by number and by name are the same definitions */
  CHECK(pbdyn_msgdef_field_by_number(m, 1) == F(m, "o_int32"));
  CHECK(pbdyn_msgdef_field_by_number(m, 3000) == F(m, "big_int32"));
  CHECK(pbdyn_msgdef_field_by_number(m, 536870911) == F(m, "big_packed"));
  CHECK(pbdyn_msgdef_field_by_number(m, 999) == NULL);
  CHECK(strcmp(pbdyn_fielddef_json_name(F(m, "o_int32")), "oInt32") == 0);
  CHECK(pbdyn_msgdef_field_by_number(m, 0) == NULL);
  /* fields come sorted by number */
  uint32_t last = 0;
  for (size_t i = 0; i < pbdyn_msgdef_field_count(m); i++) {
    CHECK(pbdyn_fielddef_number(pbdyn_msgdef_field(m, i)) > last);
    last = pbdyn_fielddef_number(pbdyn_msgdef_field(m, i));
  }
  CHECK(pbdyn_msgdef_field(m, pbdyn_msgdef_field_count(m)) == NULL);
  CHECK(pbdyn_fielddef_type(F(m, "o_sint64")) == PBDYN_TYPE_SINT64);
  CHECK(pbdyn_fielddef_type(F(m, "ogroup")) == PBDYN_TYPE_GROUP);
  CHECK(pbdyn_fielddef_is_map(F(m, "m_int32_string")));
  CHECK(pbdyn_fielddef_is_repeated(F(m, "m_int32_string")));
  CHECK(pbdyn_fielddef_is_packed(F(m, "p_int32")));
  CHECK(!pbdyn_fielddef_is_packed(F(m, "r_int32")));
  CHECK(pbdyn_fielddef_has_presence(F(m, "o_int32")));
  CHECK(!pbdyn_fielddef_has_presence(F(m, "r_int32")));
  CHECK(strcmp(pbdyn_fielddef_oneof_name(F(m, "c_string")), "choice") == 0);
  CHECK(pbdyn_fielddef_oneof_name(F(m, "o_string")) == NULL);
  CHECK(pbdyn_fielddef_msg(F(m, "o_leaf")) == pbdyn_schema_find(s, "allkinds2.Leaf"));
  const pbdyn_enumdef *color = pbdyn_fielddef_enum(F(m, "o_color"));
  CHECK(color == pbdyn_schema_find_enum(s, "allkinds2.Color"));
  CHECK(pbdyn_enumdef_is_closed(color));
  CHECK(pbdyn_enumdef_has_value(color, 1000000) && pbdyn_enumdef_has_value(color, -5));
  CHECK(!pbdyn_enumdef_has_value(color, 3));

  const pbdyn_msgdef *m3 = pbdyn_schema_find(s, "allkinds3.All");
  CHECK(m3 != NULL);
  CHECK(!pbdyn_fielddef_has_presence(F(m3, "i_int32")));  /* implicit */
  CHECK(pbdyn_fielddef_has_presence(F(m3, "o_int32")));   /* proto3 optional */
  CHECK(pbdyn_fielddef_oneof_name(F(m3, "o_int32")) == NULL); /* synthetic oneof */
  CHECK(pbdyn_fielddef_is_packed(F(m3, "r_int32")));      /* packed by default */
  CHECK(!pbdyn_fielddef_is_packed(F(m3, "u_int32")));     /* [packed = false] */
  CHECK(!pbdyn_enumdef_is_closed(pbdyn_fielddef_enum(F(m3, "i_mood"))));
  CHECK(pbdyn_schema_msg_count(s) >= 10);
  CHECK(pbdyn_schema_msg(s, pbdyn_schema_msg_count(s)) == NULL);
  CHECK(pbdyn_msgdef_size(m) % 32 == 0);
}

static void test_accessors(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds2.All");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  CHECK(msg != NULL);

  /* defaults, unset */
  CHECK(!pbdyn_msg_has(msg, F(m, "d_int32")));
  CHECK(pbdyn_msg_get(msg, F(m, "d_int32")).i32 == -42);
  CHECK(str_eq(pbdyn_msg_get(msg, F(m, "d_string")).str, "h\"i", 3));
  CHECK(str_eq(pbdyn_msg_get(msg, F(m, "d_bytes")).str, "\001\377", 2));
  CHECK(pbdyn_msg_get(msg, F(m, "d_color")).i32 == 2);
  CHECK(pbdyn_msg_get(msg, F(m, "d_double")).d == 1.5);
  CHECK(pbdyn_msg_get(msg, F(m, "d_bool")).b == true);
  CHECK(pbdyn_msg_get(msg, F(m, "o_color")).i32 == 0);  /* first value */
  CHECK(pbdyn_msg_get(msg, F(m, "o_small")).i32 == 1);  /* first value is ONE = 1 */
  CHECK(pbdyn_msg_get(msg, F(m, "o_child")).msg == NULL);

  /* set and get, by name and by number */
  pbdyn_value v = {.i32 = -7};
  CHECK(pbdyn_msg_set(msg, F(m, "o_int32"), v) == PBDYN_OK);
  CHECK(pbdyn_msg_has(msg, pbdyn_msgdef_field_by_number(m, 1)));
  CHECK(pbdyn_msg_get(msg, pbdyn_msgdef_field_by_number(m, 1)).i32 == -7);
  v.u64 = UINT64_MAX;
  pbdyn_msg_set(msg, F(m, "o_uint64"), v);
  CHECK(pbdyn_msg_get(msg, F(m, "o_uint64")).u64 == UINT64_MAX);
  v.d = -0.0;
  pbdyn_msg_set(msg, F(m, "o_double"), v);
  CHECK(pbdyn_msg_has(msg, F(m, "o_double")) && signbit(pbdyn_msg_get(msg, F(m, "o_double")).d));
  v.str = (pbdyn_str){"hello", 5};
  pbdyn_msg_set(msg, F(m, "o_string"), v);
  CHECK(str_eq(pbdyn_msg_get(msg, F(m, "o_string")).str, "hello", 5));
  CHECK(pbdyn_msg_clear(msg, F(m, "o_int32")) == PBDYN_OK);
  CHECK(!pbdyn_msg_has(msg, F(m, "o_int32")));
  CHECK(pbdyn_msg_set(msg, F(m, "r_int32"), v) == PBDYN_ERR_ARG);

  /* sub-messages */
  pbdyn_msg *leaf = pbdyn_msg_mutable(msg, F(m, "o_leaf"), a);
  CHECK(leaf != NULL && pbdyn_msg_has(msg, F(m, "o_leaf")));
  CHECK(pbdyn_msg_mutable(msg, F(m, "o_leaf"), a) == leaf);
  const pbdyn_msgdef *lm = pbdyn_fielddef_msg(F(m, "o_leaf"));
  v.i32 = 99;
  pbdyn_msg_set(leaf, F(lm, "req"), v);
  CHECK(pbdyn_msg_get(pbdyn_msg_get(msg, F(m, "o_leaf")).msg, F(lm, "req")).i32 == 99);

  /* oneof: setting one member clears the others */
  v.i32 = 5;
  pbdyn_msg_set(msg, F(m, "c_int32"), v);
  CHECK(pbdyn_msg_oneof_case(msg, F(m, "c_string")) == 80);
  v.str = (pbdyn_str){"x", 1};
  pbdyn_msg_set(msg, F(m, "c_string"), v);
  CHECK(pbdyn_msg_oneof_case(msg, F(m, "c_int32")) == 81);
  CHECK(!pbdyn_msg_has(msg, F(m, "c_int32")) && pbdyn_msg_has(msg, F(m, "c_string")));
  pbdyn_msg *cl = pbdyn_msg_mutable(msg, F(m, "c_leaf"), a);
  CHECK(cl != NULL && pbdyn_msg_oneof_case(msg, F(m, "c_leaf")) == 82);
  CHECK(pbdyn_msg_clear(msg, F(m, "c_leaf")) == PBDYN_OK);
  CHECK(pbdyn_msg_oneof_case(msg, F(m, "c_leaf")) == 0);

  /* repeated */
  for (int i = 0; i < 100; i++) {
    v.i32 = i * 3;
    CHECK(pbdyn_msg_array_append(msg, F(m, "p_int32"), v, a) == PBDYN_OK);
  }
  CHECK(pbdyn_msg_array_size(msg, F(m, "p_int32")) == 100);
  CHECK(pbdyn_msg_array_get(msg, F(m, "p_int32"), 99).i32 == 297);
  CHECK(pbdyn_msg_array_get(msg, F(m, "p_int32"), 100).i32 == 0);
  pbdyn_msg *rl = pbdyn_msg_array_append_msg(msg, F(m, "r_leaf"), a);
  CHECK(rl && pbdyn_msg_array_get(msg, F(m, "r_leaf"), 0).msg == rl);
  v.b = 7; /* any nonzero is true */
  pbdyn_msg_array_append(msg, F(m, "r_bool"), v, a);
  CHECK(pbdyn_msg_array_get(msg, F(m, "r_bool"), 0).b == true);

  /* encode, decode into a fresh message, dump both: the same */
  char *enc, *d1, *d2;
  size_t n, n1, n2;
  CHECK(pbdyn_encode(msg, m, a, &enc, &n) == PBDYN_OK);
  pbdyn_msg *back = pbdyn_msg_new(m, a);
  CHECK(pbdyn_decode(enc, n, back, m, a, NULL) == PBDYN_OK);
  CHECK(pbdyn_dump(msg, m, a, &d1, &n1) == PBDYN_OK);
  CHECK(pbdyn_dump(back, m, a, &d2, &n2) == PBDYN_OK);
  CHECK(n1 == n2 && memcmp(d1, d2, n1) == 0 && strlen(d1) == n1);
  /* required checking: Leaf.req is set in o_leaf, unset in the r_leaf */
  pbdyn_decode_opts req = {PBDYN_DECODE_CHECK_REQUIRED, PBDYN_DECODER_FAST, 0};
  CHECK(pbdyn_decode(enc, n, pbdyn_msg_new(m, a), m, a, &req) == PBDYN_ERR_REQUIRED);
  v.i32 = 1;
  pbdyn_msg_set(rl, F(lm, "req"), v);
  CHECK(pbdyn_encode(msg, m, a, &enc, &n) == PBDYN_OK);
  CHECK(pbdyn_decode(enc, n, pbdyn_msg_new(m, a), m, a, &req) == PBDYN_OK);
  pbdyn_arena_free(a);
}

static void test_maps_unknown_alias(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  pbdyn_arena *a = pbdyn_arena_new(64);
  /* m_string_int32 {"a": 1}, {"b": 2}, {"a": 3}; unknown field 500 varint 7;
   * i_string "hi" */
  static const char wire[] = "\xb2\x04\x05\x0a\x01" "a\x10\x01"
                             "\xb2\x04\x05\x0a\x01" "b\x10\x02"
                             "\xb2\x04\x05\x0a\x01" "a\x10\x03"
                             "\xa0\x1f\x07"
                             "\x7a\x02hi";
  size_t n = sizeof wire - 1;
  for (int alias = 0; alias < 2; alias++) {
    for (int dec = 0; dec < 3; dec++) {
      pbdyn_msg *msg = pbdyn_msg_new(m, a);
      pbdyn_decode_opts o = {alias ? PBDYN_DECODE_ALIAS : 0, (pbdyn_decoder)dec, 0};
      CHECK(pbdyn_decode(wire, n, msg, m, a, &o) == PBDYN_OK);
      const pbdyn_fielddef *mf = F(m, "m_string_int32");
      CHECK(pbdyn_msg_array_size(msg, mf) == 3); /* entries, in arrival order */
      pbdyn_value key = {.str = {"a", 1}}, val;
      CHECK(pbdyn_msg_map_get(msg, mf, key, &val) && val.i32 == 3); /* last wins */
      key.str = (pbdyn_str){"b", 1};
      CHECK(pbdyn_msg_map_get(msg, mf, key, &val) && val.i32 == 2);
      key.str = (pbdyn_str){"c", 1};
      CHECK(!pbdyn_msg_map_get(msg, mf, key, &val));
      pbdyn_str u = pbdyn_msg_unknown(msg);
      CHECK(str_eq(u, "\xa0\x1f\x07", 3));
      pbdyn_str hi = pbdyn_msg_get(msg, F(m, "i_string")).str;
      CHECK(str_eq(hi, "hi", 2));
      bool inside = hi.data >= wire && hi.data < wire + n;
      CHECK(inside == (alias == 1));
      /* the re-encoded map has the two surviving entries */
      char *enc;
      size_t en;
      CHECK(pbdyn_encode(msg, m, a, &enc, &en) == PBDYN_OK);
      pbdyn_msg *back = pbdyn_msg_new(m, a);
      CHECK(pbdyn_decode(enc, en, back, m, a, NULL) == PBDYN_OK);
      CHECK(pbdyn_msg_array_size(back, mf) == 2);
    }
  }
  CHECK(pbdyn_arena_used(a) > 0);
  pbdyn_arena_reset(a);
  CHECK(pbdyn_arena_used(a) == 0);
  void *p = pbdyn_arena_alloc(a, 3);
  CHECK(p != NULL && ((uintptr_t)p & 7) == 0 && pbdyn_arena_used(a) == 8);
  pbdyn_arena_free(a);
  pbdyn_arena_free(NULL);
}

static void test_errors(void) {
  pbdyn_schema *s = NULL;
  CHECK(pbdyn_schema_load("\x0a\x05\x0a\x01", 4, &s) == PBDYN_ERR_SCHEMA && s == NULL);
  /* a file whose field names a type that does not exist */
  static const char bad_ref[] = /* file "a.p" { message M { optional .Nope.X f = 1; } } */
      "\x0a\x1e\x0a\x03\x61\x2e\x70\x22\x17\x0a\x01\x4d\x12\x12\x0a\x01\x66\x18\x01"
      "\x20\x01\x28\x0b\x32\x07\x2e\x4e\x6f\x70\x65\x2e\x58";
  CHECK(pbdyn_schema_load(bad_ref, sizeof bad_ref - 1, &s) == PBDYN_ERR_SCHEMA);
  CHECK(pbdyn_schema_load("", 0, &s) == PBDYN_OK && pbdyn_schema_msg_count(s) == 0);
  pbdyn_schema_free(s);
  CHECK(strcmp(pbdyn_status_str(PBDYN_ERR_UTF8), "invalid UTF-8 in a string field") == 0);
  CHECK(strcmp(pbdyn_status_str(PBDYN_OK), "ok") == 0);
  CHECK(strcmp(pbdyn_status_str(PBDYN_ERR_JSON), "a value with no JSON form") == 0);
  CHECK(pbdyn_utf8_valid("h\xc3\xa9llo \xf0\x9f\x98\x80", 11));
  CHECK(!pbdyn_utf8_valid("\xc0\x80", 2));         /* overlong */
  CHECK(!pbdyn_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
  CHECK(!pbdyn_utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
  CHECK(!pbdyn_utf8_valid("abc\xe2\x82", 5));      /* truncated */
  CHECK(pbdyn_utf8_valid("", 0));
  const char *k = pbdyn_decode_fast_kind();
  CHECK(strcmp(k, "musttail") == 0 || strcmp(k, "trampoline") == 0);
  const char *packed = pbdyn_decode_packed_kind();
  CHECK(strcmp(packed, "avx512") == 0 || strcmp(packed, "avx2") == 0 ||
        strcmp(packed, "portable") == 0);
}

/* The offset a failed decode reports: the tag of the innermost field at
 * fault, the same for every decoder, in the caller's buffer even after the
 * decoder moved to its end-of-buffer patch. */
static void test_error_offsets(const pbdyn_schema *s) {
  static const struct {
    const char *type, *wire;
    size_t len;
    pbdyn_status st;
    size_t at;
  } cases[] = {
      {"allkinds3.Item", "\x0a\x05\x0a\x03" "ab", 6, PBDYN_ERR_LENGTH, 0},
      {"allkinds3.Item", "\x1a\x04\x0a\x03" "ab", 6, PBDYN_ERR_LENGTH, 2},    /* nested */
      {"allkinds3.All", "\x08\x01\x10\xff", 4, PBDYN_ERR_TRUNCATED, 2},
      {"allkinds3.Item", "\x1a\x02\x0f\x00", 4, PBDYN_ERR_WIRE_TYPE, 2},
      {"allkinds3.Item", "\x1a\x04\x0a\x02\xc0\x80", 6, PBDYN_ERR_UTF8, 2},
      {"allkinds3.Item", "\x0b\x10\x01", 3, PBDYN_ERR_GROUP, 1}, /* no end-group */
      {"allkinds3.Item", "\x0b", 1, PBDYN_ERR_GROUP, 0},
      {"allkinds3.Item", "\x10\x01\x0c", 3, PBDYN_ERR_GROUP, 2}, /* end-group, no group */
      {"allkinds3.Item", "\x10\x01\x00\x00", 4, PBDYN_ERR_FIELD_NUMBER, 2},
      {"allkinds3.Item", "\x10\x01\xff\xff\xff\xff\xff\x01", 8, PBDYN_ERR_VARINT, 2},
      /* 32 bytes of key, then a truncated value: found in the patch */
      {"allkinds3.Item", "\x0a\x1e" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" "\x10\xff", 34,
       PBDYN_ERR_TRUNCATED, 32},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const pbdyn_msgdef *m = pbdyn_schema_find(s, cases[i].type);
    for (int dec = PBDYN_DECODER_FAST; dec <= PBDYN_DECODER_GENERIC; dec++) {
      pbdyn_arena *a = pbdyn_arena_new(0);
      size_t at = 12345;
      pbdyn_decode_opts o = {0, (pbdyn_decoder)dec, 0, &at};
      CHECK(pbdyn_decode(cases[i].wire, cases[i].len, pbdyn_msg_new(m, a), m, a, &o) ==
            cases[i].st);
      CHECK(at == cases[i].at);
      pbdyn_arena_free(a);
    }
  }
  /* no byte at fault: a missing required field */
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds2.Leaf");
  pbdyn_arena *a = pbdyn_arena_new(0);
  size_t at = 12345;
  pbdyn_decode_opts o = {PBDYN_DECODE_CHECK_REQUIRED, PBDYN_DECODER_FAST, 0, &at};
  CHECK(pbdyn_decode("", 0, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_REQUIRED);
  CHECK(at == PBDYN_NO_OFFSET);
  /* success and argument errors leave it alone */
  at = 12345;
  o.flags = 0;
  CHECK(pbdyn_decode("", 0, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_OK && at == 12345);
  o.max_depth = -1;
  CHECK(pbdyn_decode("", 0, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_ARG && at == 12345);
  pbdyn_arena_free(a);
}

/* Enum values by number and by name, aliases resolving to the first name. */
static void test_enum_names(const pbdyn_schema *s) {
  const pbdyn_enumdef *e = pbdyn_schema_find_enum(s, "allkinds3.Mood");
  int32_t v = 99;
  CHECK(strcmp(pbdyn_enumdef_value_name(e, 2), "SAD") == 0);
  CHECK(strcmp(pbdyn_enumdef_value_name(e, -1), "MINUS") == 0);
  CHECK(pbdyn_enumdef_value_name(e, 3) == NULL);
  CHECK(pbdyn_enumdef_value_by_name(e, "HAPPY", &v) == PBDYN_OK && v == 1);
  CHECK(pbdyn_enumdef_value_by_name(e, "happy", &v) == PBDYN_ERR_NOT_FOUND && v == 1);
  CHECK(pbdyn_enumdef_value_count(e) == 4);
  const char *name;
  CHECK(pbdyn_enumdef_value(e, 3, &name, &v) == PBDYN_OK && !strcmp(name, "MINUS") && v == -1);
  CHECK(pbdyn_enumdef_value(e, 4, &name, &v) == PBDYN_ERR_ARG);
}

/* Every function that returns a status refuses a NULL pointer argument with
 * PBDYN_ERR_ARG and writes nothing; a NULL buffer of size 0 is an empty one. */
static void test_null_arguments(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  const pbdyn_fielddef *f = F(m, "o_int32"), *r = F(m, "r_int32");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_value v = {.i32 = 7};
  pbdyn_schema *untouched = (pbdyn_schema *)&checks;
  CHECK(pbdyn_schema_load("", 0, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_schema_load(NULL, 1, &untouched) == PBDYN_ERR_ARG);
  CHECK(untouched == (pbdyn_schema *)&checks);
  CHECK(pbdyn_schema_load(NULL, 0, &untouched) == PBDYN_OK);
  pbdyn_schema_free(untouched);
  CHECK(pbdyn_msg_set(NULL, f, v) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_set(msg, NULL, v) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append(NULL, r, v, a) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append(msg, NULL, v, a) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_array_append(msg, r, v, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_clear(NULL, f) == PBDYN_ERR_ARG);
  CHECK(pbdyn_msg_clear(msg, NULL) == PBDYN_ERR_ARG);
  CHECK(!pbdyn_msg_has(msg, f) && pbdyn_msg_array_size(msg, r) == 0);
  const char wire[] = "\xa8\x01\x07"; /* o_int32 (21): 7 */
  CHECK(pbdyn_decode(wire, 3, NULL, m, a, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_decode(wire, 3, msg, m, NULL, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_decode(NULL, 2, msg, m, a, NULL) == PBDYN_ERR_ARG);
  CHECK(!pbdyn_msg_has(msg, f));
  CHECK(pbdyn_decode(NULL, 0, msg, m, a, NULL) == PBDYN_OK);
  CHECK(pbdyn_decode(wire, 3, msg, m, a, NULL) == PBDYN_OK);
  typedef pbdyn_status writer(const pbdyn_msg *, const pbdyn_msgdef *, pbdyn_arena *, char **,
                              size_t *);
  writer *const writers[] = {pbdyn_encode, pbdyn_dump, pbdyn_text_encode};
  char *out = NULL;
  size_t n = 12345;
  for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
    CHECK(writers[i](NULL, m, a, &out, &n) == PBDYN_ERR_ARG);
    CHECK(writers[i](msg, m, NULL, &out, &n) == PBDYN_ERR_ARG);
    CHECK(writers[i](msg, m, a, NULL, &n) == PBDYN_ERR_ARG);
    CHECK(writers[i](msg, m, a, &out, NULL) == PBDYN_ERR_ARG);
    CHECK(out == NULL && n == 12345);
  }
  CHECK(pbdyn_json_encode(NULL, m, a, &out, &n, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_json_encode(msg, m, NULL, &out, &n, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_json_encode(msg, m, a, NULL, &n, NULL) == PBDYN_ERR_ARG);
  CHECK(pbdyn_json_encode(msg, m, a, &out, NULL, NULL) == PBDYN_ERR_ARG);
  CHECK(out == NULL && n == 12345);
  CHECK(pbdyn_json_encode(msg, m, a, &out, &n, NULL) == PBDYN_OK);
  CHECK(strcmp(out, "{\"oInt32\":7}") == 0);
  pbdyn_arena_free(a);
  pbdyn_arena_free(NULL);
}

/* `levels` All messages, each the i_child (field 18) of the one around it. */
static unsigned char *nested(int levels, size_t *len) {
  size_t cap = (size_t)levels * 7 + 1;
  unsigned char *buf = malloc(cap), *p = buf + cap;
  *len = 0;
  for (int i = 0; i < levels; i++) {
    unsigned char v[5];
    int k = 0;
    size_t x = *len;
    do {
      v[k++] = (unsigned char)((x & 127) | (x > 127 ? 128 : 0));
      x >>= 7;
    } while (x);
    p -= k;
    memcpy(p, v, (size_t)k);
    *--p = 0x01; /* the tag of field 18, length-delimited: 146 as a varint */
    *--p = 0x92;
    *len = (size_t)(buf + cap - p);
  }
  memmove(buf, p, *len);
  return buf;
}

static void *depth_limit(void *schema) {
  const pbdyn_msgdef *m = pbdyn_schema_find(schema, "allkinds3.All");
  size_t n;
  unsigned char *deep = nested(PBDYN_MAX_DEPTH, &n);
  for (int dec = PBDYN_DECODER_FAST; dec <= PBDYN_DECODER_GENERIC; dec++) {
    pbdyn_arena *a = pbdyn_arena_new(0);
    pbdyn_decode_opts o = {0, (pbdyn_decoder)dec, 0};
    CHECK(pbdyn_decode(deep, n, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_DEPTH); /* 100 */
    o.max_depth = PBDYN_MAX_DEPTH;
    pbdyn_msg *msg = pbdyn_msg_new(m, a);
    CHECK(pbdyn_decode(deep, n, msg, m, a, &o) == PBDYN_OK);
    if (dec == PBDYN_DECODER_FAST) { /* the JSON printer's limit counts the same levels */
      char *json;
      size_t len;
      pbdyn_json_opts jo = {0, PBDYN_MAX_DEPTH};
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, &jo) == PBDYN_OK);
      CHECK(len == (size_t)PBDYN_MAX_DEPTH * 11 + 2); /* {"iChild":...{}...} */
      jo.max_depth = PBDYN_MAX_DEPTH - 1;
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, &jo) == PBDYN_ERR_DEPTH);
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, NULL) == PBDYN_ERR_DEPTH); /* 100 */
      jo.max_depth = PBDYN_MAX_DEPTH + 1;
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, &jo) == PBDYN_ERR_ARG);
      jo.max_depth = -1;
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, &jo) == PBDYN_ERR_ARG);
      /* and the parsers' limits too: that JSON, and as deep a text */
      jo.max_depth = PBDYN_MAX_DEPTH;
      CHECK(pbdyn_json_encode(msg, m, a, &json, &len, &jo) == PBDYN_OK);
      pbdyn_parse_opts po = {0, PBDYN_MAX_DEPTH, NULL};
      CHECK(pbdyn_json_decode(json, len, pbdyn_msg_new(m, a), m, a, &po) == PBDYN_OK);
      size_t tn = (size_t)PBDYN_MAX_DEPTH * 10;
      char *text = malloc(tn);
      CHECK(text != NULL);
      for (size_t i = 0; i < PBDYN_MAX_DEPTH; i++) {
        memcpy(text + i * 9, "i_child {", 9);
        text[(size_t)PBDYN_MAX_DEPTH * 9 + i] = '}';
      }
      CHECK(pbdyn_text_decode(text, tn, pbdyn_msg_new(m, a), m, a, &po) == PBDYN_OK);
      po.max_depth = PBDYN_MAX_DEPTH - 1;
      CHECK(pbdyn_json_decode(json, len, pbdyn_msg_new(m, a), m, a, &po) == PBDYN_ERR_DEPTH);
      CHECK(pbdyn_text_decode(text, tn, pbdyn_msg_new(m, a), m, a, &po) == PBDYN_ERR_DEPTH);
      free(text);
    }
    o.max_depth = PBDYN_MAX_DEPTH - 1;
    CHECK(pbdyn_decode(deep, n, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_DEPTH);
    /* past what the stack holds, or negative: refused, not clamped or defaulted */
    o.max_depth = PBDYN_MAX_DEPTH + 1;
    CHECK(pbdyn_decode(deep, n, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_ARG);
    o.max_depth = -1;
    CHECK(pbdyn_decode(deep, n, pbdyn_msg_new(m, a), m, a, &o) == PBDYN_ERR_ARG);
    pbdyn_arena_free(a);
  }
  free(deep);
  return NULL;
}

/* The text parser's contract: arguments checked before anything is written,
 * strings copied (the text may go), the error's offset, line and column. */
static void test_text_decode(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_parse_error e = {0, 0, 0};
  pbdyn_parse_opts o = {0, 0, &e};
  CHECK(pbdyn_text_decode(NULL, 1, msg, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(pbdyn_text_decode("", 0, NULL, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(pbdyn_text_decode("", 0, msg, m, NULL, &o) == PBDYN_ERR_ARG);
  CHECK(pbdyn_text_decode("", 0, msg, pbdyn_schema_find(s, "allkinds3.Item"), a, &o) ==
        PBDYN_ERR_ARG);
  o.max_depth = -1;
  CHECK(pbdyn_text_decode("", 0, msg, m, a, &o) == PBDYN_ERR_ARG);
  o.max_depth = PBDYN_MAX_DEPTH + 1;
  CHECK(pbdyn_text_decode("", 0, msg, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(e.offset == 0 && e.line == 0); /* nothing written on PBDYN_ERR_ARG */
  o.max_depth = 0;
  CHECK(pbdyn_text_decode(NULL, 0, msg, NULL, a, NULL) == PBDYN_OK);

  static const char good[] = "i_string: 'ab' \"c\"  # a comment\nr_int32: [1, -2]\n";
  char *text = malloc(sizeof good);
  CHECK(text != NULL);
  memcpy(text, good, sizeof good);
  CHECK(pbdyn_text_decode(text, sizeof good - 1, msg, NULL, a, &o) == PBDYN_OK);
  memset(text, 'x', sizeof good);
  free(text);
  pbdyn_str str;
  int32_t r;
  CHECK(pbdyn_msg_get_str(msg, F(m, "i_string"), &str) == PBDYN_OK);
  CHECK(str.size == 3 && memcmp(str.data, "abc", 3) == 0);
  CHECK(pbdyn_msg_array_get_int32(msg, F(m, "r_int32"), 1, &r) == PBDYN_OK && r == -2);

  static const char bad[] = "i_int32: 1\ni_item {\n  key: 7\n}\n";
  CHECK(pbdyn_text_decode(bad, sizeof bad - 1, pbdyn_msg_new(m, a), m, a, &o) ==
        PBDYN_ERR_SYNTAX);
  CHECK(e.offset == 27 && e.line == 3 && e.column == 8);
  CHECK(strcmp(pbdyn_status_str(PBDYN_ERR_SYNTAX), "malformed text or JSON") == 0);
  pbdyn_arena_free(a);
}

/* The JSON parser's contract, as the text parser's. */
static void test_json_decode(const pbdyn_schema *s) {
  const pbdyn_msgdef *m = pbdyn_schema_find(s, "allkinds3.All");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_parse_error e = {0, 0, 0};
  pbdyn_parse_opts o = {0, 0, &e};
  CHECK(pbdyn_json_decode(NULL, 1, msg, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(pbdyn_json_decode("{}", 2, NULL, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(pbdyn_json_decode("{}", 2, msg, pbdyn_schema_find(s, "allkinds3.Item"), a, &o) ==
        PBDYN_ERR_ARG);
  o.max_depth = PBDYN_MAX_DEPTH + 1;
  CHECK(pbdyn_json_decode("{}", 2, msg, m, a, &o) == PBDYN_ERR_ARG);
  CHECK(e.offset == 0 && e.line == 0); /* nothing written on PBDYN_ERR_ARG */
  o.max_depth = 0;
  CHECK(pbdyn_json_decode(NULL, 0, msg, m, a, &o) == PBDYN_ERR_SYNTAX); /* no value */
  static const char good[] = "{\"iString\": \"ab\", \"r_int32\": [1, \"-2\"], \"x\": 0}";
  CHECK(pbdyn_json_decode(good, sizeof good - 1, msg, NULL, a, &o) == PBDYN_ERR_NOT_FOUND);
  CHECK(e.offset == 40 && e.line == 1 && e.column == 41);
  o.flags = PBDYN_PARSE_IGNORE_UNKNOWN;
  msg = pbdyn_msg_new(m, a);
  CHECK(pbdyn_json_decode(good, sizeof good - 1, msg, NULL, a, &o) == PBDYN_OK);
  pbdyn_str str;
  int32_t r;
  CHECK(pbdyn_msg_get_str(msg, F(m, "i_string"), &str) == PBDYN_OK);
  CHECK(str.size == 2 && memcmp(str.data, "ab", 2) == 0);
  CHECK(pbdyn_msg_array_get_int32(msg, F(m, "r_int32"), 1, &r) == PBDYN_OK && r == -2);
  pbdyn_arena_free(a);
}

/* On a thread of its own: the switch decoder under AddressSanitizer takes up to
 * ~8 KB a level, past the main thread's usual 8 MiB at PBDYN_MAX_DEPTH. */
static void test_depth_limit(const pbdyn_schema *s) {
  pthread_attr_t attr;
  pthread_t t;
  CHECK(pthread_attr_init(&attr) == 0);
  CHECK(pthread_attr_setstacksize(&attr, (size_t)64 << 20) == 0);
  CHECK(pthread_create(&t, &attr, depth_limit, (void *)s) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  pthread_attr_destroy(&attr);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: pbdyn_api_test ALLKINDS.pb\n");
    return 2;
  }
  size_t n;
  char *buf = read_file(argv[1], &n);
  if (!buf) return 2;
  pbdyn_schema *s;
  CHECK(pbdyn_schema_load(buf, n, &s) == PBDYN_OK);
  free(buf); /* the schema keeps its own copy */
  test_introspection(s);
  test_accessors(s);
  test_maps_unknown_alias(s);
  test_depth_limit(s);
  test_errors();
  test_null_arguments(s);
  test_error_offsets(s);
  test_message_types(s);
  test_typed_accessors(s);
  test_wrong_fields(s);
  test_map_api(s);
  test_map_delete(s);
  test_enum_names(s);
  test_text_decode(s);
  test_json_decode(s);
  pbdyn_schema_free(s);
  printf("ok %d checks (%s)\n", checks, pbdyn_decode_fast_kind());
  return 0;
}
