/* Technique `switch`: one loop, one `switch` on the opcode.
 *
 * The textbook interpreter and the baseline of the experiment. Every
 * instruction returns to the top of the loop, where a bounds check and one
 * jump-table `jmp *` pick the next handler: a single indirect-jump site whose
 * target changes with every instruction, which a last-target predictor
 * cannot follow (S1). Compilers may still copy the dispatch into the
 * handlers (clang's tail duplication does at -O2); `cpulab asm` counts the
 * `jmp *` sites that the binary really has.
 *
 * This file also builds the counting loop (count.c defines VM_SWITCH_FN and
 * VM_SWITCH_COUNTING), which is how the benchmark gets its exact
 * instructions-per-run.
 */
#include "internal/state.h"

#ifndef VM_SWITCH_FN
#define VM_SWITCH_FN vm_exec_switch
#define VM_SWITCH_WANTED VM_BUILD_SWITCH
#else
#define VM_SWITCH_WANTED 1
#endif

#ifndef VM_SWITCH_COUNTING
#define VM_SWITCH_COUNTING 0
#endif

#if VM_SWITCH_WANTED

vm_status VM_SWITCH_FN(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K) {
  vm_insn ins;
#if VM_SWITCH_COUNTING
  uint64_t count = 0;
#endif

#define VM_INSN(name) case VM_OP_##name:
#define VM_END
#include "internal/shared_dispatch.inc"

vm_dispatch:
  ins = *pc;
#if VM_SWITCH_COUNTING
  count++;
#else
  VM_TRACE_HOOK(S, VM_SITE_SHARED, VM_OPOF(ins));
#endif
  switch (VM_OPOF(ins)) {
#include "internal/insns.def"
  default:
    S->status = VM_ERR_BADOP;
    S->fault_pc = pc;
    goto vm_exit;
  }

vm_exit:
#if VM_SWITCH_COUNTING
  S->trace_len = count;
#endif
  return S->status;
}

#endif
