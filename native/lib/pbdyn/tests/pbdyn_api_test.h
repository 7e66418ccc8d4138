/* The API test program's check and helpers, shared by its files
 * (pbdyn_api_test.c, the driver, and the files of its test groups): CHECK
 * counts every check and exits at the first that fails, naming it. */
#ifndef PBDYN_TEST_API_TEST_H
#define PBDYN_TEST_API_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"

extern int checks; /* defined in pbdyn_api_test.c */

#define CHECK(c)                                                      \
  do {                                                                \
    checks++;                                                         \
    if (!(c)) {                                                       \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

/* A field by name, which the test schemas must have. */
static inline const pbdyn_fielddef *F(const pbdyn_msgdef *m, const char *name) {
  const pbdyn_fielddef *f = pbdyn_msgdef_field_by_name(m, name);
  if (!f) {
    fprintf(stderr, "no field %s in %s\n", name, pbdyn_msgdef_name(m));
    exit(1);
  }
  return f;
}

static inline bool str_eq(pbdyn_str s, const char *lit, size_t n) {
  return s.size == n && (n == 0 || memcmp(s.data, lit, n) == 0);
}

/* pbdyn_api_fields.c: message types, typed accessors, fields of another type. */
void test_message_types(const pbdyn_schema *s);
void test_typed_accessors(const pbdyn_schema *s);
void test_wrong_fields(const pbdyn_schema *s);
/* pbdyn_api_maps.c: the map API, deleting keys. */
void test_map_api(const pbdyn_schema *s);
void test_map_delete(const pbdyn_schema *s);

#endif /* PBDYN_TEST_API_TEST_H */
