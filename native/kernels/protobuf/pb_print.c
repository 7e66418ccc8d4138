/* The printing kernel: how fast the pbdyn library's builds, upb compiled
 * natively and Google's protobuf C++ print an already decoded message as
 * proto3 JSON and in the text format, side by side in one process and one
 * run. The implementations are the decoding kernel's (pb_bench.c): shared
 * libraries with the interface of bench_adapter.h, loaded with dlopen; a
 * format is printed by those that export its function (bench_json,
 * bench_text), the others are left out with a line on stderr. Cases are
 *   <payload>/<impl>/<json|text>
 * with the unit "byte" (bytes of the binary payload per iteration, as the
 * decoding cases: ns per message is ns / iters).
 *
 * Parameters:
 *   manifest=PATH   as pb_bench.c's
 *   impls=L=SO,...  implementation labels and their adapter libraries
 *   formats=json,text   what to print
 *   payloads=A,B    payloads to run (default: all in the manifest)
 *   dump=DIR        also write each output checked to DIR/<payload>.<impl>.<format>
 *
 * Before timing, each payload is decoded once by every implementation and
 * printed; every implementation's output must be the first one's (else exit
 * 1): JSON as values (json_values.h: printers spell numbers and escapes
 * differently), text byte for byte. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_adapter.h"
#include "bench_manifest.h"
#include "cpulab_harness.h"
#include "json_values.h"

#define MAX_IMPLS 16
#define MAX_CASES 512

typedef const char *(*print_fn)(bench_ctx *, size_t *);

typedef struct impl {
  char label[64];
  bench_ctx *(*open)(const char *, size_t, const char *, const char *, char *, size_t);
  int (*decode)(bench_ctx *, const char *, size_t);
  void (*close)(bench_ctx *);
  print_fn print[2]; /* json, text; NULL where the library lacks it */
} impl;

typedef struct pcase {
  char name[192];
  print_fn print;
  bench_ctx *ctx;
  size_t size; /* the payload's */
} pcase;

static const char *const format_names[] = {"json", "text"};
static const char *const print_symbols[] = {"bench_json", "bench_text"};

static impl impls[MAX_IMPLS];
static int nimpls;
static pcase pcases[MAX_CASES];
static int npcases;

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
    im->open = (bench_ctx * (*)(const char *, size_t, const char *, const char *, char *, size_t))
        dlsym(h, "bench_open");
    im->decode = (int (*)(bench_ctx *, const char *, size_t))dlsym(h, "bench_decode");
    im->close = (void (*)(bench_ctx *))dlsym(h, "bench_close");
    if (!im->open || !im->decode || !im->close)
      clh_usage_error("impls: %s lacks the bench_adapter.h functions", item);
    for (int f = 0; f < 2; f++) im->print[f] = (print_fn)dlsym(h, print_symbols[f]);
  }
}

/* The payload decoded once by im, in a context kept for its print cases. */
static bench_ctx *decoded(impl *im, payload *p) {
  char err[256] = "";
  bench_ctx *ctx = im->open(schema, schema_len, p->type, "alias=0,reuse=0", err, sizeof err);
  if (!ctx) clh_usage_error("%s: %s: %s", im->label, p->name, err);
  if (im->decode(ctx, p->data, p->size)) clh_fail("%s/%s: decode failed", p->name, im->label);
  return ctx;
}

/* Every implementation's output against the first one's. A copy of the first
 * is kept: the printers reuse their buffers. */
static void check_same(payload *p, int format, const char *label, const char *out, size_t n,
                       char **first, size_t *first_n, const char **first_label) {
  if (!*first) {
    if (!(*first = malloc(n + 1))) clh_fail("out of memory");
    memcpy(*first, out, n);
    (*first)[n] = 0;
    *first_n = n, *first_label = label;
    return;
  }
  size_t where = 0;
  int same = format == 0 ? json_same_values(*first, *first_n, out, n, &where)
                         : n == *first_n && !memcmp(*first, out, n);
  if (format == 1 && !same)
    while (where < n && where < *first_n && out[where] == (*first)[where]) where++;
  if (!same)
    clh_fail("%s/%s: printed %s differs from %s's (from byte %zu of %s's: \"%.40s\")", p->name,
             label, format == 0 ? "JSON" : "text", *first_label, where, *first_label,
             *first + (where < *first_n ? where : *first_n));
}

static void dump(const char *dir, const char *payload, const char *label, const char *format,
                 const char *out, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.%s.%s", dir, payload, label, format);
  FILE *fp = fopen(path, "wb");
  if (!fp || fwrite(out, 1, n, fp) != n || fclose(fp)) clh_usage_error("dump: cannot write %s", path);
}

static uint64_t run_case(uint64_t iters, void *arg) {
  pcase *c = arg;
  uint64_t ok = 0;
  for (uint64_t i = 0; i < iters; i++) {
    size_t n;
    if (!c->print(c->ctx, &n)) clh_fail("%s: print failed", c->name);
    ok++;
    clh_clobber();
  }
  return ok;
}

int main(int argc, char **argv) {
  clh_init(argc, argv);
  const char *manifest = clh_param_str("manifest", NULL);
  const char *impl_list = clh_param_str("impls", NULL);
  const char *formats = clh_param_str("formats", "json,text");
  const char *only = clh_param_str("payloads", "");
  const char *dump_dir = clh_param_str("dump", "");
  if (!manifest || !impl_list) clh_usage_error("--param manifest=PATH and impls=LABEL=SO,... are required");
  read_manifest(manifest);
  load_impls(impl_list);
  for (int f = 0; f < 2; f++)
    for (int ii = 0; ii < nimpls && in_list(formats, format_names[f]); ii++)
      if (!impls[ii].print[f])
        fprintf(stderr, "pb_print: %s prints no %s (no %s): left out\n", impls[ii].label,
                format_names[f], print_symbols[f]);
  static bench_ctx *ctx[MAX_PAYLOADS][MAX_IMPLS];
  for (int pi = 0; pi < npayloads; pi++) {
    payload *p = &payloads[pi];
    if (*only && !in_list(only, p->name)) continue;
    for (int ii = 0; ii < nimpls; ii++) ctx[pi][ii] = decoded(&impls[ii], p);
    for (int f = 0; f < 2; f++) {
      if (!in_list(formats, format_names[f])) continue;
      char *first = NULL;
      size_t first_n = 0;
      const char *first_label = NULL;
      for (int ii = 0; ii < nimpls; ii++) {
        impl *im = &impls[ii];
        if (!im->print[f]) continue;
        size_t n;
        const char *out = im->print[f](ctx[pi][ii], &n);
        if (!out) clh_fail("%s/%s: print failed (%s)", p->name, im->label, format_names[f]);
        if (*dump_dir) dump(dump_dir, p->name, im->label, format_names[f], out, n);
        check_same(p, f, im->label, out, n, &first, &first_n, &first_label);
        if (npcases == MAX_CASES) clh_usage_error("more than %d cases", MAX_CASES);
        pcase *c = &pcases[npcases++];
        snprintf(c->name, sizeof c->name, "%s/%s/%s", p->name, im->label, format_names[f]);
        c->print = im->print[f];
        c->ctx = ctx[pi][ii];
        c->size = p->size;
      }
      free(first);
    }
  }
  static clh_case cases[MAX_CASES];
  for (int i = 0; i < npcases; i++)
    cases[i] = (clh_case){.name = pcases[i].name, .fn = run_case, .arg = &pcases[i],
                          .units_per_iter = pcases[i].size, .unit = "byte"};
  int rc = clh_run(cases, (size_t)npcases);
  for (int pi = 0; pi < npayloads; pi++)
    for (int ii = 0; ii < nimpls; ii++)
      if (ctx[pi][ii]) impls[ii].close(ctx[pi][ii]);
  return rc;
}
