/* vmrun: assemble a program and run it with one technique.
 *
 *   vmrun [-t TECH] [--count] [--check] [--repeat N] [--trace FILE] FILE [ARG...]
 *
 * Prints one JSON line: program, technique, status, result, and with
 * --count the exact number of VM instructions. Without ARGs it uses the
 * program's `.bench` arguments. --check runs every `.expect` line instead
 * and reports each. --repeat runs N times (for profilers: a long, steady
 * run). --trace (a build with -DVM_TRACE=1) writes the dispatch records of
 * the last run as little-endian uint32 (see VM_TRACE_* in vm.h).
 * Exit status: 0 success, 1 a run failed or a result differs, 2 bad usage,
 * unreadable file or assembler error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

static int usage(void) {
  fprintf(stderr,
          "usage: vmrun [-t TECH] [--count] [--check] [--repeat N] [--trace FILE] FILE [ARG...]\n"
          "techniques:");
  for (int t = 0; t < VM_TECH_COUNT; t++)
    if (vm_technique_available((vm_technique)t))
      fprintf(stderr, " %s", vm_technique_name((vm_technique)t));
  fprintf(stderr, "\n");
  return 2;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) free(buf);
      buf = nb;
    }
  }
  fclose(f);
  *len = n;
  return buf;
}

/* JSON string body: the path may hold quotes or backslashes */
static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') putchar('\\');
    if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
    else putchar(*s);
  }
  putchar('"');
}

int main(int argc, char **argv) {
  vm_technique tech = VM_TECH_SWITCH;
  int count = 0, check = 0;
  long repeat = 1;
  const char *trace_path = NULL;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
      if (vm_technique_parse(argv[++i], &tech) != VM_OK) {
        fprintf(stderr, "vmrun: unknown technique '%s'\n", argv[i]);
        return usage();
      }
    } else if (strcmp(argv[i], "--count") == 0) {
      count = 1;
    } else if (strcmp(argv[i], "--check") == 0) {
      check = 1;
    } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = strtol(argv[++i], NULL, 10);
      if (repeat < 1) return usage();
    } else if (strcmp(argv[i], "--trace") == 0 && i + 1 < argc) {
      trace_path = argv[++i];
    } else {
      return usage();
    }
  }
  if (i >= argc) return usage();
  const char *path = argv[i++];
  if (!vm_technique_available(tech)) {
    fprintf(stderr, "vmrun: technique '%s' is not in this build\n", vm_technique_name(tech));
    return 2;
  }
  size_t len;
  char *text = read_file(path, &len);
  if (!text) {
    fprintf(stderr, "vmrun: cannot read %s\n", path);
    return 2;
  }
  vm_program *p;
  vm_diag diag;
  vm_status st = vm_program_assemble(text, len, &p, &diag);
  free(text);
  if (st != VM_OK) {
    fprintf(stderr, "%s: %s\n", path, diag.message);
    return 2;
  }
  vm_machine *m = vm_machine_new(NULL);
  if (!m) {
    fprintf(stderr, "vmrun: out of memory\n");
    return 2;
  }
  uint32_t *trace = NULL;
  size_t trace_cap = (size_t)1 << 26; /* 256 MiB: 67M dispatches */
  if (trace_path) {
    trace = malloc(trace_cap * sizeof *trace);
    if (!trace || vm_machine_set_trace(m, trace, trace_cap) != VM_OK) {
      fprintf(stderr, "vmrun: --trace needs a build with -DVM_TRACE=1\n");
      return 2;
    }
  }

  int rc = 0;
  char buf[64], want[64];
  vm_result res;
  if (check) {
    size_t n = vm_program_expect_count(p);
    for (size_t e = 0; e < n; e++) {
      const vm_value *args;
      size_t nargs;
      vm_value expect;
      vm_program_expect_get(p, e, &args, &nargs, &expect);
      st = vm_machine_run(m, p, tech, args, nargs, &res);
      vm_value_format(res.value, buf, sizeof buf);
      vm_value_format(expect, want, sizeof want);
      int ok = st == VM_OK && res.value == expect;
      printf("{\"expect\":%zu,\"ok\":%s,\"status\":\"%s\",\"result\":\"%s\",\"want\":\"%s\"}\n", e,
             ok ? "true" : "false", vm_status_str(st), buf, want);
      if (!ok) rc = 1;
    }
  } else {
    size_t nargs = (size_t)(argc - i);
    vm_value *args = calloc(nargs + 1, sizeof *args);
    const vm_value *use = args;
    for (size_t a = 0; a < nargs; a++) {
      if (vm_value_parse(argv[i + a], &args[a]) != VM_OK) {
        fprintf(stderr, "vmrun: argument '%s' is not a number\n", argv[i + a]);
        return 2;
      }
    }
    if (nargs == 0 && vm_program_bench_args(p, &use, &nargs) != VM_OK) use = args;
    uint64_t insns = 0;
    if (count) {
      st = vm_machine_count(m, p, use, nargs, &res);
      insns = res.trace_len;
    }
    for (long r = 0; r < repeat; r++) st = vm_machine_run(m, p, tech, use, nargs, &res);
    vm_value_format(res.value, buf, sizeof buf);
    printf("{\"program\":");
    json_str(path);
    printf(",\"technique\":\"%s\",\"status\":\"%s\",\"result\":\"%s\"", vm_technique_name(tech),
           vm_status_str(st), buf);
    if (st != VM_OK) printf(",\"line\":%d", res.line);
    if (count) printf(",\"insns\":%llu", (unsigned long long)insns);
    if (trace) printf(",\"dispatches\":%llu", (unsigned long long)res.trace_len);
    printf("}\n");
    if (st != VM_OK) rc = 1;
    if (trace) {
      FILE *f = fopen(trace_path, "wb");
      size_t n = res.trace_len < trace_cap ? res.trace_len : trace_cap;
      if (!f || fwrite(trace, sizeof *trace, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "vmrun: cannot write %s\n", trace_path);
        rc = 2;
      }
    }
    free(args);
  }
  free(trace);
  vm_machine_free(m);
  vm_program_free(p);
  return rc;
}
