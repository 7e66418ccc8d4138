/* The protobuf kernel: decode throughput of the pbdyn library's builds, of upb
 * compiled natively and of Google's protobuf C++, side by side in one process
 * and one run.
 *
 * Every implementation is a shared library with the interface of
 * bench_adapter.h, loaded with dlopen (RTLD_LOCAL: two builds of the pbdyn
 * library, two upbs, or two protobuf C++ flavours, coexist). Cases are
 *   <payload>/<impl>/<decoder>/<copy|alias>/<fresh|reused|heap>
 * with the unit "byte" (payload bytes per iteration: GB/s follows; ns per
 * message is ns / iters). What each kind of implementation runs:
 *   pbdyn    decoders fast, switch, generic; copy and alias; fresh and reused
 *   upb   decoder "parse"; copy and alias; fresh and reused
 *   C++   decoder "parse"; copy; fresh, reused and heap (one heap message,
 *         Clear() then parse: how a hot C++ loop without arenas decodes)
 *
 * Parameters:
 *   manifest=PATH   lines "schema FILE" and "payload NAME TYPE FILE" (files
 *                   relative to the manifest's folder)
 *   impls=L=SO,...  implementation labels and their adapter libraries
 *   decoders=fast,switch,generic   pbdyn decoders to run
 *   alias=0,1       string modes (0 copy, 1 alias), pbdyn and upb
 *   arenas=fresh,reused,heap   memory modes: a fresh arena per message, one
 *                   reused arena, one reused heap message (C++ only)
 *   payloads=A,B    payloads to run (default: all in the manifest)
 *
 * Before timing, every case decodes its payload once and the re-encoding's
 * digest must be the same for all implementations (else exit 1).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_adapter.h"
#include "bench_manifest.h"
#include "cpulab_harness.h"

#define MAX_IMPLS 16
#define MAX_CASES 1024

typedef struct impl {
  char label[64];
  const char *(*name)(void);
  bench_ctx *(*open)(const char *, size_t, const char *, const char *, char *, size_t);
  int (*decode)(bench_ctx *, const char *, size_t);
  uint64_t (*digest)(bench_ctx *);
  void (*close)(bench_ctx *);
  enum { KIND_PBDYN, KIND_UPB, KIND_CPP } kind; /* from bench_name's first word */
} impl;

typedef struct bcase {
  char name[192];
  impl *im;
  payload *p;
  bench_ctx *ctx;
} bcase;

static impl impls[MAX_IMPLS];
static int nimpls;
static bcase bcases[MAX_CASES];
static int nbcases;

static void load_impls(const char *list) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", list);
  for (char *item = strtok(buf, ","); item; item = strtok(NULL, ",")) {
    char *eq = strchr(item, '=');
    if (!eq || nimpls == MAX_IMPLS) clh_usage_error("impls: expected LABEL=PATH,... (at most %d)", MAX_IMPLS);
    *eq = 0;
    impl *im = &impls[nimpls++];
    snprintf(im->label, sizeof im->label, "%s", item);
    void *h = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
    if (!h) clh_usage_error("impls: %s: %s", item, dlerror());
    im->name = (const char *(*)(void))dlsym(h, "bench_name");
    im->open = (bench_ctx * (*)(const char *, size_t, const char *, const char *, char *, size_t))
        dlsym(h, "bench_open");
    im->decode = (int (*)(bench_ctx *, const char *, size_t))dlsym(h, "bench_decode");
    im->digest = (uint64_t(*)(bench_ctx *))dlsym(h, "bench_digest");
    im->close = (void (*)(bench_ctx *))dlsym(h, "bench_close");
    if (!im->name || !im->open || !im->decode || !im->digest || !im->close)
      clh_usage_error("impls: %s lacks the bench_adapter.h functions", item);
    const char *name = im->name();
    im->kind = !strncmp(name, "pbdyn ", 6) ? KIND_PBDYN : !strncmp(name, "upb ", 4) ? KIND_UPB : KIND_CPP;
  }
}

static const char *const arena_names[] = {"fresh", "reused", "heap"};

static void add_case(payload *p, impl *im, const char *dec, int alias, int arena) {
  if (nbcases == MAX_CASES) clh_usage_error("more than %d cases", MAX_CASES);
  bcase *c = &bcases[nbcases];
  char opts[128], err[256] = "";
  const char *mem = arena == 2 ? "heap=1" : arena == 1 ? "reuse=1" : "reuse=0";
  if (im->kind == KIND_PBDYN) snprintf(opts, sizeof opts, "decoder=%s,alias=%d,%s", dec, alias, mem);
  else if (im->kind == KIND_UPB) snprintf(opts, sizeof opts, "alias=%d,%s", alias, mem);
  else snprintf(opts, sizeof opts, "%s", mem);
  c->ctx = im->open(schema, schema_len, p->type, opts, err, sizeof err);
  if (!c->ctx) clh_usage_error("%s: %s: %s", im->label, p->name, err);
  snprintf(c->name, sizeof c->name, "%s/%s/%s/%s/%s", p->name, im->label, dec,
           alias ? "alias" : "copy", arena_names[arena]);
  c->im = im;
  c->p = p;
  nbcases++;
}

static uint64_t run_case(uint64_t iters, void *arg) {
  bcase *c = arg;
  uint64_t ok = 0;
  for (uint64_t i = 0; i < iters; i++) {
    if (c->im->decode(c->ctx, c->p->data, c->p->size)) clh_fail("%s: decode failed", c->name);
    ok++;
    clh_clobber();
  }
  return ok;
}

int main(int argc, char **argv) {
  clh_init(argc, argv);
  const char *manifest = clh_param_str("manifest", NULL);
  const char *impl_list = clh_param_str("impls", NULL);
  const char *decoders = clh_param_str("decoders", "fast,switch,generic");
  const char *aliases = clh_param_str("alias", "0,1");
  const char *arenas = clh_param_str("arenas", "fresh,reused,heap");
  const char *only = clh_param_str("payloads", "");
  if (!manifest || !impl_list) clh_usage_error("--param manifest=PATH and impls=LABEL=SO,... are required");
  read_manifest(manifest);
  load_impls(impl_list);
  static const char *decs[] = {"fast", "switch", "generic"};
  for (int pi = 0; pi < npayloads; pi++)
    for (int ii = 0; ii < nimpls && (!*only || in_list(only, payloads[pi].name)); ii++)
      for (int arena = 0; arena < 3; arena++) {
        impl *im = &impls[ii];
        if (!in_list(arenas, arena_names[arena]) || (arena == 2 && im->kind != KIND_CPP)) continue;
        for (int alias = 0; alias < 2; alias++) {
          if (!in_list(aliases, alias ? "1" : "0") || (alias && im->kind == KIND_CPP)) continue;
          if (im->kind != KIND_PBDYN) {
            add_case(&payloads[pi], im, "parse", alias, arena);
            continue;
          }
          for (int di = 0; di < 3; di++)
            if (in_list(decoders, decs[di])) add_case(&payloads[pi], im, decs[di], alias, arena);
        }
      }
  /* every implementation must read every payload the same way */
  for (int i = 0; i < nbcases; i++) {
    bcase *c = &bcases[i];
    if (c->im->decode(c->ctx, c->p->data, c->p->size)) clh_fail("%s: decode failed", c->name);
    uint64_t want = 0;
    for (int j = 0; j < i; j++)
      if (bcases[j].p == c->p) want = bcases[j].im->digest(bcases[j].ctx);
    uint64_t got = c->im->digest(c->ctx);
    if (!got || (want && got != want))
      clh_fail("%s: re-encoded payload differs from the other implementations'", c->name);
  }
  static clh_case cases[MAX_CASES];
  for (int i = 0; i < nbcases; i++)
    cases[i] = (clh_case){.name = bcases[i].name, .fn = run_case, .arg = &bcases[i],
                          .units_per_iter = bcases[i].p->size, .unit = "byte"};
  int rc = clh_run(cases, (size_t)nbcases);
  for (int i = 0; i < nbcases; i++) bcases[i].im->close(bcases[i].ctx);
  return rc;
}
