/* The inputs both protobuf kernels (pb_bench.c, pb_print.c) read: the
 * manifest (`schema FILE`, then `payload NAME TYPE FILE` lines, paths relative
 * to the manifest) and the files it names, whole. A kernel includes it once. */
#ifndef BENCH_MANIFEST_H
#define BENCH_MANIFEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulab_harness.h"

#define MAX_PAYLOADS 16

typedef struct payload {
  char name[64], type[256];
  char *data;
  size_t size;
} payload;

static char *schema;
static size_t schema_len;
static payload payloads[MAX_PAYLOADS];
static int npayloads;

static char *slurp(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) clh_usage_error("cannot open %s", path);
  fseek(fp, 0, SEEK_END);
  long sz = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *buf = malloc((size_t)sz + 1);
  if (!buf || fread(buf, 1, (size_t)sz, fp) != (size_t)sz) clh_fail("cannot read %s", path);
  fclose(fp);
  *n = (size_t)sz;
  return buf;
}

static void read_manifest(const char *path) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) slash[1] = 0;
  else strcpy(dir, "./");
  FILE *fp = fopen(path, "r");
  if (!fp) clh_usage_error("manifest %s: cannot open", path);
  char line[1024], file[768], full[2048];
  while (fgets(line, sizeof line, fp)) {
    payload *p = &payloads[npayloads];
    if (sscanf(line, "schema %767s", file) == 1) {
      snprintf(full, sizeof full, "%s%s", file[0] == '/' ? "" : dir, file);
      schema = slurp(full, &schema_len);
    } else if (sscanf(line, "payload %63s %255s %767s", p->name, p->type, file) == 3) {
      if (npayloads == MAX_PAYLOADS) clh_usage_error("manifest: more than %d payloads", MAX_PAYLOADS);
      snprintf(full, sizeof full, "%s%s", file[0] == '/' ? "" : dir, file);
      p->data = slurp(full, &p->size);
      npayloads++;
    }
  }
  fclose(fp);
  if (!schema || !npayloads) clh_usage_error("manifest %s: needs a schema and payloads", path);
}

/* word is an item of the comma-separated list (payloads=A,B, formats=...). */
static int in_list(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
  return 0;
}

#endif /* BENCH_MANIFEST_H */
