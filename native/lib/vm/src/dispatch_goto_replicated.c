/* Technique `goto-replicated`: labels as values, a `goto *` at the end of
 * every handler (true direct threading over bytecode, as gcc -O3 built Ertl's
 * benchmark: 2.6x fewer cycles than the shared jump on Ivy Bridge, S1).
 *
 * Each handler's indirect jump is its own branch-predictor site, so the
 * predictor learns "after ADD comes JLT" per site even without history.
 * Neither compiler keeps the copies apart by itself at -O2:
 *  - gcc 12 copies the dispatch into every handler (duplicate_computed_gotos)
 *    but its cross-jumping merges identical copies again (10 sites were
 *    left): the function is compiled with no-crossjumping (79 sites).
 *  - clang emits one `indirectbr` block for all `goto *` of a function and
 *    relies on tail duplication to copy it back; since LLVM 18 that is
 *    skipped for blocks with more than 16 predecessors and successors, so
 *    clang 19 -O2 builds ONE shared jump here. Build with
 *    -mllvm -tail-dup-pred-size=128 -mllvm -tail-dup-succ-size=128 (53
 *    sites; no other technique's code changes). Source-level workarounds
 *    fail: an asm goto per handler jumping through the table skips the
 *    copies LLVM puts on split edges (wrong results).
 * `cpulab asm` shows the count of `jmp *` in the binary; the tests check it.
 */
#include "internal/state.h"

#if VM_BUILD_GOTO_REPLICATED

#if defined(__clang__)
#define VM_NO_CROSSJUMP
#else
#define VM_NO_CROSSJUMP __attribute__((optimize("no-crossjumping")))
#endif

VM_NO_CROSSJUMP vm_status vm_exec_goto_replicated(vm_state *S, const vm_insn *pc,
                                                  vm_value *base, const vm_value *K) {
#define VM_X_LABEL(name, sig, doc) [VM_OP_##name] = &&vm_l_##name,
  static const void *const labels[256] = {
      VM_OPCODES(VM_X_LABEL)[VM_OP__COUNT ... 255] = &&vm_l__badop,
  };
#undef VM_X_LABEL
  vm_insn ins = *pc;

/* the site: the handler doing the dispatch and its way out (VM_SITE_OF) */
#define DISPATCH_FROM(site)                                                  \
  do {                                                                       \
    unsigned site_ = (site);                                                 \
    (void)site_;                                                             \
    ins = *pc;                                                               \
    VM_TRACE_HOOK(S, site_, VM_OPOF(ins));                                   \
    goto *labels[VM_OPOF(ins)];                                              \
  } while (0)
#define VM_INSN(name) vm_l_##name:
#define VM_END
#define NEXT()                                                               \
  do {                                                                       \
    pc++;                                                                    \
    DISPATCH_FROM(VM_SITE_OF(VM_EXIT_NEXT, VM_OPOF(ins)));                   \
  } while (0)
#define JUMP(off)                                                            \
  do {                                                                       \
    pc += (off);                                                             \
    DISPATCH_FROM(VM_SITE_OF(VM_EXIT_JUMP, VM_OPOF(ins)));                   \
  } while (0)
#define ENTER(p, b)                                                          \
  do {                                                                       \
    pc = (p);                                                                \
    base = (b);                                                              \
    DISPATCH_FROM(VM_SITE_OF(VM_EXIT_ENTER, VM_OPOF(ins)));                  \
  } while (0)
#define FINISH(v)                                                            \
  do {                                                                       \
    S->result = (v);                                                         \
    S->status = VM_OK;                                                       \
    goto vm_exit;                                                            \
  } while (0)
#define SLOW()                                                               \
  do {                                                                       \
    unsigned op_ = VM_OPOF(ins);                                             \
    (void)op_;                                                               \
    pc = vm_insn_slow(S, pc, base, K);                                       \
    if (VM_UNLIKELY(!pc)) goto vm_exit;                                      \
    DISPATCH_FROM(VM_SITE_OF(VM_EXIT_SLOW, op_));                            \
  } while (0)

  VM_TRACE_HOOK(S, VM_SITE_ENTRY, VM_OPOF(ins));
  goto *labels[VM_OPOF(ins)];

#include "internal/insns.def"

vm_l__badop:
  S->status = VM_ERR_BADOP;
  S->fault_pc = pc;
vm_exit:
  return S->status;
}

#endif
