/* direct.c — direct threading: the code is a sequence of handler addresses (labels as
 * values) and every handler ends with `goto **ip++`.
 *
 * Written plainly, with no attribute or flag steering the compiler: whether each
 * handler gets its own `jmp *reg` or all of them jump to one shared `jmp *reg` is the
 * compiler's choice (tail merging of the identical dispatch sequences), which is what
 * seed row S1 compares: gcc 4.8 -O shared it, -O3 replicated it, 2.6x fewer cycles.
 *
 * Hot symbols: engine (every handler is a label inside it; `# vm nextN` markers in the
 * assembly show where each starts).
 */
#include "threading.h"

VM_NOINLINE uint64_t engine(uint64_t iters)
{
#define ADDR_(op) &&do_##op,
    static const void *const program[] = { VM_PROGRAM(ADDR_) };
#undef ADDR_
    /* A real VM writes its code at load time: hide the array's content so the compiler
     * cannot turn the first or the backward dispatch into a direct jump. */
    const void *const *start = program;
    __asm__("" : "+r"(start));
    const void *const *ip = start;
    uint64_t count = iters, dispatches = 0;
    if (count == 0)
        return 0;

#define NEXT goto **ip++
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

int main(int argc, char **argv) { return threading_main(argc, argv, "direct"); }
