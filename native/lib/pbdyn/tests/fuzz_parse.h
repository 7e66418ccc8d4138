/* The body the parser fuzz targets share (fuzz_text.c, fuzz_json.c): a
 * target names its format (fuzz_format) and calls fuzz_parse_input from
 * LLVMFuzzerTestOneInput. Byte 0 of an input chooses the type (modulo the
 * count; its low 6 bits where bit 6 chooses an option); the rest is parsed.
 *
 * Checks (any failure aborts, which libFuzzer reports as a crash):
 *  - a refusal is one of the format's statuses, at an offset inside the
 *    input with a line and column that agree with it;
 *  - a parsed message prints (whatever the parser builds has a printed
 *    form), and that parses again and prints the same: printer and parser
 *    agree;
 *  - its encoding decodes (generic decoder) to a message that prints the
 *    same: what the parser builds is a well-formed message;
 *  - nothing reads out of bounds (the input is a copy of exactly its size).
 *
 * PBDYN_FUZZ_SABOTAGE=1 in the environment changes a digit of the printed
 * form as it is parsed again: the test that proves the checks fire. A
 * target includes it once, after fuzz_types.h. */
#ifndef PBDYN_FUZZ_PARSE_H
#define PBDYN_FUZZ_PARSE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdyn.h"

typedef struct fuzz_format {
  const char *harness; /* in messages: "fuzz_json" */
  const char *name;    /* "JSON", "text" */
  pbdyn_status (*parse)(const char *in, size_t n, pbdyn_msg *msg, const pbdyn_msgdef *m,
                        pbdyn_arena *a, const pbdyn_parse_opts *opts);
  pbdyn_status (*print)(const pbdyn_msg *msg, pbdyn_arena *a, char **out, size_t *n);
  bool (*refusal)(pbdyn_status st); /* the statuses the parser refuses input with */
  uint32_t bit6_flag;               /* the pbdyn_parse_opts flag bit 6 of byte 0 sets, or 0 */
} fuzz_format;

static void fuzz_check(const fuzz_format *f, bool ok, const char *what, ...) {
  if (ok) return;
  va_list ap;
  va_start(ap, what);
  fprintf(stderr, "%s: ", f->harness);
  vfprintf(stderr, what, ap);
  fputc('\n', stderr);
  va_end(ap);
  abort();
}

/* The printed form of a message (arena). */
static char *fuzz_print(const fuzz_format *f, const pbdyn_msg *msg, pbdyn_arena *a, size_t *n) {
  char *out;
  fuzz_check(f, f->print(msg, a, &out, n) == PBDYN_OK, "parsed message not printable");
  return out;
}

static void fuzz_check_refusal(const fuzz_format *f, pbdyn_status st, const pbdyn_parse_error *e,
                               const char *in, size_t n) {
  fuzz_check(f, f->refusal(st), "unexpected status");
  fuzz_check(f, e->offset <= n, "error offset past the input");
  uint32_t line = 1, column = 1;
  for (size_t i = 0; i < e->offset; i++) {
    if (in[i] == '\n') line++, column = 1;
    else column++;
  }
  fuzz_check(f, e->line == line && e->column == column,
             "line and column disagree with the offset");
}

static int fuzz_parse_input(const fuzz_format *f, const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const pbdyn_msgdef *m = types[(f->bit6_flag ? data[0] & 0x3f : data[0]) % ntypes];
  size_t n = size - 1;
  char *in = malloc(n ? n : 1); /* no slop after it, so ASan sees any overread */
  memcpy(in, data + 1, n);
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(m, a);
  pbdyn_parse_error e = {0, 0, 0};
  pbdyn_parse_opts o = {(data[0] & 0x40) ? f->bit6_flag : 0, 0, &e};
  pbdyn_status st = f->parse(in, n, msg, m, a, &o);
  if (st != PBDYN_OK) {
    fuzz_check_refusal(f, st, &e, in, n);
  } else {
    size_t n1, n2, n3, en;
    char *t1 = fuzz_print(f, msg, a, &n1), *enc, *reread = malloc(n1 ? n1 : 1);
    memcpy(reread, t1, n1);
    for (size_t i = 0; fuzz_sabotage && i < n1; i++) {
      if (reread[i] >= '1' && reread[i] <= '8') {
        reread[i]++;
        break;
      }
    }
    pbdyn_msg *again = pbdyn_msg_new(m, a);
    fuzz_check(f, f->parse(reread, n1, again, m, a, NULL) == PBDYN_OK, "printed %s refused",
               f->name);
    free(reread);
    char *t2 = fuzz_print(f, again, a, &n2);
    fuzz_check(f, n2 == n1 && !memcmp(t1, t2, n1), "printed %s differs after a parse", f->name);
    fuzz_check(f, pbdyn_encode(msg, m, a, &enc, &en) == PBDYN_OK, "encode failed");
    char *copy = malloc(en ? en : 1);
    memcpy(copy, enc, en);
    pbdyn_msg *decoded = pbdyn_msg_new(m, a);
    pbdyn_decode_opts d = {0, PBDYN_DECODER_GENERIC, 0, NULL};
    fuzz_check(f, pbdyn_decode(copy, en, decoded, m, a, &d) == PBDYN_OK,
               "encoding does not decode");
    char *t3 = fuzz_print(f, decoded, a, &n3);
    fuzz_check(f, n3 == n1 && !memcmp(t1, t3, n1), "decoded encoding prints other %s", f->name);
    free(copy);
  }
  pbdyn_arena_free(a);
  free(in);
  return 0;
}

#endif /* PBDYN_FUZZ_PARSE_H */
