/* indirect.c — indirect threading: the code is bytecode, each byte an index into a table
 * of handler addresses, and every handler ends with `goto *labels[*ip++]`: one more load
 * per dispatch than direct threading, in exchange for compact, position-independent code
 * (the form of computed-goto bytecode interpreters; classic Forth indirect threading
 * loads a code-field address instead of a table entry, the same extra indirection).
 *
 * Hot symbols: engine (every handler is a label inside it).
 */
#include "threading.h"

VM_NOINLINE uint64_t engine(uint64_t iters)
{
#define ADDR_(op) [OP_##op] = &&do_##op,
    static const void *const labels[OP_COUNT_] = { VM_OPS(ADDR_) };
#undef ADDR_
    const unsigned char *start = vm_bytecode; /* loaded code: content unknown to the compiler */
    __asm__("" : "+r"(start));
    const unsigned char *ip = start;
    uint64_t count = iters, dispatches = 0;
    if (count == 0)
        return 0;

#define NEXT goto *labels[*ip++]
    NEXT;
#define HANDLER_(op) \
    do_##op:         \
    VM_MARK(op);     \
    NEXT;
    VM_PLAIN_OPS(HANDLER_)
#undef HANDLER_
do_loop:
    dispatches += (uint64_t)(ip - start);
    if (--count == 0)
        return dispatches;
    ip = start;
    NEXT;
#undef NEXT
}

int main(int argc, char **argv) { return threading_main(argc, argv, "indirect"); }
