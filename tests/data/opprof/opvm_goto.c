/* opvm engine: computed goto (GNU labels as values), dispatch replicated at the end of
 * every handler. Each instruction starts at a label whose address is in the table, the
 * marker that `cpulab opprof` finds in the source, and a DW_TAG_label in the DWARF. */
#include "opvm.h"

#define DISPATCH() goto *table[(in = *pc++).op]

uint64_t opvm_run(const opvm_insn *code, opvm_state *st)
{
    static const void *const table[OPVM_NOPS] = {
        [OP_SLOW] = &&op_slow, [OP_WORK] = &&op_work, [OP_MIX] = &&op_mix,
        [OP_DEC] = &&op_dec, [OP_JNZ] = &&op_jnz, [OP_HALT] = &&op_halt,
    };
    const opvm_insn *pc = code;
    opvm_insn in;
    uint64_t acc = st->acc;
    DISPATCH();
op_slow:
    acc = opvm_spin(acc, in.arg, 6364136223846793005u, 1442695040888963407u);
    DISPATCH();
op_work:
    acc = opvm_spin(acc, in.arg, 2862933555777941757u, 3037000493u);
    DISPATCH();
op_mix:
    acc = opvm_spin(acc, in.arg, 3202034522624059733u, 7u);
    DISPATCH();
op_dec:
    st->counter--;
    DISPATCH();
op_jnz:
    if (st->counter != 0)
        pc = code + in.arg;
    DISPATCH();
op_halt:
    st->acc = acc;
    return acc;
}
