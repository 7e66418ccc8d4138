/* repl-switch.c — replicated switch: the `switch` on the next opcode is repeated at the
 * end of every handler (NEXT below), so each handler has its own range check and its own
 * jump-table jump, as with direct threading, but still driven by bytecode and a switch.
 * The compiler may merge the identical switches back into one (tail merging); the
 * experiment shows which it did.
 *
 * Hot symbols: engine.
 */
#include "threading.h"

VM_NOINLINE uint64_t engine(uint64_t iters)
{
    const unsigned char *start = vm_bytecode; /* loaded code: content unknown to the compiler */
    __asm__("" : "+r"(start));
    const unsigned char *ip = start;
    uint64_t count = iters, dispatches = 0;
    if (count == 0)
        return 0;

#define GOTO_(op)   \
    case OP_##op:   \
        goto do_##op;
#define NEXT                       \
    do {                           \
        switch (*ip++) {           \
            VM_OPS(GOTO_)          \
        default:                   \
            return UINT64_MAX;     \
        }                          \
    } while (0)
    NEXT;
    /* Written out: NEXT expands VM_OPS, which cannot be expanded again from inside a
     * VM_PLAIN_OPS expansion. A handler missing here is a compile error (the switch
     * names its label). */
do_next1:
    VM_MARK(next1);
    NEXT;
do_next2:
    VM_MARK(next2);
    NEXT;
do_next3:
    VM_MARK(next3);
    NEXT;
do_next4:
    VM_MARK(next4);
    NEXT;
do_next5:
    VM_MARK(next5);
    NEXT;
do_loop:
    dispatches += (uint64_t)(ip - start);
    if (--count == 0)
        return dispatches;
    ip = start;
    NEXT;
#undef NEXT
#undef GOTO_
}

int main(int argc, char **argv) { return threading_main(argc, argv, "repl-switch"); }
