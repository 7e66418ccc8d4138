/* Technique `tail`: musttail handlers with the C calling convention.
 *
 * The tail-call design (internal/tail.inc) without preserve_none: handlers
 * are `vm_tail_<OP>`. The six state arguments take rdi, rsi, rdx, rcx, r8, r9
 * on x86-64, all caller-saved, so a handler that calls out must save them;
 * a handler that does not (every hot one) needs no frame either.
 */
#include "internal/state.h"

#if VM_BUILD_TAIL
#define VM_TAIL_NAME(x) vm_tail_##x
#define VM_TAIL_CC
#define VM_TAIL_EXEC vm_exec_tail
#include "internal/tail.inc"
#endif
