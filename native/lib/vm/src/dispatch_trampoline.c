/* Technique `trampoline`: the tail-call design for compilers without musttail.
 *
 * The same one-function-per-instruction handlers as `tail`, but each returns
 * the next (pc, base) to a loop instead of tail-calling the next handler; the
 * pair comes back in two registers (rax:rdx on x86-64), so the VM state still
 * never goes through memory, unlike `call`. This is the portable build S14
 * asks for ("a fallback that returns to a loop at least once per
 * iteration"): gcc 12 builds it, and clang builds it too for comparison.
 * Handlers are `vm_tramp_<OP>`.
 */
#include "internal/state.h"

#if VM_BUILD_TRAMPOLINE

typedef struct vm_pcb {
  const vm_insn *pc; /* NULL: the run is over (S->status says how) */
  vm_value *base;
} vm_pcb;

#define VM_TRAMP_ARGS vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K, vm_insn ins
typedef vm_pcb vm_tramp_fn(VM_TRAMP_ARGS);

#define VM_INSN(name) static vm_pcb vm_tramp_##name(VM_TRAMP_ARGS)
#define VM_END
#define NEXT() return (vm_pcb){pc + 1, base}
#define JUMP(off) return (vm_pcb){pc + (off), base}
#define ENTER(p, b) return (vm_pcb){(p), (b)}
#define FINISH(v)                                                            \
  do {                                                                       \
    S->result = (v);                                                         \
    S->status = VM_OK;                                                       \
    return (vm_pcb){NULL, base};                                             \
  } while (0)
#define SLOW() return (vm_pcb){vm_insn_slow(S, pc, base, K), base}

#include "internal/insns.def"

static vm_pcb vm_tramp__badop(VM_TRAMP_ARGS) {
  (void)K, (void)ins;
  S->status = VM_ERR_BADOP;
  S->fault_pc = pc;
  return (vm_pcb){NULL, base};
}

vm_status vm_exec_trampoline(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K) {
#define VM_X_ENTRY(name, sig, doc) [VM_OP_##name] = vm_tramp_##name,
  static vm_tramp_fn *const table[256] = {
      VM_OPCODES(VM_X_ENTRY)[VM_OP__COUNT ... 255] = vm_tramp__badop,
  };
#undef VM_X_ENTRY
  for (;;) {
    vm_insn ins = *pc;
    VM_TRACE_HOOK(S, VM_SITE_SHARED, VM_OPOF(ins));
    vm_pcb r = table[VM_OPOF(ins)](S, pc, base, K, ins);
    if (VM_UNLIKELY(!r.pc)) break;
    pc = r.pc;
    base = r.base;
  }
  return S->status;
}

#endif
