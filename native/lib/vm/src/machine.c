/* Machines and runs: the register stack, the call stack, the heap, and the
 * choice of technique.
 *
 * A machine is allocated once and reused (a benchmark's loop allocates
 * nothing); each run resets the heap and the call stack, copies main's
 * arguments into r0.., and hands (pc, base, constants) to the technique's
 * entry point. Everything a technique needs beyond that is in vm_state.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/state.h"

/* The entry point of each technique, NULL where this build lacks it. */
#if VM_BUILD_SWITCH
#define VM_EXEC_SWITCH vm_exec_switch
#else
#define VM_EXEC_SWITCH NULL
#endif
#if VM_BUILD_GOTO_SHARED
#define VM_EXEC_GOTO_SHARED vm_exec_goto_shared
#else
#define VM_EXEC_GOTO_SHARED NULL
#endif
#if VM_BUILD_GOTO_REPLICATED
#define VM_EXEC_GOTO_REPLICATED vm_exec_goto_replicated
#else
#define VM_EXEC_GOTO_REPLICATED NULL
#endif
#if VM_BUILD_CALL
#define VM_EXEC_CALL vm_exec_call
#else
#define VM_EXEC_CALL NULL
#endif
#if VM_BUILD_TAIL
#define VM_EXEC_TAIL vm_exec_tail
#else
#define VM_EXEC_TAIL NULL
#endif
#if VM_BUILD_TAIL_PN
#define VM_EXEC_TAIL_PN vm_exec_tail_pn
#else
#define VM_EXEC_TAIL_PN NULL
#endif
#if VM_BUILD_TRAMPOLINE
#define VM_EXEC_TRAMPOLINE vm_exec_trampoline
#else
#define VM_EXEC_TRAMPOLINE NULL
#endif

static const struct {
  const char *name;
  vm_exec_fn *exec;
} vm_techniques[VM_TECH_COUNT] = {
    [VM_TECH_SWITCH] = {"switch", VM_EXEC_SWITCH},
    [VM_TECH_GOTO_SHARED] = {"goto-shared", VM_EXEC_GOTO_SHARED},
    [VM_TECH_GOTO_REPLICATED] = {"goto-replicated", VM_EXEC_GOTO_REPLICATED},
    [VM_TECH_CALL] = {"call", VM_EXEC_CALL},
    [VM_TECH_TAIL] = {"tail", VM_EXEC_TAIL},
    [VM_TECH_TAIL_PN] = {"tail-pn", VM_EXEC_TAIL_PN},
    [VM_TECH_TRAMPOLINE] = {"trampoline", VM_EXEC_TRAMPOLINE},
};

const char *vm_technique_name(vm_technique t) {
  return (unsigned)t < VM_TECH_COUNT ? vm_techniques[t].name : NULL;
}

vm_status vm_technique_parse(const char *name, vm_technique *out) {
  if (!name || !out) return VM_ERR_ARGUMENT;
  for (int t = 0; t < VM_TECH_COUNT; t++) {
    if (strcmp(name, vm_techniques[t].name) == 0) {
      *out = (vm_technique)t;
      return VM_OK;
    }
  }
  return VM_ERR_ARGUMENT;
}

bool vm_technique_available(vm_technique t) {
  return (unsigned)t < VM_TECH_COUNT && vm_techniques[t].exec != NULL;
}

bool vm_trace_built(void) { return VM_TRACE != 0; }

const char *vm_status_str(vm_status st) {
  switch (st) {
    case VM_OK: return "ok";
    case VM_ERR_SYNTAX: return "syntax error";
    case VM_ERR_NOMEM: return "out of memory";
    case VM_ERR_TYPE: return "type error";
    case VM_ERR_INDEX: return "index out of bounds";
    case VM_ERR_DIVZERO: return "division by zero";
    case VM_ERR_STACK: return "stack overflow";
    case VM_ERR_HEAP: return "heap limit reached";
    case VM_ERR_ARGS: return "wrong number of arguments for main";
    case VM_ERR_RANGE: return "value out of range";
    case VM_ERR_UNAVAILABLE: return "not available in this build";
    case VM_ERR_BADOP: return "bad opcode";
    case VM_ERR_ARGUMENT: return "bad argument";
  }
  return "unknown status";
}

vm_machine *vm_machine_new(const vm_limits *limits) {
  vm_limits lim = {(size_t)1 << 20, (size_t)1 << 16, (size_t)256 << 20};
  if (limits) {
    if (limits->stack_values) lim.stack_values = limits->stack_values;
    if (limits->frames) lim.frames = limits->frames;
    if (limits->heap_bytes) lim.heap_bytes = limits->heap_bytes;
  }
  vm_machine *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  /* calloc: every register starts as a valid value (0.0) */
  m->stack = calloc(lim.stack_values, sizeof(vm_value));
  m->st.frames = calloc(lim.frames, sizeof(vm_frame));
  if (!m->stack || !m->st.frames) {
    vm_machine_free(m);
    return NULL;
  }
  m->stack_values = lim.stack_values;
  m->st.stack_end = m->stack + lim.stack_values;
  m->st.frames_end = m->st.frames + lim.frames;
  m->st.heap_limit = lim.heap_bytes;
  return m;
}

void vm_machine_free(vm_machine *m) {
  if (!m) return;
  vm_heap_release(&m->st);
  free(m->stack);
  free(m->st.frames);
  free(m);
}

vm_status vm_machine_set_trace(vm_machine *m, uint32_t *buf, size_t cap) {
  if (!m) return VM_ERR_ARGUMENT;
  if (!VM_TRACE) return VM_ERR_UNAVAILABLE;
  m->st.trace = buf;
  m->st.trace_cap = buf ? cap : 0;
  return VM_OK;
}

static vm_status vm_run_with(vm_machine *m, const vm_program *p, vm_exec_fn *exec,
                             const vm_value *args, size_t nargs, vm_result *res) {
  if (!m || !p || !res || (nargs && !args)) return VM_ERR_ARGUMENT;
  memset(res, 0, sizeof *res);
  const vm_func *main_fn = &p->funcs[p->main_index];
  vm_state *S = &m->st;
  vm_status st = VM_OK;
  if (!exec) st = VM_ERR_UNAVAILABLE;
  else if (nargs != main_fn->nparams) st = VM_ERR_ARGS;
  else if (main_fn->nregs > m->stack_values) st = VM_ERR_STACK;
  if (st != VM_OK) {
    res->status = st;
    return st;
  }
  memcpy(m->stack, args, nargs * sizeof(vm_value));
  S->funcs = p->funcs;
  S->fp = S->frames;
  S->status = VM_OK;
  S->result = VM_NIL;
  S->fault_pc = NULL;
  S->trace_len = 0;
  vm_heap_reset(S);

  st = exec(S, main_fn->code, m->stack, p->k);

  res->status = st;
  res->value = st == VM_OK ? S->result : VM_NIL;
  res->trace_len = S->trace_len;
  if (st != VM_OK && S->fault_pc) res->line = (int)p->lines[S->fault_pc - p->code];
  return st;
}

vm_status vm_machine_run(vm_machine *m, const vm_program *p, vm_technique t,
                         const vm_value *args, size_t nargs, vm_result *res) {
  if ((unsigned)t >= VM_TECH_COUNT) return VM_ERR_ARGUMENT;
  return vm_run_with(m, p, vm_techniques[t].exec, args, nargs, res);
}

vm_status vm_machine_count(vm_machine *m, const vm_program *p, const vm_value *args,
                           size_t nargs, vm_result *res) {
  return vm_run_with(m, p, vm_exec_counted, args, nargs, res);
}
