/* libFuzzer target: the text-format parser (pbdyn_text_decode) on any bytes,
 * under ASan and UBSan.
 *
 * Environment: as fuzz_decode.c (PBDYN_FUZZ_SCHEMA, PBDYN_FUZZ_TYPES). Input
 * byte 0 chooses the type (modulo the count); the rest is the text.
 *
 * Checks (any failure aborts, which libFuzzer reports as a crash):
 *  - a refusal is one of the parser's statuses, at an offset inside the
 *    input with a line and column that agree with it;
 *  - a parsed message prints (pbdyn_text_encode) as text that parses again
 *    and prints the same: printer and parser agree;
 *  - its encoding decodes (generic decoder) to a message that prints the
 *    same text: what the parser builds is a well-formed message;
 *  - nothing reads out of bounds (the text is a copy of exactly its size).
 *
 * Build: clang-19 -fsanitize=fuzzer,address,undefined (tests/test_lib_pbdyn_fuzz.py).
 * -DPBDYN_FUZZ_SABOTAGE=1 changes a digit of the printed text as it is
 * parsed again: the test that proves the checks fire.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"
#include "fuzz_types.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_load_types("fuzz_text");
  return 0;
}

static void check(bool ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "fuzz_text: %s\n", what);
    abort();
  }
}

/* The text of a message (arena). */
static char *print(const pbdyn_msg *msg, pbdyn_arena *a, size_t *n) {
  char *text;
  check(pbdyn_text_encode(msg, NULL, a, &text, n) == PBDYN_OK, "print failed");
  return text;
}

static void check_refusal(pbdyn_status st, const pbdyn_parse_error *e, const char *text,
                          size_t n) {
  check(st == PBDYN_ERR_SYNTAX || st == PBDYN_ERR_NOT_FOUND || st == PBDYN_ERR_UTF8 ||
            st == PBDYN_ERR_FIELD_NUMBER || st == PBDYN_ERR_DEPTH,
        "unexpected status");
  check(e->offset <= n, "error offset past the input");
  uint32_t line = 1, column = 1;
  for (size_t i = 0; i < e->offset; i++) {
    if (text[i] == '\n') line++, column = 1;
    else column++;
  }
  check(e->line == line && e->column == column, "line and column disagree with the offset");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const pbdyn_msgdef *m = types[data[0] % ntypes];
  size_t n = size - 1;
  char *text = malloc(n ? n : 1); /* no slop after it, so ASan sees any overread */
  memcpy(text, data + 1, n);
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_parse_error e = {0, 0, 0};
  pbdyn_parse_opts o = {0, 0, &e};
  pbdyn_status st = pbdyn_text_decode(text, n, msg, m, a, &o);
  if (st != PBDYN_OK) {
    check_refusal(st, &e, text, n);
  } else {
    size_t n1, n2, n3, en;
    char *t1 = print(msg, a, &n1), *enc, *reread = malloc(n1 ? n1 : 1);
    memcpy(reread, t1, n1);
#ifdef PBDYN_FUZZ_SABOTAGE
    for (size_t i = 0; i < n1; i++) {
      if (reread[i] >= '1' && reread[i] <= '8') {
        reread[i]++;
        break;
      }
    }
#endif
    pbdyn_msg *again = pbdyn_msg_new(m, a);
    check(pbdyn_text_decode(reread, n1, again, m, a, NULL) == PBDYN_OK, "printed text refused");
    free(reread);
    char *t2 = print(again, a, &n2);
    check(n2 == n1 && !memcmp(t1, t2, n1), "printed text differs after a parse");
    check(pbdyn_encode(msg, m, a, &enc, &en) == PBDYN_OK, "encode failed");
    char *copy = malloc(en ? en : 1);
    memcpy(copy, enc, en);
    pbdyn_msg *decoded = pbdyn_msg_new(m, a);
    pbdyn_decode_opts d = {0, PBDYN_DECODER_GENERIC, 0, NULL};
    check(pbdyn_decode(copy, en, decoded, m, a, &d) == PBDYN_OK, "encoding does not decode");
    char *t3 = print(decoded, a, &n3);
    check(n3 == n1 && !memcmp(t1, t3, n1), "decoded encoding prints other text");
    free(copy);
  }
  pbdyn_arena_free(a);
  free(text);
  return 0;
}
