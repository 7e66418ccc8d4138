/* Assembled programs: accessors, the instruction-set table, and freeing.
 * (Programs are made only by the assembler, assemble.c.)
 */
#include <stdlib.h>

#include "internal/state.h"

static const char *const vm_op_names[] = {
#define VM_X_NAME(name, sig, doc) #name,
    VM_OPCODES(VM_X_NAME)
#undef VM_X_NAME
};
static const char *const vm_op_sigs[] = {
#define VM_X_SIG(name, sig, doc) sig,
    VM_OPCODES(VM_X_SIG)
#undef VM_X_SIG
};

int vm_opcode_count(void) { return VM_OP__COUNT; }

const char *vm_opcode_name(int op) {
  return op >= 0 && op < VM_OP__COUNT ? vm_op_names[op] : NULL;
}

const char *vm_opcode_signature(int op) {
  return op >= 0 && op < VM_OP__COUNT ? vm_op_sigs[op] : NULL;
}

void vm_program_free(vm_program *p) {
  if (!p) return;
  for (size_t i = 0; i < p->nfuncs; i++) free(p->funcs[i].name);
  for (size_t i = 0; i < p->nexpects; i++) free(p->expects[i].args);
  free(p->expects);
  free(p->bench_args);
  free(p->funcs);
  free(p->k);
  free(p->lines);
  free(p->code);
  free(p);
}

size_t vm_program_expect_count(const vm_program *p) { return p ? p->nexpects : 0; }

vm_status vm_program_expect_get(const vm_program *p, size_t i, const vm_value **args,
                                size_t *nargs, vm_value *result) {
  if (!p || i >= p->nexpects || !args || !nargs || !result) return VM_ERR_ARGUMENT;
  *args = p->expects[i].args;
  *nargs = p->expects[i].nargs;
  *result = p->expects[i].result;
  return VM_OK;
}

vm_status vm_program_bench_args(const vm_program *p, const vm_value **args, size_t *nargs) {
  if (!p || !args || !nargs) return VM_ERR_ARGUMENT;
  *args = p->bench_args;
  *nargs = p->nbench_args;
  return p->bench_args ? VM_OK : VM_ERR_ARGUMENT;
}

size_t vm_program_code_size(const vm_program *p) { return p ? p->ncode : 0; }
