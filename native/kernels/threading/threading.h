/* threading.h — the VM program every interpreter-dispatch kernel runs (seed row S1).
 *
 * The benchmark follows the idea of Anton Ertl's "speed of various interpreter dispatch
 * techniques": a tiny VM whose instructions do nothing but dispatch, so that the time per
 * VM instruction is the cost of the dispatch technique itself. The program is
 *
 *     next1 next2 next1 next3 next1 next4 next1 next5 next1 loop
 *
 * 10 instructions = 10 dispatches per iteration; `loop` counts down and starts the
 * program again. The dispatch after `next1` goes to next2, next3, next4, next5 and loop in
 * turn. For a predictor that guesses "the same target as last time" per indirect jump:
 * with one jump per handler, next1's jump misses every time and the others never (5 of
 * 10 dispatches); with one `jmp *reg` shared by all handlers, every target differs from
 * the one before and all 10 miss. Predictors that also use the path history (Haswell
 * and later, in the seed's measurements) predict both almost perfectly; the shared jump
 * then costs only its extra `jmp`.
 *
 * One file per technique (direct.c, indirect.c, switch.c, repl-switch.c, call.c,
 * subroutine.c), each a harness kernel with one case named after it, 10 units
 * ("dispatch") per iteration. Each defines `engine(iters)`, a noinline function holding
 * the dispatch code; it returns the number of dispatches it executed, as counted by the
 * `loop` instruction, and threading_main() checks that this is exactly 10 * iters.
 *
 * Everything that describes the program comes from the one list VM_PROGRAM below; the
 * techniques expand it into label tables, bytecode or call sequences.
 */
#ifndef CPULAB_THREADING_H
#define CPULAB_THREADING_H

#include "cpulab_harness.h"

/* The program, in order: X(instruction) per VM instruction. */
#define VM_PROGRAM(X) \
    X(next1) X(next2) X(next1) X(next3) X(next1) X(next4) X(next1) X(next5) X(next1) X(loop)

/* The instruction set: the five that only dispatch, then `loop`. */
#define VM_PLAIN_OPS(X) X(next1) X(next2) X(next3) X(next4) X(next5)
#define VM_OPS(X) VM_PLAIN_OPS(X) X(loop)

#define VM_ONE_(op) +1
enum { VM_PROGRAM_LEN = 0 VM_PROGRAM(VM_ONE_) }; /* 10 */

/* Opcodes for the bytecode techniques (switch, repl-switch, indirect). */
#define VM_ENUM_(op) OP_##op,
enum vm_op { VM_OPS(VM_ENUM_) OP_COUNT_ };

#define VM_BYTE_(op) OP_##op,
static const unsigned char vm_bytecode[] __attribute__((unused)) = { VM_PROGRAM(VM_BYTE_) };

/* The body of the instructions next1..next5: no work, only a marker in the assembly
 * ("# vm next3") so that a listing shows where each handler starts. It emits no
 * instruction, but it makes every handler's code distinct, so the compiler cannot fold
 * the handlers into one (identical code folding would leave one label and no
 * per-handler dispatch at all); it does not stop the compiler from sharing the
 * dispatch sequence at their ends, which is the choice the experiment observes. */
#define VM_MARK(op) __asm__ volatile("# vm " #op)

/* The hot function must keep its name (no .constprop/.isra clones) so that disassembly
 * and callgrind --toggle-collect=engine find it: gcc's noipa also stops inlining and
 * cloning; clang does not clone noinline functions. */
#if defined(__clang__)
#define VM_NOINLINE __attribute__((noinline))
#else
#define VM_NOINLINE __attribute__((noipa))
#endif

/* What the check expects per iteration. Only a test overrides it (with a wrong value),
 * to see that a wrong dispatch count is caught. */
#ifndef VM_EXPECTED_PER_ITER
#define VM_EXPECTED_PER_ITER VM_PROGRAM_LEN
#endif

uint64_t engine(uint64_t iters);

static uint64_t threading_case_(uint64_t iters, void *arg)
{
    (void)arg;
    uint64_t got = engine(iters), want = (uint64_t)VM_EXPECTED_PER_ITER * iters;
    if (got != want)
        clh_fail("engine(%" PRIu64 ") executed %" PRIu64 " dispatches, expected %" PRIu64, iters,
                 got, want);
    return got;
}

/* main() of every technique's kernel: one case named `technique`, iters = loop count. */
static int threading_main(int argc, char **argv, const char *technique)
{
    clh_init(argc, argv);
    const clh_case cases[] = {
        { .name = technique, .fn = threading_case_, .units_per_iter = VM_PROGRAM_LEN,
          .unit = "dispatch" },
    };
    return clh_run(cases, 1);
}

#endif /* CPULAB_THREADING_H */
