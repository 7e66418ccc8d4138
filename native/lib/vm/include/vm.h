/* vm: a small register bytecode VM, built once per dispatch technique.
 *
 * Values are NaN-boxed 64-bit words: a double is stored as itself; a 32-bit
 * integer, an array reference and nil live in the quiet-NaN space above
 * 0xFFF9 << 48 (x86's default NaN, 0xFFF8 << 48, stays a double). Every
 * arithmetic instruction checks the tags inline (the seed's ADDVN: "is it a
 * number? then add the constant") and sends anything unusual (mixed int and
 * float, int overflow, a bad index, a type error) to one generic slow path.
 *
 * Programs are written in a text form (see `vm_program_assemble`) and run by
 * any of the dispatch techniques below. All techniques are expanded from one
 * description of the instructions (internal/opcodes.h lists them,
 * internal/insns.def holds each handler body once), so they compute the same
 * results and execute the same number of VM instructions.
 *
 * Hot symbols per technique (what `cpulab asm` and profilers should look at):
 *   switch            vm_exec_switch                 one `switch`, one jump table
 *   goto-shared       vm_exec_goto_shared            one shared `jmp *` (forced)
 *   goto-replicated   vm_exec_goto_replicated        a `jmp *` at every handler
 *                                                    exit (clang: see below)
 *   call              vm_exec_call, vm_call_<OP>     a loop calling one function
 *                                                    per instruction (state in memory)
 *   tail              vm_tail_<OP>                   musttail chain, C convention
 *   tail-pn           vm_op_<OP>                     musttail chain, preserve_none
 *   trampoline        vm_exec_trampoline, vm_tramp_<OP>  the tail-call design
 *                                                    returning to a loop (portable)
 * <OP> is the upper-case instruction name (vm_op_ADDVN). Cold: vm_insn_slow
 * (all techniques), reached by the tail techniques through a tail call to
 * vm_tail__slow / vm_op__slow, so that no hot handler contains a call;
 * vm_exec_counted (the counting loop). The DWARF lines of every handler's
 * code point into internal/insns.def, where each body follows a
 * `VM_INSN(NAME)` marker; in the function-per-instruction techniques the
 * function name says it too.
 *
 * Build notes. clang 19 folds goto-replicated's per-handler jumps back into
 * one unless given -mllvm -tail-dup-pred-size=128 -mllvm -tail-dup-succ-size=128
 * (LLVM 18 stopped tail-duplicating blocks with more than 16 predecessors and
 * successors); the flags change no other technique. gcc 12 has no musttail:
 * its builds lack `tail` and `tail-pn`. Valgrind 3.19 needs -gdwarf-4 with
 * clang 19.
 *
 * Dispatch trace: a library built with -DVM_TRACE=1 records one uint32 per
 * dispatch (see VM_TRACE_* below) for the branch-predictor model; the default
 * build records nothing and costs nothing.
 *
 * NULL pointers (the one rule of every cpulab header): a pointer argument may be NULL only
 * where its comment says so. Every function that returns a vm_status checks the
 * others and returns VM_ERR_ARGUMENT for a NULL one, writing nothing (main's arguments
 * may be NULL when nargs is 0); the functions that return no status do not check (a NULL
 * there is undefined behaviour).
 */
#ifndef VM_H
#define VM_H

/* The version of this header and of the library built with it (semantic versioning).
 * VM_VERSION is MAJOR * 10000 + MINOR * 100 + PATCH, for use in #if. */
#define VM_VERSION_MAJOR 0
#define VM_VERSION_MINOR 2
#define VM_VERSION_PATCH 0
#define VM_VERSION (VM_VERSION_MAJOR * 10000 + VM_VERSION_MINOR * 100 + VM_VERSION_PATCH)
#define VM_VERSION_STRING "0.2.0"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Result of every fallible function. */
typedef enum vm_status {
  VM_OK = 0,
  VM_ERR_SYNTAX = 1,      /* the assembler rejected the text (see vm_diag) */
  VM_ERR_NOMEM = 2,       /* the host's malloc failed */
  VM_ERR_TYPE = 3,        /* an operand has the wrong type (e.g. array + 1) */
  VM_ERR_INDEX = 4,       /* array index out of bounds */
  VM_ERR_DIVZERO = 5,     /* integer division or modulo by zero */
  VM_ERR_STACK = 6,       /* call depth or register stack exhausted */
  VM_ERR_HEAP = 7,        /* the program allocated more than the heap limit */
  VM_ERR_ARGS = 8,        /* wrong number of arguments for `main` */
  VM_ERR_RANGE = 9,       /* a conversion or array length out of range */
  VM_ERR_UNAVAILABLE = 10,/* technique not built with this compiler, or no trace */
  VM_ERR_BADOP = 11,      /* an opcode outside the instruction set */
  VM_ERR_ARGUMENT = 12,   /* a bad argument to an API function */
} vm_status;

/* Short English text for a status ("type error"); never NULL. */
const char *vm_status_str(vm_status st);

/* ---- values ------------------------------------------------------------ */

typedef uint64_t vm_value;

typedef enum vm_kind { VM_KIND_FLOAT, VM_KIND_INT, VM_KIND_ARRAY, VM_KIND_NIL } vm_kind;

vm_value vm_value_int(int32_t i);
vm_value vm_value_float(double d);
vm_kind vm_value_kind(vm_value v);
int32_t vm_value_as_int(vm_value v);   /* the integer of a VM_KIND_INT value */
double vm_value_as_float(vm_value v);  /* the double of a VM_KIND_FLOAT value */

/* Writes `v` as text ("42", "-0.16907516382852447" with %.17g so that it reads
 * back exactly, "nil", "array[5]"); returns the length snprintf would. */
int vm_value_format(vm_value v, char *buf, size_t size);

/* Parses an integer (fits int32) or a float literal; VM_ERR_SYNTAX otherwise. */
vm_status vm_value_parse(const char *text, vm_value *out);

/* ---- programs ---------------------------------------------------------- */

/* Where the assembler stopped: 1-based line and a message naming the fault. */
typedef struct vm_diag {
  int line;
  char message[240];
} vm_diag;

typedef struct vm_program vm_program;

/* Assembles a program from its text form:
 *
 *   ; comment (also #)          .func NAME NPARAMS ... .end
 *   label:                      mnemonic operand, operand, ...
 *   .expect ARG... -> RESULT    a checked result of main(ARG...)
 *   .bench ARG...               main's arguments for benchmarks
 *
 * Operands are registers (r0..r255), integer immediates, number constants,
 * labels of the same function and function names, as each instruction's
 * signature says (`vm_opcode_signature`). Registers r0..NPARAMS-1 hold the
 * arguments; a CALL's arguments start at its register A, the callee's frame
 * begins there, and every register from A up is clobbered by the call (its
 * result lands in A). Execution starts at the function `main`.
 * The assembler also verifies each function: no register is read before it
 * is written on every path to it, and no path runs past the function's last
 * instruction (so a program never sees a stale value or leaves its code).
 * On error returns VM_ERR_SYNTAX (or VM_ERR_NOMEM) and fills `diag` if given;
 * *out is set only on success. */
vm_status vm_program_assemble(const char *text, size_t len, vm_program **out, vm_diag *diag);

/* Frees a program (NULL is fine). */
void vm_program_free(vm_program *p);

/* Number of `.expect` lines, and the i-th one: main's arguments and result.
 * The argument array stays owned by the program. */
size_t vm_program_expect_count(const vm_program *p);
vm_status vm_program_expect_get(const vm_program *p, size_t i, const vm_value **args,
                                size_t *nargs, vm_value *result);

/* main's arguments from `.bench` (nargs 0 and VM_ERR_ARGUMENT when none). */
vm_status vm_program_bench_args(const vm_program *p, const vm_value **args, size_t *nargs);

/* Static size: instructions in the code (all functions). */
size_t vm_program_code_size(const vm_program *p);

/* ---- instruction set (for tools and tests) ----------------------------- */

/* Number of opcodes, and for each its name ("ADDVN"; programs may write
 * mnemonics in any case, conventionally lower) and operand
 * signature: one letter per operand, W register written, R register read,
 * C call window, I integer immediate, K number constant, L label,
 * F function ("WRK" for addvn). NULL when out of range. */
int vm_opcode_count(void);
const char *vm_opcode_name(int op);
const char *vm_opcode_signature(int op);

/* ---- dispatch techniques ----------------------------------------------- */

typedef enum vm_technique {
  VM_TECH_SWITCH = 0,
  VM_TECH_GOTO_SHARED = 1,
  VM_TECH_GOTO_REPLICATED = 2,
  VM_TECH_CALL = 3,
  VM_TECH_TAIL = 4,
  VM_TECH_TAIL_PN = 5,
  VM_TECH_TRAMPOLINE = 6,
  VM_TECH_COUNT = 7,
} vm_technique;

/* "switch", "goto-shared", "goto-replicated", "call", "tail", "tail-pn",
 * "trampoline"; NULL when out of range. */
const char *vm_technique_name(vm_technique t);
vm_status vm_technique_parse(const char *name, vm_technique *out);

/* Whether this build contains the technique: the musttail ones need clang
 * (`musttail`; tail-pn also `preserve_none` on x86-64), and a build may
 * restrict itself to one technique with -DVM_ONLY=1 -DVM_ONLY_<TECH>=1. */
bool vm_technique_available(vm_technique t);

/* ---- running ----------------------------------------------------------- */

typedef struct vm_limits {
  size_t stack_values;  /* registers of all live frames (default 1 << 20) */
  size_t frames;        /* call depth (default 1 << 16) */
  size_t heap_bytes;    /* array memory per run (default 256 MiB) */
} vm_limits;

/* A machine owns the register stack, the call stack and the heap, reused
 * across runs so that a benchmark loop allocates nothing. Not thread-safe;
 * use one machine per thread. NULL limits = defaults; NULL on failure. */
typedef struct vm_machine vm_machine;
vm_machine *vm_machine_new(const vm_limits *limits);
void vm_machine_free(vm_machine *m); /* NULL is fine */

typedef struct vm_result {
  vm_status status;    /* VM_OK or the run-time error */
  vm_value value;      /* main's return value when status == VM_OK */
  int line;            /* source line of the faulting instruction, else 0 */
  uint64_t trace_len;  /* dispatches recorded or counted (trace/count only) */
} vm_result;

/* Runs main(args) with technique `t`. Returns the run's status (also in
 * res->status). The heap is reset at the start of each run. */
vm_status vm_machine_run(vm_machine *m, const vm_program *p, vm_technique t,
                         const vm_value *args, size_t nargs, vm_result *res);

/* Runs main(args) with a counting build of the switch loop and stores the
 * exact number of VM instructions executed in res->trace_len. Available in
 * every build; about 1.1x the switch loop's time. */
vm_status vm_machine_count(vm_machine *m, const vm_program *p, const vm_value *args,
                           size_t nargs, vm_result *res);

/* ---- dispatch trace (builds with -DVM_TRACE=1) --------------------------- */

/* One record per dispatch: the target handler's opcode in bits 0..7 and the
 * jump site in bits 8..23. Sites: 0 = the technique's one shared dispatch
 * (switch, goto-shared, call, trampoline); 1 + op + 256 * exit = the copy in
 * handler `op` on its way out `exit` (0 next instruction, 1 taken jump,
 * 2 call or return, 3 after the slow path) for goto-replicated, tail and
 * tail-pn; VM_SITE_SLOW = the dispatch of the tail techniques' shared
 * fallback handler; VM_SITE_ENTRY = the first dispatch of a run (replicated
 * techniques). Sites are the technique's design, not the compiler's output:
 * `cpulab asm` shows how many `jmp *` the binary really has (a handler's
 * int and float paths may each get their own). */
#define VM_TRACE_OP(rec) ((unsigned)(rec) & 0xffu)
#define VM_TRACE_SITE(rec) (((unsigned)(rec) >> 8) & 0xffffu)
#define VM_SITE_SHARED 0u
#define VM_SITE_SLOW 0xfffeu
#define VM_SITE_ENTRY 0xffffu

/* True when the library was built with -DVM_TRACE=1. */
bool vm_trace_built(void);

/* Records the next runs' dispatches into buf[0..cap); res->trace_len counts
 * every dispatch, including those past `cap` (then the trace is truncated).
 * buf NULL turns recording off. VM_ERR_UNAVAILABLE without VM_TRACE. */
vm_status vm_machine_set_trace(vm_machine *m, uint32_t *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* VM_H */
