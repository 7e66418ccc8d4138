/* The generic slow path: every instruction's full semantics, in one place.
 *
 * Handlers inline only the common cases (int with int, float with float, an
 * in-bounds index) and come here for the rest: mixed int and float (computed
 * as doubles), int32 overflow (the exact result as a double, like LuaJIT's
 * dual-number mode), floor division and modulo for any signs, shifts past
 * 31, array allocation, and every run-time error. Because all techniques
 * share it, an error or an unusual case gives the same result under each.
 * Returns the next pc, or NULL with S->status and S->fault_pc set.
 */
#include <math.h>

#include "internal/state.h"

static const vm_insn *vm_fail(vm_state *S, const vm_insn *pc, vm_status st) {
  S->status = st;
  S->fault_pc = pc;
  return NULL;
}

/* An exact int64 result as an int when it fits, else as a double. */
static vm_value vm_from_i64(int64_t r) {
  if (r >= INT32_MIN && r <= INT32_MAX) return vm_mkint((int32_t)r);
  return vm_mkflt((double)r);
}

static int vm_arith(unsigned op, vm_value x, vm_value y, vm_value *out) {
  if (!vm_isnumber(x) || !vm_isnumber(y)) return 0;
  if (vm_isint(x) && vm_isint(y)) {
    int64_t a = vm_int(x), b = vm_int(y);
    switch (op) {
      case VM_OP_ADD: case VM_OP_ADDVN: *out = vm_from_i64(a + b); return 1;
      case VM_OP_SUB: case VM_OP_SUBVN: *out = vm_from_i64(a - b); return 1;
      default: *out = vm_from_i64(a * b); return 1;
    }
  }
  double a = vm_num(x), b = vm_num(y);
  switch (op) {
    case VM_OP_ADD: case VM_OP_ADDVN: *out = vm_mkflt(a + b); return 1;
    case VM_OP_SUB: case VM_OP_SUBVN: *out = vm_mkflt(a - b); return 1;
    default: *out = vm_mkflt(a * b); return 1;
  }
}

/* Lua's floor division and modulo: the quotient rounded down, the remainder
 * with the divisor's sign. */
static vm_status vm_divmod(unsigned op, vm_value x, vm_value y, vm_value *out) {
  if (!vm_isnumber(x) || !vm_isnumber(y)) return VM_ERR_TYPE;
  if (vm_isint(x) && vm_isint(y)) {
    int64_t a = vm_int(x), b = vm_int(y);
    if (b == 0) return VM_ERR_DIVZERO;
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) {
      q -= 1;
      r += b;
    }
    *out = vm_from_i64(op == VM_OP_IDIV ? q : r);
    return VM_OK;
  }
  double a = vm_num(x), b = vm_num(y);
  if (op == VM_OP_IDIV) {
    *out = vm_mkflt(floor(a / b));
  } else {
    double m = fmod(a, b);
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    *out = vm_mkflt(m);
  }
  return VM_OK;
}

static uint32_t vm_shift(unsigned op, uint32_t a, int32_t n) {
  if (n < 0) {
    op = op == VM_OP_SHL ? VM_OP_SHR : VM_OP_SHL;
    n = n == INT32_MIN ? 32 : -n;
  }
  if (n >= 32) return 0;
  return op == VM_OP_SHL ? a << n : a >> n;
}

/* 1 when the comparison holds, 0 when not, -1 when the operands do not compare. */
static int vm_compare(unsigned op, vm_value x, vm_value y) {
  if (vm_isnumber(x) && vm_isnumber(y)) {
    double a = vm_num(x), b = vm_num(y); /* int32 -> double is exact */
    switch (op) {
      case VM_OP_JLT: return a < b;
      case VM_OP_JLE: return a <= b;
      case VM_OP_JEQ: return a == b;
      default: return a != b;
    }
  }
  switch (op) {
    case VM_OP_JEQ: return x == y; /* nil == nil, the same array */
    case VM_OP_JNE: return x != y;
    default: return -1;
  }
}

const vm_insn *vm_insn_slow(vm_state *S, const vm_insn *pc, vm_value *base, const vm_value *K) {
  vm_insn ins = *pc;
  unsigned op = VM_OPOF(ins), a = VM_AOF(ins), b = VM_BOF(ins), c = VM_COF(ins);
  int32_t d = VM_DOF(ins);
  vm_value *R = base;
  vm_status st;

  switch (op) {
    case VM_OP_ADD: case VM_OP_SUB: case VM_OP_MUL:
      if (!vm_arith(op, R[b], R[c], &R[a])) return vm_fail(S, pc, VM_ERR_TYPE);
      return pc + 1;
    case VM_OP_ADDVN: case VM_OP_SUBVN: case VM_OP_MULVN:
      if (!vm_arith(op, R[b], K[d], &R[a])) return vm_fail(S, pc, VM_ERR_TYPE);
      return pc + 1;
    case VM_OP_DIV:
      if (!vm_isnumber(R[b]) || !vm_isnumber(R[c])) return vm_fail(S, pc, VM_ERR_TYPE);
      R[a] = vm_mkflt(vm_num(R[b]) / vm_num(R[c]));
      return pc + 1;
    case VM_OP_IDIV: case VM_OP_MOD:
      st = vm_divmod(op, R[b], R[c], &R[a]);
      return st == VM_OK ? pc + 1 : vm_fail(S, pc, st);
    case VM_OP_NEG:
      if (vm_isint(R[b])) R[a] = vm_from_i64(-(int64_t)vm_int(R[b]));
      else if (vm_isflt(R[b])) R[a] = vm_mkflt(-vm_flt(R[b]));
      else return vm_fail(S, pc, VM_ERR_TYPE);
      return pc + 1;
    case VM_OP_SQRT:
      if (!vm_isnumber(R[b])) return vm_fail(S, pc, VM_ERR_TYPE);
      R[a] = vm_mkflt(sqrt(vm_num(R[b])));
      return pc + 1;
    case VM_OP_TOFLOAT:
      if (!vm_isnumber(R[b])) return vm_fail(S, pc, VM_ERR_TYPE);
      R[a] = vm_mkflt(vm_num(R[b]));
      return pc + 1;
    case VM_OP_TOINT: {
      vm_value x = R[b];
      if (vm_isint(x)) {
        R[a] = x;
        return pc + 1;
      }
      if (!vm_isflt(x)) return vm_fail(S, pc, VM_ERR_TYPE);
      double f = vm_flt(x);
      if (!(f > -2147483649.0 && f < 2147483648.0)) return vm_fail(S, pc, VM_ERR_RANGE);
      R[a] = vm_mkint((int32_t)f);
      return pc + 1;
    }
    case VM_OP_BAND: case VM_OP_BOR: case VM_OP_BXOR: case VM_OP_SHL: case VM_OP_SHR: {
      if (!vm_isint(R[b]) || !vm_isint(R[c])) return vm_fail(S, pc, VM_ERR_TYPE);
      uint32_t x = (uint32_t)vm_int(R[b]);
      int32_t y = vm_int(R[c]);
      uint32_t r = op == VM_OP_BAND  ? x & (uint32_t)y
                   : op == VM_OP_BOR ? x | (uint32_t)y
                   : op == VM_OP_BXOR ? x ^ (uint32_t)y
                                      : vm_shift(op, x, y);
      R[a] = vm_mkint((int32_t)r);
      return pc + 1;
    }
    case VM_OP_JLT: case VM_OP_JLE: case VM_OP_JEQ: case VM_OP_JNE: {
      int r = vm_compare(op, R[a], R[b]);
      if (r < 0) return vm_fail(S, pc, VM_ERR_TYPE);
      return r ? pc + d : pc + 1;
    }
    case VM_OP_CALL:
      /* the handler found no room for the callee's frame */
      return vm_fail(S, pc, VM_ERR_STACK);
    case VM_OP_NEWARR: {
      vm_value n = R[b];
      if (!vm_isint(n)) return vm_fail(S, pc, VM_ERR_TYPE);
      if (vm_int(n) < 0) return vm_fail(S, pc, VM_ERR_RANGE);
      vm_array *arr = vm_heap_alloc_array(S, (uint32_t)vm_int(n), R[c]);
      if (!arr) return vm_fail(S, pc, S->status);
      R[a] = vm_mkarr(arr);
      return pc + 1;
    }
    case VM_OP_GETI: case VM_OP_SETI: {
      vm_value t = op == VM_OP_GETI ? R[b] : R[a];
      vm_value i = op == VM_OP_GETI ? R[c] : R[b];
      if (!vm_isarr(t) || !vm_isint(i)) return vm_fail(S, pc, VM_ERR_TYPE);
      vm_array *arr = vm_arr(t);
      uint32_t ix = (uint32_t)vm_int(i);
      if (ix >= arr->len) return vm_fail(S, pc, VM_ERR_INDEX);
      if (op == VM_OP_GETI) R[a] = arr->v[ix];
      else arr->v[ix] = R[c];
      return pc + 1;
    }
    case VM_OP_LEN:
      if (!vm_isarr(R[b])) return vm_fail(S, pc, VM_ERR_TYPE);
      R[a] = vm_mkint((int32_t)vm_arr(R[b])->len);
      return pc + 1;
    default:
      /* every other instruction is complete in its handler */
      return vm_fail(S, pc, VM_ERR_BADOP);
  }
}
