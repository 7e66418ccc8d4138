/* opvm engine: one function per instruction, each ending in a tail call through the
 * handler table (musttail where the compiler has it: clang >= 13; gcc 12 turns these
 * calls into jumps at -O2 as sibling calls). `cpulab opprof --by-function` maps
 * samples by the handler's name. */
#include "opvm.h"

#if defined(__has_attribute)
#if __has_attribute(musttail)
#define MUSTTAIL __attribute__((musttail))
#endif
#endif
#ifndef MUSTTAIL
#define MUSTTAIL
#endif

typedef uint64_t handler(const opvm_insn *code, const opvm_insn *pc, opvm_state *st,
                         uint64_t acc);
static handler op_slow, op_work, op_mix, op_dec, op_jnz, op_halt;
static handler *const table[OPVM_NOPS] = {
    [OP_SLOW] = op_slow, [OP_WORK] = op_work, [OP_MIX] = op_mix,
    [OP_DEC] = op_dec, [OP_JNZ] = op_jnz, [OP_HALT] = op_halt,
};

#define NEXT() MUSTTAIL return table[pc->op](code, pc, st, acc)

__attribute__((noinline)) static uint64_t
op_slow(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    acc = opvm_spin(acc, pc->arg, 6364136223846793005u, 1442695040888963407u);
    pc++;
    NEXT();
}

__attribute__((noinline)) static uint64_t
op_work(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    acc = opvm_spin(acc, pc->arg, 2862933555777941757u, 3037000493u);
    pc++;
    NEXT();
}

__attribute__((noinline)) static uint64_t
op_mix(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    acc = opvm_spin(acc, pc->arg, 3202034522624059733u, 7u);
    pc++;
    NEXT();
}

__attribute__((noinline)) static uint64_t
op_dec(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    st->counter--;
    pc++;
    NEXT();
}

__attribute__((noinline)) static uint64_t
op_jnz(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    pc = st->counter != 0 ? code + pc->arg : pc + 1;
    NEXT();
}

__attribute__((noinline)) static uint64_t
op_halt(const opvm_insn *code, const opvm_insn *pc, opvm_state *st, uint64_t acc)
{
    (void)code;
    (void)pc;
    st->acc = acc;
    return acc;
}

uint64_t opvm_run(const opvm_insn *code, opvm_state *st)
{
    return table[code->op](code, code, st, st->acc);
}
