/* A program outside cpulab's source tree that uses every installed library, the way a
 * user's own program would: `#include <cpulab/NAME.h>` and link through pkg-config or
 * find_package(cpulab). tests/test_native_build.py builds it both ways against a fresh
 * install and checks what it prints; each line's answer is worked out independently.
 *
 *   consumer DESCRIPTORS.pb     (protoc --include_imports --descriptor_set_out of
 *                                google/protobuf/descriptor.proto)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpulab/bigdec.h>
#include <cpulab/bpmodel.h>
#include <cpulab/gzwrap.h>
#include <cpulab/mulpre.h>
#include <cpulab/pbdyn.h>
#include <cpulab/rtdiv.h>
#include <cpulab/vm.h>

static int pbdyn_example(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return perror(path), 1;
  static char buf[1 << 20];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);

  /* The descriptor set describes itself: load it as a schema, then decode it with it. */
  pbdyn_schema *s;
  pbdyn_status st = pbdyn_schema_load(buf, n, &s);
  if (st != PBDYN_OK) return fprintf(stderr, "schema: %s\n", pbdyn_status_str(st)), 1;
  const pbdyn_msgdef *set = pbdyn_schema_find(s, "google.protobuf.FileDescriptorSet");
  pbdyn_arena *a = pbdyn_arena_new(0);
  pbdyn_msg *msg = pbdyn_msg_new(set, a);
  st = pbdyn_decode(buf, n, msg, set, a, NULL);
  if (st != PBDYN_OK) return fprintf(stderr, "decode: %s\n", pbdyn_status_str(st)), 1;
  const pbdyn_fielddef *file = pbdyn_msgdef_field_by_name(set, "file");
  const pbdyn_msg *first = pbdyn_msg_array_get(msg, file, 0).msg;
  const pbdyn_msgdef *fdp = pbdyn_fielddef_msg(file);
  pbdyn_str name = pbdyn_msg_get(first, pbdyn_msgdef_field_by_name(fdp, "name")).str;
  size_t types = pbdyn_msg_array_size(first, pbdyn_msgdef_field_by_name(fdp, "message_type"));
  printf("pbdyn %s: %zu file(s), %.*s with %zu message types\n", PBDYN_VERSION_STRING,
         pbdyn_msg_array_size(msg, file), (int)name.size, name.data, types);
  pbdyn_arena_free(a);
  pbdyn_schema_free(s);
  return 0;
}

/* A gzwrap writer that appends to a small buffer. */
struct appended {
  unsigned char buf[64];
  size_t len;
};

static int append(void *ctx, const void *p, size_t n) {
  struct appended *a = ctx;
  if (n > sizeof a->buf - a->len)
    return -1;
  memcpy(a->buf + a->len, p, n);
  a->len += n;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return fprintf(stderr, "usage: consumer DESCRIPTORS.pb\n"), 2;
  if (pbdyn_example(argv[1])) return 1;

  /* (2^64 - 1)^2 = 2^128 - 2^65 + 1: limbs 1, 0, 2^64 - 2, 2^64 - 1 */
  uint64_t x[2] = {UINT64_MAX, 0}, y[2] = {UINT64_MAX, 0}, z[4];
  mulpre_status ms = mulpre_mul(z, x, y, 2);
  printf("mulpre %s: %s %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n",
         MULPRE_VERSION_STRING, mulpre_status_str(ms), z[3], z[2], z[1], z[0]);

  uint64_t limbs[2] = {0, 1}; /* 2^64 */
  char text[64];
  size_t len;
  bigdec_status bs = bigdec_write(text, sizeof text, limbs, 2, &len);
  printf("bigdec %s: %s %s (%zu digits)\n", BIGDEC_VERSION_STRING, bigdec_status_str(bs),
         text, len);

  rtdiv_u64 seven;
  rtdiv_u64_gen(&seven, 7);
  printf("rtdiv %s: 1000000007 / 7 = %" PRIu64 " rem %" PRIu64 ", 49 divisible: %d\n",
         RTDIV_VERSION_STRING, rtdiv_u64_div(&seven, 1000000007),
         rtdiv_u64_rem(&seven, 1000000007), rtdiv_u64_divisible(&seven, 49));

  static const char fib[] =
      ".func main 1\n  call r0, fib\n  ret r0\n.end\n"
      ".func fib 1\n  loadi r1, 2\n  jlt r0, r1, small\n  subvn r1, r0, 1\n  call r1, fib\n"
      "  subvn r2, r0, 2\n  call r2, fib\n  add r0, r1, r2\n  ret r0\nsmall:\n  ret r0\n.end\n";
  vm_program *p;
  vm_diag diag;
  if (vm_program_assemble(fib, sizeof fib - 1, &p, &diag) != VM_OK)
    return fprintf(stderr, "vm: line %d: %s\n", diag.line, diag.message), 1;
  vm_machine *m = vm_machine_new(NULL);
  vm_value arg = vm_value_int(20);
  vm_result r;
  vm_machine_run(m, p, VM_TECH_SWITCH, &arg, 1, &r);
  printf("vm %s: fib(20) = %d (%s)\n", VM_VERSION_STRING, vm_value_as_int(r.value),
         vm_status_str(r.status));
  vm_machine_free(m);
  vm_program_free(p);

  /* One site alternating between two targets: a last-target table misses every one. */
  uint32_t sites[1000], targets[1000];
  for (int i = 0; i < 1000; i++) sites[i] = 1, targets[i] = (uint32_t)(i & 1);
  bpmodel_config cfg;
  bpmodel_config_init(BPMODEL_KIND_LAST_TARGET, &cfg);
  bpmodel_stats stats = {0};
  bpmodel_trace_simulate(&cfg, sites, targets, 1000, &stats);
  printf("bpmodel %s: %" PRIu64 " of %" PRIu64 " mispredicted\n", BPMODEL_VERSION_STRING,
         stats.misses, stats.branches);

  /* gzip of "hello\n" (fixed codes, mtime 0, OS 3) re-wrapped as COMPRESS() output */
  static const unsigned char gz[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xcb, 0x48, 0xcd,
                                     0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36,
                                     6, 0, 0, 0};
  unsigned char out[64];
  size_t out_len;
  gzwrap_options opt;
  gzwrap_options_init(&opt);
  opt.to = GZWRAP_FORMAT_MYSQL;
  gzwrap_report rep;
  gzwrap_status gs = gzwrap_buffer_convert(&opt, gz, sizeof gz, out, sizeof out, &out_len, &rep);
  printf("gzwrap %s: %s, %s -> %s, %zu bytes:", GZWRAP_VERSION_STRING, gzwrap_status_str(gs),
         gzwrap_format_name(rep.from), gzwrap_format_name(rep.to), out_len);
  for (size_t i = 0; i < out_len; i++)
    printf(" %02x", out[i]);
  printf("\n");

  /* the same from memory to a writer, as zlib */
  struct appended a = {{0}, 0};
  gzwrap_writer wr = {&a, append, NULL, NULL, NULL, NULL};
  opt.to = GZWRAP_FORMAT_ZLIB;
  gs = gzwrap_memory_convert(&opt, gz, sizeof gz, &wr, &rep);
  printf("gzwrap memory: %s, %zu bytes:", gzwrap_status_str(gs), a.len);
  for (size_t i = 0; i < a.len; i++)
    printf(" %02x", a.buf[i]);
  printf("\n");
  return 0;
}
