/* subroutine.c — subroutine threading: the code is a sequence of direct calls to the
 * handlers, so every dispatch is a `call` and a `ret`, both predicted perfectly (a direct
 * call, and the return stack buffer), and no indirect jump is left.
 *
 * A real subroutine-threaded VM generates that call sequence as machine code at load
 * time. Generating code at run time is out of scope here, so the call sequence is the
 * body of engine(), expanded at compile time from VM_PROGRAM: the same instruction stream
 * a loader would write. The one place it differs is the VM branch: `loop` is a call to
 * op_loop followed by a test and a backward jump in engine(), which is how subroutine-
 * threaded code compiles VM branches (native code inline between the calls).
 *
 * Hot symbols: engine (the call sequence), op_next1 .. op_next5, op_loop.
 */
#include "threading.h"

struct vm {
    uint64_t count, dispatches;
    int running;
};

#define HANDLER_(op)                                    \
    static VM_NOINLINE void op_##op(struct vm *vm)      \
    {                                                   \
        (void)vm;                                       \
        VM_MARK(op);                                    \
    }
VM_PLAIN_OPS(HANDLER_)
#undef HANDLER_

/* The calls since the last `loop` are the program's length by construction: the return
 * addresses are the instruction pointer, and there is no ip to subtract. */
static VM_NOINLINE void op_loop(struct vm *vm)
{
    vm->dispatches += VM_PROGRAM_LEN;
    vm->running = --vm->count != 0;
}

VM_NOINLINE uint64_t engine(uint64_t iters)
{
    if (iters == 0)
        return 0;
    struct vm vm = { .count = iters, .running = 1 };
#define CALL_(op) op_##op(&vm);
    do {
        VM_PROGRAM(CALL_)
    } while (vm.running);
#undef CALL_
    return vm.dispatches;
}

int main(int argc, char **argv) { return threading_main(argc, argv, "subroutine"); }
