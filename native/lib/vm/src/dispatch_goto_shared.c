/* Technique `goto-shared`: labels as values, all handlers jump back to one
 * shared `goto *`.
 *
 * This is the code gcc 4.8 produced for Ertl's direct-threaded benchmark
 * (S1): one indirect-jump site for all dispatches, plus one direct jump per
 * instruction. Compilers like to copy a small `goto *` block into its
 * predecessors (gcc's duplicate_computed_gotos, LLVM's tail duplication),
 * which would turn this into goto-replicated (gcc 12 -O2 made 32 copies).
 * So with clang the dispatch is an `asm goto` whose `jmp *` lists every
 * handler (a block LLVM never copies); with gcc, which caps asm goto at 30
 * operands, a block that looks too long to copy (see below). On targets other
 * than x86-64 clang gets the plain `goto *` and may copy it.
 * No bounds check: the table has 256 entries, opcodes past the last one go
 * to a bad-opcode handler.
 */
#include "internal/state.h"

#if VM_BUILD_GOTO_SHARED

#define VM_ASM_COMMENT_LINES                                                 \
  "# one shared dispatch\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n#\n"

vm_status vm_exec_goto_shared(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K) {
#define VM_X_LABEL(name, sig, doc) [VM_OP_##name] = &&vm_l_##name,
  static const void *const labels[256] = {
      VM_OPCODES(VM_X_LABEL)[VM_OP__COUNT ... 255] = &&vm_l__badop,
  };
#undef VM_X_LABEL
  vm_insn ins;
  const void *target;

#define VM_INSN(name) vm_l_##name:
#define VM_END
#include "internal/shared_dispatch.inc"

vm_dispatch:
  ins = *pc;
  VM_TRACE_HOOK(S, VM_SITE_SHARED, VM_OPOF(ins));
  target = labels[VM_OPOF(ins)];
#if defined(__clang__) && defined(__x86_64__)
  /* An asm goto's block is never copied; its `jmp *` may reach every handler.
   * Jumping through the table rather than to the asm's label operands is safe
   * only because each handler label has this block as its only predecessor,
   * so LLVM needs no copies on split edges that the table jump would skip
   * (goto-replicated, where every handler jumps to every label, cannot use
   * this: it crashed). */
#define VM_X_TARGET(name, sig, doc) vm_l_##name,
  __asm__ goto("jmp *%0" : : "r"(target) : : VM_OPCODES(VM_X_TARGET) vm_l__badop);
#undef VM_X_TARGET
#else
  /* gcc copies a computed-goto block of up to 8 instructions into its
   * predecessors (duplicate_computed_gotos) and takes an asm statement as
   * long as its lines: these comment lines emit no code but stop the copy.
   * (An asm goto would need all handlers as operands; gcc allows 30.) */
  __asm__ volatile(VM_ASM_COMMENT_LINES);
  goto *target;
#endif

#include "internal/insns.def"

vm_l__badop:
  S->status = VM_ERR_BADOP;
  S->fault_pc = pc;
vm_exit:
  return S->status;
}

#endif
