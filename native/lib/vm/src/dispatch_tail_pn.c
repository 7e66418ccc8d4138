/* Technique `tail-pn`: musttail handlers with clang's preserve_none.
 *
 * The tail-call design (internal/tail.inc) with every register caller-saved:
 * handlers are `vm_op_<OP>` (vm_op_ADDVN is the seed's example). The entry
 * point, a C-convention function, saves the callee-saved registers once per
 * run; no handler ever saves one. With -DVM_TAIL_COLD_CALL=1 the slow path
 * is a direct call to a preserve_most wrapper (the handler keeps its state
 * in registers across it) instead of a tail call to vm_op__slow.
 */
#include "internal/state.h"

#if VM_BUILD_TAIL_PN
#define VM_TAIL_NAME(x) vm_op_##x
#define VM_TAIL_CC VM_PRESERVE_NONE
#define VM_TAIL_EXEC vm_exec_tail_pn

#include "internal/tail.inc"
#endif
