/* bench_adapter.h over the pbdyn library: compiled into each build of the
 * library that the protobuf kernel measures (clang musttail, gcc
 * trampoline, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_adapter.h"
#include "pbdyn.h"

struct bench_ctx {
  pbdyn_schema *schema;
  const pbdyn_msgdef *m;
  pbdyn_decode_opts opts;
  int reuse;
  pbdyn_arena *arena; /* reused arena, or the last fresh one */
  pbdyn_msg *msg;
  pbdyn_arena *print_arena; /* bench_json's and bench_text's, reset per print */
};

const char *bench_name(void) {
  static char name[96];
#if defined(__clang__)
  snprintf(name, sizeof name, "pbdyn %s clang-%d", pbdyn_decode_fast_kind(), __clang_major__);
#elif defined(__GNUC__)
  snprintf(name, sizeof name, "pbdyn %s gcc-%d", pbdyn_decode_fast_kind(), __GNUC__);
#else
  snprintf(name, sizeof name, "pbdyn %s", pbdyn_decode_fast_kind());
#endif
  return name;
}

static int parse_options(bench_ctx *c, const char *options, char *err, size_t errlen) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", options ? options : "");
  for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
    char *eq = strchr(kv, '=');
    if (!eq) goto bad;
    *eq = 0;
    const char *k = kv, *v = eq + 1;
    if (!strcmp(k, "decoder")) {
      if (!strcmp(v, "fast")) c->opts.decoder = PBDYN_DECODER_FAST;
      else if (!strcmp(v, "switch")) c->opts.decoder = PBDYN_DECODER_SWITCH;
      else if (!strcmp(v, "generic")) c->opts.decoder = PBDYN_DECODER_GENERIC;
      else goto bad;
    } else if (!strcmp(k, "alias")) {
      if (atoi(v)) c->opts.flags |= PBDYN_DECODE_ALIAS;
    } else if (!strcmp(k, "reuse")) {
      c->reuse = atoi(v);
    } else {
      goto bad;
    }
    continue;
  bad:
    snprintf(err, errlen, "bad option '%s'", kv);
    return -1;
  }
  return 0;
}

bench_ctx *bench_open(const char *schema, size_t schema_len, const char *type,
                      const char *options, char *err, size_t errlen) {
  bench_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pbdyn_status st = pbdyn_schema_load(schema, schema_len, &c->schema);
  if (st != PBDYN_OK) {
    snprintf(err, errlen, "schema: %s", pbdyn_status_str(st));
    free(c);
    return NULL;
  }
  c->m = pbdyn_schema_find(c->schema, type);
  if (!c->m || parse_options(c, options, err, errlen)) {
    if (!c->m) snprintf(err, errlen, "no message type %s", type);
    bench_close(c);
    return NULL;
  }
  if (c->reuse) c->arena = pbdyn_arena_new(0);
  return c;
}

int bench_decode(bench_ctx *c, const char *buf, size_t n) {
  if (c->reuse) {
    pbdyn_arena_reset(c->arena);
  } else {
    /* a fresh arena per message, as a caller without reuse would do; the
     * previous one is freed here (its message is the one kept alive) */
    pbdyn_arena_free(c->arena);
    c->arena = pbdyn_arena_new(0);
  }
  c->msg = pbdyn_msg_new(c->m, c->arena);
  return pbdyn_decode(buf, n, c->msg, c->m, c->arena, &c->opts) != PBDYN_OK;
}

uint64_t bench_digest(bench_ctx *c) {
  char *out;
  size_t n;
  if (!c->msg || pbdyn_encode(c->msg, c->m, c->arena, &out, &n) != PBDYN_OK) return 0;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)out[i]) * 1099511628211ull;
  return h ^ ((uint64_t)n << 40);
}

void bench_close(bench_ctx *c) {
  if (!c) return;
  pbdyn_arena_free(c->arena);
  pbdyn_arena_free(c->print_arena);
  pbdyn_schema_free(c->schema);
  free(c);
}

/* Printed into an arena of their own, reset before each print: once warm it
 * keeps its largest block, so a print allocates nothing (as upb's into a kept
 * buffer and C++'s into a kept string), and the decoded message is left as
 * it was. */
static pbdyn_arena *print_arena(bench_ctx *c) {
  if (c->print_arena) pbdyn_arena_reset(c->print_arena);
  else c->print_arena = pbdyn_arena_new(0);
  return c->print_arena;
}

const char *bench_json(bench_ctx *c, size_t *n) {
  char *out;
  if (!c->msg || pbdyn_json_encode(c->msg, c->m, print_arena(c), &out, n, NULL) != PBDYN_OK)
    return NULL;
  return out;
}

const char *bench_text(bench_ctx *c, size_t *n) {
  char *out;
  if (!c->msg || pbdyn_text_encode(c->msg, c->m, print_arena(c), &out, n) != PBDYN_OK)
    return NULL;
  return out;
}
