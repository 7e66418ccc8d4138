/* switch.c — switch dispatch: a loop around one `switch` on the bytecode. Every VM
 * instruction goes back to the one range check and the one indirect jump through the
 * jump table at the top of the loop, so all dispatches share one `jmp *reg`: the
 * portable technique, and the shared-jump case of seed row S1 by construction.
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

    for (;;) {
        switch (*ip++) {
#define CASE_(op)   \
    case OP_##op:   \
        VM_MARK(op); \
        break;
            VM_PLAIN_OPS(CASE_)
#undef CASE_
        case OP_loop:
            dispatches += (uint64_t)(ip - start);
            if (--count == 0)
                return dispatches;
            ip = start;
            break;
        default:
            return UINT64_MAX; /* not an opcode: fails the check in threading_main */
        }
    }
}

int main(int argc, char **argv) { return threading_main(argc, argv, "switch"); }
