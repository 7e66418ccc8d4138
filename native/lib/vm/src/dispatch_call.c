/* Technique `call`: call threading. One C function per instruction, a loop
 * that calls them through the op table.
 *
 * The VM registers (pc, base, constants) live in a struct in memory, as in
 * Ertl's `call` variant: each handler loads them, works, stores pc back and
 * returns. Costs per instruction over a tail call: a `call`/`ret` pair (the
 * return is predicted by the return stack), the loads and stores of the VM
 * registers, and the loop's shared indirect-call site.
 */
#include "internal/state.h"

#if VM_BUILD_CALL

typedef struct vm_cthread {
  const vm_insn *pc; /* NULL: the run is over */
  vm_value *base;
  const vm_value *K;
  vm_state *S;
} vm_cthread;

typedef void vm_call_fn(vm_cthread *T);

#define VM_INSN(name)                                                        \
  static void vm_call_##name(vm_cthread *T) {                                \
    vm_state *S = T->S;                                                      \
    const vm_insn *pc = T->pc;                                               \
    vm_value *base = T->base;                                                \
    const vm_value *K = T->K;                                                \
    vm_insn ins = *pc;                                                       \
    (void)S, (void)K, (void)base, (void)ins;
#define VM_END }
#define NEXT()                                                               \
  do {                                                                       \
    T->pc = pc + 1;                                                          \
    return;                                                                  \
  } while (0)
#define JUMP(off)                                                            \
  do {                                                                       \
    T->pc = pc + (off);                                                      \
    return;                                                                  \
  } while (0)
#define ENTER(p, b)                                                          \
  do {                                                                       \
    T->pc = (p);                                                             \
    T->base = (b);                                                           \
    return;                                                                  \
  } while (0)
#define FINISH(v)                                                            \
  do {                                                                       \
    S->result = (v);                                                         \
    S->status = VM_OK;                                                       \
    T->pc = NULL;                                                            \
    return;                                                                  \
  } while (0)
#define SLOW()                                                               \
  do {                                                                       \
    T->pc = vm_insn_slow(S, pc, base, K);                                    \
    return;                                                                  \
  } while (0)

#include "internal/insns.def"

static void vm_call__badop(vm_cthread *T) {
  T->S->status = VM_ERR_BADOP;
  T->S->fault_pc = T->pc;
  T->pc = NULL;
}

vm_status vm_exec_call(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K) {
#define VM_X_ENTRY(name, sig, doc) [VM_OP_##name] = vm_call_##name,
  static vm_call_fn *const table[256] = {
      VM_OPCODES(VM_X_ENTRY)[VM_OP__COUNT ... 255] = vm_call__badop,
  };
#undef VM_X_ENTRY
  vm_cthread T = {pc, base, K, S};
  do {
    unsigned op = VM_OPOF(*T.pc);
    VM_TRACE_HOOK(S, VM_SITE_SHARED, op);
    table[op](&T);
  } while (T.pc);
  return S->status;
}

#endif
