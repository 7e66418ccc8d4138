/* opvm engine: one `switch` in a loop; each instruction is a `case OP_NAME:` block,
 * the marker that `cpulab opprof` finds in the source. */
#include "opvm.h"

uint64_t opvm_run(const opvm_insn *code, opvm_state *st)
{
    const opvm_insn *pc = code;
    uint64_t acc = st->acc;
    for (;;) {
        const opvm_insn in = *pc++;
        switch (in.op) {
        case OP_SLOW:
            acc = opvm_spin(acc, in.arg, 6364136223846793005u, 1442695040888963407u);
            break;
        case OP_WORK:
            acc = opvm_spin(acc, in.arg, 2862933555777941757u, 3037000493u);
            break;
        case OP_MIX:
            acc = opvm_spin(acc, in.arg, 3202034522624059733u, 7u);
            break;
        case OP_DEC:
            st->counter--;
            break;
        case OP_JNZ:
            if (st->counter != 0)
                pc = code + in.arg;
            break;
        case OP_HALT:
            st->acc = acc;
            return acc;
        }
    }
}
