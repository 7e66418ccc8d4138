/* libFuzzer target: the text-format parser (pbdyn_text_decode) on any bytes,
 * under ASan and UBSan, with fuzz_parse.h's checks: a refusal at a position
 * that agrees with itself, a parse that prints (pbdyn_text_encode), parses
 * again and prints the same, an encoding that decodes to the same text.
 *
 * Environment: as fuzz_decode.c (PBDYN_FUZZ_SCHEMA, PBDYN_FUZZ_TYPES). Input
 * byte 0 chooses the type (modulo the count); the rest is the text.
 *
 * Build: clang with -fsanitize=fuzzer,address,undefined, by CMake's sanitizer
 * tree (cpulab_add_fuzz_test), run by ctest and tests/test_lib_pbdyn_fuzz.py;
 * PBDYN_FUZZ_SABOTAGE=1 in the environment: the run whose checks must fire.
 */
#include "fuzz_types.h"
#include "fuzz_parse.h"

static pbdyn_status print_text(const pbdyn_msg *msg, pbdyn_arena *a, char **out, size_t *n) {
  return pbdyn_text_encode(msg, NULL, a, out, n);
}

static bool text_refusal(pbdyn_status st) {
  return st == PBDYN_ERR_SYNTAX || st == PBDYN_ERR_NOT_FOUND || st == PBDYN_ERR_UTF8 ||
         st == PBDYN_ERR_FIELD_NUMBER || st == PBDYN_ERR_DEPTH;
}

static const fuzz_format text = {"fuzz_text", "text", pbdyn_text_decode, print_text,
                                 text_refusal, 0};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_types("fuzz_text");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_parse_input(&text, data, size);
}
