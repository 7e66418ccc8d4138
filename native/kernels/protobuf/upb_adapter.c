/* bench_adapter.h over upb, compiled natively (build_upb_peer.sh): upb_Decode into
 * a upb_Arena, with mini-tables that upb builds at run time from the same
 * FileDescriptorSet the pbdyn library loads (upb_DefPool), as upb's Python and
 * PHP extensions do. Built once per upb peer: the generic decoder, and the
 * fasttable one (UPB_ENABLE_FASTTABLE: the def pool's mini-tables then carry
 * fast tables, chosen at run time by upb's own select.c).
 *
 * Options: alias=0|1 (kUpb_DecodeOption_AliasString: strings point into the
 * input), reuse=0|1. A reused arena is upb's way of reusing memory, which has
 * no reset: each message gets an arena initialised over one 1 MiB block kept
 * for the whole run (upb_Arena_Init), so that a decode that fits allocates
 * nothing, as the pbdyn side's reset arena and the C++ side's initial block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_adapter.h"
#include "google/protobuf/descriptor.upb.h"
#include "upb/base/status.h"
#include "upb/mem/arena.h"
#include "upb/message/message.h"
#include "upb/reflection/def.h"
#include "upb/wire/decode.h"
#include "upb/wire/encode.h"
#if __has_include("upb/json/encode.h") /* the protobuf sdist's upb has no json/ */
#define UPB_PEER_JSON 1
#include "upb/json/encode.h"
#endif

#ifndef UPB_PEER_WHAT
#error "define UPB_PEER_WHAT, e.g. \"generic, PyPI protobuf 7.36.2\""
#endif

enum { BLOCK = 1 << 20 };

struct bench_ctx {
  upb_Arena *schema_arena;
  upb_DefPool *pool;
  const upb_MessageDef *def;
  const upb_MiniTable *mt;
  int options; /* upb_DecodeOption */
  int reuse;
  char *block; /* the reused arena's one block */
  upb_Arena *arena;
  upb_Message *msg;
  char *printed; /* bench_json's buffer, grown to the largest output */
  size_t printed_cap;
};

const char *bench_name(void) {
  static char name[128];
#if defined(__clang__)
  snprintf(name, sizeof name, "upb %s clang-%d", UPB_PEER_WHAT, __clang_major__);
#else
  snprintf(name, sizeof name, "upb %s", UPB_PEER_WHAT);
#endif
  return name;
}

static int parse_options(bench_ctx *c, const char *options, char *err, size_t errlen) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", options ? options : "");
  for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
    if (!strcmp(kv, "alias=1")) c->options |= kUpb_DecodeOption_AliasString;
    else if (!strcmp(kv, "reuse=1")) c->reuse = 1;
    else if (strcmp(kv, "alias=0") && strcmp(kv, "reuse=0")) {
      snprintf(err, errlen, "option '%s' not supported by %s", kv, bench_name());
      return -1;
    }
  }
  return 0;
}

bench_ctx *bench_open(const char *schema, size_t schema_len, const char *type,
                      const char *options, char *err, size_t errlen) {
  bench_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->schema_arena = upb_Arena_New();
  c->pool = upb_DefPool_New();
  if (parse_options(c, options, err, errlen)) goto fail;
  const google_protobuf_FileDescriptorSet *set =
      google_protobuf_FileDescriptorSet_parse(schema, schema_len, c->schema_arena);
  if (!set) {
    snprintf(err, errlen, "schema: not a FileDescriptorSet");
    goto fail;
  }
  size_t n;
  const google_protobuf_FileDescriptorProto *const *files =
      google_protobuf_FileDescriptorSet_file(set, &n);
  for (size_t i = 0; i < n; i++) {
    upb_Status st;
    upb_Status_Clear(&st);
    if (!upb_DefPool_AddFile(c->pool, files[i], &st)) {
      snprintf(err, errlen, "schema: %s", upb_Status_ErrorMessage(&st));
      goto fail;
    }
  }
  const upb_MessageDef *m = upb_DefPool_FindMessageByName(c->pool, type);
  if (!m) {
    snprintf(err, errlen, "no message type %s", type);
    goto fail;
  }
  c->def = m;
  c->mt = upb_MessageDef_MiniTable(m);
  if (c->reuse && !(c->block = malloc(BLOCK))) goto fail;
  return c;
fail:
  bench_close(c);
  return NULL;
}

int bench_decode(bench_ctx *c, const char *buf, size_t n) {
  /* the previous message's arena (the one kept alive until now) */
  if (c->arena) upb_Arena_Free(c->arena);
  c->arena = c->reuse ? upb_Arena_Init(c->block, BLOCK, &upb_alloc_global) : upb_Arena_New();
  c->msg = upb_Message_New(c->mt, c->arena);
  if (!c->msg) return 1;
  return upb_Decode(buf, n, c->msg, c->mt, NULL, c->options, c->arena) != kUpb_DecodeStatus_Ok;
}

uint64_t bench_digest(bench_ctx *c) {
  char *out;
  size_t n;
  if (!c->msg || upb_Encode(c->msg, c->mt, 0, c->arena, &out, &n) != kUpb_EncodeStatus_Ok)
    return 0;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)out[i]) * 1099511628211ull;
  return h ^ ((uint64_t)n << 40);
}

void bench_close(bench_ctx *c) {
  if (!c) return;
  if (c->arena) upb_Arena_Free(c->arena);
  free(c->block);
  free(c->printed);
  upb_DefPool_Free(c->pool);
  upb_Arena_Free(c->schema_arena);
  free(c);
}

#ifdef UPB_PEER_JSON
/* upb_JsonEncode with no options (JSON names, enums by name, present fields
 * only) into a buffer kept from call to call; it returns the length the
 * output needs, so a buffer too small is grown and the print done again. upb
 * prints no text format that protobuf C++ reads the same way (upb_TextEncode
 * is a debug format): there is no bench_text here. */
const char *bench_json(bench_ctx *c, size_t *n) {
  if (!c->msg) return NULL;
  upb_Status st;
  upb_Status_Clear(&st);
  size_t need = upb_JsonEncode(c->msg, c->def, c->pool, 0, c->printed, c->printed_cap, &st);
  if (need == (size_t)-1) return NULL;
  if (need >= c->printed_cap) {
    char *grown = realloc(c->printed, need + 1);
    if (!grown) return NULL;
    c->printed = grown;
    c->printed_cap = need + 1;
    need = upb_JsonEncode(c->msg, c->def, c->pool, 0, c->printed, c->printed_cap, &st);
    if (need == (size_t)-1) return NULL;
  }
  *n = need;
  return c->printed;
}
#endif
