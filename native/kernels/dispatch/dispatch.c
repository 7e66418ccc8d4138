/* dispatch: the VM's shipped programs under one dispatch technique (S1, S15).
 *
 * One binary per technique: build with the VM's sources and
 * -DVM_ONLY=1 -DVM_ONLY_<TECH>=1 (e.g. VM_ONLY_TAIL_PN), and the program runs
 * whichever single technique the build contains. A build with several needs
 * --param technique=NAME. With clang, goto-replicated also needs
 * -mllvm -tail-dup-pred-size=128 -mllvm -tail-dup-succ-size=128, or clang 19
 * folds its per-handler jumps back into one (see dispatch_goto_replicated.c).
 *
 * Cases: one per program (fib, sieve, nbody, loops, fannkuch), each iteration
 * one complete run of main with the program's `.bench` arguments; the unit is
 * "vminsn", VM instructions executed, counted exactly by one untimed run of
 * the counting loop (vm_machine_count) before timing. Before timing, each
 * case also checks that this technique's result equals the counting run's.
 *
 * Parameters: programs=DIR (default VM_PROGRAMS_DIR, set by the build),
 * technique=NAME, and <program>=N to replace the one argument of main
 * (e.g. --param fib=20).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vm.h"
#include "cpulab_harness.h"

#ifndef VM_PROGRAMS_DIR
#define VM_PROGRAMS_DIR "native/lib/vm/programs"
#endif

#define NPROGRAMS 5
static const char *const program_names[NPROGRAMS] = {"fib", "sieve", "nbody", "loops",
                                                     "fannkuch"};

typedef struct prog_case {
  const char *name;
  vm_program *prog;
  vm_value args[8];
  size_t nargs;
  vm_value expect;
} prog_case;

static vm_machine *machine;
static vm_technique technique;

static uint64_t run_program(uint64_t iters, void *arg) {
  prog_case *c = arg;
  uint64_t acc = 0;
  for (uint64_t i = 0; i < iters; i++) {
    vm_result r;
    if (vm_machine_run(machine, c->prog, technique, c->args, c->nargs, &r) != VM_OK)
      clh_fail("%s: %s at line %d", c->name, vm_status_str(r.status), r.line);
    acc += r.value;
  }
  return acc;
}

static char *read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0, got;
  do {
    if (n == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  *len = n;
  return buf;
}

static vm_technique pick_technique(void) {
  const char *name = clh_param_str("technique", "");
  vm_technique t;
  if (*name) {
    if (vm_technique_parse(name, &t) != VM_OK) clh_usage_error("unknown technique '%s'", name);
    if (!vm_technique_available(t)) clh_usage_error("technique '%s' is not in this build", name);
    return t;
  }
  int found = -1, count = 0;
  for (int i = 0; i < VM_TECH_COUNT; i++) {
    if (vm_technique_available((vm_technique)i)) {
      found = i;
      count++;
    }
  }
  if (count != 1)
    clh_usage_error("this build has %d techniques: choose one with --param technique=NAME", count);
  return (vm_technique)found;
}

int main(int argc, char **argv) {
  clh_init(argc, argv);
  const char *dir = clh_param_str("programs", VM_PROGRAMS_DIR);
  technique = pick_technique();
  machine = vm_machine_new(NULL);
  if (!machine) clh_fail("out of memory");

  static prog_case progs[NPROGRAMS];
  static clh_case cases[NPROGRAMS];
  for (int i = 0; i < NPROGRAMS; i++) {
    prog_case *c = &progs[i];
    c->name = program_names[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.vmasm", dir, c->name);
    size_t len;
    char *text = read_text(path, &len);
    if (!text) clh_fail("cannot read %s (set --param programs=DIR)", path);
    vm_diag diag;
    if (vm_program_assemble(text, len, &c->prog, &diag) != VM_OK)
      clh_fail("%s: %s", path, diag.message);
    free(text);

    const vm_value *bench;
    if (vm_program_bench_args(c->prog, &bench, &c->nargs) != VM_OK || c->nargs > 8)
      clh_fail("%s: needs a .bench line with at most 8 arguments", path);
    memcpy(c->args, bench, c->nargs * sizeof *bench);
    if (c->nargs == 1) {
      uint64_t n = clh_param_u64(c->name, (uint64_t)vm_value_as_int(c->args[0]));
      if (n > INT32_MAX) clh_usage_error("--param %s=%llu: too large", c->name,
                                         (unsigned long long)n);
      c->args[0] = vm_value_int((int32_t)n);
    }

    /* exact instruction count, and the reference result, from the counting loop */
    vm_result counted, r;
    if (vm_machine_count(machine, c->prog, c->args, c->nargs, &counted) != VM_OK)
      clh_fail("%s: %s at line %d", c->name, vm_status_str(counted.status), counted.line);
    if (vm_machine_run(machine, c->prog, technique, c->args, c->nargs, &r) != VM_OK)
      clh_fail("%s: %s at line %d", c->name, vm_status_str(r.status), r.line);
    if (r.value != counted.value) {
      char a[64], b[64];
      vm_value_format(r.value, a, sizeof a);
      vm_value_format(counted.value, b, sizeof b);
      clh_fail("%s: technique %s gives %s, the switch loop %s", c->name,
               vm_technique_name(technique), a, b);
    }
    c->expect = counted.value;
    cases[i] = (clh_case){
        .name = c->name, .fn = run_program, .arg = c,
        .units_per_iter = counted.trace_len, .unit = "vminsn",
    };
  }
  int rc = clh_run(cases, NPROGRAMS);
  for (int i = 0; i < NPROGRAMS; i++) vm_program_free(progs[i].prog);
  vm_machine_free(machine);
  return rc;
}
