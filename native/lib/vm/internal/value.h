/* NaN-boxed values: the tag tests every handler inlines.
 *
 * Layout (64 bits):
 *   below 0xFFF9 << 48   a double, stored as itself (any NaN that arithmetic
 *                        produces is 0x7FF8.. or x86's 0xFFF8.., both below)
 *   0xFFF9_0000 << 32    | int32 (low 32 bits)
 *   0xFFFA << 48         | array pointer (user-space addresses fit 47 bits)
 *   0xFFFB << 48         nil
 * "Is it a float" is one unsigned compare and "is it an int" one compare of
 * the upper half, so the fast path of ADDVN is compare, branch, add, store,
 * as in the seed's LuaJIT example.
 */
#ifndef VM_INTERNAL_VALUE_H
#define VM_INTERNAL_VALUE_H

#include <stdint.h>
#include <string.h>

#include "port.h"
#include "vm.h"

#define VM_TAG_MIN ((uint64_t)0xFFF9 << 48)
#define VM_TAG_INT32 0xFFF90000u /* upper 32 bits of an int */
#define VM_TAG_ARRAY ((uint64_t)0xFFFA << 48)
#define VM_NIL ((uint64_t)0xFFFB << 48)
#define VM_PTR_MASK (((uint64_t)1 << 48) - 1)

typedef struct vm_array {
  uint32_t len;
  uint32_t pad_;
  vm_value v[];
} vm_array;

VM_INLINE int vm_isflt(vm_value v) { return v < VM_TAG_MIN; }
VM_INLINE int vm_isint(vm_value v) { return (uint32_t)(v >> 32) == VM_TAG_INT32; }
VM_INLINE int vm_isarr(vm_value v) { return (v & ~VM_PTR_MASK) == VM_TAG_ARRAY; }
VM_INLINE int vm_isnumber(vm_value v) { return vm_isflt(v) || vm_isint(v); }

VM_INLINE double vm_flt(vm_value v) {
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}
VM_INLINE vm_value vm_mkflt(double d) {
  vm_value v;
  memcpy(&v, &d, sizeof v);
  return v;
}
VM_INLINE int32_t vm_int(vm_value v) { return (int32_t)(uint32_t)v; }
VM_INLINE vm_value vm_mkint(int32_t i) {
  return ((uint64_t)VM_TAG_INT32 << 32) | (uint32_t)i;
}
VM_INLINE vm_array *vm_arr(vm_value v) { return (vm_array *)(uintptr_t)(v & VM_PTR_MASK); }
VM_INLINE vm_value vm_mkarr(vm_array *a) { return VM_TAG_ARRAY | (uint64_t)(uintptr_t)a; }

/* A number as a double (int or float); caller checked vm_isnumber. */
VM_INLINE double vm_num(vm_value v) { return vm_isint(v) ? (double)vm_int(v) : vm_flt(v); }

#endif /* VM_INTERNAL_VALUE_H */
