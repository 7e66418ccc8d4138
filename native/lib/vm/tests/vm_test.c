/* vm_test.c — the VM's programs under every technique this build has, and what the
 * assembler rejects. Run by ctest; the Python suite (tests/test_vm.py) goes further
 * (per-instruction semantics against a model, traces, machine code).
 *
 *   vm_test PROGRAMS_DIR
 *
 * - Each shipped program (PROGRAMS_DIR/<name>.vmasm) assembles, and every `.expect` line
 *   holds under every available technique; all techniques return the same status, the
 *   same value bits and the same error line, and vm_machine_count agrees with them.
 * - A run-time error (division by zero) gives the same status and line everywhere.
 * - Bad text is rejected with VM_ERR_SYNTAX, the faulting line, a message, and the output
 *   pointer left alone; bad arguments give VM_ERR_ARGUMENT, not a crash.
 * One line per failed check, a summary last; exit 1 on any failure, 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"

static int failed, passed;

#define CHECK(cond, ...)                                                                 \
  do {                                                                                   \
    if (cond) {                                                                          \
      passed++;                                                                          \
    } else {                                                                             \
      failed++;                                                                          \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
      printf(__VA_ARGS__);                                                               \
      printf("\n");                                                                      \
    }                                                                                    \
  } while (0)

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  do {
    if (n == cap) {
      char *nb = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
      if (!nb) break;
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf;
}

/* Runs main(args) under every available technique and compares them with `want` (when
 * given) and with each other. */
static void run_everywhere(vm_machine *m, const vm_program *p, const char *what,
                           const vm_value *args, size_t nargs, const vm_result *want) {
  vm_result first = {0};
  int have_first = 0;
  for (int t = 0; t < VM_TECH_COUNT; t++) {
    if (!vm_technique_available((vm_technique)t)) continue;
    const char *tn = vm_technique_name((vm_technique)t);
    vm_result r;
    vm_status st = vm_machine_run(m, p, (vm_technique)t, args, nargs, &r);
    CHECK(st == r.status, "%s [%s]: returned %d, result says %d", what, tn, st, r.status);
    if (want) {
      char got[64], exp[64];
      vm_value_format(r.value, got, sizeof got);
      vm_value_format(want->value, exp, sizeof exp);
      CHECK(r.status == want->status && (r.status != VM_OK || r.value == want->value),
            "%s [%s]: %s %s, expected %s %s", what, tn, vm_status_str(r.status), got,
            vm_status_str(want->status), exp);
    }
    if (!have_first) {
      first = r;
      have_first = 1;
    } else {
      CHECK(r.status == first.status && r.line == first.line &&
                (r.status != VM_OK || r.value == first.value),
            "%s [%s]: differs from the first technique (status %d/%d, line %d/%d)", what,
            tn, r.status, first.status, r.line, first.line);
    }
  }
  vm_result c;
  vm_machine_count(m, p, args, nargs, &c);
  CHECK(have_first && c.status == first.status && (c.status != VM_OK || c.value == first.value),
        "%s [count]: status %d, expected %d", what, c.status, first.status);
  CHECK(c.status != VM_OK || c.trace_len > 0, "%s [count]: counted no instruction", what);
}

static void test_program(vm_machine *m, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.vmasm", dir, name);
  size_t len;
  char *text = read_file(path, &len);
  CHECK(text != NULL, "%s: cannot read", path);
  if (!text) return;
  vm_program *p = NULL;
  vm_diag diag = {0};
  vm_status st = vm_program_assemble(text, len, &p, &diag);
  free(text);
  CHECK(st == VM_OK, "%s: line %d: %s", path, diag.line, diag.message);
  if (st != VM_OK) return;
  size_t n = vm_program_expect_count(p);
  CHECK(n > 0, "%s: no .expect line", name);
  for (size_t i = 0; i < n; i++) {
    const vm_value *args;
    size_t nargs;
    vm_result want = {.status = VM_OK};
    CHECK(vm_program_expect_get(p, i, &args, &nargs, &want.value) == VM_OK,
          "%s: .expect %zu unreadable", name, i);
    char what[128];
    snprintf(what, sizeof what, "%s .expect #%zu", name, i + 1);
    run_everywhere(m, p, what, args, nargs, &want);
  }
  vm_program_free(p);
}

static void test_runtime_error(vm_machine *m) {
  static const char text[] =
      ".func main 1\n"
      "  loadi r1, 0\n"
      "  idiv r2, r0, r1\n" /* line 3: integer division by zero */
      "  ret r2\n"
      ".end\n";
  vm_program *p = NULL;
  CHECK(vm_program_assemble(text, sizeof text - 1, &p, NULL) == VM_OK, "divzero program");
  if (!p) return;
  vm_value arg = vm_value_int(7);
  vm_result want = {.status = VM_ERR_DIVZERO};
  run_everywhere(m, p, "division by zero", &arg, 1, &want);
  vm_result r;
  vm_machine_run(m, p, VM_TECH_SWITCH, &arg, 1, &r);
  CHECK(r.line == 3, "division by zero: line %d, expected 3", r.line);
  vm_program_free(p);
}

static void test_rejections(void) {
  static const struct {
    const char *text;
    int line;
    const char *message;
  } bad[] = {
      {".func main 0\n  lodi r0, 1\n  ret r0\n.end\n", 2, "unknown instruction 'lodi'"},
      {".func main 0\n  loadi r256, 1\n  ret r0\n.end\n", 2, "expected a register"},
      {".func main 0\n  jmp nowhere\n.end\n", 2, "unknown label 'nowhere'"},
      {".func main 0\n  loadi r0, 1\n  add r1, r0, r2\n  ret r1\n.end\n", 3,
       "r2 is read before it is written"},
      {".func main 0\n  loadi r0, 1\n.end\n", 2, "run past the end of the function"},
      {".func f 0\n  loadi r0, 1\n  ret r0\n.end\n", 0, "no function named 'main'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    static char untouched;
    vm_program *sentinel = (vm_program *)&untouched, *p = sentinel;
    vm_diag diag = {0};
    vm_status st = vm_program_assemble(bad[i].text, strlen(bad[i].text), &p, &diag);
    CHECK(st == VM_ERR_SYNTAX, "bad text #%zu: status %d, expected VM_ERR_SYNTAX", i, st);
    CHECK(p == sentinel, "bad text #%zu: *out was changed", i);
    CHECK(diag.line == bad[i].line, "bad text #%zu: line %d, expected %d", i, diag.line,
          bad[i].line);
    CHECK(strstr(diag.message, bad[i].message) != NULL, "bad text #%zu: message '%s'", i,
          diag.message);
  }
  vm_technique t;
  CHECK(vm_technique_parse("no-such-technique", &t) != VM_OK, "unknown technique accepted");
  CHECK(vm_status_str((vm_status)999) != NULL, "vm_status_str returned NULL");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: vm_test PROGRAMS_DIR\n");
    return 2;
  }
  vm_machine *m = vm_machine_new(NULL);
  if (!m) {
    fprintf(stderr, "vm_test: out of memory\n");
    return 2;
  }
  static const char *programs[] = {"fib", "sieve", "nbody", "loops", "fannkuch"};
  for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++)
    test_program(m, argv[1], programs[i]);
  test_runtime_error(m);
  test_rejections();
  vm_machine_free(m);
  int ntech = 0;
  for (int t = 0; t < VM_TECH_COUNT; t++) ntech += vm_technique_available((vm_technique)t);
  printf("vm_test: %d techniques, %d checks passed, %d failed\n", ntech, passed, failed);
  return failed ? 1 : 0;
}
