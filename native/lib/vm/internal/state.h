/* Programs, machines and the run state that every technique shares.
 *
 * A run's state lives in one `vm_state`; the techniques keep the hot part
 * (pc, base, constants, the current instruction) in locals or arguments and
 * touch the state only for calls, returns, the slow path and the trace.
 * Frames: a CALL's callee frame begins at the caller's register A (a sliding
 * register window, as in Lua), so arguments are never copied; the control
 * stack keeps (return pc, caller base) pairs apart from the registers.
 */
#ifndef VM_INTERNAL_STATE_H
#define VM_INTERNAL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "opcodes.h"
#include "port.h"
#include "value.h"
#include "vm.h"

typedef uint64_t vm_insn;

#define VM_OPOF(i) ((unsigned)((i) & 0xff))
#define VM_AOF(i) ((unsigned)(((i) >> 8) & 0xff))
#define VM_BOF(i) ((unsigned)(((i) >> 16) & 0xff))
#define VM_COF(i) ((unsigned)(((i) >> 24) & 0xff))
#define VM_DOF(i) ((int32_t)((i) >> 32))

VM_INLINE vm_insn vm_insn_make(unsigned op, unsigned a, unsigned b, unsigned c, int32_t d) {
  return (vm_insn)op | (vm_insn)a << 8 | (vm_insn)b << 16 | (vm_insn)c << 24 |
         (vm_insn)(uint32_t)d << 32;
}

typedef struct vm_func {
  const vm_insn *code; /* first instruction (inside vm_program.code) */
  uint32_t nregs;      /* frame size in registers (>= nparams) */
  uint32_t nparams;
  char *name;
} vm_func;

typedef struct vm_expect {
  vm_value *args;
  size_t nargs;
  vm_value result;
} vm_expect;

struct vm_program {
  vm_insn *code;
  uint32_t *lines; /* source line of each instruction */
  size_t ncode;
  vm_value *k;
  size_t nk;
  vm_func *funcs;
  size_t nfuncs;
  size_t main_index;
  vm_expect *expects;
  size_t nexpects;
  vm_value *bench_args; /* NULL when the text has no .bench */
  size_t nbench_args;
};

typedef struct vm_frame {
  const vm_insn *pc; /* where the caller resumes */
  vm_value *base;    /* the caller's registers */
} vm_frame;

typedef struct vm_heap_chunk vm_heap_chunk;

typedef struct vm_state {
  const vm_func *funcs;
  vm_value *stack_end;
  vm_frame *fp; /* next free frame */
  vm_frame *frames;
  vm_frame *frames_end;
  vm_value result;
  vm_status status;
  const vm_insn *fault_pc;
  /* heap: bump allocation in chunks, all freed at once by the next run */
  vm_heap_chunk *chunks;    /* all chunks, kept from run to run */
  vm_heap_chunk *chunk_cur; /* the one allocated from; NULL: none yet */
  char *heap_ptr;
  char *heap_end;
  size_t heap_used;
  size_t heap_limit;
  /* trace (VM_TRACE builds) and count (the counting loop) */
  uint32_t *trace;
  uint64_t trace_len;
  uint64_t trace_cap;
} vm_state;

struct vm_machine {
  vm_state st;
  vm_value *stack;
  size_t stack_values;
};

/* One entry point per technique: runs from `pc` with registers at `base`
 * until main returns or an error stops it; returns S->status. */
typedef vm_status vm_exec_fn(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K);
VM_HIDDEN vm_exec_fn vm_exec_switch, vm_exec_goto_shared, vm_exec_goto_replicated, vm_exec_call,
    vm_exec_tail, vm_exec_tail_pn, vm_exec_trampoline, vm_exec_counted;

/* The generic slow path: executes the instruction at `pc` with full
 * semantics (mixed int/float, overflow to float, allocation, every error).
 * Returns the next pc, or NULL with S->status and S->fault_pc set. */
VM_HIDDEN const vm_insn *vm_insn_slow(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K);

/* Array allocation from the run's heap; NULL when the limit is reached or
 * malloc fails (S->status says which). */
VM_HIDDEN vm_array *vm_heap_alloc_array(vm_state *S, uint32_t len, vm_value fill);
VM_HIDDEN void vm_heap_reset(vm_state *S);
VM_HIDDEN void vm_heap_release(vm_state *S);

/* Jump sites of the replicated techniques: one per handler and way out. */
#define VM_EXIT_NEXT 0u
#define VM_EXIT_JUMP 1u
#define VM_EXIT_ENTER 2u
#define VM_EXIT_SLOW 3u
#define VM_SITE_OF(exit, op) (1u + (unsigned)(op) + 256u * (exit))

/* Records a dispatch to the handler of `op` from jump site `site`. */
#if VM_TRACE
#define VM_TRACE_HOOK(S, site, op)                                            \
  do {                                                                        \
    if ((S)->trace_len < (S)->trace_cap)                                      \
      (S)->trace[(S)->trace_len] = (uint32_t)((site) << 8 | (op));            \
    (S)->trace_len++;                                                         \
  } while (0)
#else
#define VM_TRACE_HOOK(S, site, op) ((void)0)
#endif

#endif /* VM_INTERNAL_STATE_H */
