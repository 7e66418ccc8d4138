/* libFuzzer target: the three decoders against each other, under ASan and
 * UBSan.
 *
 * Environment: PBDYN_FUZZ_SCHEMA, a descriptor set file; PBDYN_FUZZ_TYPES, the
 * comma-separated message types to decode. Input byte 0 chooses the type
 * (low 6 bits) and the options (bit 6: alias strings; bit 7: decode as a
 * descriptor set, then decode the rest with the schema it yields); the
 * remaining bytes are the message.
 *
 * Checks (any failure aborts, which libFuzzer reports as a crash):
 *  - fast, switch and generic decoders return the same status, and on
 *    success the same canonical dump;
 *  - the fast decoder with each set of packed-run kernels this CPU runs
 *    (portable, AVX2, AVX-512: internal/packed_simd.h) agrees with the
 *    generic decoder too;
 *  - the encoding of the decoded message decodes again (generic decoder)
 *    to the same dump: encode and decode agree;
 *  - nothing reads out of bounds (ASan: the input buffer is exactly the
 *    size libFuzzer gives, with no slop after it).
 *
 * Build: clang with -fsanitize=fuzzer,address,undefined, by CMake's sanitizer
 * tree (CPULAB_SANITIZE=ON: cpulab_add_fuzz_test), whose binary ctest and
 * tests/test_lib_pbdyn_fuzz.py both run; the test builds the one over the
 * library without musttail (PBDYN_TAILCALL=0) itself.
 * PBDYN_FUZZ_SABOTAGE=1 in the environment feeds the fast decoder a
 * corrupted copy of each input (its last byte changed): the test that
 * proves the checks fire.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"
#include "fuzz_types.h"

/* internal/packed_simd.h's switch: -1 auto, 0 portable, 1 AVX2, 2 AVX-512. */
bool pbdyn__packed_isa_force(int isa);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_types("fuzz_decode");
  return 0;
}

/* Decode with one decoder; on success, the dump in *dump (arena). */
static pbdyn_status run(const pbdyn_msgdef *m, const char *buf, size_t n, pbdyn_decoder dec,
                        uint32_t flags, pbdyn_arena *a, char **dump, size_t *dn, pbdyn_msg **out) {
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  if (!msg) abort();
  pbdyn_decode_opts o = {flags, dec, 0};
  pbdyn_status st = pbdyn_decode(buf, n, msg, m, a, &o);
  *out = msg;
  if (st == PBDYN_OK && pbdyn_dump(msg, m, a, dump, dn) != PBDYN_OK) abort();
  return st;
}

static void check_decoders(const pbdyn_msgdef *m, const char *buf, size_t n, uint32_t flags) {
  pbdyn_arena *a = pbdyn_arena_new(0);
  char *dump[3] = {0};
  size_t dn[3] = {0};
  pbdyn_msg *msg[3];
  pbdyn_status st[3];
  char *bad = NULL;
  if (fuzz_sabotage) {
    bad = malloc(n ? n : 1);
    memcpy(bad, buf, n);
    if (n) bad[n - 1] ^= 1;
  }
  for (int dec = 0; dec < 3; dec++)
    st[dec] = run(m, dec == 0 && bad ? bad : buf, n, (pbdyn_decoder)dec, flags, a, &dump[dec],
                  &dn[dec], &msg[dec]);
  for (int dec = 1; dec < 3; dec++) {
    if (st[dec] != st[0]) {
      fprintf(stderr, "status differs: fast %s, %s %s\n", pbdyn_status_str(st[0]),
              dec == 1 ? "switch" : "generic", pbdyn_status_str(st[dec]));
      abort();
    }
    if (st[0] == PBDYN_OK && (dn[dec] != dn[0] || memcmp(dump[dec], dump[0], dn[0]))) {
      fprintf(stderr, "dump differs:\n--- fast\n%s--- %s\n%s", dump[0],
              dec == 1 ? "switch" : "generic", dump[dec]);
      abort();
    }
  }
  for (int isa = 0; isa <= 2; isa++) {
    if (!pbdyn__packed_isa_force(isa)) continue;
    char *d;
    size_t dl = 0;
    pbdyn_msg *mi;
    pbdyn_status sti = run(m, buf, n, PBDYN_DECODER_FAST, flags, a, &d, &dl, &mi);
    pbdyn__packed_isa_force(-1);
    if (sti != st[2] || (sti == PBDYN_OK && (dl != dn[2] || memcmp(d, dump[2], dl)))) {
      fprintf(stderr, "packed kernels %d: fast decoder differs from generic (%s, %s)\n", isa,
              pbdyn_status_str(sti), pbdyn_status_str(st[2]));
      abort();
    }
  }
  if (st[0] == PBDYN_OK) {
    char *enc, *d2;
    size_t en, d2n;
    if (pbdyn_encode(msg[0], m, a, &enc, &en) != PBDYN_OK) abort();
    /* a copy with no slop after it, so ASan sees any overread */
    char *copy = malloc(en ? en : 1);
    memcpy(copy, enc, en);
    pbdyn_msg *back;
    pbdyn_status st2 = run(m, copy, en, PBDYN_DECODER_GENERIC, 0, a, &d2, &d2n, &back);
    if (st2 != PBDYN_OK || d2n != dn[0] || memcmp(d2, dump[0], dn[0])) {
      fprintf(stderr, "re-encoded message differs (%s)\n", pbdyn_status_str(st2));
      abort();
    }
    free(copy);
  }
  free(bad); /* after the checks: alias-mode strings may point into it */
  pbdyn_arena_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint8_t sel = data[0];
  const char *buf = (const char *)data + 1;
  size_t n = size - 1;
  uint32_t flags = (sel & 0x40) ? PBDYN_DECODE_ALIAS : 0;
  if (sel & 0x80) {
    /* schema loading on untrusted bytes, then a decode with what it yields */
    pbdyn_schema *s;
    if (pbdyn_schema_load(buf, n, &s) == PBDYN_OK) {
      if (pbdyn_schema_msg_count(s) > 0) check_decoders(pbdyn_schema_msg(s, 0), buf, n, flags);
      pbdyn_schema_free(s);
    }
    return 0;
  }
  check_decoders(types[(sel & 0x3f) % ntypes], buf, n, flags);
  return 0;
}
