/* The verifier: every register is written before it is read, on every path,
 * and no path leaves its function.
 *
 * A forward "definitely assigned" analysis per function over 256-bit register
 * sets: at a join the sets intersect; main's and every function's parameters
 * start assigned; a CALL reads its arguments, assigns its window register A
 * and unassigns everything above A (the callee's frame overwrote it). What
 * it buys: a run never reads a register it did not write, so a value left
 * by an earlier frame or an earlier run (an array in a reused heap chunk)
 * can never be seen, and the handlers need no checks for it.
 * Cost: linear in code size times the loop nesting, a few microseconds for
 * the shipped programs.
 */
#include <stdlib.h>
#include <string.h>

#include "internal/assemble.h"

typedef struct regset {
  uint64_t w[4];
} regset;

static void rs_set(regset *s, unsigned r) { s->w[r >> 6] |= (uint64_t)1 << (r & 63); }
static int rs_has(const regset *s, unsigned r) { return (int)(s->w[r >> 6] >> (r & 63)) & 1; }

/* Registers read and written by one instruction, and its successors. */
typedef struct effect {
  unsigned reads[255 + 2];
  int nreads;
  int write;       /* register written, -1 none */
  int clobber_from;/* registers >= this become unassigned, 256 none */
  int succ[2];
  int nsucc;
} effect;

static vm_status vm_effect(const vm_program *p, size_t i, size_t start, size_t end, effect *e,
                           vm_diag *diag) {
  vm_insn ins = p->code[i];
  unsigned op = VM_OPOF(ins);
  const char *sig = vm_opcode_signature((int)op);
  unsigned regs[3] = {VM_AOF(ins), VM_BOF(ins), VM_COF(ins)};
  int nreg = 0;
  e->nreads = 0;
  e->write = -1;
  e->clobber_from = 256;
  e->nsucc = 0;
  int falls = 1;
  for (const char *q = sig; *q; q++) {
    switch (*q) {
      case 'W': e->write = (int)regs[nreg++]; break;
      case 'R': e->reads[e->nreads++] = regs[nreg++]; break;
      case 'C': {
        unsigned a = regs[nreg++];
        const vm_func *f = &p->funcs[VM_DOF(ins)];
        if (a + f->nparams > 256)
          return vm_diag_set(diag, (int)p->lines[i], "call of '%s' needs r%u..r%u, past r255",
                             f->name, a, a + f->nparams - 1);
        for (unsigned r = a; r < a + f->nparams; r++) e->reads[e->nreads++] = r;
        e->write = (int)a;
        e->clobber_from = (int)a + 1;
        break;
      }
      case 'L': {
        int64_t t = (int64_t)i + VM_DOF(ins);
        if (t < (int64_t)start || t >= (int64_t)end)
          return vm_diag_set(diag, (int)p->lines[i], "jump target outside the function");
        e->succ[e->nsucc++] = (int)(t - (int64_t)start);
        break;
      }
      default: break;
    }
  }
  if (op == VM_OP_JMP || op == VM_OP_RET) falls = 0;
  if (falls) {
    if (i + 1 >= end)
      return vm_diag_set(diag, (int)p->lines[i],
                         "execution can run past the end of the function (end it with ret or jmp)");
    e->succ[e->nsucc++] = (int)(i + 1 - start);
  }
  return VM_OK;
}

static vm_status vm_verify_func(const vm_program *p, size_t fi, size_t start, size_t end,
                                vm_diag *diag) {
  size_t n = end - start;
  regset *in = malloc(n * sizeof *in);
  char *seen = calloc(n, 1);
  int *work = malloc(n * sizeof *work);
  char *queued = calloc(n, 1);
  effect e;
  vm_status st = VM_OK;
  if (!in || !seen || !work || !queued) {
    st = VM_ERR_NOMEM;
    goto out;
  }
  /* every instruction's own effects are checked once, reachable or not */
  for (size_t i = start; i < end && st == VM_OK; i++) st = vm_effect(p, i, start, end, &e, diag);
  if (st != VM_OK) goto out;

  memset(&in[0], 0, sizeof in[0]);
  for (unsigned r = 0; r < p->funcs[fi].nparams; r++) rs_set(&in[0], r);
  seen[0] = 1;
  int nwork = 0;
  work[nwork++] = 0;
  queued[0] = 1;
  while (nwork) {
    int i = work[--nwork];
    queued[i] = 0;
    vm_effect(p, start + (size_t)i, start, end, &e, diag);
    regset out = in[i];
    if (e.clobber_from < 256) {
      for (int r = e.clobber_from; r < 256; r++) out.w[r >> 6] &= ~((uint64_t)1 << (r & 63));
    }
    if (e.write >= 0) rs_set(&out, (unsigned)e.write);
    for (int s = 0; s < e.nsucc; s++) {
      int t = e.succ[s];
      regset next = out;
      if (seen[t])
        for (int w = 0; w < 4; w++) next.w[w] &= in[t].w[w];
      if (!seen[t] || memcmp(&next, &in[t], sizeof next) != 0) {
        in[t] = next;
        seen[t] = 1;
        if (!queued[t]) {
          queued[t] = 1;
          work[nwork++] = t;
        }
      }
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (!seen[i]) continue; /* unreachable: never executes */
    vm_effect(p, start + i, start, end, &e, diag);
    for (int r = 0; r < e.nreads; r++) {
      if (!rs_has(&in[i], e.reads[r])) {
        st = vm_diag_set(diag, (int)p->lines[start + i],
                         "r%u is read before it is written (on some path through '%s')",
                         e.reads[r], p->funcs[fi].name);
        goto out;
      }
    }
  }
out:
  free(in);
  free(seen);
  free(work);
  free(queued);
  return st;
}

vm_status vm_program_verify(const vm_program *p, vm_diag *diag) {
  for (size_t f = 0; f < p->nfuncs; f++) {
    size_t start = (size_t)(p->funcs[f].code - p->code);
    size_t end = f + 1 < p->nfuncs ? (size_t)(p->funcs[f + 1].code - p->code) : p->ncode;
    vm_status st = vm_verify_func(p, f, start, end, diag);
    if (st != VM_OK) return st;
  }
  return VM_OK;
}
