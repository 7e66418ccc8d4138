/* What the assembler's passes share: diagnostics and the verifier's entry. */
#ifndef VM_INTERNAL_ASSEMBLE_H
#define VM_INTERNAL_ASSEMBLE_H

#include "state.h"

/* Fills diag (if not NULL) with "line N: <message>" and returns VM_ERR_SYNTAX. */
VM_HIDDEN vm_status vm_diag_set(vm_diag *diag, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks every function of an assembled program: registers written before
 * they are read on every path, no path past a function's last instruction,
 * call windows inside r0..r255. */
VM_HIDDEN vm_status vm_program_verify(const vm_program *p, vm_diag *diag);

#endif /* VM_INTERNAL_ASSEMBLE_H */
