/* A whole file into a malloc'd buffer (one byte of room past it), for the
 * test programs: NULL where it cannot be opened. Included once per program. */
#ifndef PBDYN_TEST_READ_FILE_H
#define PBDYN_TEST_READ_FILE_H

#include <stdio.h>
#include <stdlib.h>

static char *read_file(const char *path, size_t *n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long sz = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *buf = malloc((size_t)sz + 1);
  *n = fread(buf, 1, (size_t)sz, fp);
  fclose(fp);
  return buf;
}

#endif /* PBDYN_TEST_READ_FILE_H */
