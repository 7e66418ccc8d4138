/* Decode one message N times into a reused arena with a chosen set of
 * packed-run kernels: a program for callgrind, whose counts at two values of
 * N differ by N's share alone (tests/test_lib_pbdyn_packed_simd.py).
 *
 * Usage: packed_decode_loop SCHEMA.pb TYPE MESSAGE.bin N ISA
 *   ISA: 0 portable, 1 AVX2, 2 AVX-512 (internal/packed_simd.h). Exit 0 and
 *   the kernels' name on stdout; 1 if this CPU (or valgrind's) lacks them,
 *   2 on a bad file, schema or message.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal/packed_simd.h"
#include "pbdyn.h"
#include "read_file.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s SCHEMA.pb TYPE MESSAGE.bin N ISA\n", argv[0]);
    return 2;
  }
  if (!pbdyn__packed_isa_force((pbdyn__isa)atoi(argv[5]))) return 1;
  size_t sn, mn;
  char *s = read_file(argv[1], &sn), *buf = read_file(argv[3], &mn);
  pbdyn_schema *schema;
  if (!s || !buf || pbdyn_schema_load(s, sn, &schema) != PBDYN_OK) return 2;
  const pbdyn_msgdef *m = pbdyn_schema_find(schema, argv[2]);
  pbdyn_arena *a = pbdyn_arena_new(0);
  if (!m || !a) return 2;
  for (long i = 0, n = atol(argv[4]); i < n; i++) {
    pbdyn_arena_reset(a);
    pbdyn_msg *msg = pbdyn_msg_new(m, a);
    if (!msg || pbdyn_decode(buf, mn, msg, m, a, NULL) != PBDYN_OK) return 2;
  }
  printf("%s\n", pbdyn_decode_packed_kind());
  pbdyn_arena_free(a);
  pbdyn_schema_free(schema);
  free(s);
  free(buf);
  return 0;
}
