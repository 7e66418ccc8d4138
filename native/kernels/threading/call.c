/* call.c — call threading: each VM instruction is a function, the code is an array of
 * function pointers, and the engine's loop calls through them one after the other. Per
 * dispatch: load the next pointer, store the advanced ip (the handlers may change it, so
 * it lives in memory), an indirect call, a return, and the end-of-code test (the code
 * ends with a NULL entry, reached when `loop` stops restarting it).
 *
 * Hot symbols: engine (the dispatch loop and its one `call *reg`), op_next1 .. op_next5,
 * op_loop (the handlers).
 */
#include "threading.h"

struct vm;
typedef void (*vm_handler)(struct vm *);

struct vm {
    const vm_handler *ip, *start;
    uint64_t count, dispatches;
};

#define HANDLER_(op)                                    \
    static VM_NOINLINE void op_##op(struct vm *vm)      \
    {                                                   \
        (void)vm;                                       \
        VM_MARK(op);                                    \
    }
VM_PLAIN_OPS(HANDLER_)
#undef HANDLER_

static VM_NOINLINE void op_loop(struct vm *vm)
{
    vm->dispatches += (uint64_t)(vm->ip - vm->start);
    if (--vm->count != 0)
        vm->ip = vm->start; /* else ip stays on the NULL after the program: the engine stops */
}

#define FN_(op) op_##op,
static const vm_handler program[] = { VM_PROGRAM(FN_) NULL };
#undef FN_

VM_NOINLINE uint64_t engine(uint64_t iters)
{
    if (iters == 0)
        return 0;
    const vm_handler *start = program; /* loaded code: content unknown to the compiler */
    __asm__("" : "+r"(start));
    struct vm vm = { .ip = start, .start = start, .count = iters };
    for (;;) {
        vm_handler h = *vm.ip++;
        if (!h)
            return vm.dispatches;
        h(&vm);
    }
}

int main(int argc, char **argv) { return threading_main(argc, argv, "call"); }
