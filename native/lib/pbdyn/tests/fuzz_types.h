/* The setup the libFuzzer targets share (fuzz_decode.c, fuzz_text.c,
 * fuzz_json.c): the schema and the message types named by the environment,
 * PBDYN_FUZZ_SCHEMA (a descriptor set file) and PBDYN_FUZZ_TYPES (full
 * names, comma-separated), and PBDYN_FUZZ_SABOTAGE=1, which makes a
 * harness corrupt what it checks (the test that proves its checks fire,
 * run on the same build as the fuzzing). A harness includes it once. */
#ifndef PBDYN_FUZZ_TYPES_H
#define PBDYN_FUZZ_TYPES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"
#include "read_file.h"

#define MAX_TYPES 64

static pbdyn_schema *schema;
static const pbdyn_msgdef *types[MAX_TYPES];
static int ntypes;
static bool fuzz_sabotage;

/* Load the schema and the types, or exit naming `harness` (a harness's
 * setup, before any input: not library code). */
static void fuzz_load_types(const char *harness) {
  const char *path = getenv("PBDYN_FUZZ_SCHEMA"), *names = getenv("PBDYN_FUZZ_TYPES");
  size_t n;
  char *buf = path ? read_file(path, &n) : NULL;
  if (!buf || !names || pbdyn_schema_load(buf, n, &schema) != PBDYN_OK) {
    fprintf(stderr, "%s: set PBDYN_FUZZ_SCHEMA (a descriptor set) and PBDYN_FUZZ_TYPES\n",
            harness);
    exit(2);
  }
  free(buf);
  char *list = strdup(names);
  for (char *t = strtok(list, ","); t && ntypes < MAX_TYPES; t = strtok(NULL, ",")) {
    types[ntypes] = pbdyn_schema_find(schema, t);
    if (!types[ntypes]) {
      fprintf(stderr, "%s: no type %s\n", harness, t);
      exit(2);
    }
    ntypes++;
  }
  free(list);
  const char *sabotage = getenv("PBDYN_FUZZ_SABOTAGE");
  fuzz_sabotage = sabotage && !strcmp(sabotage, "1");
}

#endif /* PBDYN_FUZZ_TYPES_H */
