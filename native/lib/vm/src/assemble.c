/* The assembler: text form -> vm_program, with errors that name the line.
 *
 * One pass over the lines emits instructions and records labels, function
 * references and label references as fixups; a second step resolves them,
 * then the verifier (verify.c) checks every function. Nothing is returned
 * unless all of it succeeds. Operands follow the signature letters of
 * internal/opcodes.h, so adding an instruction needs no change here.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/assemble.h"

#define VM_LINE_MAX 1024
#define VM_NAME_MAX 64
#define VM_MAX_OPERANDS 3

typedef struct asm_ref {
  size_t at;     /* instruction index */
  size_t func;   /* function the instruction is in */
  int line;
  char kind;     /* 'L' label, 'F' function */
  char name[VM_NAME_MAX];
} asm_ref;

typedef struct asm_label {
  size_t at;
  size_t func;
  int line;
  char name[VM_NAME_MAX];
} asm_label;

typedef struct asm_func {
  char name[VM_NAME_MAX];
  size_t start, end; /* [start, end) in code */
  unsigned nparams, nregs;
  int line;
} asm_func;

typedef struct asm_expect {
  vm_value *args;
  size_t nargs;
  vm_value result;
  int line;
} asm_expect;

typedef struct asm_ctx {
  vm_diag *diag;
  vm_insn *code;
  uint32_t *lines;
  size_t ncode, capcode, caplines;
  vm_value *k;
  size_t nk, capk;
  asm_func *funcs;
  size_t nfuncs, capfuncs;
  asm_label *labels;
  size_t nlabels, caplabels;
  asm_ref *refs;
  size_t nrefs, caprefs;
  asm_expect *expects;
  size_t nexpects, capexpects;
  vm_value *bench;
  size_t nbench;
  int bench_line;
  int in_func; /* 1 between .func and .end */
} asm_ctx;

vm_status vm_diag_set(vm_diag *diag, int line, const char *fmt, ...) {
  if (diag) {
    char msg[sizeof diag->message - 24]; /* room for "line N: " */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    diag->line = line;
    if (line > 0)
      snprintf(diag->message, sizeof diag->message, "line %d: %s", line, msg);
    else
      snprintf(diag->message, sizeof diag->message, "%s", msg);
  }
  return VM_ERR_SYNTAX;
}

/* Grows *arr (of *cap elements of `size` bytes) to hold n + 1; 0 on failure. */
static int asm_grow(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 1;
  size_t ncap = *cap ? *cap * 2 : 16;
  void *p = realloc(*arr, ncap * size);
  if (!p) return 0;
  *arr = p;
  *cap = ncap;
  return 1;
}
#define ASM_PUSH(c, arr, n, cap) asm_grow((void **)&(c)->arr, &(c)->cap, (c)->n, sizeof *(c)->arr)

static vm_status asm_nomem(asm_ctx *c) {
  if (c->diag) {
    c->diag->line = 0;
    snprintf(c->diag->message, sizeof c->diag->message, "out of memory");
  }
  return VM_ERR_NOMEM;
}

static int asm_is_ident(const char *s) {
  if (!(isalpha((unsigned char)*s) || *s == '_' || *s == '.')) return 0;
  for (s++; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_' || *s == '.')) return 0;
  return 1;
}

/* r0..r255 -> 0..255; -1 when not a register. */
static int asm_register(const char *s) {
  if ((s[0] != 'r' && s[0] != 'R') || !isdigit((unsigned char)s[1])) return -1;
  if (s[1] == '0' && s[2]) return -1; /* r05 */
  long v = 0;
  for (const char *q = s + 1; *q; q++) {
    if (!isdigit((unsigned char)*q) || v > 255) return -1;
    v = v * 10 + (*q - '0');
  }
  return v <= 255 ? (int)v : -1;
}

static const char *asm_kind_name(char k) {
  switch (k) {
    case 'W': case 'R': case 'C': return "register";
    case 'I': return "integer";
    case 'K': return "number";
    case 'L': return "label";
    default: return "function";
  }
}

static int asm_find_op(const char *mnemonic) {
  for (int op = 0; op < vm_opcode_count(); op++) {
    const char *n = vm_opcode_name(op);
    size_t i = 0;
    while (n[i] && mnemonic[i] && toupper((unsigned char)mnemonic[i]) == n[i]) i++;
    if (!n[i] && !mnemonic[i]) return op;
  }
  return -1;
}

static vm_status asm_const(asm_ctx *c, vm_value v, int32_t *index) {
  for (size_t i = 0; i < c->nk; i++) {
    if (c->k[i] == v) {
      *index = (int32_t)i;
      return VM_OK;
    }
  }
  if (c->nk >= INT32_MAX) return vm_diag_set(c->diag, 0, "too many constants");
  if (!ASM_PUSH(c, k, nk, capk)) return asm_nomem(c);
  c->k[c->nk] = v;
  *index = (int32_t)c->nk++;
  return VM_OK;
}

static vm_status asm_ref_add(asm_ctx *c, char kind, const char *name, int line) {
  if (!asm_is_ident(name))
    return vm_diag_set(c->diag, line, "expected a %s name, got '%s'", asm_kind_name(kind), name);
  if (strlen(name) >= VM_NAME_MAX)
    return vm_diag_set(c->diag, line, "name '%.20s...' longer than %d characters", name,
                       VM_NAME_MAX - 1);
  if (!ASM_PUSH(c, refs, nrefs, caprefs)) return asm_nomem(c);
  asm_ref *r = &c->refs[c->nrefs++];
  r->at = c->ncode;
  r->func = c->nfuncs - 1;
  r->line = line;
  r->kind = kind;
  snprintf(r->name, sizeof r->name, "%s", name);
  return VM_OK;
}

static vm_status asm_insn(asm_ctx *c, char **tok, int ntok, int line) {
  int op = asm_find_op(tok[0]);
  if (op < 0) return vm_diag_set(c->diag, line, "unknown instruction '%s'", tok[0]);
  if (!c->in_func)
    return vm_diag_set(c->diag, line, "instruction '%s' outside a function (.func NAME NPARAMS)",
                       tok[0]);
  const char *sig = vm_opcode_signature(op);
  int want = (int)strlen(sig);
  if (ntok - 1 != want) {
    char kinds[64] = "";
    for (int i = 0; i < want; i++) {
      if (i) strcat(kinds, ", ");
      strcat(kinds, asm_kind_name(sig[i]));
    }
    return vm_diag_set(c->diag, line, "'%s' takes %d operand%s (%s), got %d", tok[0], want,
                       want == 1 ? "" : "s", want ? kinds : "none", ntok - 1);
  }
  unsigned regs[3] = {0, 0, 0};
  int nreg = 0;
  int32_t d = 0;
  asm_func *f = &c->funcs[c->nfuncs - 1];
  for (int i = 0; i < want; i++) {
    const char *t = tok[i + 1];
    vm_value v;
    vm_status st;
    switch (sig[i]) {
      case 'W': case 'R': case 'C': {
        int r = asm_register(t);
        if (r < 0)
          return vm_diag_set(c->diag, line, "operand %d of '%s': expected a register (r0..r255), got '%s'",
                             i + 1, tok[0], t);
        regs[nreg++] = (unsigned)r;
        if ((unsigned)r + 1 > f->nregs) f->nregs = (unsigned)r + 1;
        break;
      }
      case 'I':
        st = vm_value_parse(t, &v);
        if (st != VM_OK || !vm_isint(v))
          return vm_diag_set(c->diag, line, "operand %d of '%s': expected an integer in int32 range, got '%s'",
                             i + 1, tok[0], t);
        d = vm_int(v);
        break;
      case 'K':
        st = vm_value_parse(t, &v);
        if (st == VM_ERR_RANGE)
          return vm_diag_set(c->diag, line, "operand %d of '%s': number '%s' out of range (integers are int32; floats finite)",
                             i + 1, tok[0], t);
        if (st != VM_OK)
          return vm_diag_set(c->diag, line, "operand %d of '%s': expected a number, got '%s'", i + 1,
                             tok[0], t);
        st = asm_const(c, v, &d);
        if (st != VM_OK) return st;
        break;
      default:
        st = asm_ref_add(c, sig[i], t, line);
        if (st != VM_OK) return st;
        break;
    }
  }
  if (!ASM_PUSH(c, code, ncode, capcode) || !ASM_PUSH(c, lines, ncode, caplines))
    return asm_nomem(c);
  c->code[c->ncode] = vm_insn_make((unsigned)op, regs[0], regs[1], regs[2], d);
  c->lines[c->ncode] = (uint32_t)line;
  c->ncode++;
  return VM_OK;
}

/* ARG... for .expect and .bench: numbers only. */
static vm_status asm_values(asm_ctx *c, char **tok, int ntok, int line, vm_value **out) {
  *out = NULL;
  if (ntok == 0) return VM_OK;
  vm_value *v = malloc((size_t)ntok * sizeof *v);
  if (!v) return asm_nomem(c);
  for (int i = 0; i < ntok; i++) {
    if (vm_value_parse(tok[i], &v[i]) != VM_OK) {
      free(v);
      return vm_diag_set(c->diag, line, "expected a number, got '%s'", tok[i]);
    }
  }
  *out = v;
  return VM_OK;
}

static vm_status asm_directive(asm_ctx *c, char **tok, int ntok, int line) {
  const char *d = tok[0];
  if (strcmp(d, ".func") == 0) {
    if (c->in_func)
      return vm_diag_set(c->diag, line, ".func inside function '%s' (missing .end?)",
                         c->funcs[c->nfuncs - 1].name);
    if (ntok != 3) return vm_diag_set(c->diag, line, ".func takes a name and a parameter count");
    if (!asm_is_ident(tok[1]) || strlen(tok[1]) >= VM_NAME_MAX)
      return vm_diag_set(c->diag, line, "bad function name '%s'", tok[1]);
    int np = -1;
    if (isdigit((unsigned char)tok[2][0]) && strlen(tok[2]) <= 3) np = atoi(tok[2]);
    for (const char *q = tok[2]; *q; q++)
      if (!isdigit((unsigned char)*q)) np = -1;
    if (np < 0 || np > 255)
      return vm_diag_set(c->diag, line, "parameter count must be 0..255, got '%s'", tok[2]);
    for (size_t i = 0; i < c->nfuncs; i++)
      if (strcmp(c->funcs[i].name, tok[1]) == 0)
        return vm_diag_set(c->diag, line, "function '%s' already defined on line %d", tok[1],
                           c->funcs[i].line);
    if (!ASM_PUSH(c, funcs, nfuncs, capfuncs)) return asm_nomem(c);
    asm_func *f = &c->funcs[c->nfuncs++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", tok[1]);
    f->start = c->ncode;
    f->nparams = (unsigned)np;
    f->nregs = (unsigned)np;
    f->line = line;
    c->in_func = 1;
    return VM_OK;
  }
  if (strcmp(d, ".end") == 0) {
    if (!c->in_func) return vm_diag_set(c->diag, line, ".end outside a function");
    if (ntok != 1) return vm_diag_set(c->diag, line, ".end takes no operands");
    asm_func *f = &c->funcs[c->nfuncs - 1];
    f->end = c->ncode;
    if (f->end == f->start) return vm_diag_set(c->diag, line, "function '%s' is empty", f->name);
    c->in_func = 0;
    return VM_OK;
  }
  if (strcmp(d, ".expect") == 0) {
    if (c->in_func) return vm_diag_set(c->diag, line, ".expect inside a function");
    int arrow = -1;
    for (int i = 1; i < ntok; i++)
      if (strcmp(tok[i], "->") == 0) arrow = i;
    if (arrow < 0 || arrow != ntok - 2)
      return vm_diag_set(c->diag, line, ".expect wants ARG... -> RESULT");
    if (!ASM_PUSH(c, expects, nexpects, capexpects)) return asm_nomem(c);
    asm_expect *e = &c->expects[c->nexpects];
    vm_status st = asm_values(c, tok + 1, arrow - 1, line, &e->args);
    if (st != VM_OK) return st;
    e->nargs = (size_t)(arrow - 1);
    e->line = line;
    if (vm_value_parse(tok[ntok - 1], &e->result) != VM_OK) {
      free(e->args);
      return vm_diag_set(c->diag, line, "expected a number result, got '%s'", tok[ntok - 1]);
    }
    c->nexpects++;
    return VM_OK;
  }
  if (strcmp(d, ".bench") == 0) {
    if (c->in_func) return vm_diag_set(c->diag, line, ".bench inside a function");
    if (c->bench_line) return vm_diag_set(c->diag, line, "second .bench (first on line %d)", c->bench_line);
    vm_status st = asm_values(c, tok + 1, ntok - 1, line, &c->bench);
    if (st != VM_OK) return st;
    c->nbench = (size_t)(ntok - 1);
    c->bench_line = line;
    return VM_OK;
  }
  return vm_diag_set(c->diag, line, "unknown directive '%s' (.func .end .expect .bench)", d);
}

static vm_status asm_label_add(asm_ctx *c, const char *name, int line) {
  if (!c->in_func) return vm_diag_set(c->diag, line, "label '%s' outside a function", name);
  if (!asm_is_ident(name) || strlen(name) >= VM_NAME_MAX)
    return vm_diag_set(c->diag, line, "bad label name '%s'", name);
  size_t fi = c->nfuncs - 1;
  for (size_t i = 0; i < c->nlabels; i++)
    if (c->labels[i].func == fi && strcmp(c->labels[i].name, name) == 0)
      return vm_diag_set(c->diag, line, "label '%s' already defined on line %d", name,
                         c->labels[i].line);
  if (!ASM_PUSH(c, labels, nlabels, caplabels)) return asm_nomem(c);
  asm_label *l = &c->labels[c->nlabels++];
  l->at = c->ncode;
  l->func = fi;
  l->line = line;
  snprintf(l->name, sizeof l->name, "%s", name);
  return VM_OK;
}

static vm_status asm_line(asm_ctx *c, char *s, int line) {
  char *cut = strpbrk(s, ";#");
  if (cut) *cut = 0;
  char *tok[16];
  int ntok = 0;
  char *save = NULL;
  for (char *t = strtok_r(s, " \t,\r\f\v", &save); t; t = strtok_r(NULL, " \t,\r\f\v", &save)) {
    if (ntok == 16) return vm_diag_set(c->diag, line, "too many tokens");
    tok[ntok++] = t;
  }
  if (ntok == 0) return VM_OK;
  size_t n0 = strlen(tok[0]);
  if (tok[0][n0 - 1] == ':') {
    tok[0][n0 - 1] = 0;
    vm_status st = asm_label_add(c, tok[0], line);
    if (st != VM_OK || ntok == 1) return st;
    return asm_insn(c, tok + 1, ntok - 1, line);
  }
  if (tok[0][0] == '.') return asm_directive(c, tok, ntok, line);
  return asm_insn(c, tok, ntok, line);
}

static vm_status asm_resolve(asm_ctx *c) {
  for (size_t i = 0; i < c->nrefs; i++) {
    asm_ref *r = &c->refs[i];
    int32_t d = -1;
    if (r->kind == 'F') {
      for (size_t f = 0; f < c->nfuncs; f++)
        if (strcmp(c->funcs[f].name, r->name) == 0) d = (int32_t)f;
      if (d < 0) return vm_diag_set(c->diag, r->line, "unknown function '%s'", r->name);
    } else {
      const asm_func *f = &c->funcs[r->func];
      const asm_label *l = NULL;
      for (size_t j = 0; j < c->nlabels; j++)
        if (c->labels[j].func == r->func && strcmp(c->labels[j].name, r->name) == 0) l = &c->labels[j];
      if (!l) return vm_diag_set(c->diag, r->line, "unknown label '%s' in function '%s'", r->name, f->name);
      if (l->at >= f->end)
        return vm_diag_set(c->diag, r->line, "label '%s' (line %d) marks the end of function '%s'; "
                           "a jump there would leave it", r->name, l->line, f->name);
      d = (int32_t)((int64_t)l->at - (int64_t)r->at);
    }
    c->code[r->at] = (c->code[r->at] & 0xffffffffu) | (vm_insn)(uint32_t)d << 32;
  }
  return VM_OK;
}

static void asm_ctx_free(asm_ctx *c) {
  free(c->code);
  free(c->lines);
  free(c->k);
  free(c->funcs);
  free(c->labels);
  free(c->refs);
  for (size_t i = 0; i < c->nexpects; i++) free(c->expects[i].args);
  free(c->expects);
  free(c->bench);
}

/* Moves the assembled pieces into a vm_program (c keeps nothing). */
static vm_status asm_finish(asm_ctx *c, vm_program **out) {
  size_t main_index = SIZE_MAX;
  for (size_t i = 0; i < c->nfuncs; i++)
    if (strcmp(c->funcs[i].name, "main") == 0) main_index = i;
  if (main_index == SIZE_MAX) return vm_diag_set(c->diag, 0, "no function named 'main'");
  unsigned np = c->funcs[main_index].nparams;
  for (size_t i = 0; i < c->nexpects; i++)
    if (c->expects[i].nargs != np)
      return vm_diag_set(c->diag, c->expects[i].line, ".expect gives %zu argument%s, main takes %u",
                         c->expects[i].nargs, c->expects[i].nargs == 1 ? "" : "s", np);
  if (c->bench_line && c->nbench != np)
    return vm_diag_set(c->diag, c->bench_line, ".bench gives %zu argument%s, main takes %u",
                       c->nbench, c->nbench == 1 ? "" : "s", np);

  vm_program *p = calloc(1, sizeof *p);
  if (!p) return asm_nomem(c);
  p->funcs = calloc(c->nfuncs, sizeof *p->funcs);
  p->expects = calloc(c->nexpects ? c->nexpects : 1, sizeof *p->expects);
  if (!p->funcs || !p->expects) {
    vm_program_free(p);
    return asm_nomem(c);
  }
  p->nfuncs = c->nfuncs;
  for (size_t i = 0; i < c->nfuncs; i++) {
    p->funcs[i].name = strdup(c->funcs[i].name);
    if (!p->funcs[i].name) {
      vm_program_free(p);
      return asm_nomem(c);
    }
  }
  p->code = c->code, c->code = NULL;
  p->lines = c->lines, c->lines = NULL;
  p->ncode = c->ncode;
  p->k = c->k, c->k = NULL;
  p->nk = c->nk;
  for (size_t i = 0; i < c->nfuncs; i++) {
    p->funcs[i].code = p->code + c->funcs[i].start;
    p->funcs[i].nregs = c->funcs[i].nregs ? c->funcs[i].nregs : 1;
    p->funcs[i].nparams = c->funcs[i].nparams;
  }
  p->main_index = main_index;
  for (size_t i = 0; i < c->nexpects; i++) {
    p->expects[i].args = c->expects[i].args, c->expects[i].args = NULL;
    p->expects[i].nargs = c->expects[i].nargs;
    p->expects[i].result = c->expects[i].result;
  }
  p->nexpects = c->nexpects;
  if (c->bench_line) {
    /* a main without parameters still has a (zero-length) .bench */
    p->bench_args = c->bench ? c->bench : malloc(1);
    c->bench = NULL;
    if (!p->bench_args) {
      vm_program_free(p);
      return asm_nomem(c);
    }
    p->nbench_args = c->nbench;
  }
  *out = p;
  return VM_OK;
}

vm_status vm_program_assemble(const char *text, size_t len, vm_program **out, vm_diag *diag) {
  if (diag) {
    diag->line = 0;
    diag->message[0] = 0;
  }
  if (!text || !out) return VM_ERR_ARGUMENT;
  asm_ctx c = {0};
  c.diag = diag;
  vm_status st = VM_OK;
  int line = 0, func_line = 0;
  char buf[VM_LINE_MAX + 1];
  size_t i = 0;
  while (i < len && st == VM_OK) {
    line++;
    size_t j = i;
    while (j < len && text[j] != '\n') j++;
    if (j - i > VM_LINE_MAX) {
      st = vm_diag_set(diag, line, "line longer than %d characters", VM_LINE_MAX);
      break;
    }
    memcpy(buf, text + i, j - i);
    buf[j - i] = 0;
    if (strlen(buf) != j - i) {
      st = vm_diag_set(diag, line, "NUL byte in the text");
      break;
    }
    int was_in = c.in_func;
    st = asm_line(&c, buf, line);
    if (!was_in && c.in_func) func_line = line;
    i = j + 1;
  }
  if (st == VM_OK && c.in_func)
    st = vm_diag_set(diag, func_line, "function '%s' has no .end", c.funcs[c.nfuncs - 1].name);
  if (st == VM_OK) st = asm_resolve(&c);
  vm_program *p = NULL;
  if (st == VM_OK) st = asm_finish(&c, &p);
  if (st == VM_OK) st = vm_program_verify(p, diag);
  asm_ctx_free(&c);
  if (st != VM_OK) {
    vm_program_free(p);
    return st;
  }
  *out = p;
  return VM_OK;
}
