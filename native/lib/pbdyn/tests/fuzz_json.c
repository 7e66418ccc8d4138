/* libFuzzer target: the JSON parser (pbdyn_json_decode) on any bytes, under
 * ASan and UBSan, with fuzz_parse.h's checks: a refusal at a position that
 * agrees with itself, a parse that prints (pbdyn_json_encode: whatever the
 * parser builds has a JSON form), parses again and prints the same, an
 * encoding that decodes to the same JSON.
 *
 * Environment: as fuzz_decode.c (PBDYN_FUZZ_SCHEMA, PBDYN_FUZZ_TYPES). Input
 * byte 0 chooses the type (low 6 bits, modulo the count) and the options
 * (bit 6: PBDYN_PARSE_IGNORE_UNKNOWN); the rest is the JSON.
 *
 * Build: clang with -fsanitize=fuzzer,address,undefined, by CMake's sanitizer
 * tree (cpulab_add_fuzz_test), run by ctest and tests/test_lib_pbdyn_fuzz.py;
 * PBDYN_FUZZ_SABOTAGE=1 in the environment: the run whose checks must fire.
 */
#include "fuzz_types.h"
#include "fuzz_parse.h"

static pbdyn_status print_json(const pbdyn_msg *msg, pbdyn_arena *a, char **out, size_t *n) {
  return pbdyn_json_encode(msg, NULL, a, out, n, NULL);
}

static bool json_refusal(pbdyn_status st) {
  return st == PBDYN_ERR_SYNTAX || st == PBDYN_ERR_NOT_FOUND || st == PBDYN_ERR_UTF8 ||
         st == PBDYN_ERR_DEPTH;
}

static const fuzz_format json = {"fuzz_json", "JSON", pbdyn_json_decode, print_json,
                                 json_refusal, PBDYN_PARSE_IGNORE_UNKNOWN};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_types("fuzz_json");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_parse_input(&json, data, size);
}
